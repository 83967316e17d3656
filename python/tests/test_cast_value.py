"""The v3 cast_value codec against zarr-python 3.4.2 and its backend
(cast-value-rs): value for value over every pair of the codec's types, every
rounding mode and out-of-range rule, and scalar maps, in both directions
(encoding the array's values, decoding stored ones); then whole arrays
written by each library and read by the other, byte for byte.
"""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal
from support_records import peer

zarr = pytest.importorskip("zarr")
codecs = pytest.importorskip("zarr.codecs")
if not hasattr(codecs, "CastValue"):
    pytest.skip("zarr-python without cast_value", allow_module_level=True)
pytest.importorskip("cast_value_rs")

pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrFutureWarning",
                                        "ignore::zarr.errors.ZarrUserWarning",
                                        "ignore::UserWarning", "ignore::RuntimeWarning")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
TYPES = INTS + FLOATS
ROUNDINGS = ["nearest-even", "towards-zero", "towards-positive", "towards-negative",
             "nearest-away"]


def _values(dtype: str, seed: int) -> np.ndarray:
    """Values of `dtype` that sit on every boundary the cast rules have (the
    integer types' bounds, float16/32's largest values and overflow points,
    ties), plus random ones: bit patterns for floats (NaN payloads, signalling
    NaNs, subnormals) and the whole range for integers."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        picks = {0, 1, -1, 2**24 + 1, 2**53 + 1, 65504, 65505, 65519, 65520, 65535, 65536}
        for t in INTS:
            for bound in (np.iinfo(t).min, np.iinfo(t).max):
                picks.update(int(bound) + d for d in (-1, 0, 1))
        picks.update(-p for p in list(picks))
        fixed = [p for p in sorted(picks) if info.min <= p <= info.max]
        random = rng.integers(info.min, info.max, 48, dtype=dt, endpoint=True)
        return np.concatenate([np.array(fixed, dtype=dt), random])
    base = [0.0, 0.5, 1.5, 2.5, 2.7, 0.49999999999999994, 1 + 2**-24, 1 + 3 * 2**-24,
            1 + 2**-11, 1 + 2**-11 + 2**-40, 1 + 2**-12, 65504.5, 65519.0, 65519.99,
            65520.0, 65535.9, 65536.0, 2.0**52 + 1, 1e-8, 1e-46, 1e-50, 1e300, np.inf]
    for t in INTS:
        bound = float(np.iinfo(t).max) + 1
        base += [bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5,
                 np.nextafter(bound, 0), np.nextafter(bound, np.inf)]
    for f in ("float16", "float32"):
        top = float(np.finfo(f).max)
        limit = 2.0 ** np.finfo(f).maxexp
        base += [top, np.nextafter(top, np.inf), (top + limit) / 2, np.nextafter(limit, 0),
                 limit, float(np.finfo(f).smallest_subnormal)]
    base += [-v for v in base]
    with np.errstate(all="ignore"):
        fixed = np.array(base, dtype=np.float64).astype(dt)
        scaled = (rng.standard_normal(32) * 10.0 ** rng.integers(-3, 22, 32)).astype(dt)
    bits = rng.integers(0, 256, 32 * dt.itemsize, dtype=np.uint8).view(dt)
    nans = np.array([np.nan, -np.nan], dtype=dt)
    return np.concatenate([fixed, scaled, bits, nans])


def _configs(source: str, target: str):
    """(rounding, out_of_range, scalar_map) for every rule that applies."""
    ranges = [None, "clamp"] + (["wrap"] if target in INTS else [])
    for rounding, out_of_range in itertools.product(ROUNDINGS, ranges):
        yield rounding, out_of_range, None
    if source in FLOATS:
        value = 7 if target in INTS else 0.25
        yield "nearest-even", None, {"encode": [["NaN", value], [1.5, value]],
                                     "decode": [[value, "NaN"]]}


def _config_json(target, rounding, out_of_range, scalar_map):
    config = {"data_type": target}
    if rounding != "nearest-even":
        config["rounding"] = rounding
    if out_of_range is not None:
        config["out_of_range"] = out_of_range
    if scalar_map is not None:
        config["scalar_map"] = scalar_map
    return config


def _backend(codec, values: np.ndarray, target: np.dtype, direction: str):
    """zarr-python's cast of each value: (results where it succeeds, as an
    array of `target`; a mask of the values it refuses)."""
    mapping = codec._get_scalar_map(direction)
    try:
        return codec._do_cast(values, target_dtype=target, scalar_map=mapping), None
    except ValueError:
        pass
    out = np.zeros(values.shape, dtype=target)
    refused = np.zeros(values.shape, dtype=bool)
    for i, v in enumerate(values):
        try:
            out[i] = codec._do_cast(values[i:i + 1], target_dtype=target, scalar_map=mapping)[0]
        except ValueError:
            refused[i] = True
    return out, refused


def _array(store, name, source, config, n):
    return tz.create(store, path=name, shape=(n,), chunks=(n,), dtype=source,
                     fill_value=0, zarr_format=3, config={"write_empty_chunks": True},
                     filters=[{"name": "cast_value", "configuration": config}],
                     compressors=[])


@pytest.mark.parametrize("source,target", list(itertools.product(TYPES, TYPES)))
def test_values_match_zarr_python(source, target):
    store = tz.open_store("memory://")
    values = _values(source, seed=TYPES.index(source))
    stored = _values(target, seed=100 + TYPES.index(target))
    for i, (rounding, out_of_range, scalar_map) in enumerate(_configs(source, target)):
        config = _config_json(target, rounding, out_of_range, scalar_map)
        codec = codecs.CastValue(**config)
        what = f"{source}->{target} {config}"

        # Encoding: the array's values as stored values.
        expected, refused = _backend(codec, values, np.dtype(target), "encode")
        ok = values if refused is None else values[~refused]
        assert len(ok) > 0, what
        a = _array(store, f"e{i}", source, config, len(ok))
        a[...] = ok
        chunk = store.get(f"e{i}/c/0")
        want = expected if refused is None else expected[~refused]
        assert chunk == want.astype(np.dtype(target).newbyteorder("<")).tobytes(), what
        for j, v in enumerate([] if refused is None else values[refused][:3]):
            one = _array(store, f"x{i}_{j}", source, config, 1)
            with pytest.raises(ValueError, match="cast_value"):
                one[...] = np.array([v], dtype=source)

        # Decoding: stored values back as the array's.
        expected, refused = _backend(codec, stored, np.dtype(source), "decode")
        ok = stored if refused is None else stored[~refused]
        assert len(ok) > 0, what
        a = _array(store, f"d{i}", source, config, len(ok))
        store.set(f"d{i}/c/0", ok.astype(np.dtype(target).newbyteorder("<")).tobytes())
        want = expected if refused is None else expected[~refused]
        assert_bit_equal(a[...], want.astype(source))
        for j, v in enumerate([] if refused is None else stored[refused][:3]):
            one = _array(store, f"y{i}_{j}", source, config, 1)
            store.set(f"y{i}_{j}/c/0", np.array([v], dtype=target).tobytes())
            with pytest.raises(Exception, match="cast_value"):
                one[...]


CASES = [
    ("float64", {"data_type": "uint8", "rounding": "towards-zero", "out_of_range": "clamp",
                 "scalar_map": {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}}),
    ("float32", {"data_type": "float16", "out_of_range": "clamp"}),
    ("int32", {"data_type": "int8", "out_of_range": "wrap"}),
    ("uint16", {"data_type": "float32"}),
    ("float64", {"data_type": "int64", "rounding": "nearest-away"}),
]


@pytest.mark.parametrize("dtype,config", CASES, ids=[c[1]["data_type"] for c in CASES])
def test_arrays_both_ways(tmp_path, dtype, config, supports):
    rng = np.random.default_rng(3)
    shape, chunks = (13, 17), (4, 5)  # partial edge chunks
    if np.dtype(dtype).kind == "f":
        data = (rng.standard_normal(shape) * 90 + 100).astype(dtype)
        data[rng.random(shape) < 0.1] = np.nan if "scalar_map" in config else 1
    else:
        data = rng.integers(0, 2**15, shape).astype(dtype)
    fill = 0
    z = zarr.create_array(str(tmp_path / "z"), shape=shape, chunks=chunks, dtype=dtype,
                          fill_value=fill, filters=[codecs.CastValue(**config)],
                          compressors=[codecs.ZstdCodec(level=1)])
    z[...] = data
    z[0:2, 0:3] = fill  # a chunk part left at the fill value
    reference = zarr.open_array(str(tmp_path / "z"), mode="r")[...]
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], reference)
    assert_bit_equal(a[1:12:3, 2:-1], reference[1:12:3, 2:-1])

    t = tz.create(str(tmp_path / "t"), shape=shape, chunks=chunks, dtype=dtype,
                  fill_value=fill, zarr_format=3,
                  filters=[{"name": "cast_value", "configuration": config}],
                  compressors=[{"name": "zstd", "configuration": {"level": 1}}])
    t[...] = data
    t[0:2, 0:3] = fill
    meta_t = json.load(open(tmp_path / "t" / "zarr.json"))
    meta_z = json.load(open(tmp_path / "z" / "zarr.json"))
    assert meta_t["codecs"] == meta_z["codecs"]
    for key in sorted(p.relative_to(tmp_path / "z").as_posix()
                      for p in (tmp_path / "z").rglob("*") if p.is_file()):
        if key != "zarr.json":
            assert (tmp_path / "t" / key).read_bytes() == (tmp_path / "z" / key).read_bytes(), key
    assert_bit_equal(zarr.open_array(str(tmp_path / "t"), mode="r")[...], reference)
    supports.array(a, "read", peer=peer("zarr"))
    supports.array(t, "write", peer=peer("zarr"))


def test_out_of_range_writes_name_the_array_and_keep_old_chunks(tmp_path):
    t = tz.create(str(tmp_path / "t"), shape=(4,), chunks=(2,), dtype="float32",
                  zarr_format=3,
                  filters=[{"name": "cast_value", "configuration": {"data_type": "uint8"}}],
                  compressors=[])
    t[...] = np.array([1, 2, 3, 4], dtype="float32")
    with pytest.raises(ValueError, match=r"value 300 is outside the range of uint8 \[0, 255\]"):
        t[2:] = np.array([5, 300], dtype="float32")
    assert_bit_equal(t[...], np.array([1, 2, 3, 4], dtype="float32"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="NaN has no value in uint8"):
            tz.create(str(tmp_path / "u"), shape=(4,), chunks=(2,), dtype="float32",
                      fill_value=float("nan"), zarr_format=3,
                      filters=[{"name": "cast_value",
                                "configuration": {"data_type": "uint8"}}])
