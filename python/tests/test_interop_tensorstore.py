"""Byte compatibility with TensorStore 0.1.86, in both directions, for every
feature its zarr3 and zarr (v2) drivers write that turbozarr supports.

Each case is one metadata document (data type, codecs or compressor, chunk
key encoding or dimension separator, memory order, fill value) for an array
of shape (21, 26) in (8, 10) chunks: partial edge chunks, and chunk (0, 0)
never written, so that it reads as the fill value. The data are random bit
patterns (NaNs with payloads, infinities, subnormals) in two rows of every
eight and one repeated value in the others, so that the compressors have
something to compress (the read tests check that they did).

- read: TensorStore writes the array; turbozarr reads it, whole and through
  a strided selection, and gets what TensorStore itself reads, bit for bit,
  and the same fill value.
- write: turbozarr writes the same array from the same metadata;
  TensorStore opens and reads it, bit for bit. TensorStore then writes the
  same values from turbozarr's metadata document: both store the same chunk
  keys, and where no compressor is in the chain the same chunk bytes (for
  shards, the same inner chunks: the two place them in a different order).

Covered: every data type, codec and layout TensorStore 0.1.86 writes that
turbozarr supports, v2 structs included (TensorStore opens them one field
at a time). The low-precision types are in test_low_precision_types.py.
Left out because TensorStore lacks them:
- v3: string, bytes and struct types; packbits and the numcodecs.* codecs.
  It opens `r<N>` (raw bits) arrays but cannot create one: a failed
  internal check aborts the process, or the ranks of metadata and schema
  do not match (and turbozarr reads `r<N>` but does not write it).
- v2: filters (it refuses a non-null "filters"); the lz4 and lzma
  compressors; `<U` and object types.
Left out because turbozarr lacks them: v2 structs whose fields mix byte
orders. Blosc's "snappy" is left to test_interop_zarrs.py: TensorStore 0.1.86
stores such chunks uncompressed, so they prove nothing of snappy.

Where TensorStore refuses what turbozarr writes, the write case is an
expected failure naming what turbozarr writes (SHORT_BYTES_FILL_BUG: as
zarr-python writes it too).

TensorStore's Python binding hands `|S` and `|V` arrays to numpy 2 with
an item size of 0, so for those TensorStore's reads are taken by having it
copy the array into an uncompressed array of one chunk and reading that
chunk's bytes.
"""

from __future__ import annotations

import base64
import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data
from support_records import peer

ts = pytest.importorskip("tensorstore")

TENSORSTORE = peer("tensorstore")

SHAPE = (21, 26)
CHUNKS = (8, 10)
SHARDS = (16, 20)  # four inner chunks of CHUNKS each
UNWRITTEN = (slice(0, 8), slice(0, 10))  # chunk (0, 0), inner chunk (0, 0) of shard (0, 0)
STRIDED = (slice(1, None, 3), slice(None, None, -2))


def codec(name: str, **configuration) -> dict:
    return {"name": name, "configuration": configuration} if configuration else {"name": name}


BYTES = codec("bytes")
LE = codec("bytes", endian="little")
BE = codec("bytes", endian="big")
CRC32C = codec("crc32c")
COMPRESSORS = {"gzip", "zstd", "blosc", "zlib", "bz2"}


def v3_blosc(cname: str, shuffle: str, typesize: int) -> dict:
    return codec("blosc", cname=cname, clevel=5, shuffle=shuffle, typesize=typesize,
                 blocksize=0)


def shard(inner: list, index: list, location: str) -> dict:
    return codec("sharding_indexed", chunk_shape=list(CHUNKS), codecs=inner,
                 index_codecs=index, index_location=location)


def v2_blosc(cname: str, shuffle: int) -> dict:
    return {"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle, "blocksize": 0}


@dataclass
class Case:
    id: str
    zarr_format: int
    dtype: str | list  # as the metadata spells it (a list: a v2 struct)
    fill: Any
    codecs: list | None = None  # v3: the whole chain
    chunk_key_encoding: dict | None = None  # v3: None is the default, "/"
    compressor: dict | None = None  # v2
    order: str = "C"  # v2
    dimension_separator: str = "."  # v2
    write_bug: str | None = None  # why TensorStore refuses what turbozarr writes

    @property
    def dt(self) -> np.dtype:
        if isinstance(self.dtype, str):
            return np.dtype(self.dtype)
        return np.dtype([(f[0], f[1], tuple(f[2]) if len(f) > 2 else ())
                         for f in self.dtype])

    @property
    def chunks(self) -> tuple[int, ...]:
        """The chunk grid's chunk shape: the shard shape when sharded."""
        sharded = any(c["name"] == "sharding_indexed" for c in self.codecs or [])
        return SHARDS if sharded else CHUNKS

    def names(self) -> list[str]:
        """The codecs the metadata names, those inside shards too."""
        if self.zarr_format == 2:
            return [self.compressor["id"]] if self.compressor else []
        out = []
        for c in self.codecs:
            out.append(c["name"])
            if c["name"] == "sharding_indexed":
                out += [i["name"] for i in c["configuration"]["codecs"]]
        return out

    @property
    def compressed(self) -> bool:
        return bool(COMPRESSORS.intersection(self.names()))

    def ts_create(self, path: Path):
        """TensorStore's new array of this metadata. The fill value goes in
        as a numpy value (|S and |V: spelled in the metadata, base64)."""
        if self.zarr_format == 2:
            meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": self.dtype,
                    "compressor": self.compressor, "filters": None, "order": self.order,
                    "dimension_separator": self.dimension_separator}
        else:
            meta = {"shape": list(SHAPE), "data_type": self.dtype,
                    "chunk_grid": {"name": "regular",
                                   "configuration": {"chunk_shape": list(self.chunks)}},
                    "codecs": self.codecs}
            if self.chunk_key_encoding:
                meta["chunk_key_encoding"] = self.chunk_key_encoding
        fill = np.asarray(self.fill, dtype=self.dt)
        kwargs = {}
        if self.dt.kind in "SV":
            meta["fill_value"] = base64.standard_b64encode(fill.tobytes()).decode("ascii")
        else:  # in native byte order: TensorStore takes the bytes as they are
            kwargs["fill_value"] = fill.astype(self.dt.newbyteorder("="))
        return ts_open(path, self, metadata=meta, create=True, **kwargs)

    def tz_kwargs(self) -> dict:
        """tz.create's arguments for the same metadata."""
        kwargs = dict(shape=SHAPE, dtype=self.dtype if isinstance(self.dtype, str) else self.dt,
                      chunks=self.chunks,
                      fill_value=self.fill, zarr_format=self.zarr_format)
        if self.zarr_format == 2:
            return {**kwargs, "compressor": self.compressor, "filters": None,
                    "order": self.order, "dimension_separator": self.dimension_separator}
        return {**kwargs, "codecs": self.codecs,
                "chunk_key_encoding": self.chunk_key_encoding}

    def numpy_dtype(self) -> np.dtype:
        """What turbozarr reads such an array as: v2 keeps the byte order."""
        return self.dt if self.zarr_format == 2 else self.dt.newbyteorder("=")


# ---- the matrix ------------------------------------------------------------


def _v3_fill(dt: np.dtype) -> Any:
    if dt.kind == "b":
        return True
    if dt.kind == "i":
        return int(np.iinfo(dt).min) + 1
    if dt.kind == "u":
        return int(np.iinfo(dt).max) - 1
    if dt.kind == "f":
        return float("nan")
    return complex(float("nan"), -1.5)


V3_TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
            "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def _v3_type_cases() -> list[Case]:
    cases = []
    for name in V3_TYPES:
        dt = np.dtype(name)
        fill = _v3_fill(dt)
        if dt.itemsize == 1:
            cases.append(Case(f"v3-{name}", 3, name, fill, [BYTES]))
        else:
            cases.append(Case(f"v3-{name}-little", 3, name, fill, [LE]))
            cases.append(Case(f"v3-{name}-big", 3, name, fill, [BE]))
    return cases


V3_CODEC_CASES = [
    Case("v3-transpose", 3, "int32", -5, [codec("transpose", order=[1, 0]), LE]),
    Case("v3-transpose-big", 3, "float64", float("-inf"),
         [codec("transpose", order=[1, 0]), BE]),
    Case("v3-gzip", 3, "uint16", 7, [LE, codec("gzip", level=5)]),
    Case("v3-zstd", 3, "float32", -0.0, [LE, codec("zstd", level=3, checksum=True)]),
    Case("v3-zstd-level0", 3, "int64", 3, [LE, codec("zstd", level=0, checksum=False)]),
    Case("v3-blosc-lz4-shuffle", 3, "float32", 1.5, [LE, v3_blosc("lz4", "shuffle", 4)]),
    Case("v3-blosc-zstd-bitshuffle", 3, "uint16", 9,
         [LE, v3_blosc("zstd", "bitshuffle", 2)]),
    Case("v3-blosc-blosclz-noshuffle", 3, "int16", -3,
         [LE, v3_blosc("blosclz", "noshuffle", 2)]),
    Case("v3-blosc-lz4hc-bitshuffle", 3, "float64", float("nan"),
         [LE, v3_blosc("lz4hc", "bitshuffle", 8)]),
    Case("v3-blosc-zlib-shuffle", 3, "int32", 11, [BE, v3_blosc("zlib", "shuffle", 4)]),
    Case("v3-blosc-zstd-shuffle-complex", 3, "complex64", complex(2.0, float("nan")),
         [LE, v3_blosc("zstd", "shuffle", 8)]),
    Case("v3-crc32c", 3, "uint32", 12345, [LE, CRC32C]),
    Case("v3-gzip-crc32c", 3, "float32", float("nan"),
         [LE, codec("gzip", level=1), CRC32C]),
    Case("v3-shard-index-end", 3, "int16", -2, [shard([LE], [LE, CRC32C], "end")]),
    Case("v3-shard-index-start", 3, "int16", -2, [shard([LE], [LE, CRC32C], "start")]),
    Case("v3-shard-zstd-index-end", 3, "float32", float("nan"),
         [shard([LE, codec("zstd", level=1, checksum=False)], [LE, CRC32C], "end")]),
    Case("v3-shard-blosc-transpose-index-start", 3, "uint16", 4,
         [shard([codec("transpose", order=[1, 0]), LE, v3_blosc("zstd", "shuffle", 2)],
                [LE, CRC32C], "start")]),
    Case("v3-shard-gzip-crc32c-plain-index", 3, "float64", 0.25,
         [shard([LE, codec("gzip", level=6), CRC32C], [LE], "end")]),
    Case("v3-chunk-key-default-slash", 3, "int16", 1, [LE],
         {"name": "default", "configuration": {"separator": "/"}}),
    Case("v3-chunk-key-default-dot", 3, "int16", 1, [LE],
         {"name": "default", "configuration": {"separator": "."}}),
    Case("v3-chunk-key-v2-dot", 3, "int16", 1, [LE], {"name": "v2"}),
    Case("v3-chunk-key-v2-slash", 3, "int16", 1, [LE],
         {"name": "v2", "configuration": {"separator": "/"}}),
]


# What turbozarr writes and TensorStore 0.1.86 refuses to open.
SHORT_BYTES_FILL_BUG = (
    'the |S6 fill value b"zz" is written as the base64 of its two bytes, "eno=", '
    "without the four NULs that pad it to the type's six (as zarr-python 3.4 writes "
    'it); TensorStore refuses the .zarray ("Expected 6 base64-encoded bytes")')


def _v2_fill(dt: np.dtype) -> Any:
    if dt.kind == "S":
        return b"a\x00\xffz9\x01"[:dt.itemsize]
    if dt.kind == "V":
        return np.void(bytes(range(0x7d, 0x7d + dt.itemsize)))
    return _v3_fill(dt)




def v2_struct(order: str) -> list:
    """A struct (TensorStore's zarr driver has them in v2 only) with a
    subarray field, its fields of one byte order (turbozarr does not mix
    them). No bool field: random bytes are not bools."""
    return [["a", f"{order}i2"], ["b", f"{order}f8"], ["c", "|u1", [2]], ["d", f"{order}c8"]]


STRUCT_FILL = (-3, np.nan, [1, 255], complex(1.0, np.nan))

V2_NUMBERS = ["i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]
V2_TYPES = ["|b1", "|i1", "|u1", *(o + t for t in V2_NUMBERS for o in "<>"), "|S6", "|V3"]
V2_TYPE_CASES = [Case(f"v2-{t}", 2, t, _v2_fill(np.dtype(t))) for t in V2_TYPES]

V2_LAYOUT_CASES = [
    Case("v2-blosc-lz4-shuffle", 2, "<f4", float("nan"), compressor=v2_blosc("lz4", 1)),
    Case("v2-blosc-zstd-bitshuffle", 2, ">u2", 5, compressor=v2_blosc("zstd", 2)),
    Case("v2-blosc-blosclz-noshuffle", 2, "<i8", -1, compressor=v2_blosc("blosclz", 0)),
    Case("v2-blosc-lz4hc-autoshuffle", 2, "<f8", 0.5, compressor=v2_blosc("lz4hc", -1)),
    Case("v2-zlib", 2, "<i4", 3, compressor={"id": "zlib", "level": 6}),
    Case("v2-gzip", 2, ">f8", float("nan"), compressor={"id": "gzip", "level": 5}),
    Case("v2-zstd", 2, "<u4", 8, compressor={"id": "zstd", "level": 3}),
    Case("v2-bz2", 2, "<c8", complex(float("nan"), 1.0), compressor={"id": "bz2", "level": 9}),
    Case("v2-order-F", 2, "<i2", -9, order="F"),
    Case("v2-order-F-zlib", 2, ">f4", float("nan"), order="F",
         compressor={"id": "zlib", "level": 1}),
    Case("v2-separator-slash", 2, "<u2", 2, dimension_separator="/"),
    Case("v2-separator-slash-order-F-blosc", 2, "|S6", b"q\x00\x00\x00\x00r", order="F",
         dimension_separator="/", compressor=v2_blosc("lz4", 1)),
    Case("v2-|S6-fill-with-trailing-NULs", 2, "|S6", b"zz", write_bug=SHORT_BYTES_FILL_BUG),
    Case("v2-struct-little", 2, v2_struct("<"), STRUCT_FILL),
    Case("v2-struct-big-order-F-slash-zlib", 2, v2_struct(">"), STRUCT_FILL, order="F",
         dimension_separator="/", compressor={"id": "zlib", "level": 5}),
]

CASES = _v3_type_cases() + V3_CODEC_CASES + V2_TYPE_CASES + V2_LAYOUT_CASES


def _params(way: str) -> list:
    """The cases, those whose writing TensorStore refuses marked so (it
    raises ValueError on opening them)."""
    params = []
    for c in CASES:
        marks = []
        if way == "write" and c.write_bug:
            marks.append(pytest.mark.xfail(strict=True, raises=ValueError, reason=c.write_bug))
        params.append(pytest.param(c, id=c.id, marks=marks))
    return params


# ---- helpers ---------------------------------------------------------------


def _spec(path: Path, zarr_format: int) -> dict:
    return {"driver": "zarr3" if zarr_format == 3 else "zarr",
            "kvstore": {"driver": "file", "path": str(path)}}


class Fields:
    """A v2 struct array as TensorStore opens it: one TensorStore a field
    (a subarray field with its shape as more dimensions)."""

    def __init__(self, fields: dict):
        self.fields = fields

    def __getitem__(self, selection) -> Fields:
        return Fields({name: t[selection] for name, t in self.fields.items()})

    def __setitem__(self, selection, data: np.ndarray) -> None:
        for name, t in self.fields.items():
            t[selection] = data[name]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(next(iter(self.fields.values())).shape)


def ts_open(path: Path, case: Case, metadata: dict | None = None, **kwargs):
    """TensorStore's array at `path` (a struct: its Fields)."""
    spec = _spec(path, case.zarr_format)
    if metadata is not None:
        spec["metadata"] = metadata
    if case.dt.names is None:
        return ts.open(spec, **kwargs).result()
    first, *others = case.dt.names
    fields = {first: ts.open({**spec, "field": first}, **kwargs).result()}
    fields.update({name: ts.open({**_spec(path, 2), "field": name}).result()
                   for name in others})
    return Fields(fields)


def assert_bits(actual: np.ndarray, expected: np.ndarray) -> None:
    """assert_bit_equal, field by field for structs (whose fields hold NaNs)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    for name in expected.dtype.names or ():
        assert_bit_equal(actual[name], expected[name])
    if expected.dtype.names is None:
        assert_bit_equal(actual, expected)


def values(case: Case, rng: np.random.Generator) -> np.ndarray:
    """Random bit patterns in the first two rows of every eight (of every
    chunk), one repeated value in the others."""
    data = random_data(case.dt, SHAPE, rng)
    data[np.arange(SHAPE[0]) % 8 >= 2] = data.flat[0]
    return data


def expected(case: Case, data: np.ndarray) -> np.ndarray:
    want = data.astype(case.numpy_dtype())
    want[UNWRITTEN] = np.asarray(case.fill, dtype=case.dt)
    return want


def _ts_form(data: np.ndarray) -> np.ndarray:
    """Values as TensorStore takes them: |S and |V as one more dimension of
    single characters or bytes (a struct goes field by field to Fields)."""
    if data.dtype.names is not None:
        return data
    if data.dtype.kind == "S":
        return data.view("S1").reshape(*data.shape, data.dtype.itemsize)
    if data.dtype.kind == "V":
        return data.view(np.uint8).reshape(*data.shape, data.dtype.itemsize)
    return data


def write_all_but_one_chunk(target, data: np.ndarray, *, tensorstore: bool) -> None:
    """Writes every element but those of UNWRITTEN, chunk by chunk region."""
    form = _ts_form if tensorstore else (lambda x: x)
    rows, cols = UNWRITTEN
    target[rows.stop:] = form(data[rows.stop:])
    target[:rows.stop, cols.stop:] = form(data[:rows.stop, cols.stop:])


def ts_read(t, case: Case) -> np.ndarray:
    """TensorStore's own read of `t`, as turbozarr's dtype."""
    if isinstance(t, Fields):
        out = np.empty(t.shape, dtype=case.dt)
        for name, field in t.fields.items():
            out[name] = np.asarray(field.read().result())  # (a byte swap: exact)
        return out
    if case.dt.kind not in "SV":
        return np.asarray(t.read().result()).astype(case.numpy_dtype())
    # Copied by TensorStore into one uncompressed chunk, whose bytes are
    # the elements in C order.
    shape = list(t.shape[:-1])
    copy = ts.open({"driver": "zarr", "kvstore": {"driver": "memory"},
                    "metadata": {"shape": shape, "chunks": shape, "dtype": case.dtype,
                                 "compressor": None}}, create=True).result()
    copy.write(t.translate_to[0]).result()
    raw = copy.kvstore.read(".".join("0" * len(shape))).result().value
    return np.frombuffer(raw, dtype=case.dt).reshape(shape)


def ts_fill(t, case: Case) -> np.ndarray | None:
    """TensorStore's fill value, as turbozarr's dtype; None for |S and |V,
    whose fill value reaches numpy empty (the unwritten chunk read shows
    that TensorStore has it right)."""
    if isinstance(t, Fields):
        out = np.empty((), dtype=case.dt)
        for name, field in t.fields.items():
            out[name] = np.asarray(field.fill_value)
        return out
    if case.dt.kind in "SV":
        return None
    return np.asarray(t.fill_value).astype(case.numpy_dtype())


def stored(path: Path) -> dict[str, bytes]:
    """The chunk (or shard) files by key."""
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file() and p.name not in (".zarray", ".zattrs", "zarr.json")}


def inner_chunks(shard_bytes: bytes, n: int, index_location: str, crc32c: bool) -> list:
    """The inner chunks of a shard in C order (None where missing), read
    through its index of (offset, nbytes) pairs."""
    size = 16 * n + (4 if crc32c else 0)
    index = shard_bytes[:size] if index_location == "start" else shard_bytes[-size:]
    pairs = struct.unpack(f"<{2 * n}Q", index[:16 * n])
    return [None if off == 2**64 - 1 else shard_bytes[off:off + nbytes]
            for off, nbytes in zip(pairs[::2], pairs[1::2])]


def assert_same_chunks(case: Case, ours: Path, theirs: Path) -> None:
    """Same chunk keys; without a compressor, the same chunk bytes (for
    shards, the same inner chunks)."""
    a, b = stored(ours), stored(theirs)
    assert sorted(a) == sorted(b)
    if case.compressed:
        return
    sharding = case.codecs[0] if case.zarr_format == 3 else {"name": ""}
    if sharding["name"] != "sharding_indexed":
        assert a == b
        return
    config = sharding["configuration"]
    n = int(np.prod(np.divide(SHARDS, CHUNKS).astype(int)))
    crc = config["index_codecs"][-1]["name"] == "crc32c"
    for key in a:
        ours_inner = inner_chunks(a[key], n, config["index_location"], crc)
        assert ours_inner == inner_chunks(b[key], n, config["index_location"], crc), key
    first = inner_chunks(a[sorted(a)[0]], n, config["index_location"], crc)
    assert first[0] is None and all(first[1:])  # the unwritten inner chunk


# ---- the tests -------------------------------------------------------------


@pytest.mark.parametrize("case", _params("read"))
def test_turbozarr_reads_what_tensorstore_writes(tmp_path, case, rng, supports):
    path = tmp_path / "ts.zarr"
    t = case.ts_create(path)
    data = values(case, rng)
    write_all_but_one_chunk(t, data, tensorstore=True)
    theirs = ts_read(t, case)
    assert_bits(theirs, expected(case, data))  # what TensorStore holds
    if case.compressed:
        # Smaller than the eight written chunks would be unencoded.
        raw = 8 * int(np.prod(CHUNKS)) * case.dt.itemsize
        assert sum(map(len, stored(path).values())) < raw

    a = tz.open_array(str(path))
    assert a.dtype == case.numpy_dtype()
    assert a.shape == SHAPE
    assert_bits(a[...], theirs)
    assert_bits(a[STRIDED], ts_read(t[STRIDED], case))
    assert_bits(np.asarray(a.fill_value, dtype=a.dtype),
                np.asarray(case.fill, dtype=case.numpy_dtype()))
    supports.array(a, "read", peer=TENSORSTORE)


@pytest.mark.parametrize("case", _params("write"))
def test_tensorstore_reads_what_turbozarr_writes(tmp_path, case, rng, supports):
    ours = tmp_path / "tz.zarr"
    a = tz.create(str(ours), **case.tz_kwargs())
    data = values(case, rng)
    write_all_but_one_chunk(a, data, tensorstore=False)
    want = expected(case, data)
    assert_bits(a[...], want)

    t = ts_open(ours, case)
    assert tuple(t.shape[:2]) == SHAPE
    assert_bits(ts_read(t, case), want)
    assert_bits(ts_read(t[STRIDED], case), want[STRIDED])
    fill = ts_fill(t, case)
    if fill is not None:
        assert_bits(fill, np.asarray(case.fill, dtype=case.numpy_dtype()))

    # TensorStore writing the same values from turbozarr's metadata document.
    document = ours / (".zarray" if case.zarr_format == 2 else "zarr.json")
    theirs = tmp_path / "ts.zarr"
    t2 = ts_open(theirs, case, metadata=json.loads(document.read_text()), create=True)
    write_all_but_one_chunk(t2, data, tensorstore=True)
    assert_same_chunks(case, ours, theirs)
    supports.array(a, "write", peer=TENSORSTORE)
