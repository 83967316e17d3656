"""The xarray backend (engine="turbozarr") against xarray's own zarr backend.

Every dataset here is written by ``Dataset.to_zarr`` (zarr-python) and opened
with both engines; the loaded datasets must be identical (values, dtypes,
attributes, coordinates) and so must the encodings xarray writes back from
(dtype, _FillValue, fill_value, chunks, shards, preferred_chunks, the CF
attributes). Also: laziness, outer and vectorized indexing, pickling, dask,
DataTree, the registered engine name, bad input and the docs example.
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
pd = pytest.importorskip("pandas")

import turbozarr as tz  # noqa: E402
from turbozarr.xarray_backend import (  # noqa: E402
    TurbozarrBackendEntrypoint,
    read_outer,
)

E = TurbozarrBackendEntrypoint

# zarr-python warns about v3 dtypes without a spec (fixed-width strings),
# about consolidated metadata, and xarray about non-consolidated stores.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning",
                                        "ignore::FutureWarning")

NT, NX, NY = 10, 7, 9


def source_dataset() -> xr.Dataset:
    """One of everything xarray encodes: CF times and timedeltas, packed
    integers (scale_factor/add_offset/_FillValue), NaNs under a float
    _FillValue, integer _FillValue, strings (variable and fixed width,
    unicode and bytes), complex, bool, float16, uint64, a 0-d variable,
    dimension and non-dimension coordinates, attributes."""
    rng = np.random.default_rng(7)
    v = rng.standard_normal((NT, NX, NY)).astype("f4")
    v[0, 0, :3] = np.nan
    temp = (rng.standard_normal((NT, NX)) * 10 + 280).astype("f8")
    temp[1, 2] = np.nan
    count = rng.integers(0, 1000, (NT,)).astype("i4")
    times = pd.date_range("2001-02-03", periods=NT, freq="6h").values.copy()
    times[3] = np.datetime64("NaT")
    ds = xr.Dataset(
        {
            "v": (("t", "x", "y"), v, {"long_name": "a float variable", "units": "m"}),
            "temp": (("t", "x"), temp, {"standard_name": "air_temperature"}),
            "count": (("t",), count),
            "name": (("x",), np.array(["a", "bb", "", "dddd", "é漢", "f", "gg"], dtype=object)),
            "code": (("x",), np.array(["ab", "c", "", "d", "ef", "g", "hi"], dtype="U2")),
            "flag": (("x",), np.array([b"a", b"b", b"", b"cd", b"e", b"f", b"g"], dtype="S2")),
            "when": (("t",), times),
            "lag": (("t",), (np.arange(NT) * np.timedelta64(90, "m")).astype("m8[ns]"),
                    {"note": "a timedelta"}),
            "wave": (("x",), np.array([1 + 2j, 3, np.nan, 5, 6j, -1j, 0], dtype="c16")),
            "mask": (("y",), np.arange(NY) % 3 == 0),
            "half": (("y",), np.linspace(-1, 1, NY, dtype="f2")),
            "big": (("y",), np.arange(NY, dtype="u8") * 2**60),
            "scalar": ((), 3.5, {"kind": "0-d"}),
        },
        coords={
            "t": pd.date_range("2000-01-01", periods=NT, freq="D"),
            "x": np.arange(NX) * 10.0,
            "y": np.arange(NY, dtype="i2"),
            "lat": (("x", "y"), np.linspace(-60, 60, NX * NY).reshape(NX, NY)),
            "label": ("y", [f"y{i}" for i in range(NY)]),
        },
        attrs={"title": "turbozarr xarray backend test", "version": 3, "list": [1, 2]},
    )
    ds["temp"].encoding.update(dtype="i2", scale_factor=0.01, add_offset=280.0,
                               _FillValue=-32768)
    ds["count"].encoding["_FillValue"] = -1
    ds["when"].encoding["units"] = "hours since 2001-01-01"
    return ds


CHUNKINGS = {
    "whole": {},
    "small": {"v": {"chunks": (3, 4, 5)}, "temp": {"chunks": (4, 3)},
              "t": {"chunks": (3,)}, "name": {"chunks": (2,)}},
    "sharded": {"v": {"chunks": (2, 3, 3), "shards": (4, 6, 9)},
                "temp": {"chunks": (2, 7), "shards": (10, 7)}},
}

CASES = [(fmt, consolidated, chunking)
         for fmt in (2, 3) for consolidated in (True, False) for chunking in CHUNKINGS
         if not (chunking == "sharded" and fmt == 2)]


def _case_id(case) -> str:
    fmt, consolidated, chunking = case
    return f"v{fmt}-{'consolidated' if consolidated else 'plain'}-{chunking}"


def write(ds: xr.Dataset, path: Path, fmt: int, consolidated: bool, chunking: str) -> Path:
    encoding = {name: dict(enc) for name, enc in CHUNKINGS[chunking].items()}
    ds.to_zarr(path, mode="w", zarr_format=fmt, consolidated=consolidated, encoding=encoding)
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("xarray_backend")
    ds = source_dataset()
    return {case: write(ds, root / f"{_case_id(case)}.zarr", *case) for case in CASES}


# The encoding keys both engines must agree on (xarray writes back from them).
ENCODING_KEYS = ("dtype", "_FillValue", "fill_value", "chunks", "shards", "scale_factor",
                 "add_offset", "units", "calendar")


def _same(a, b) -> bool:
    if isinstance(a, np.dtype) or isinstance(b, np.dtype):
        return np.dtype(a) == np.dtype(b)
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    return a.dtype == b.dtype and np.array_equal(a, b)


def assert_same_encoding(expected: xr.Dataset, actual: xr.Dataset, sharded_ok=True) -> None:
    for name, var in expected.variables.items():
        enc_e, enc_a = var.encoding, actual[name].encoding
        for key in ENCODING_KEYS:
            assert (key in enc_e) == (key in enc_a), (name, key, enc_e, enc_a)
            if key in enc_e:
                assert _same(enc_e[key], enc_a[key]), (name, key, enc_e[key], enc_a[key])
        # preferred_chunks: the shard shape when sharded (one dask chunk per
        # shard), else the chunk shape as engine="zarr" has it.
        shards = enc_e.get("shards")
        want = (dict(zip(var.dims, shards)) if shards is not None
                else enc_e["preferred_chunks"])
        assert enc_a["preferred_chunks"] == want, (name, enc_a["preferred_chunks"], want)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("options", [
    {},
    {"mask_and_scale": False, "decode_times": False, "decode_timedelta": False},
    {"drop_variables": ["name", "v"], "decode_coords": False, "concat_characters": False},
    {"decode_cf": False},
], ids=["decoded", "raw", "dropped", "undecoded"])
def test_same_dataset_as_engine_zarr(stores, case, options) -> None:
    path = stores[case]
    consolidated = case[1]
    expected = xr.open_dataset(path, engine="zarr", consolidated=consolidated, **options)
    actual = xr.open_dataset(path, engine=E, consolidated=consolidated, **options)
    assert set(actual.variables) == set(expected.variables)
    assert_same_encoding(expected, actual)
    xr.testing.assert_identical(actual.load(), expected.load())
    for name in expected.variables:
        assert actual[name].dtype == expected[name].dtype, name


def test_v2_big_endian(tmp_path) -> None:
    ds = source_dataset()[["v", "temp"]]
    path = tmp_path / "big_endian.zarr"
    ds.to_zarr(path, zarr_format=2, encoding={"v": {"dtype": ">f4"}, "temp": {"dtype": ">i4"}})
    expected = xr.open_dataset(path, engine="zarr")
    actual = xr.open_dataset(path, engine=E)
    assert tz.open_array(str(path / "v")).dtype == np.dtype(">f4")  # as stored
    assert_same_encoding(expected, actual)
    xr.testing.assert_identical(actual.load(), expected.load())


def test_values_are_the_written_ones(stores) -> None:
    # Not only the same as engine="zarr": what was written.
    ds = source_dataset()
    actual = xr.open_dataset(stores[(3, True, "sharded")], engine=E).load()
    for name in ("v", "count", "when", "lag", "x", "y", "t", "lat", "label", "flag"):
        np.testing.assert_array_equal(actual[name].values, ds[name].values, err_msg=name)
    np.testing.assert_allclose(actual["temp"].values, ds["temp"].values, atol=0.006)
    assert np.isnan(actual["temp"].values[1, 2])
    assert actual["name"].values.tolist() == ds["name"].values.tolist()
    assert actual["code"].values.tolist() == ds["code"].values.tolist()
    assert actual.attrs == ds.attrs
    assert actual["v"].attrs == {"long_name": "a float variable", "units": "m"}
    assert set(actual.coords) == {"t", "x", "y", "lat", "label"}


@pytest.mark.parametrize("case", [(2, True, "small"), (3, False, "sharded")], ids=_case_id)
def test_dask_chunks_follow_preferred_chunks(stores, case) -> None:
    pytest.importorskip("dask")
    path = stores[case]
    expected = xr.open_dataset(path, engine="zarr", chunks={})
    actual = xr.open_dataset(path, engine=E, chunks={})
    assert actual["v"].chunks is not None
    want = actual["v"].encoding["shards"] or actual["v"].encoding["chunks"]
    assert tuple(c[0] for c in actual["v"].chunks) == tuple(want)
    xr.testing.assert_identical(actual.compute(), expected.compute())
    # through pickle, as dask.distributed ships the graph
    again = pickle.loads(pickle.dumps(actual))
    xr.testing.assert_identical(again.compute(), expected.compute())


def test_dask_processes_scheduler(stores) -> None:
    # Every task pickled into other processes, which open the store again.
    pytest.importorskip("dask")
    path = stores[(3, True, "sharded")]
    actual = xr.open_dataset(path, engine=E, chunks={}).compute(scheduler="processes")
    xr.testing.assert_identical(actual, xr.open_dataset(path, engine="zarr").load())


def test_pickle_round_trip_of_lazy_dataset(stores) -> None:
    path = stores[(3, True, "sharded")]
    lazy = xr.open_dataset(path, engine=E)
    again = pickle.loads(pickle.dumps(lazy))
    expected = xr.open_dataset(path, engine="zarr").load()
    xr.testing.assert_identical(again.load(), expected)
    # an indexed lazy variable too
    sub = pickle.loads(pickle.dumps(xr.open_dataset(path, engine=E)["v"][2:7, ::2]))
    np.testing.assert_array_equal(sub.values, expected["v"].values[2:7, ::2])


def test_store_object_datasets_do_not_pickle(stores) -> None:
    m = tz.MetricsStore(tz.open_store(str(stores[(3, True, "small")])))
    ds = xr.open_dataset(m, engine=E)
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(ds)


# -- indexing ------------------------------------------------------------------------


def test_outer_indexing(stores) -> None:
    path = stores[(3, True, "small")]
    full = xr.open_dataset(path, engine="zarr")["v"].values
    lazy = xr.open_dataset(path, engine=E)["v"]
    np.testing.assert_array_equal(lazy[[0, 2, 5], 1:7].values, full[[0, 2, 5], 1:7])
    np.testing.assert_array_equal(lazy[[9, 0, 0, 4], 3, [8, 1, 2]].values,
                                  full[np.ix_([9, 0, 0, 4], [3], [8, 1, 2])][:, 0])
    np.testing.assert_array_equal(lazy[-1, ::-2, [-1, 0]].values, full[-1, ::-2][:, [-1, 0]])
    np.testing.assert_array_equal(lazy[5, 4, 3].values, full[5, 4, 3])
    np.testing.assert_array_equal(lazy[[], 1].values, full[[], 1])
    # vectorized (pointwise) indexing goes through the outer reads
    pts = lazy.isel(t=xr.DataArray([1, 8, 3], dims="p"), x=xr.DataArray([6, 0, 2], dims="p"))
    np.testing.assert_array_equal(pts.values, full[[1, 8, 3], [6, 0, 2]])
    # strings
    names = xr.open_dataset(path, engine=E)["name"]
    assert names[[0, 3, 6]].values.tolist() == ["a", "dddd", "gg"]


def test_read_outer_matches_numpy_and_skips_chunks(tmp_path) -> None:
    rng = np.random.default_rng(3)
    data = rng.standard_normal((40, 30)).astype("f4")
    a = tz.create(str(tmp_path / "a.zarr"), shape=data.shape, dtype="f4", chunks=(8, 7))
    a[...] = data
    for _ in range(30):
        rows = np.sort(rng.choice(40, size=rng.integers(1, 12)))
        cols = np.sort(rng.integers(0, 30, size=rng.integers(1, 9)))  # repeats too
        got = read_outer(a, (rows, cols))
        np.testing.assert_array_equal(got, data[np.ix_(rows, cols)])
        got = read_outer(a, (int(rows[0]), cols))
        np.testing.assert_array_equal(got, data[rows[0], cols])
    np.testing.assert_array_equal(read_outer(a, (slice(3, 30, 4), np.array([2, 29]))),
                                  data[3:30:4][:, [2, 29]])


def test_outer_reads_touch_only_selected_chunks(tmp_path) -> None:
    data = np.arange(64 * 64, dtype="i4").reshape(64, 64)
    a = tz.create(str(tmp_path / "b.zarr"), shape=data.shape, dtype="i4", chunks=(8, 8))
    a[...] = data
    m = tz.MetricsStore(tz.open_store(str(tmp_path / "b.zarr")))
    b = tz.open_array(m)
    m.reset_metrics()
    got = read_outer(b, (np.array([0, 1, 60]), np.array([5, 40, 41])))
    np.testing.assert_array_equal(got, data[np.ix_([0, 1, 60], [5, 40, 41])])
    assert m.metrics()["gets"] == 4  # chunk rows {0, 7} x chunk columns {0, 5}


# -- laziness ------------------------------------------------------------------------


def test_open_reads_no_data_chunks(tmp_path) -> None:
    path = write(source_dataset(), tmp_path / "lazy.zarr", 3, True, "small")
    # Garbage in every chunk of "v": opening must not notice, loading must.
    for key in os.listdir(path / "v" / "c"):
        for dirpath, _, files in os.walk(path / "v" / "c" / key):
            for f in files:
                Path(dirpath, f).write_bytes(b"not zstd data")
    ds = xr.open_dataset(path, engine=E)
    assert ds["v"].shape == (NT, NX, NY)
    ds["temp"].load()
    with pytest.raises(tz.CorruptionError):
        ds["v"].load()


def test_reads_counted(stores) -> None:
    m = tz.MetricsStore(tz.open_store(str(stores[(3, True, "small")])))
    ds = xr.open_dataset(m, engine=E)
    at_open = m.metrics()["gets"]
    v = ds["v"].variable  # without its non-index coordinates (lat, label)
    v[0, 0, 0].load()
    assert m.metrics()["gets"] - at_open == 1  # one chunk of v
    v.load()
    n_chunks = 4 * 2 * 2  # (10, 7, 9) in chunks of (3, 4, 5)
    assert m.metrics()["gets"] - at_open == 1 + n_chunks


# -- groups and consolidated metadata --------------------------------------------------


def _tree() -> xr.DataTree:
    ds = source_dataset()
    return xr.DataTree.from_dict({
        "/": ds[["count", "when"]].assign_attrs(level="root"),
        "/a": ds[["v"]].drop_vars(["lat", "label"]).assign_attrs(level="a"),
        "/a/deeper": xr.Dataset({"z": ("t", np.arange(NT, dtype="u2"))},
                                attrs={"level": "deeper"}),
        "/b": ds[["name", "code"]],
    })


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("consolidated", [True, False])
def test_open_datatree_and_groups(tmp_path, fmt, consolidated) -> None:
    path = tmp_path / "tree.zarr"
    _tree().to_zarr(path, mode="w", zarr_format=fmt, consolidated=consolidated)
    expected = xr.open_datatree(path, engine="zarr", consolidated=consolidated).load()
    actual = xr.open_datatree(path, engine=E, consolidated=consolidated)
    xr.testing.assert_identical(actual.load(), expected)
    sub_e = xr.open_datatree(path, engine="zarr", group="a").load()
    sub_a = xr.open_datatree(path, engine=E, group="a")
    xr.testing.assert_identical(sub_a.load(), sub_e)
    groups = E().open_groups_as_dict(str(path), group="a")
    assert sorted(groups) == sorted(xr.backends.ZarrBackendEntrypoint()
                                    .open_groups_as_dict(str(path), group="a"))
    ds_e = xr.open_dataset(path, engine="zarr", group="a/deeper")
    ds_a = xr.open_dataset(path, engine=E, group="/a/deeper/")
    xr.testing.assert_identical(ds_a.load(), ds_e.load())
    assert ds_a.attrs == {"level": "deeper"}


@pytest.mark.parametrize("fmt", [2, 3])
def test_consolidated_false_reads_current_metadata(tmp_path, fmt) -> None:
    path = write(source_dataset(), tmp_path / "stale.zarr", fmt, True, "whole")
    # A change after consolidation: only the array's own metadata has it.
    zarr.open_array(path / "v", mode="r+").attrs["added"] = "later"
    for consolidated in (None, True, False):
        expected = xr.open_dataset(path, engine="zarr", consolidated=consolidated)
        actual = xr.open_dataset(path, engine=E, consolidated=consolidated)
        assert actual["v"].attrs.get("added") == expected["v"].attrs.get("added")
        xr.testing.assert_identical(actual.load(), expected.load())
    assert xr.open_dataset(path, engine=E, consolidated=False)["v"].attrs["added"] == "later"
    assert "added" not in xr.open_dataset(path, engine=E)["v"].attrs


def test_consolidated_true_needs_consolidated_metadata(stores) -> None:
    path = stores[(3, False, "whole")]
    with pytest.raises(ValueError, match="no consolidated metadata"):
        xr.open_dataset(path, engine=E, consolidated=True)


# -- the engine by name, options, bad input ------------------------------------------------


@pytest.fixture
def registered(monkeypatch):
    """engine="turbozarr" as the installed entry point provides it."""
    from xarray.backends import common, plugins
    monkeypatch.setitem(common.BACKEND_ENTRYPOINTS, "turbozarr",
                        ("turbozarr", TurbozarrBackendEntrypoint))
    plugins.refresh_engines()
    yield
    monkeypatch.undo()
    plugins.refresh_engines()


def test_engine_by_name(stores, registered) -> None:
    path = stores[(2, True, "small")]
    assert "turbozarr" in xr.backends.list_engines()
    actual = xr.open_dataset(path, engine="turbozarr").load()
    xr.testing.assert_identical(actual, xr.open_dataset(path, engine="zarr").load())
    # zarr-python is installed: ".zarr" paths stay its by default
    assert not TurbozarrBackendEntrypoint().guess_can_open(str(path))
    assert xr.backends.plugins.guess_engine(str(path)) == "zarr"


def test_zarr_format_and_fill_value_mask_options(stores) -> None:
    path = stores[(3, True, "whole")]
    with pytest.raises(FileNotFoundError, match="zarr_format 3, not 2"):
        xr.open_dataset(path, engine=E, zarr_format=2)
    # the fill value taken as the mask, as v2 data has it by default
    actual = xr.open_dataset(path, engine=E, use_zarr_fill_value_as_mask=True)
    for name in ("v", "count"):  # the v3 arrays' fill values: NaN, 0
        fill_value = zarr.open_array(path / name).fill_value
        assert _same(actual[name].encoding["_FillValue"], fill_value), name
        assert "fill_value" not in actual[name].encoding
    assert actual["t"].values[0] != actual["t"].values[0]  # day 0 became NaT
    # (engine="zarr" passes the option on to its store only when opened directly)
    expected = xr.open_dataset(xr.backends.ZarrStore.open_group(
        str(path), mode="r", consolidated=True, use_zarr_fill_value_as_mask=True))
    xr.testing.assert_identical(actual.load(), expected.load())


def test_not_a_zarr_group(tmp_path) -> None:
    plain = tmp_path / "plain_dir"
    plain.mkdir()
    (plain / "file.txt").write_text("not zarr")
    with pytest.raises(FileNotFoundError, match=re.escape(str(plain))):
        xr.open_dataset(plain, engine=E)
    missing = tmp_path / "missing.zarr"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        xr.open_dataset(missing, engine=E)
    a = tz.create(str(tmp_path / "array.zarr"), shape=(3,), dtype="i4")
    with pytest.raises(FileNotFoundError, match="array.zarr"):
        xr.open_dataset(a.store, engine=E)
    with pytest.raises(ValueError, match="read-only"):
        xr.open_dataset(plain, engine=E, mode="r+")
    with pytest.raises(TypeError, match="not bytes"):
        xr.open_dataset(str(plain).encode(), engine=E)


def test_array_without_dimension_names(tmp_path) -> None:
    g = tz.group(str(tmp_path / "nodims.zarr"))
    g.create_array("a", shape=(4,), dtype="i4")
    with pytest.raises(KeyError, match="dimension_names"):
        xr.open_dataset(tmp_path / "nodims.zarr", engine=E)


# -- the documentation ---------------------------------------------------------------


def test_docs_example_runs(tmp_path, registered, monkeypatch) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "xarray.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(doc), "exec"), {})
    shutil.rmtree(tmp_path, ignore_errors=True)
