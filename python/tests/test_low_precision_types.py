"""Low-precision types (bfloat16, float8/float6/float4, int2/int4/uint2/uint4):
the ml_dtypes dtypes in and out, v3 and v2, both directions against
TensorStore (which writes them, one element per byte with the bytes codec;
bfloat16 in two) and against zarrs (through the codec pipeline the zarrs
package builds from an array's zarr.json: the bytes and packbits codecs),
bit for bit, fill values included; and the metadata and fill values that
must be refused.
"""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest

import turbozarr as tz
from support_records import peer

ml_dtypes = pytest.importorskip("ml_dtypes")

ALL = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
       "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
       "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "int2", "int4", "uint2", "uint4"]
# What TensorStore 0.1.86 writes (its zarr3 and zarr drivers).
TENSORSTORE = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
               "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e3m4", "float8_e8m0fnu",
               "float4_e2m1fn", "int2", "int4"]
VALUE_BITS = {"bfloat16": 16, "float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6,
              "int2": 2, "int4": 4, "uint2": 2, "uint4": 4}


def dtype_of(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name))


def every_value(name: str) -> np.ndarray:
    """Every bit pattern of the type (high bits of sub-byte types clear)."""
    bits = VALUE_BITS.get(name, 8)
    unsigned = np.uint16 if bits == 16 else np.uint8
    return np.arange(1 << bits, dtype=unsigned).view(dtype_of(name))


def value_bits(a: np.ndarray, name: str) -> np.ndarray:
    """The bits that hold each value (a sub-byte type's high bits are not
    part of it)."""
    bits = VALUE_BITS.get(name, 8)
    raw = a.view(np.uint16 if bits == 16 else np.uint8)
    return raw & ((1 << bits) - 1)


def assert_bits_equal(got: np.ndarray, want: np.ndarray, name: str) -> None:
    assert got.dtype == dtype_of(name), got.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(value_bits(got, name), value_bits(want, name))


def fill_for(name: str):
    """A fill value that is not zero: NaN where the type has one."""
    if name.startswith(("int", "uint")):
        return 1
    if name.startswith("float4") or name.startswith("float6"):
        return -1.5
    return float("nan")


def chunking(values: np.ndarray) -> tuple[int, int]:
    """A chunk size giving four chunks, and how many elements fill three."""
    chunk = max(values.size // 4, 1)
    return chunk, 3 * chunk


# ---- turbozarr on its own --------------------------------------------------


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("name", ALL)
def test_every_value_round_trips(tmp_path, name, zarr_format):
    values = every_value(name)
    path = str(tmp_path / "a.zarr")
    a = tz.create(path, shape=values.shape, chunks=(100,), dtype=name,
                  fill_value=fill_for(name), zarr_format=zarr_format)
    assert a.dtype == dtype_of(name)
    a[:] = values
    b = tz.open_array(path)
    assert b.dtype == dtype_of(name)
    assert_bits_equal(b[...], values, name)
    # The fill value, as written and as read back.
    want_fill = np.asarray(fill_for(name)).astype(dtype_of(name))
    assert_bits_equal(np.asarray(b.fill_value).reshape(1), want_fill.reshape(1), name)
    meta = json.loads((tmp_path / "a.zarr" / (".zarray" if zarr_format == 2 else "zarr.json"))
                      .read_text())
    assert meta["dtype" if zarr_format == 2 else "data_type"] == name


@pytest.mark.parametrize("name", ALL)
def test_unwritten_chunks_read_as_the_fill_value(tmp_path, name):
    a = tz.create(str(tmp_path / "a.zarr"), shape=(5,), chunks=(2,), dtype=dtype_of(name),
                  fill_value=fill_for(name))
    a[0:2] = np.ones(2, dtype=np.float32).astype(dtype_of(name))
    got = a[...]
    want = np.asarray([1, 1] + [fill_for(name)] * 3).astype(dtype_of(name))
    assert_bits_equal(got, want, name)


def test_python_values_are_converted_as_ml_dtypes_converts_them(tmp_path):
    a = tz.create(str(tmp_path / "a.zarr"), shape=(6,), dtype="float8_e4m3fn")
    values = [0.1, -3.3, 500.0, 448.0, float("nan"), 1e-9]
    a[:] = values
    want = np.asarray(values, dtype=np.float64).astype(dtype_of("float8_e4m3fn"))
    assert_bits_equal(a[...], want, "float8_e4m3fn")


def test_high_bits_of_sub_byte_types_are_ignored(tmp_path):
    """zarrs stores int4 -1 as 0xff (an i8), TensorStore as 0x0f: both read -1."""
    path = tmp_path / "a.zarr"
    a = tz.create(str(path), shape=(4,), chunks=(4,), dtype="int4", compressors=None)
    a[:] = np.ones(4, dtype=dtype_of("int4"))
    (path / "c" / "0").write_bytes(bytes([0xff, 0x0f, 0xf7, 0x08]))
    got = tz.open_array(str(path))[...]
    assert got.astype(np.int8).tolist() == [-1, -1, 7, -8]


def test_the_cli_prints_the_values(tmp_path):
    cli = os.environ.get("TURBOZARR_CLI", "")
    if not cli or not os.access(cli, os.X_OK):
        pytest.skip("TURBOZARR_CLI does not name the built turbozarr binary")
    cases = {"bfloat16": ([1.0, 1 / 3, -np.inf, np.nan], "[1.0, 0.334, -inf, nan]"),
             "float8_e4m3fn": ([448.0, 0.1, -0.0], "[448.0, 0.1, -0.0]"),
             "int4": ([-8, 7, -1], "[-8, 7, -1]")}
    for name, (values, printed) in cases.items():
        path = tmp_path / f"{name}.zarr"
        tz.create(str(path), shape=(len(values),), dtype=name)[:] = \
            np.asarray(values).astype(dtype_of(name))
        out = subprocess.run([cli, "cat", str(path)], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        assert out == printed + "\n", name


def test_zarr_extensions_complex_names_read_as_numpy_complex(tmp_path):
    inner = {"name": "struct", "configuration": {"fields": [
        {"name": "z", "data_type": "complex_float32"},
        {"name": "w", "data_type": "bfloat16"}]}}
    for data_type, want in (("complex_float64", np.dtype("complex128")),
                            (inner, np.dtype([("z", "c8"), ("w", dtype_of("bfloat16"))]))):
        path = tmp_path / f"{len(str(data_type))}.zarr"
        path.mkdir()
        (path / "zarr.json").write_text(json.dumps({
            "zarr_format": 3, "node_type": "array", "shape": [2], "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": [1.0, 2.0] if isinstance(data_type, str) else {"w": 1.5},
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}))
        a = tz.open_array(str(path))
        assert a.dtype == want
        if isinstance(data_type, str):
            assert a[...].tolist() == [1 + 2j, 1 + 2j]
        else:
            assert a[0]["w"] == 1.5 and a[1]["z"] == 0


# ---- the packbits codec (zarr-extensions; zarrs writes it) ------------------


@pytest.mark.parametrize("padding", [None, "first_byte", "last_byte"])
@pytest.mark.parametrize("name", ALL + ["bool", "int16", "float32"])
def test_packbits_round_trips_every_value(tmp_path, name, padding):
    if name in ALL:
        values = every_value(name)
    else:
        values = np.arange(37).astype(name)
    config = {} if padding is None else {"padding_encoding": padding}
    path = tmp_path / "p.zarr"
    a = tz.create(str(path), shape=values.shape, chunks=(max(values.size // 3, 1),),
                  dtype=values.dtype, compressors={"name": "zstd"},
                  serializer={"name": "packbits", "configuration": config})
    a[:] = values
    got = tz.open_array(str(path))[...]
    if name in ALL:
        assert_bits_equal(got, values, name)
    else:
        np.testing.assert_array_equal(got, values)
    codecs = json.loads((path / "zarr.json").read_text())["codecs"]
    assert codecs[0] == {"name": "packbits", "configuration": config}


def test_packbits_bit_layout(tmp_path):
    """int4 -1, 2, 7, -8, 0: 4 bits each, least significant bit first, then
    4 padding bits counted in the first byte."""
    path = tmp_path / "p.zarr"
    a = tz.create(str(path), shape=(5,), chunks=(5,), dtype="int4", compressors=None,
                  serializer={"name": "packbits",
                              "configuration": {"padding_encoding": "first_byte"}})
    a[:] = np.asarray([-1, 2, 7, -8, 0]).astype(dtype_of("int4"))
    assert (path / "c" / "0").read_bytes() == bytes.fromhex("042f8700")
    # A bit range of a wider type: bits 2..5 of uint8, in a shard.
    b = tz.create(str(tmp_path / "q.zarr"), shape=(8,), chunks=(4,), shards=(8,),
                  dtype="uint8", compressors=None,
                  serializer={"name": "packbits",
                              "configuration": {"first_bit": 2, "last_bit": 5}})
    b[:] = np.arange(0, 256, 32, dtype=np.uint8) | 0x3c
    assert b[...].tolist() == [0x3c] * 8  # bits outside 2..5 are not stored


def test_packbits_refuses_what_it_cannot_pack(tmp_path):
    path = _write_zarr_json(tmp_path / "bad.zarr", data_type="int4",
                            fill_value=0, codecs=[{"name": "packbits",
                                                   "configuration": {"last_bit": 4}}])
    with pytest.raises(tz.TurbozarrError, match="packbits.*last_bit.*int4") as e:
        tz.open_array(path)[...]
    assert "bad.zarr" in str(e.value)
    with pytest.raises(tz.TurbozarrError, match="packbits.*string"):
        tz.create(str(tmp_path / "s.zarr"), shape=(2,), dtype=str,
                  serializer={"name": "packbits"})


# ---- TensorStore -----------------------------------------------------------


def _ts():
    return pytest.importorskip("tensorstore")


def _ts_spec(path, zarr_format):
    return {"driver": "zarr3" if zarr_format == 3 else "zarr",
            "kvstore": {"driver": "file", "path": str(path)}}


def _chunk_files(path):
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file() and not p.name.startswith((".z", "zarr.json"))}


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("name", TENSORSTORE)
def test_turbozarr_reads_what_tensorstore_writes(tmp_path, name, zarr_format, supports):
    ts = _ts()
    values = every_value(name)
    fill = fill_for(name)
    chunk, written = chunking(values)
    metadata = {"shape": list(values.shape)}
    if zarr_format == 3:
        metadata.update(data_type=name, chunk_grid={"name": "regular",
                                                    "configuration": {"chunk_shape": [chunk]}})
    else:
        metadata.update(dtype=name, chunks=[chunk], compressor=None)
    t = ts.open({**_ts_spec(tmp_path / "ts.zarr", zarr_format), "metadata": metadata},
                create=True, fill_value=np.asarray(fill).astype(dtype_of(name))).result()
    t[:written] = values[:written]  # the last chunk unwritten
    t_all = t.read().result()
    a = tz.open_array(str(tmp_path / "ts.zarr"))
    assert a.dtype == dtype_of(name)
    assert_bits_equal(a[...], t_all, name)
    assert_bits_equal(np.asarray(a.fill_value).reshape(1),
                      np.asarray(fill).astype(dtype_of(name)).reshape(1), name)
    supports.array(a, "read", peer=peer("tensorstore"))


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("name", TENSORSTORE)
def test_tensorstore_reads_what_turbozarr_writes(tmp_path, name, zarr_format, supports):
    ts = _ts()
    values = every_value(name)
    chunk, written = chunking(values)
    ours = tmp_path / "tz.zarr"
    a = tz.create(str(ours), shape=values.shape, chunks=(chunk,), dtype=name,
                  fill_value=fill_for(name), zarr_format=zarr_format, compressors=None)
    a[:written] = values[:written]
    t = ts.open(_ts_spec(ours, zarr_format)).result()
    assert t.dtype.name == name
    got = t.read().result()
    want = a[...]
    assert_bits_equal(got, want, name)
    assert_bits_equal(np.asarray(t.fill_value).reshape(1),
                      np.asarray(fill_for(name)).astype(dtype_of(name)).reshape(1), name)

    # The same values written by TensorStore from the same metadata give the
    # same chunk bytes.
    theirs = tmp_path / "ts.zarr"
    document = ours / (".zarray" if zarr_format == 2 else "zarr.json")
    t2 = ts.open({**_ts_spec(theirs, zarr_format),
                  "metadata": json.loads(document.read_text())}, create=True).result()
    t2[:written] = values[:written]
    assert _chunk_files(theirs) == _chunk_files(ours)
    supports.array(a, "write", peer=peer("tensorstore"))


@pytest.mark.parametrize("spelled,name,bits", [
    ("NaN", "bfloat16", 0x7fc0),
    ("0x7fc1", "bfloat16", 0x7fc1),
    ("-Infinity", "bfloat16", 0xff80),
    (2.5, "bfloat16", 0x4020),
    ("NaN", "float8_e4m3fn", 0x7f),
    ("0x7e", "float8_e4m3fn", 0x7e),
    ("NaN", "float8_e4m3fnuz", 0x80),
    ("Infinity", "float8_e5m2", 0x7c),
    ("NaN", "float8_e8m0fnu", 0xff),  # (TensorStore 0.1.86 reads 4.0 as 0x41)
    (-6.0, "float4_e2m1fn", 0xf),
    (-3, "int4", 0xd),
])
def test_fill_values_both_ways_with_tensorstore(tmp_path, spelled, name, bits):
    ts = _ts()
    path = tmp_path / "ts.zarr"
    ts.open({**_ts_spec(path, 3), "metadata": {"data_type": name, "shape": [2],
                                               "fill_value": spelled}}, create=True).result()
    a = tz.open_array(str(path))
    assert int(value_bits(np.asarray(a.fill_value).reshape(1), name)[0]) == bits
    ours = tmp_path / "tz.zarr"
    tz.create(str(ours), shape=(2,), dtype=name, fill_value=a.fill_value)
    written = json.loads((ours / "zarr.json").read_text())["fill_value"]
    assert written == json.loads((path / "zarr.json").read_text())["fill_value"]
    t = ts.open(_ts_spec(ours, 3)).result()
    assert int(value_bits(np.asarray(t.read().result()), name)[0]) == bits


# ---- zarrs (the Rust library inside the zarrs package) ---------------------

# What the zarrs package's build takes: every type but float8_e4m3fn (its
# float8 feature is off), and float8/6/4 fill values only as hex bits (its
# microfloat feature is off too; bfloat16 takes any spelling).
ZARRS = [n for n in ALL if n != "float8_e4m3fn"]
SERIALIZERS = {"bytes": None, "packbits": {"name": "packbits"},
               "packbits_first_byte": {"name": "packbits",
                                       "configuration": {"padding_encoding": "first_byte"}},
               "packbits_last_byte": {"name": "packbits",
                                      "configuration": {"padding_encoding": "last_byte"}}}


def _zarrs_pipeline(path, zarr_json: dict):
    internal = pytest.importorskip("zarrs._internal")
    storage = pytest.importorskip("zarr.storage")
    pipeline = internal.CodecPipelineImpl(json.dumps(zarr_json),
                                          store_config=storage.LocalStore(str(path)))

    def items(chunk: int, n_chunks: int, size: int):
        return [internal.ChunkItem(f"c/{i}", [slice(0, chunk)], [chunk],
                                   [slice(i * chunk, (i + 1) * chunk)], [size])
                for i in range(n_chunks)]
    return pipeline, items


def _hex_fill(name: str, fill) -> str | int:
    """The fill value as the zarrs package's build reads it for this type."""
    if name.startswith(("int", "uint")):
        return int(fill)
    raw = np.asarray(fill).astype(dtype_of(name))
    bits = int(raw.view(np.uint16 if raw.itemsize == 2 else np.uint8))
    return f"0x{bits:0{raw.itemsize * 2}x}"


@pytest.mark.parametrize("serializer", list(SERIALIZERS))
@pytest.mark.parametrize("name", ZARRS)
def test_zarrs_reads_what_turbozarr_writes(tmp_path, name, serializer, supports):
    if serializer.endswith("_byte") and VALUE_BITS.get(name, 8) % 8 == 0:
        pytest.skip("zarrs packs whole-byte types as the bytes codec does, without the "
                    "padding byte the specification asks for (turbozarr reads both)")
    values = every_value(name)
    chunk, written = chunking(values)
    path = tmp_path / "tz.zarr"
    a = tz.create(str(path), shape=values.shape, chunks=(chunk,), dtype=name,
                  fill_value=fill_for(name), compressors=None,
                  serializer=SERIALIZERS[serializer] or "auto")
    a[:written] = values[:written]
    document = path / "zarr.json"
    meta = json.loads(document.read_text())
    meta["fill_value"] = _hex_fill(name, fill_for(name))
    document.write_text(json.dumps(meta))  # the same fill value, spelled in hex
    pipeline, items = _zarrs_pipeline(path, meta)
    got = np.zeros(values.shape, dtype=dtype_of(name))
    pipeline.retrieve_chunks_and_apply_index(items(chunk, 4, values.size), got)
    ours = tz.open_array(str(path))
    assert_bits_equal(got, ours[...], name)
    assert_bits_equal(got[written:], np.full(values.size - written, fill_for(name))
                      .astype(dtype_of(name)), name)
    supports.array(ours, "write", peer=peer("zarrs"))


@pytest.mark.parametrize("serializer", list(SERIALIZERS))
@pytest.mark.parametrize("name", ZARRS)
def test_turbozarr_reads_what_zarrs_writes(tmp_path, name, serializer, supports):
    values = every_value(name)
    if name in ("int2", "int4"):
        # As a zarrs user writes them: i8 values, sign-extended bytes.
        given = value_bits(values, name).astype(np.int8)
        given = np.where(given >= 1 << (VALUE_BITS[name] - 1),
                         given - (1 << VALUE_BITS[name]), given).astype(np.int8)
    else:
        given = values
    chunk, written = chunking(values)
    codecs = [SERIALIZERS[serializer] or
              ({"name": "bytes", "configuration": {"endian": "little"}}
               if values.itemsize == 2 else {"name": "bytes"})]
    meta = {"zarr_format": 3, "node_type": "array", "shape": [values.size],
            "data_type": name, "chunk_grid": {"name": "regular",
                                              "configuration": {"chunk_shape": [chunk]}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": _hex_fill(name, fill_for(name)), "codecs": codecs}
    path = tmp_path / "zarrs.zarr"
    path.mkdir()
    (path / "zarr.json").write_text(json.dumps(meta))
    pipeline, items = _zarrs_pipeline(path, meta)
    pipeline.store_chunks_with_indices(items(chunk, 3, values.size), given, True)
    theirs = tz.open_array(str(path))
    want = values.copy()
    want[written:] = np.asarray(fill_for(name)).astype(dtype_of(name))
    assert_bits_equal(theirs[...], want, name)
    supports.array(theirs, "read", peer=peer("zarrs"))


# ---- what is refused -------------------------------------------------------


def _write_zarr_json(path, **overrides):
    path.mkdir()
    meta = {"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "bfloat16",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}
    meta.update(overrides)
    (path / "zarr.json").write_text(json.dumps(meta))
    return str(path)


@pytest.mark.parametrize("overrides,says", [
    ({"data_type": "float8_e4m3fn", "fill_value": "Infinity",
      "codecs": [{"name": "bytes"}]}, "fill_value.*float8_e4m3fn.*no infinity"),
    ({"data_type": "float4_e2m1fn", "fill_value": "NaN",
      "codecs": [{"name": "bytes"}]}, "fill_value.*float4_e2m1fn.*no NaN"),
    ({"data_type": "int4", "fill_value": 8, "codecs": [{"name": "bytes"}]},
     "fill_value.*int4.*out of range"),
    ({"data_type": "uint2", "fill_value": -1, "codecs": [{"name": "bytes"}]},
     "fill_value.*uint2.*out of range"),
    ({"fill_value": "0x7fc00"}, "fill_value.*bfloat16.*hex"),
    ({"fill_value": "pi"}, "fill_value.*bfloat16"),
    ({"data_type": "float8_e4m3fnx"}, "data_type.*float8_e4m3fnx"),
    ({"codecs": [{"name": "bytes"}]}, "endian.*bfloat16"),
    ({"codecs": [{"name": "numcodecs.delta", "configuration": {"dtype": "<f4"}},
                 {"name": "bytes", "configuration": {"endian": "little"}}]}, "delta"),
    ({"codecs": [{"name": "numcodecs.fixedscaleoffset",
                  "configuration": {"offset": 0, "scale": 1, "dtype": "<f4"}},
                 {"name": "bytes", "configuration": {"endian": "little"}}]},
     "fixedscaleoffset"),
])
def test_bad_metadata_is_refused_naming_the_array_and_field(tmp_path, overrides, says):
    path = _write_zarr_json(tmp_path / "bad.zarr", **overrides)
    with pytest.raises(tz.TurbozarrError, match=says) as e:
        a = tz.open_array(path)
        a[...]
    assert "bad.zarr" in str(e.value)


def test_bad_v2_metadata_is_refused(tmp_path):
    path = tmp_path / "bad.zarr"
    path.mkdir()
    (path / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [2], "chunks": [2], "dtype": ">bfloat16",
        "compressor": None, "fill_value": None, "filters": None, "order": "C"}))
    with pytest.raises(tz.TurbozarrError, match="dtype") as e:
        tz.open_array(str(path))
    assert "bad.zarr" in str(e.value)


@pytest.mark.parametrize("name,fill,says", [
    ("float8_e4m3fn", float("inf"), "no infinity"),
    ("float4_e2m1fn", float("nan"), "no NaN"),
    ("int4", 8, "int4"),
    ("uint2", -1, "uint2"),
    ("int4", 1.5, "int4"),
])
def test_bad_fill_values_are_refused_at_create(tmp_path, name, fill, says):
    path = tmp_path / "bad.zarr"
    with pytest.raises(ValueError, match=says):
        tz.create(str(path), shape=(2,), dtype=name, fill_value=fill)
    assert not path.exists()


def test_byte_swapped_bfloat16_is_refused(tmp_path):
    with pytest.raises(TypeError, match="bfloat16"):
        tz.create(str(tmp_path / "a.zarr"), shape=(2,),
                  dtype=dtype_of("bfloat16").newbyteorder(">"))


def test_big_endian_bfloat16_v3_reads_and_writes(tmp_path):
    path = _write_zarr_json(tmp_path / "be.zarr",
                            codecs=[{"name": "bytes", "configuration": {"endian": "big"}}])
    a = tz.open_array(path, mode="r+")
    values = np.asarray([1.5, -2.0, np.inf, np.nan]).astype(dtype_of("bfloat16"))
    a[:] = values
    stored = (tmp_path / "be.zarr" / "c" / "0").read_bytes()
    assert stored == values.view(np.uint16).astype(">u2").tobytes()
    assert_bits_equal(tz.open_array(path)[...], values, "bfloat16")
