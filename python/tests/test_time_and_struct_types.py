"""datetime64 / timedelta64 and structured (struct) arrays, v2 and v3, both
directions against zarr-python: element bytes, reported dtype, fill values
(NaT, field objects) and the metadata each side writes.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import turbozarr as tz
from support_records import peer

zarr = pytest.importorskip("zarr")
ZARR = peer("zarr")

pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrFutureWarning",
                                        "ignore::zarr.errors.ZarrUserWarning",
                                        "ignore::UserWarning")

ZARR_VERSION = tuple(int(p) for p in zarr.__version__.split(".")[:2])
# zarr-python names v3 structs "struct" (with field objects) from 3.2 on;
# 3.1 also misreads nested and time-bearing v2 structs.
STRUCTS = ZARR_VERSION >= (3, 2)

NESTED = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", [("x", "u1"), ("y", "S3")])])
FLAT = np.dtype([("id", "<u2"), ("t", "<M8[s]"), ("v", "<f4"), ("name", "<U3")])

DTYPES = [
    np.dtype("M8[ns]"),
    np.dtype("M8[D]"),
    np.dtype("M8[10s]"),
    np.dtype("m8[ms]"),
    np.dtype("m8[2h]"),
    FLAT,
    NESTED,
]


def random_values(dt: np.dtype, shape, rng: np.random.Generator) -> np.ndarray:
    """Random bit patterns; times include NaT; fixed strings without NULs."""
    n = int(np.prod(shape))
    if dt.kind in "Mm":
        counts = rng.integers(-(2**40), 2**40, size=n)
        counts[rng.random(n) < 0.2] = np.iinfo(np.int64).min
        return counts.view(dt).reshape(shape)
    out = np.zeros(n, dtype=dt)
    for name in dt.names:
        field = dt.fields[name][0]
        if field.fields is not None:
            out[name] = random_values(field, (n,), rng)
        elif field.kind == "S":
            out[name] = [b"ab"[: rng.integers(0, 3)] + b"z" * rng.integers(0, 2) for _ in range(n)]
        elif field.kind == "U":
            out[name] = ["xé🙂"[: rng.integers(0, 4)] for _ in range(n)]
        elif field.kind in "Mm":
            out[name] = random_values(field, (n,), rng)
        else:
            raw = rng.integers(0, 256, size=n * field.itemsize, dtype=np.uint8)
            out[name] = raw.view(field)
    return out.reshape(shape)


def assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    """Same dtype, shape and element bytes (NaN and NaT compared by bits)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape
    assert np.ascontiguousarray(actual).tobytes() == np.ascontiguousarray(expected).tobytes()


def case_id(dt: np.dtype) -> str:
    return "struct" if dt == FLAT else "nested" if dt == NESTED else str(dt)


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dt", DTYPES, ids=case_id)
def test_zarr_python_writes_turbozarr_reads_and_writes_back(tmp_path, rng, dt, zarr_format,
                                                            supports):
    if dt.fields is not None and not STRUCTS:
        pytest.skip("this zarr-python's structs differ from 3.2's")
    if dt == FLAT and zarr_format == 2:
        pytest.skip("zarr-python cannot write v2 structs with time fields (numcodecs "
                    "refuses 'M' in a buffer); test_v2_subarray_fields_round_trip covers ours")
    path = str(tmp_path / "a.zarr")
    data = random_values(dt, (7, 5), rng)
    z = zarr.create_array(path, shape=(9, 5), chunks=(3, 2), dtype=dt, zarr_format=zarr_format)
    z[:7] = data
    a = tz.open_array(path, mode="r+")
    assert a.dtype == z.dtype
    assert_same(a.fill_value, z.fill_value)
    assert_same(a[...], z[...])                  # rows 7.. are missing: the fill value
    assert_same(a[1:8:3, ::2], z[1:8:3, ::2])
    # Part of a chunk written by turbozarr, read by zarr-python.
    patch = random_values(dt, (2, 3), rng)
    a[4:6, 1:4] = patch
    expected = z[...]
    expected[4:6, 1:4] = patch
    assert_same(zarr.open_array(path)[...], expected)
    supports.array(a, ["read", "write"], peer=ZARR)


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dt", DTYPES, ids=case_id)
def test_turbozarr_writes_what_zarr_python_writes(tmp_path, rng, dt, zarr_format, supports):
    if dt.fields is not None and not STRUCTS:
        pytest.skip("this zarr-python's structs differ from 3.2's")
    ours, theirs = str(tmp_path / "ours.zarr"), str(tmp_path / "theirs.zarr")
    data = random_values(dt, (6, 4), rng)
    a = tz.create(ours, shape=(6, 4), chunks=(4, 3), dtype=dt, zarr_format=zarr_format)
    a[...] = data
    zarr.create_array(theirs, shape=(6, 4), chunks=(4, 3), dtype=dt, zarr_format=zarr_format)
    assert_same(zarr.open_array(ours)[...], data)
    supports.array(a, "write", peer=ZARR)
    # The data type and default fill value are spelled as zarr-python spells them.
    doc = ".zarray" if zarr_format == 2 else "zarr.json"
    with open(os.path.join(ours, doc)) as f:
        mine = json.load(f)
    with open(os.path.join(theirs, doc)) as f:
        reference = json.load(f)
    key = "dtype" if zarr_format == 2 else "data_type"
    assert mine[key] == reference[key]
    assert mine["fill_value"] == reference["fill_value"]


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_fill_values_of_every_field(tmp_path, zarr_format):
    if not STRUCTS:
        pytest.skip("this zarr-python's structs differ from 3.2's")
    fill = np.array((7, np.datetime64("2001-02-03T04:05:06", "s"), -1.5, "hé"), dtype=FLAT)[()]
    path = str(tmp_path / "f.zarr")
    a = tz.create(path, shape=(3,), chunks=(2,), dtype=FLAT, fill_value=fill,
                  zarr_format=zarr_format)
    assert_same(a.fill_value, fill)
    z = zarr.open_array(path)
    assert_same(z.fill_value, fill)
    assert_same(z[...], np.full(3, fill, dtype=FLAT))
    assert_same(a[...], np.full(3, fill, dtype=FLAT))
    # NaT as a time array's fill value, written and read by both.
    nat = tz.create(str(tmp_path / "t.zarr"), shape=(2,), chunks=(1,), dtype="M8[us]",
                    fill_value=np.datetime64("NaT"), zarr_format=zarr_format)
    assert np.isnat(nat.fill_value)
    assert np.isnat(zarr.open_array(str(tmp_path / "t.zarr"))[...]).all()


@pytest.mark.skipif(not STRUCTS, reason="this zarr-python's structs differ from 3.2's")
def test_big_endian_v2_times_and_structs(tmp_path, rng, supports):
    for i, dt in enumerate([np.dtype(">M8[ms]"), np.dtype([("a", ">i4"), ("s", "S2")])]):
        path = str(tmp_path / f"be{i}.zarr")
        data = random_values(dt, (5,), rng)
        z = zarr.create_array(path, shape=(5,), chunks=(2,), dtype=dt, zarr_format=2)
        z[...] = data
        a = tz.open_array(path, mode="r+")
        assert a.dtype == z.dtype
        assert_same(a[...], z[...])
        a[1:3] = data[3:5]
        expected = data.copy()
        expected[1:3] = data[3:5]
        assert_same(zarr.open_array(path)[...], expected)
        supports.array(a, ["read", "write"], peer=ZARR)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_generic_unit_times_in_either_byte_order(tmp_path, zarr_format):
    # numpy's cast between byte orders leaves generic-unit times unswapped:
    # writes swap them by hand.
    for i, dt in enumerate([np.dtype(">M8[2generic]"), np.dtype("<m8[7generic]")]):
        counts = np.array([0, 1, -2, 100], dtype=dt.byteorder + "i8")
        path = str(tmp_path / f"g{i}.zarr")
        a = tz.create(path, shape=(6,), chunks=(2,), dtype=dt, zarr_format=zarr_format)
        a[:4] = counts.view(dt)
        got = a[...]
        assert np.datetime_data(got.dtype) == np.datetime_data(dt)
        assert got[:4].view(got.dtype.byteorder.replace("=", "<") + "i8").tolist() == \
            counts.tolist()
        # (np.isnat misreads big-endian times: compare the counts)
        assert got[4:].view(got.dtype.byteorder.replace("=", "<") + "i8").tolist() == \
            [-(2**63)] * 2


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_python_values_write_struct_elements(tmp_path, zarr_format):
    a = tz.create(str(tmp_path / "t.zarr"), shape=(3,), chunks=(2,), dtype=NESTED,
                  zarr_format=zarr_format)
    a[1] = (5, 2.5, (7, b"ab"))               # one element as a tuple
    a[2:] = [(6, -1.0, (8, b"c"))]            # a list of them
    expected = np.zeros(3, dtype=NESTED)
    expected[1] = (5, 2.5, (7, b"ab"))
    expected[2] = (6, -1.0, (8, b"c"))
    assert_same(a[...], expected)


def test_v2_subarray_fields_round_trip(tmp_path, rng):
    dt = np.dtype([("t", "<m8[s]"), ("xy", "<f4", (2, 3))])
    path = str(tmp_path / "sub.zarr")
    data = np.zeros(4, dtype=dt)
    data["t"] = [1, 2, -3, np.iinfo(np.int64).min]
    data["xy"] = rng.standard_normal((4, 2, 3)).astype("f4")
    a = tz.create(path, shape=(4,), chunks=(3,), dtype=dt, zarr_format=2)
    a[...] = data
    with open(os.path.join(path, ".zarray")) as f:
        assert json.load(f)["dtype"] == [["t", "<m8[s]"], ["xy", "<f4", [2, 3]]]
    assert_same(tz.open_array(path)[...], data)


def test_types_that_cannot_be_stored_are_refused_before_anything_is_written(tmp_path):
    cases = [
        (np.dtype([("a", "<i4"), ("xy", "<f4", (2,))]), 3, "subarray"),
        (np.dtype([("a", "<i4"), ("o", object)]), 2, "variable-length"),
    ]
    for i, (dt, fmt, says) in enumerate(cases):
        path = tmp_path / f"bad{i}.zarr"
        with pytest.raises(TypeError, match=says):
            tz.create(str(path), shape=(2,), dtype=dt, zarr_format=fmt)
        assert not path.exists()


def test_mixed_byte_order_v2_struct_is_named_in_the_error(tmp_path):
    path = tmp_path / "mixed.zarr"
    path.mkdir()
    (path / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [2], "chunks": [2], "dtype": [["a", "<i4"], ["b", ">f8"]],
        "compressor": None, "fill_value": None, "filters": None, "order": "C"}))
    with pytest.raises(tz.UnsupportedError, match="both byte orders"):
        tz.open_array(str(path))


@pytest.mark.skipif(ZARR_VERSION < (3, 2), reason="v3 structs need zarr-python 3.2")
def test_a_struct_fill_value_keeps_its_fields_in_declared_order(tmp_path):
    # Fields not in alphabetical order: zarr.json is zarr-python's text.
    dt = np.dtype([("z", "<i4"), ("a", "<f8"), ("m", "u1")])
    fill = np.array((7, 1.5, 3), dtype=dt)[()]
    zarr.create_array(str(tmp_path / "zp"), shape=(3,), dtype=dt, chunks=(2,),
                      fill_value=fill)
    a = tz.create(str(tmp_path / "tz"), shape=(3,), dtype=dt, chunks=(2,), fill_value=fill)
    ours = (tmp_path / "tz" / "zarr.json").read_text()
    assert ours == (tmp_path / "zp" / "zarr.json").read_text()
    assert list(json.loads(ours)["fill_value"]) == ["z", "a", "m"]
    assert a[0] == fill
