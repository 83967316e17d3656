"""Byte compatibility with zarrs (the Rust library inside the zarrs package,
zarr-python's codec pipeline `zarrs.ZarrsCodecPipeline`), in both
directions, over a matrix of v3 arrays in local directories.

Each case is one zarr.json: a data type, a codec chain, a chunk key
encoding and a fill value (not zero, NaN where the type has one), on a
(13, 17) array whose chunks do not divide its shape. Both ways:

- zarrs writes (zarr-python writes zarr.json, zarrs encodes and stores the
  chunks) random data exercising every bit, all but one chunk; turbozarr
  reads it, whole and strided, bit for bit as zarrs reads it back, the
  unwritten chunk as the fill value.
- turbozarr writes the same array from the same metadata (the same
  zarr.json fields); zarrs reads it bit for bit, and the stored chunks are
  the bytes zarrs stores for the same data: all of them, but for the order
  of a shard's inner chunks (turbozarr writes Morton order, zarrs C order;
  the inner chunks are compared) and for gzip and zlib streams, which
  differ by compressor (what they decompress to is compared).

zarrs, not a fallback, does the work: the zarrs package hands to
zarr-python's own codecs whatever it cannot do (metadata its build does not
support, with a warning; variable-length and other types, and strided
selections, silently), unless `codec_pipeline.strict` is on, when it
raises instead. Every case runs strict, with checksums validated, and
checks that the array's pipeline is zarrs' with a Rust implementation and
no Python one. The last tests show the fallback, and strict refusing it.

What zarrs 0.2.3 (this package's build) lacks, left out here:
- the string and bytes data types (vlen-utf8, vlen-bytes): the package
  refuses variable-length types (UnsupportedDataTypeError; its Rust
  pipeline panics when driven directly), and numpy's S, U, V, M and m
  kinds too (null_terminated_bytes, fixed_length_utf32, raw_bytes, struct,
  numpy.datetime64, numpy.timedelta64);
- numcodecs.zstd, numcodecs.gzip, numcodecs.blosc, numcodecs.lz4,
  numcodecs.crc32c, numcodecs.crc32, numcodecs.adler32,
  numcodecs.fletcher32, numcodecs.delta, numcodecs.bitround,
  numcodecs.quantize, numcodecs.astype, numcodecs.zfpy, numcodecs.packbits,
  scale_offset and cast_value ("codec ... is not supported");
- strided reads (zarrs reads the whole array here; the strided comparison
  slices that);
- reading part of a chunk of big-endian complex values: zarrs swaps the
  real and imaginary parts (it stores them right, and reads whole chunks
  right); those cases are kept, expected to fail.
What zarrs writes and turbozarr does not read, left out too:
numcodecs.pcodec. zarrs' packbits codec and low-precision types, which
zarr-python does not describe, are in test_low_precision_types.py.
"""

from __future__ import annotations

import contextlib
import gzip as gzip_module
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data
from support_records import peer

zarr = pytest.importorskip("zarr", minversion="3.4")
zarrs = pytest.importorskip("zarrs")
from zarr.core.dtype import VariableLengthBytes  # noqa: E402
from zarrs.pipeline import UnsupportedDataTypeError, UnsupportedMetadataError  # noqa: E402

SHAPE = (13, 17)
CHUNKS = (4, 5)
SHARDS = (8, 10)
# Chunk (0, 0) is left unwritten: these two writes cover the rest.
WRITES = [(slice(4, None), slice(None)), (slice(None, 4), slice(5, None))]
UNWRITTEN = (slice(None, 4), slice(None, 5))
STRIDED = [(slice(1, None, 2), slice(None, None, 3)), (slice(None, None, -3), slice(2, 15, 4))]

BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}
BYTES_BE = {"name": "bytes", "configuration": {"endian": "big"}}
CRC32C = {"name": "crc32c"}


def zstd(level: int, checksum: bool) -> dict:
    return {"name": "zstd", "configuration": {"level": level, "checksum": checksum}}


def gzip(level: int) -> dict:
    return {"name": "gzip", "configuration": {"level": level}}


def blosc(cname: str, shuffle: str, typesize: int) -> dict:
    return {"name": "blosc", "configuration": {"typesize": typesize, "cname": cname,
                                               "clevel": 5, "shuffle": shuffle,
                                               "blocksize": 0}}


def transpose(*order: int) -> dict:
    return {"name": "transpose", "configuration": {"order": list(order)}}


def sharded(inner, codecs, index_codecs=(BYTES_LE, CRC32C), location="end") -> dict:
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner), "codecs": list(codecs),
        "index_codecs": list(index_codecs), "index_location": location}}


def separator(name: str, sep: str) -> dict:
    return {"name": name, "configuration": {"separator": sep}}


def _same(blob: bytes) -> bytes:
    return blob


@dataclass
class Case:
    id: str
    dtype: str
    codecs: list
    fill: Any
    chunks: tuple = CHUNKS
    key_encoding: dict = field(default_factory=lambda: separator("default", "/"))
    # What of a stored chunk (each inner chunk of a shard) turbozarr and
    # zarrs store alike: all its bytes, or what the deflate streams that
    # zlib and zarrs compress differently decompress to.
    stored: Callable[[bytes], bytes] = _same
    # The random values the codecs are defined for (all by default).
    values: Callable[[np.ndarray], np.ndarray] = _same
    marks: tuple = ()

    @property
    def param(self):
        return pytest.param(self, id=self.id, marks=self.marks)


# zarrs 0.2.3 swaps the real and imaginary parts of big-endian complex
# values when it decodes part of a chunk (an edge chunk, a selection smaller
# than a chunk); it stores them right, and reads whole chunks right.
ZARRS_BIG_COMPLEX = pytest.mark.xfail(
    strict=True, raises=AssertionError,
    reason="zarrs 0.2.3 reads part of a big-endian complex chunk with the real and "
           "imaginary parts swapped")


def _endian_cases() -> list[Case]:
    fills = {"bool": True, "int8": -7, "uint8": 200, "int16": -300, "uint16": 65535,
             "int32": -70000, "uint32": 2**32 - 1, "int64": -2**40, "uint64": 2**64 - 1,
             "float16": float("inf"), "float32": float("nan"), "float64": float("nan"),
             "complex64": complex(1.5, float("nan")),
             "complex128": complex(float("-inf"), -0.0)}
    cases = []
    for dtype, fill in fills.items():
        if np.dtype(dtype).itemsize == 1:
            cases.append(Case(dtype, dtype, [{"name": "bytes"}], fill))
            continue
        cases.append(Case(f"{dtype}-little", dtype, [BYTES_LE], fill))
        cases.append(Case(f"{dtype}-big", dtype, [BYTES_BE], fill,
                          marks=(ZARRS_BIG_COMPLEX,) if dtype.startswith("complex") else ()))
    return cases


CASES = _endian_cases() + [
    Case("transpose", "int16", [transpose(1, 0), BYTES_LE], 5),
    Case("transpose-big-crc32c", "float64", [transpose(1, 0), BYTES_BE, CRC32C],
         float("nan")),
    Case("crc32c", "int64", [BYTES_LE, CRC32C], -1),
    Case("gzip", "int32", [BYTES_LE, gzip(5)], -1, stored=gzip_module.decompress),
    Case("zstd", "float64", [BYTES_LE, zstd(0, False)], float("nan")),
    Case("zstd-checksum", "uint32", [BYTES_LE, zstd(3, True)], 7),
    *[Case(f"blosc-{cname}-{shuffle}", "float32", [BYTES_LE, blosc(cname, shuffle, 4)],
           float("nan"))
      for cname in ("lz4", "lz4hc", "blosclz", "zstd", "zlib", "snappy")
      for shuffle in ("noshuffle", "shuffle", "bitshuffle")],
    Case("numcodecs.zlib", "int32", [BYTES_LE, {"name": "numcodecs.zlib",
                                               "configuration": {"level": 5}}], 3,
         stored=zlib.decompress),
    Case("numcodecs.bz2", "int32", [BYTES_LE, {"name": "numcodecs.bz2",
                                              "configuration": {"level": 5}}], 3),
    Case("numcodecs.shuffle", "float32",
         [BYTES_LE, {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
          zstd(1, False)], float("nan")),
    # (x - offset) * scale is computed in int16 and is to stay in range.
    Case("numcodecs.fixedscaleoffset", "int16",
         [{"name": "numcodecs.fixedscaleoffset",
           "configuration": {"offset": 1000, "scale": 2, "dtype": "<i2", "astype": "<i4"}},
          BYTES_LE], 9, values=lambda v: v >> 2),
    Case("sharding-end", "int32", [sharded(CHUNKS, [BYTES_LE, zstd(1, False)])], -5,
         chunks=SHARDS),
    Case("sharding-start", "float32",
         [sharded(CHUNKS, [BYTES_LE, gzip(3)], location="start")], float("nan"),
         chunks=SHARDS, stored=gzip_module.decompress),
    Case("sharding-index-unchecked", "uint16",
         [sharded(CHUNKS, [BYTES_LE, blosc("lz4", "shuffle", 2)], index_codecs=[BYTES_LE])],
         1, chunks=SHARDS),
    Case("sharding-transposed-big", "float64",
         [sharded(CHUNKS, [transpose(1, 0), BYTES_BE, CRC32C])], float("nan"),
         chunks=SHARDS),
    Case("sharding-nested", "int32",
         [sharded((4, 10), [sharded((2, 5), [BYTES_LE, zstd(1, True)])])], 11,
         chunks=SHARDS),
    Case("key-default-dot", "int32", [BYTES_LE], -2,
         key_encoding=separator("default", ".")),
    Case("key-v2-dot", "int32", [BYTES_LE], -2, key_encoding=separator("v2", ".")),
    Case("key-v2-slash", "int32", [BYTES_LE], -2, key_encoding=separator("v2", "/")),
]


# ---- zarrs, strictly ---------------------------------------------------------


@contextlib.contextmanager
def strict_zarrs():
    """zarr-python with zarrs' pipeline, which raises rather than falls back
    to zarr-python's codecs, and validates checksums."""
    with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                          "codec_pipeline.strict": True,
                          "codec_pipeline.validate_checksums": True}):
        yield


def by_zarrs(z):
    """z, having checked that zarrs' Rust pipeline does its codecs."""
    pipeline = z._async_array.codec_pipeline
    assert isinstance(pipeline, zarrs.ZarrsCodecPipeline), type(pipeline)
    assert pipeline.impl is not None and pipeline.python_impl is None
    return z


def zarrs_write(path: Path, case: Case, data: np.ndarray):
    with strict_zarrs():
        z = by_zarrs(zarr.create(store=str(path), shape=SHAPE, chunks=case.chunks,
                                 dtype=case.dtype, codecs=case.codecs,
                                 fill_value=case.fill, zarr_format=3,
                                 chunk_key_encoding=case.key_encoding))
        for w in WRITES:
            z[w] = data[w]


def zarrs_read(path: Path) -> np.ndarray:
    with strict_zarrs():
        return by_zarrs(zarr.open_array(str(path), mode="r"))[...]


# ---- the cases ---------------------------------------------------------------


def expected(case: Case, data: np.ndarray) -> np.ndarray:
    want = data.copy()
    want[UNWRITTEN] = np.asarray(case.fill).astype(data.dtype)
    return want


NO_CHUNK = 2**64 - 1  # a shard index's offset and size of an empty inner chunk


def taken_apart(blob: bytes, chunk_shape, codecs: list, stored: Callable):
    """What of a stored chunk both sides store alike: stored(blob), or for a
    shard its inner chunks in C order, each taken apart in turn (turbozarr
    writes them in Morton order, zarrs in C order: the index says where)."""
    if codecs[0]["name"] != "sharding_indexed":
        return stored(blob)
    config = codecs[0]["configuration"]
    assert config["index_codecs"][0] == BYTES_LE
    inner = config["chunk_shape"]
    n = int(np.prod([s // c for s, c in zip(chunk_shape, inner)]))
    size = 16 * n + 4 * (CRC32C in config["index_codecs"])
    index = blob[:size] if config["index_location"] == "start" else blob[len(blob) - size:]
    pieces = np.frombuffer(index[:16 * n], "<u8").reshape(n, 2).tolist()
    return [None if offset == NO_CHUNK else
            taken_apart(blob[offset:offset + nbytes], inner, config["codecs"], stored)
            for offset, nbytes in pieces]


def stored_chunks(path: Path, case: Case) -> dict:
    return {p.relative_to(path).as_posix():
            taken_apart(p.read_bytes(), case.chunks, case.codecs, case.stored)
            for p in sorted(path.rglob("*")) if p.is_file() and p.name != "zarr.json"}


def first_chunk_key(case: Case) -> str:
    encoding = case.key_encoding
    sep = encoding["configuration"]["separator"]
    return ("c" + sep if encoding["name"] == "default" else "") + sep.join(["0", "0"])


def data_for(case: Case, rng) -> np.ndarray:
    return case.values(random_data(case.dtype, SHAPE, rng))


@pytest.mark.parametrize("case", [c.param for c in CASES])
def test_turbozarr_reads_what_zarrs_writes(tmp_path, rng, case, supports):
    data = data_for(case, rng)
    path = tmp_path / "zarrs.zarr"
    zarrs_write(path, case, data)
    theirs = zarrs_read(path)
    assert_bit_equal(theirs, expected(case, data))
    sharded = case.codecs[0]["name"] == "sharding_indexed"
    # Unwritten, chunk (0, 0) is not stored; its shard holds other chunks.
    assert (path / first_chunk_key(case)).exists() == sharded

    a = tz.open_array(str(path))
    assert a.dtype == theirs.dtype
    assert_bit_equal(a[...], theirs)
    for key in STRIDED:
        assert_bit_equal(a[key], theirs[key])
    assert_bit_equal(np.asarray(a.fill_value), np.asarray(case.fill).astype(theirs.dtype))
    supports.array(a, "read", peer=peer("zarrs"))


@pytest.mark.parametrize("case", [c.param for c in CASES])
def test_zarrs_reads_what_turbozarr_writes(tmp_path, rng, case, supports):
    data = data_for(case, rng)
    ours = tmp_path / "tz.zarr"
    a = tz.create(str(ours), shape=SHAPE, dtype=case.dtype, chunks=case.chunks,
                  codecs=case.codecs, fill_value=case.fill,
                  chunk_key_encoding=case.key_encoding)
    for w in WRITES:
        a[w] = data[w]

    got = zarrs_read(ours)
    assert_bit_equal(got, expected(case, data))
    assert_bit_equal(got, a[...])

    # zarrs writing the same data from the same metadata.
    theirs = tmp_path / "zarrs.zarr"
    zarrs_write(theirs, case, data)
    ours_meta = json.loads((ours / "zarr.json").read_text())
    theirs_meta = json.loads((theirs / "zarr.json").read_text())
    for name in ("shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value",
                 "codecs"):
        assert ours_meta[name] == theirs_meta[name], name
    assert stored_chunks(ours, case) == stored_chunks(theirs, case)
    supports.array(a, "write", peer=peer("zarrs"))


# ---- what zarrs lacks: refused when strict, done by zarr-python if not --------


# zarrs' warning that it leaves an array to zarr-python, and zarr-python's
# that vlen-bytes has no specification.
@pytest.mark.filterwarnings("ignore:Array is unsupported by ZarrsCodecPipeline",
                            "ignore::zarr.errors.UnstableSpecificationWarning")
@pytest.mark.parametrize("dtype,codecs,refused", [
    ("string", [{"name": "vlen-utf8"}], UnsupportedDataTypeError),
    ("bytes", [{"name": "vlen-bytes"}], UnsupportedDataTypeError),
    ("int32", [{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}, BYTES_LE],
     UnsupportedMetadataError),
    ("float32", [BYTES_LE, {"name": "numcodecs.zstd", "configuration": {"level": 1}}],
     UnsupportedMetadataError),
], ids=["string", "bytes", "numcodecs.delta", "numcodecs.zstd"])
def test_what_zarrs_lacks_is_refused_not_left_to_zarr_python(tmp_path, rng, dtype, codecs,
                                                            refused):
    """Why the cases run strict: without it the zarrs pipeline quietly hands
    these to zarr-python's codecs."""
    data = random_data(dtype, SHAPE, rng)
    path = str(tmp_path / "a.zarr")
    with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                          "codec_pipeline.strict": False}):
        z = zarr.create(store=path, shape=SHAPE, chunks=CHUNKS, zarr_format=3,
                        dtype={"string": str, "bytes": VariableLengthBytes()}.get(dtype, dtype),
                        codecs=codecs)
        assert z._async_array.codec_pipeline.python_impl is not None
        z[...] = data
        assert_bit_equal(zarr.open_array(path, mode="r")[...], data)
    with strict_zarrs(), pytest.raises(refused):
        zarr.open_array(path, mode="r+")[...] = data


def test_strided_reads_are_refused_when_strict(tmp_path, rng):
    """(So zarrs reads whole arrays here, and the cases slice what it read.)"""
    case = CASES[0]
    zarrs_write(tmp_path / "a.zarr", case, data_for(case, rng))
    with strict_zarrs(), pytest.raises(zarrs.DiscontiguousArrayError):
        by_zarrs(zarr.open_array(str(tmp_path / "a.zarr"), mode="r"))[STRIDED[0]]
