"""Byte compatibility with zarr-python 3.1.6, in both directions.

Every case writes an array with one implementation and reads it with the
other, comparing element bits and the reported dtype: zarr-python -> turbozarr
(full and strided reads, partial writes back, missing chunks as the fill
value) and turbozarr -> zarr-python. The matrix spans data types, codec
chains, chunk shapes with partial edge chunks, zarr formats 2 and 3, sharding
(index at the end and at the start) and v2 memory order C/F.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data
from support_records import peer

zarr = pytest.importorskip("zarr")
from zarr.core.dtype import VariableLengthBytes  # noqa: E402

ZARR = peer("zarr")

# zarr-python warns about dtypes without a v3 spec (S, U, V, vlen bytes) and
# about v2 options; the tests use them on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrFutureWarning",
                                        "ignore::zarr.errors.ZarrUserWarning",
                                        "ignore::UserWarning")

BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}
BYTES_BE = {"name": "bytes", "configuration": {"endian": "big"}}
ZSTD = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
ZSTD_CHECKSUM = {"name": "zstd", "configuration": {"level": 3, "checksum": True}}
GZIP = {"name": "gzip", "configuration": {"level": 5}}
CRC32C = {"name": "crc32c"}


def blosc(cname: str, shuffle: str, typesize: int) -> dict:
    return {"name": "blosc", "configuration": {"typesize": typesize, "cname": cname,
                                               "clevel": 5, "shuffle": shuffle,
                                               "blocksize": 0}}


def transpose(order) -> dict:
    return {"name": "transpose", "configuration": {"order": list(order)}}


def sharded(inner_chunks, codecs, index_location="end") -> dict:
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner_chunks), "codecs": codecs,
        "index_codecs": [BYTES_LE, CRC32C], "index_location": index_location}}


def serializer_for(dtype) -> dict:
    if dtype == "string":
        return {"name": "vlen-utf8", "configuration": {}}
    if dtype == "bytes":
        return {"name": "vlen-bytes", "configuration": {}}
    dt = np.dtype(dtype)
    if dt.itemsize == 1 or dt.kind in "SV":
        return {"name": "bytes"}
    return BYTES_LE


def zarr_dtype(dtype):
    if dtype == "string":
        return str
    if dtype == "bytes":
        return VariableLengthBytes()
    return dtype


def tz_dtype(dtype):
    return {"string": str, "bytes": bytes}.get(dtype, dtype)


def expected_dtype(dtype, zarr_format):
    """What both libraries report as the dtype of such an array."""
    if dtype == "string":
        return np.dtypes.StringDType()
    if dtype == "bytes":
        return np.dtype(object)
    dt = np.dtype(dtype)
    return dt if zarr_format == 2 else dt.newbyteorder("=")


# Selections per rank: strided, negative, integer-indexed, empty, reversed.
SELECTIONS = {
    0: [(), Ellipsis],
    1: [slice(None, None, 3), slice(2, -1), -1, slice(5, 5), slice(None, None, -2), 4],
    2: [(slice(None, None, 2), slice(1, None, 3)), (-1, slice(None)), (slice(3, 8), 2),
        (slice(None, None, -3), Ellipsis), (Ellipsis, slice(2, 3)), (0, -1)],
    3: [(slice(None), slice(None, None, 2), slice(1, None, 2)), (1, slice(None), -2),
        (slice(2, 5), slice(None, None, -1), slice(None, None, 3))],
}


def zarr_write(path, data, *, zarr_format, chunks, codecs=None, compressor="default",
               filters=None, order="C", fill_value=None, dimension_separator=None):
    """An array made and filled by zarr-python."""
    dtype = data.dtype if data.dtype.kind not in "OT" else None
    kwargs = dict(store=str(path), shape=data.shape, chunks=chunks, zarr_format=zarr_format,
                  fill_value=fill_value)
    if zarr_format == 3:
        kwargs["codecs"] = codecs
    else:
        kwargs.update(filters=filters, order=order)
        if compressor != "default":
            kwargs["compressor"] = compressor
        if dimension_separator:
            kwargs["dimension_separator"] = dimension_separator
    z = zarr.create(dtype=kwargs.pop("dtype", None) or _zarr_dtype_of(data), **kwargs)
    z[...] = data
    return z


def _zarr_dtype_of(data):
    if data.dtype.kind == "T":
        return str
    if data.dtype.kind == "O":
        return VariableLengthBytes()
    return data.dtype


def check_reads(path, data, zarr_format):
    """turbozarr reads what zarr-python wrote: whole and in strided pieces."""
    a = tz.open(str(path))
    assert a.zarr_format == zarr_format
    reference = zarr.open_array(str(path), mode="r")[...]
    assert a.dtype == reference.dtype
    assert_bit_equal(a[...], data if data.ndim else np.asarray(data))
    for key in SELECTIONS[data.ndim]:
        try:
            want = data[key]
        except IndexError:  # out of bounds for this small shape: both refuse
            with pytest.raises(IndexError):
                a[key]
            continue
        assert_bit_equal(a[key], want)
    return a


def check_zarr_reads(path, data):
    """zarr-python reads what turbozarr wrote."""
    z = zarr.open_array(str(path), mode="r")
    assert_bit_equal(z[...], data)


# ---------------------------------------------------------------------------
# Data types: every type in both formats, with zarr-python's default codecs,
# 2-D chunks that leave partial edge chunks.

V3_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
             "uint64", "float16", "float32", "float64", "complex64", "complex128",
             "S7", "U5", "V3", "string", "bytes"]
V2_DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4",
             "<f8", "<c8", "<c16", ">i2", ">i4", ">i8", ">u2", ">u4", ">u8", ">f2", ">f4",
             ">f8", ">c8", ">c16", "|S7", "<U5", ">U5", "|V3", "string", "bytes"]
DTYPE_CASES = [(3, d) for d in V3_DTYPES] + [(2, d) for d in V2_DTYPES]


@pytest.mark.parametrize("zarr_format,dtype", DTYPE_CASES,
                         ids=[f"v{f}-{d}" for f, d in DTYPE_CASES])
def test_dtypes_zarr_python_to_turbozarr(tmp_path, rng, zarr_format, dtype, supports):
    data = random_data(dtype, (11, 9), rng)
    if zarr_format == 3:
        codecs = [serializer_for(dtype), ZSTD]
        zarr_write(tmp_path / "a", data, zarr_format=3, chunks=(4, 5), codecs=codecs)
    else:
        zarr_write(tmp_path / "a", data, zarr_format=2, chunks=(4, 5))
    a = check_reads(tmp_path / "a", data, zarr_format)
    assert a.dtype == expected_dtype(dtype, zarr_format)
    supports.array(a, "read", peer=ZARR)


@pytest.mark.parametrize("zarr_format,dtype", DTYPE_CASES,
                         ids=[f"v{f}-{d}" for f, d in DTYPE_CASES])
def test_dtypes_turbozarr_to_zarr_python(tmp_path, rng, zarr_format, dtype, supports):
    data = random_data(dtype, (11, 9), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype=tz_dtype(dtype),
                  chunks=(4, 5), zarr_format=zarr_format)
    assert a.dtype == expected_dtype(dtype, zarr_format)
    a[...] = data
    check_zarr_reads(tmp_path / "a", data)
    assert zarr.open_array(str(tmp_path / "a"))[...].dtype == a.dtype
    supports.array(a, "write", peer=ZARR)


# ---------------------------------------------------------------------------
# v3 codec chains, plain and sharded (index at the end and at the start).

def v3_chains(dtype):
    ser = serializer_for(dtype)
    size = np.dtype(dtype).itemsize
    return {
        "none": [ser],
        "zstd": [ser, ZSTD],
        "zstd-checksum": [ser, ZSTD_CHECKSUM],
        "gzip": [ser, GZIP],
        "blosc-lz4-noshuffle": [ser, blosc("lz4", "noshuffle", size)],
        "blosc-lz4-shuffle": [ser, blosc("lz4", "shuffle", size)],
        "blosc-zstd-bitshuffle": [ser, blosc("zstd", "bitshuffle", size)],
        "blosc-zstd-shuffle": [ser, blosc("zstd", "shuffle", size)],
        "crc32c": [ser, CRC32C],
        "bigendian": [BYTES_BE if size > 1 else ser, CRC32C],
        "transpose": [transpose((1, 0)), ser],
        "transpose-zstd-crc32c": [transpose((1, 0)), ser, ZSTD, CRC32C],
    }


V3_CODEC_DTYPES = ["int16", "float64", "uint8"]
V3_CODEC_CASES = [(d, c, s) for d in V3_CODEC_DTYPES for c in v3_chains(d)
                  for s in ("none", "end", "start")]


def v3_case_codecs(dtype, chain, shard):
    codecs = v3_chains(dtype)[chain]
    if shard == "none":
        return (4, 5), codecs
    return (8, 10), [sharded((4, 5), codecs, shard)]


@pytest.mark.parametrize("dtype,chain,shard", V3_CODEC_CASES,
                         ids=[f"{d}-{c}-shard_{s}" for d, c, s in V3_CODEC_CASES])
def test_v3_codecs_both_ways(tmp_path, rng, dtype, chain, shard, supports):
    data = random_data(dtype, (13, 17), rng)
    chunks, codecs = v3_case_codecs(dtype, chain, shard)
    # zarr-python -> turbozarr
    zarr_write(tmp_path / "z", data, zarr_format=3, chunks=chunks, codecs=codecs)
    supports.array(check_reads(tmp_path / "z", data, 3), "read", peer=ZARR)
    # turbozarr -> zarr-python
    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=dtype, chunks=chunks,
                  codecs=codecs)
    t[...] = data
    check_zarr_reads(tmp_path / "t", data)
    supports.array(t, "write", peer=ZARR)
    if chain in ("none", "crc32c", "transpose", "bigendian"):
        # Deterministic codecs: the stored chunks are the very same bytes, and
        # so are shards (inner chunks in Morton order, the index at its place).
        keys = ("c/0/0", "c/3/3", "c/2/1") if shard == "none" else ("c/0/0", "c/1/1", "c/1/0")
        for key in keys:
            assert (tmp_path / "t" / key).read_bytes() == (tmp_path / "z" / key).read_bytes()


# ---------------------------------------------------------------------------
# v2 compressors and filters, memory order C and F.

def v2_compressors(dtype):
    return {
        "none": None,
        "blosc-lz4-noshuffle": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 0,
                                "blocksize": 0},
        "blosc-lz4-shuffle": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1,
                              "blocksize": 0},
        "blosc-zstd-bitshuffle": {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2,
                                  "blocksize": 0},
        "blosc-blosclz-autoshuffle": {"id": "blosc", "cname": "blosclz", "clevel": 9,
                                      "shuffle": -1, "blocksize": 0},
        "zstd": {"id": "zstd", "level": 1, "checksum": False},
        "lz4": {"id": "lz4", "acceleration": 1},
        "gzip": {"id": "gzip", "level": 1},
        "zlib": {"id": "zlib", "level": 1},
        "bz2": {"id": "bz2", "level": 1},
    }


V2_CODEC_DTYPES = ["<i4", ">f8", "|u1"]
V2_CODEC_CASES = [(d, c, o) for d in V2_CODEC_DTYPES for c in v2_compressors(d)
                  for o in "CF"]


@pytest.mark.parametrize("dtype,compressor,order", V2_CODEC_CASES,
                         ids=[f"{d}-{c}-{o}" for d, c, o in V2_CODEC_CASES])
def test_v2_codecs_both_ways(tmp_path, rng, dtype, compressor, order, supports):
    data = random_data(dtype, (13, 17), rng)
    comp = v2_compressors(dtype)[compressor]
    zarr_write(tmp_path / "z", data, zarr_format=2, chunks=(4, 5), compressor=comp,
               order=order)
    a = check_reads(tmp_path / "z", data, 2)
    assert a.order == order
    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=dtype, chunks=(4, 5),
                  zarr_format=2, compressor=comp, order=order)
    t[...] = data
    check_zarr_reads(tmp_path / "t", data)
    zarray = json.load(open(tmp_path / "t" / ".zarray"))
    # As zarr-python writes it (it drops a zstd's "checksum": false).
    expected = json.load(open(tmp_path / "z" / ".zarray"))["compressor"]
    assert zarray["order"] == order and zarray["compressor"] == expected
    supports.array(a, "read", peer=ZARR)
    supports.array(t, "write", peer=ZARR)
    if comp is None:
        for key in ("0.0", "3.3", "2.1"):
            assert (tmp_path / "t" / key).read_bytes() == (tmp_path / "z" / key).read_bytes()


def _one_byte_items(dtype, shape, rng):
    """Items as VCF Zarr genotypes and masks have them: mostly 0, runs of
    noise (blocks blosc stores raw), a few -1."""
    if dtype == "bool":
        return rng.random(shape) < 0.1
    data = rng.choice(np.array([0, 0, 0, 0, 0, 1, 1, 2, -1], dtype="i1"), size=shape)
    data.reshape(-1)[: data.size // 5] = rng.integers(-128, 128, data.size // 5, dtype="i1")
    return data.astype(dtype)


@pytest.mark.parametrize("cname", ["zstd", "lz4", "lz4hc"])
@pytest.mark.parametrize("blocksize", [0, 4096, 65544, 4100])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_bitshuffled_one_byte_items_both_ways(tmp_path, rng, cname, blocksize, zarr_format):
    # Bitshuffled int8, uint8 and bool chunks (turbozarr decodes these
    # itself, not through c-blosc): chunks of several blocks, a last block
    # shorter than the others, a block whose length is not a multiple of 8
    # (4100), and edge chunks.
    import numcodecs

    for dtype in ("int8", "uint8", "bool"):
        data = _one_byte_items(dtype, (2500, 301), rng)
        comp = numcodecs.Blosc(cname=cname, clevel=5, shuffle=numcodecs.Blosc.BITSHUFFLE,
                               blocksize=blocksize)
        path = tmp_path / f"z-{dtype}"
        z = zarr.create_array(str(path), shape=data.shape, chunks=(1000, 300), dtype=dtype,
                              zarr_format=zarr_format, compressors=[comp] if zarr_format == 2
                              else [{"name": "blosc", "configuration": {
                                  "cname": cname, "clevel": 5, "shuffle": "bitshuffle",
                                  "typesize": 1, "blocksize": blocksize}}])
        z[...] = data
        a = tz.open(str(path))
        assert_bit_equal(a[...], data)
        assert_bit_equal(a[1234:1239, 7:299], data[1234:1239, 7:299])
        t = tz.create(str(tmp_path / f"t-{dtype}"), shape=data.shape, dtype=dtype,
                      chunks=(1000, 300), zarr_format=2, compressor=comp.get_config())
        t[...] = data
        check_zarr_reads(tmp_path / f"t-{dtype}", data)


@pytest.mark.parametrize("dtype", ["string", "bytes"])
@pytest.mark.parametrize("compressor", ["none", "zstd", "blosc-lz4-shuffle"])
def test_v2_variable_length_with_compressors(tmp_path, rng, dtype, compressor, supports):
    data = random_data(dtype, (9, 7), rng)
    comp = v2_compressors("u1")[compressor]
    zarr_write(tmp_path / "z", data, zarr_format=2, chunks=(4, 3), compressor=comp)
    supports.array(check_reads(tmp_path / "z", data, 2), "read", peer=ZARR)
    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=tz_dtype(dtype),
                  chunks=(4, 3), zarr_format=2, compressor=comp)
    t[...] = data
    check_zarr_reads(tmp_path / "t", data)
    supports.array(t, "write", peer=ZARR)


@pytest.mark.parametrize("separator", [".", "/"])
def test_v2_dimension_separator(tmp_path, rng, separator, supports):
    data = random_data("<i4", (6, 7), rng)
    zarr_write(tmp_path / "z", data, zarr_format=2, chunks=(4, 5),
               dimension_separator=separator)
    supports.array(check_reads(tmp_path / "z", data, 2), "read", peer=ZARR)
    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype="<i4", chunks=(4, 5),
                  zarr_format=2, dimension_separator=separator)
    t[...] = data
    assert (tmp_path / "t" / f"1{separator}1").exists()
    check_zarr_reads(tmp_path / "t", data)
    supports.array(t, "write", peer=ZARR)


# ---------------------------------------------------------------------------
# Chunk shapes: 0-d to 3-d, chunks of one element, chunks larger than the
# array, partial edge chunks everywhere, empty arrays.

CHUNK_CASES = [
    ((), ()),
    ((1,), (1,)),
    ((23,), (5,)),
    ((23,), (50,)),
    ((10, 1), (3, 1)),
    ((7, 9), (7, 9)),
    ((7, 9), (2, 4)),
    ((5, 6, 7), (2, 3, 4)),
    ((5, 6, 7), (5, 1, 7)),
    ((0, 4), (2, 2)),
]
CHUNK_MATRIX = [(s, c, f, sh) for s, c in CHUNK_CASES for f in (2, 3)
                for sh in ((False, True) if f == 3 else (False,))]


@pytest.mark.parametrize("shape,chunks,zarr_format,shard", CHUNK_MATRIX,
                         ids=[f"{s}-{c}-v{f}{'-sharded' if sh else ''}"
                              for s, c, f, sh in CHUNK_MATRIX])
def test_chunk_shapes_both_ways(tmp_path, rng, shape, chunks, zarr_format, shard, supports):
    data = random_data("<f4", shape, rng)
    kwargs = {}
    if zarr_format == 3:
        if shard and len(shape) > 0:
            inner = tuple(max(1, c // 2) for c in chunks)
            outer = tuple(i * 2 for i in inner)
            chunks, codecs = outer, [sharded(inner, [BYTES_LE, ZSTD])]
        else:
            codecs = [BYTES_LE, ZSTD]
        kwargs["codecs"] = codecs
    zarr_write(tmp_path / "z", data, zarr_format=zarr_format, chunks=chunks, **kwargs)
    if data.size:
        a = check_reads(tmp_path / "z", data, zarr_format)
    else:
        a = tz.open(str(tmp_path / "z"))
        assert_bit_equal(a[...], data)
    supports.array(a, "read", peer=ZARR)
    t = tz.create(str(tmp_path / "t"), shape=shape, dtype="<f4", chunks=chunks,
                  zarr_format=zarr_format, **kwargs)
    t[...] = data
    check_zarr_reads(tmp_path / "t", data)
    supports.array(t, "write", peer=ZARR)


# ---------------------------------------------------------------------------
# Partial writes by turbozarr into arrays zarr-python made, and missing
# chunks reading as the fill value.

PARTIAL_CASES = [
    (3, "int32", None), (3, "float64", "sharded"), (3, "int16", "sharded-start"),
    (3, "uint16", "transpose"),
    (2, "<i4", "C"), (2, ">f8", "F"), (2, "|u1", "C"), (3, "string", None),
    (2, "string", "C"), (3, "bytes", None), (2, "<U5", "C"),
]


def _partial_zarr_kwargs(zarr_format, dtype, variant):
    if zarr_format == 2:
        return {"order": variant or "C"}
    ser = serializer_for(dtype)
    if variant in ("sharded", "sharded-start"):
        location = "start" if variant == "sharded-start" else "end"
        return {"codecs": [sharded((3, 4), [ser, ZSTD], location)], "chunks": (6, 8)}
    if variant == "transpose":
        return {"codecs": [transpose((1, 0)), ser, ZSTD]}
    return {"codecs": [ser, ZSTD]}


@pytest.mark.parametrize("zarr_format,dtype,variant", PARTIAL_CASES,
                         ids=[f"v{f}-{d}-{v}" for f, d, v in PARTIAL_CASES])
def test_partial_write_into_zarr_python_array(tmp_path, rng, zarr_format, dtype, variant,
                                              supports):
    data = random_data(dtype, (13, 11), rng)
    kwargs = _partial_zarr_kwargs(zarr_format, dtype, variant)
    chunks = kwargs.pop("chunks", (3, 4))
    zarr_write(tmp_path / "z", data, zarr_format=zarr_format, chunks=chunks, **kwargs)
    a = tz.open(str(tmp_path / "z"), mode="r+")
    model = data.copy()
    patch = random_data(dtype, (5, 4), rng)
    a[2:7, 3:11:2] = patch            # strided, partial chunks
    model[2:7, 3:11:2] = patch
    row = random_data(dtype, (11,), rng)
    a[-1] = row                        # integer index, last (partial) chunk row
    model[-1] = row
    a[8:12, ::-3] = model[0:4, 0:4]    # reversed step
    model[8:12, ::-3] = model[0:4, 0:4]
    check_zarr_reads(tmp_path / "z", model)
    assert_bit_equal(a[...], model)  # with chunks only zarr-python wrote
    supports.array(a, ["read", "write"], peer=ZARR)


@pytest.mark.parametrize("location", ["end", "start"])
def test_partial_sharded_writes_match_zarr_python_bytes(tmp_path, rng, location, supports):
    # The same partial writes by both libraries into copies of one sharded
    # array leave the same shard bytes: untouched inner chunks kept, inner
    # chunks of nothing but fill left out, emptied shards removed.
    data = random_data("int32", (13, 17), rng)
    codecs = [sharded((4, 5), [BYTES_LE], location)]
    for name in ("z", "t"):
        zarr_write(tmp_path / name, data, zarr_format=3, chunks=(8, 10), codecs=codecs,
                   fill_value=0)
    z = zarr.open_array(str(tmp_path / "z"), mode="r+")
    t = tz.open(str(tmp_path / "t"), mode="r+")
    patch = random_data("int32", (5, 4), rng)
    for a in (z, t):
        a[2:7, 3:11:2] = patch          # parts of inner chunks of one shard
        a[8:10, 0:5] = 0                # half an inner chunk to fill, then
        a[10:12, 0:5] = 0               # the other half: it is left out
        a[8:13, 10:17] = 0              # a whole shard of fill: removed
        a[0:4, 10:15] = patch[:4, :1]   # one inner chunk whole, by broadcast
    for key in ("c/0/0", "c/0/1", "c/1/0", "c/1/1"):
        zp, tp = tmp_path / "z" / key, tmp_path / "t" / key
        assert zp.exists() == tp.exists(), key
        if zp.exists():
            assert tp.read_bytes() == zp.read_bytes(), key
    check_zarr_reads(tmp_path / "t", z[...])
    # The same bytes after updates that decode zarr-python's shards.
    supports.array(t, ["read", "write"], peer=ZARR)


FILL_CASES = [
    (3, "int16", -7), (3, "float32", float("nan")), (3, "float64", float("-inf")),
    (3, "complex64", complex(1.5, -2)), (3, "bool", True), (3, "uint64", 2**64 - 1),
    (2, "<i8", 42), (2, ">f4", float("nan")), (2, "<f8", float("inf")), (2, "|b1", True),
    (3, "string", "fill"), (2, "string", ""), (2, "|S4", b"ab"), (2, "<U3", "xyz"),
]


@pytest.mark.parametrize("zarr_format,dtype,fill", FILL_CASES,
                         ids=[f"v{f}-{d}-{v!r}" for f, d, v in FILL_CASES])
def test_missing_chunks_read_as_fill_value(tmp_path, rng, zarr_format, dtype, fill, supports):
    shape, chunks = (10, 7), (4, 3)
    data = random_data(dtype, (3, 2), rng)
    expected = np.full(shape, fill, dtype=expected_dtype(dtype, zarr_format))
    expected[5:8, 3:5] = data
    # zarr-python writes one block; the other chunks are never stored.
    z = zarr.create(store=str(tmp_path / "z"), shape=shape, chunks=chunks,
                    dtype=zarr_dtype(dtype), fill_value=fill, zarr_format=zarr_format)
    z[5:8, 3:5] = data
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], expected)
    assert_bit_equal(a[9, :], expected[9, :])
    # And the same the other way round.
    t = tz.create(str(tmp_path / "t"), shape=shape, chunks=chunks, dtype=tz_dtype(dtype),
                  fill_value=fill, zarr_format=zarr_format)
    t[5:8, 3:5] = data
    check_zarr_reads(tmp_path / "t", expected)
    # Neither stores the chunks that hold nothing but the fill value.
    assert _chunk_files(tmp_path / "t") == _chunk_files(tmp_path / "z")
    supports.array(a, "read", peer=ZARR)
    supports.array(t, "write", peer=ZARR)


def _chunk_files(root):
    names = set()
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f not in ("zarr.json", ".zarray", ".zattrs", ".zgroup"):
                names.add(os.path.relpath(os.path.join(dirpath, f), root))
    return names


def test_chunks_of_only_fill_value_are_not_stored(tmp_path):
    t = tz.create(str(tmp_path / "t"), shape=(8, 8), chunks=(4, 4), dtype="i4",
                  fill_value=5)
    t[...] = 5
    t[0, 0] = 1
    assert sorted(os.listdir(tmp_path / "t" / "c")) == ["0"]
    assert os.listdir(tmp_path / "t" / "c" / "0") == ["0"]
    expected = np.full((8, 8), 5, dtype="i4")
    expected[0, 0] = 1
    check_zarr_reads(tmp_path / "t", expected)


# ---------------------------------------------------------------------------
# Metadata: what turbozarr.create writes is what zarr-python writes.

META_CASES = [
    dict(shape=(100, 50), dtype="f8", chunks=(10, 10)),
    dict(shape=(100, 50), dtype="i2", chunks=(10, 10), zarr_format=2),
    dict(shape=(100, 50), dtype="u1", chunks=(10, 10)),
    dict(shape=(30, 20), dtype="f4", chunks=(4, 5), shards=(8, 10)),
    dict(shape=(30,), dtype=str, chunks=(7,)),
    dict(shape=(30,), dtype=str, chunks=(7,), zarr_format=2),
    dict(shape=(1000, 1000), dtype="f8"),
    dict(shape=(10,), dtype="bool", chunks=(3,), fill_value=True),
    dict(shape=(10,), dtype="f4", chunks=(3,), fill_value=float("nan"), zarr_format=2),
    dict(shape=(10,), dtype="c8", chunks=(3,), fill_value=complex(1, float("inf"))),
    dict(shape=(10, 4), dtype="i4", chunks=(3, 2), attributes={"a": [1, 2]},
         dimension_names=["x", None]),
]


@pytest.mark.parametrize("kwargs", META_CASES, ids=[str(i) for i in range(len(META_CASES))])
def test_create_writes_what_zarr_python_writes(tmp_path, kwargs):
    zarr.create_array(store=str(tmp_path / "z"), **kwargs)
    tz.create(str(tmp_path / "t"), **kwargs)
    for name in ("zarr.json", ".zarray"):
        z_file, t_file = tmp_path / "z" / name, tmp_path / "t" / name
        if z_file.exists():
            assert json.loads(t_file.read_text()) == json.loads(z_file.read_text()), name
    # v2: .zattrs as zarr-python writes it, {} when there are no attributes.
    z_attrs, t_attrs = tmp_path / "z" / ".zattrs", tmp_path / "t" / ".zattrs"
    assert t_attrs.exists() == z_attrs.exists()
    if z_attrs.exists():
        assert json.loads(t_attrs.read_text()) == json.loads(z_attrs.read_text())


def test_v2_groups_and_consolidated_metadata_have_empty_zattrs(tmp_path):
    zg = zarr.open_group(str(tmp_path / "z"), mode="w", zarr_format=2)
    zg.create_array("a", shape=(2,), dtype="i4", chunks=(2,))
    zarr.consolidate_metadata(str(tmp_path / "z"))
    tg = tz.group(str(tmp_path / "t"), zarr_format=2)
    tg.create_array("a", shape=(2,), dtype="i4", chunks=(2,))
    tg.consolidate()
    for name in (".zattrs", "a/.zattrs"):
        assert json.loads((tmp_path / "t" / name).read_text()) == {}
    z_meta = json.load(open(tmp_path / "z" / ".zmetadata"))["metadata"]
    t_meta = json.load(open(tmp_path / "t" / ".zmetadata"))["metadata"]
    assert sorted(t_meta) == sorted(z_meta)


@pytest.mark.parametrize("dtype", ["<i4", "<f8", "|S3", "string"])
def test_v2_null_fill_value_reads_as_zero(tmp_path, dtype, supports):
    z = zarr.create(store=str(tmp_path / "z"), shape=(5,), chunks=(2,), zarr_format=2,
                    dtype=zarr_dtype(dtype), fill_value=None)
    assert json.load(open(tmp_path / "z" / ".zarray"))["fill_value"] is None
    a = tz.open(str(tmp_path / "z"))
    assert a.fill_value is None and z.fill_value is None
    assert_bit_equal(a[...], z[...])
    supports.array(a, "read", peer=ZARR)


@pytest.mark.parametrize("dtype", ["|i1", "<u2", "<i4", "<u8", "<f4", "<f8"])
@pytest.mark.parametrize("order", "CF")
def test_v2_delta_filter_both_ways(tmp_path, rng, dtype, order, supports):
    import numcodecs
    # Random bits: integers wrap around, floats lose what numcodecs loses.
    data = random_data(dtype, (13, 17), rng)
    comp = {"id": "zstd", "level": 1, "checksum": False}
    zarr_write(tmp_path / "z", data, zarr_format=2, chunks=(4, 5), compressor=comp,
               filters=[numcodecs.Delta(dtype=dtype)], order=order)
    reference = zarr.open_array(str(tmp_path / "z"), mode="r")[...]
    if np.dtype(dtype).kind in "iu":
        assert_bit_equal(reference, data)
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], reference)

    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=dtype, chunks=(4, 5),
                  zarr_format=2, compressor=comp, order=order,
                  filters=[{"id": "delta", "dtype": dtype}])
    t[...] = data
    zarray = json.load(open(tmp_path / "t" / ".zarray"))
    assert zarray["filters"] == [{"id": "delta", "dtype": dtype}]  # as given
    check_zarr_reads(tmp_path / "t", reference)
    for key in ("0.0", "3.3", "2.1"):
        assert (tmp_path / "t" / key).read_bytes() == (tmp_path / "z" / key).read_bytes()
    supports.array(a, "read", peer=ZARR)
    supports.array(t, "write", peer=ZARR)


@pytest.mark.parametrize("dtype,filters", [
    ("<i4", [{"id": "shuffle", "elementsize": 4}]),
    (">f8", [{"id": "shuffle", "elementsize": 8}]),  # shuffles the stored bytes
    ("<u2", [{"id": "shuffle"}]),  # elementsize 4 over 2-byte values
    ("<i8", [{"id": "delta", "dtype": "<i8"}, {"id": "shuffle", "elementsize": 8}]),
])
def test_v2_shuffle_filter_both_ways(tmp_path, rng, dtype, filters, supports):
    import numcodecs
    data = random_data(dtype, (12, 16), rng)
    comp = None  # so that the stored bytes are the filters' alone
    zarr_write(tmp_path / "z", data, zarr_format=2, chunks=(4, 8), compressor=comp,
               filters=[numcodecs.get_codec(dict(f)) for f in filters])
    supports.array(check_reads(tmp_path / "z", data, 2), "read", peer=ZARR)
    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=dtype, chunks=(4, 8),
                  zarr_format=2, compressor=comp, filters=filters)
    t[...] = data
    check_zarr_reads(tmp_path / "t", data)
    for key in ("0.0", "2.1"):
        assert (tmp_path / "t" / key).read_bytes() == (tmp_path / "z" / key).read_bytes()
    supports.array(t, "write", peer=ZARR)


def test_v2_value_filter_after_shuffle_is_unsupported(tmp_path):
    import numcodecs
    zarr.create(store=str(tmp_path / "z"), shape=(4,), chunks=(2,), dtype="<i4",
                zarr_format=2, compressor=None,
                filters=[numcodecs.Shuffle(4), numcodecs.Delta(dtype="<i4")])
    with pytest.raises(tz.UnsupportedError, match="delta"):
        tz.open(str(tmp_path / "z"))[...]


def test_v3_numcodecs_shuffle_is_read(tmp_path, rng, supports):
    from zarr.codecs.numcodecs import Shuffle
    data = random_data("<f4", (13, 17), rng)
    z = zarr.create_array(store=str(tmp_path / "z"), shape=data.shape, chunks=(4, 5),
                          dtype="<f4", compressors=[Shuffle(elementsize=4)])
    z[...] = data
    codecs = json.load(open(tmp_path / "z" / "zarr.json"))["codecs"]
    assert codecs[-1]["name"] == "numcodecs.shuffle"
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], data)
    supports.array(a, "read", peer=ZARR)


def test_v3_numcodecs_delta_is_read(tmp_path, rng, supports):
    from zarr.codecs.numcodecs import Delta
    data = random_data("<i8", (13, 17), rng)
    z = zarr.create_array(store=str(tmp_path / "z"), shape=data.shape, chunks=(4, 5),
                          dtype="<i8", filters=[Delta(dtype="<i8")])
    z[...] = data
    codecs = json.load(open(tmp_path / "z" / "zarr.json"))["codecs"]
    assert codecs[0]["name"] == "numcodecs.delta"
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], data)
    supports.array(a, "read", peer=ZARR)


def test_delta_on_big_endian_v2_is_unsupported(tmp_path):
    import numcodecs
    zarr.create(store=str(tmp_path / "z"), shape=(4,), chunks=(2,), dtype=">i4",
                zarr_format=2, compressor=None, filters=[numcodecs.Delta(dtype=">i4")])
    with pytest.raises(tz.UnsupportedError, match="delta"):
        tz.open(str(tmp_path / "z"))[...]


def test_unknown_v2_filter_is_unsupported_and_named(tmp_path):
    zarr.create(store=str(tmp_path / "z"), shape=(4,), chunks=(2,), dtype="<i4",
                zarr_format=2, compressor=None)[...] = 1
    zarray = json.load(open(tmp_path / "z" / ".zarray"))
    zarray["filters"] = [{"id": "no-such-filter"}]
    (tmp_path / "z" / ".zarray").write_text(json.dumps(zarray))
    with pytest.raises(tz.UnsupportedError, match="no-such-filter"):
        tz.open(str(tmp_path / "z"))[...]


@pytest.mark.parametrize("order", ["lexicographic", "colexicographic", "unordered"])
def test_shards_in_every_subchunk_write_order_read_and_update(tmp_path, order, supports):
    """zarr-python 3.4 lays a shard's inner chunks out in the order its
    ShardingCodec is told (a write-time setting, not in zarr.json); the index
    says where each lies, so turbozarr reads every layout and updates it."""
    from zarr.codecs import ShardingCodec
    try:
        codec = ShardingCodec(chunk_shape=(8, 8), subchunk_write_order=order)
    except TypeError:
        pytest.skip("zarr-python before 3.4 writes Morton order only")
    data = np.arange(64 * 48, dtype="u2").reshape(64, 48)
    path, morton = tmp_path / order, tmp_path / "morton"
    for where, serializer in ((path, codec), (morton, ShardingCodec(chunk_shape=(8, 8)))):
        z = zarr.create_array(str(where), shape=data.shape, dtype="u2", chunks=(32, 48),
                              serializer=serializer, compressors=None)
        z[...] = data
    theirs = (path / "c" / "0" / "0").read_bytes()
    if order != "unordered":
        assert theirs != (morton / "c" / "0" / "0").read_bytes(), "a layout of its own"
    a = tz.open_array(str(path), mode="r+")
    np.testing.assert_array_equal(a[...], data)
    np.testing.assert_array_equal(a[3:61:5, 7:40:3], data[3:61:5, 7:40:3])
    a[10:20, 5:9] = 7
    expected = data.copy()
    expected[10:20, 5:9] = 7
    np.testing.assert_array_equal(zarr.open_array(str(path))[...], expected)
    np.testing.assert_array_equal(a[...], expected)
    # turbozarr reads this layout; its update writes its own (Morton order).
    supports("layout", f'subchunk_write_order "{order}"', "read", peer=ZARR, zarr_format=3)
    supports.array(a, ["read", "write"], peer=ZARR)
