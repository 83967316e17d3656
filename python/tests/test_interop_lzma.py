"""numcodecs' LZMA codec, and the numcodecs compressors zarr-python writes
into v3 arrays, byte for byte with zarr-python in both directions.

Each case writes an array with zarr-python (numcodecs objects in v2,
zarr.codecs.numcodecs objects in v3) and reads it with turbozarr; then
turbozarr writes the same data with the same codec given as JSON, every
stored chunk must equal zarr-python's byte for byte, and zarr-python reads
it back. LZMA runs in every container (xz, alone, raw), with each check, the
extreme preset and filter chains, as numcodecs hands them to Python's lzma.
"""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import warnings

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, stored_chunks
from support_records import peer

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zn = pytest.importorskip("zarr.codecs.numcodecs")

ZARR = peer("zarr")

pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrFutureWarning",
                                        "ignore::zarr.errors.ZarrUserWarning",
                                        "ignore::UserWarning")

SHAPE, CHUNKS = (37, 29), (16, 10)  # partial edge chunks


def _data(dtype, rng):
    # Compressible, so that the encoders' choices show: a smooth field with noise.
    y, x = np.mgrid[0:SHAPE[0], 0:SHAPE[1]]
    smooth = (y * 3 + x // 2).astype(np.float64)
    return (smooth + rng.integers(0, 3, SHAPE)).astype(dtype)


def _both_ways(tmp_path, data, zarr_kwargs, tz_kwargs, zarr_format, supports, exact=True):
    z = zarr.create_array(str(tmp_path / "z"), shape=data.shape, chunks=CHUNKS,
                          dtype=data.dtype, zarr_format=zarr_format, **zarr_kwargs)
    z[...] = data
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], data)
    assert_bit_equal(a[3:30:4, 5:], data[3:30:4, 5:])

    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=data.dtype.str,
                  chunks=CHUNKS, zarr_format=zarr_format, **tz_kwargs)
    t[...] = data
    written, expected = stored_chunks(tmp_path / "t"), stored_chunks(tmp_path / "z")
    assert sorted(written) == sorted(expected)
    for key in expected:
        assert not exact or written[key] == expected[key], key
    assert_bit_equal(zarr.open_array(str(tmp_path / "t"), mode="r")[...], data)
    supports.array(a, "read", peer=ZARR)
    supports.array(t, "write", peer=ZARR)
    return t


LZMA1, LZMA2 = lzma.FILTER_LZMA1, lzma.FILTER_LZMA2

# (id, numcodecs LZMA arguments)
LZMA_CASES = [
    ("default", {}),
    ("preset-1", {"preset": 1}),
    ("preset-9-extreme", {"preset": 9 | lzma.PRESET_EXTREME}),
    ("crc32", {"check": lzma.CHECK_CRC32, "preset": 0}),
    ("sha256", {"check": lzma.CHECK_SHA256, "preset": 2}),
    ("no-check", {"check": lzma.CHECK_NONE}),
    ("alone", {"format": lzma.FORMAT_ALONE, "preset": 3}),
    ("raw-lzma2", {"format": lzma.FORMAT_RAW, "filters": [{"id": LZMA2, "preset": 1}]}),
    ("raw-delta-lzma2", {"format": lzma.FORMAT_RAW,
                         "filters": [{"id": lzma.FILTER_DELTA, "dist": 4},
                                     {"id": LZMA2, "preset": 6, "dict_size": 1 << 16,
                                      "lc": 1, "lp": 2, "pb": 2, "mode": lzma.MODE_FAST,
                                      "nice_len": 64, "mf": lzma.MF_HC4, "depth": 8}]}),
    ("raw-x86-lzma1", {"format": lzma.FORMAT_RAW,
                       "filters": [{"id": lzma.FILTER_X86, "start_offset": 16},
                                   {"id": LZMA1, "preset": 0}]}),
]


@pytest.mark.parametrize("dtype", ["<i4", ">f8"])
@pytest.mark.parametrize("case", LZMA_CASES, ids=[c[0] for c in LZMA_CASES])
def test_v2_lzma_both_ways(tmp_path, rng, case, dtype, supports):
    _, kwargs = case
    data = _data(dtype, rng)
    codec = numcodecs.LZMA(**kwargs)
    config = codec.get_config()
    _both_ways(tmp_path, data, dict(compressors=codec), dict(compressor=config), 2, supports)
    # numcodecs' get_config, in full, as zarr-python writes it.
    assert json.load(open(tmp_path / "t" / ".zarray"))["compressor"] == \
        json.load(open(tmp_path / "z" / ".zarray"))["compressor"]


@pytest.mark.parametrize("case", LZMA_CASES, ids=[c[0] for c in LZMA_CASES])
def test_v3_lzma_both_ways(tmp_path, rng, case, supports):
    _, kwargs = case
    data = _data("<u2", rng)
    config = {"name": "numcodecs.lzma", "configuration": kwargs}
    _both_ways(tmp_path, data, dict(compressors=[zn.LZMA(**kwargs)]),
               dict(compressors=[config]), 3, supports)
    codecs = json.load(open(tmp_path / "t" / "zarr.json"))["codecs"]
    assert codecs == json.load(open(tmp_path / "z" / "zarr.json"))["codecs"]


def test_lzma_through_the_cli_shorthand(tmp_path, rng):
    data = _data("<i4", rng)
    src = tz.create(str(tmp_path / "src"), shape=data.shape, dtype="<i4", chunks=CHUNKS,
                    zarr_format=2)
    src[...] = data
    cli = os.environ.get("TURBOZARR_CLI")
    if not cli:
        pytest.skip("TURBOZARR_CLI names no command-line tool")
    subprocess.run([cli, "cp", str(tmp_path / "src"), str(tmp_path / "dst"),
                    "--codec", "lzma:1", "--no-progress"], check=True)
    meta = json.load(open(tmp_path / "dst" / ".zarray"))
    assert meta["compressor"] == {"id": "lzma", "format": 1, "check": -1, "preset": 1,
                                  "filters": None}
    assert_bit_equal(zarr.open_array(str(tmp_path / "dst"), mode="r")[...], data)


def test_lzma_errors_name_the_array_and_the_chunk(tmp_path, rng):
    data = _data("<i4", rng)
    z = zarr.create_array(str(tmp_path / "z"), shape=data.shape, chunks=CHUNKS,
                          dtype=data.dtype, zarr_format=2, compressors=numcodecs.LZMA())
    z[...] = data
    chunk = tmp_path / "z" / "1.1"
    chunk.write_bytes(chunk.read_bytes()[:-7])
    a = tz.open(str(tmp_path / "z"))
    with pytest.raises(tz.CorruptionError) as e:
        a[...]
    message = str(e.value)
    assert "1.1" in message and "codec lzma" in message
    with pytest.raises(tz.InvalidArgumentError, match="codec lzma: field \"check\""):
        tz.create(str(tmp_path / "bad"), shape=(4,), dtype="<i4", chunks=(2,),
                  zarr_format=2,
                  compressor={"id": "lzma", "format": 2, "check": 4, "preset": None,
                              "filters": None})


# numcodecs' other compressors and checksums as zarr-python spells them in
# v3 ("numcodecs.<id>"), and crc32c as a v2 checksum.
# (id, dtype, zarr-python compressors, turbozarr compressors); numcodecs'
# gzip stamps each chunk with the time, so only its reads are compared.
with warnings.catch_warnings():  # zarr-python warns as it builds numcodecs codecs
    warnings.simplefilter("ignore")
    V3_NUMCODECS = [
        ("gzip", "<i4", [zn.GZip(level=5)],
         [{"name": "numcodecs.gzip", "configuration": {"level": 5}}]),
        ("lz4", "<f4", [zn.LZ4(acceleration=3)],
         [{"name": "numcodecs.lz4", "configuration": {"acceleration": 3}}]),
        ("blosc", "<u2", [zn.Blosc(cname="zstd", clevel=3, shuffle=2)],
         [{"name": "numcodecs.blosc",
           "configuration": {"cname": "zstd", "clevel": 3, "shuffle": 2}}]),
        ("crc32c", "<i8", [zn.CRC32C(), zn.LZ4()],
         [{"name": "numcodecs.crc32c", "configuration": {}},
          {"name": "numcodecs.lz4", "configuration": {}}]),
    ]


@pytest.mark.parametrize("case", V3_NUMCODECS, ids=[c[0] for c in V3_NUMCODECS])
def test_v3_numcodecs_compressors_both_ways(tmp_path, rng, case, supports):
    _, dtype, zcomp, compressors = case
    data = _data(dtype, rng)
    _both_ways(tmp_path, data, dict(compressors=zcomp), dict(compressors=compressors), 3,
               supports, exact=case[0] != "gzip")


def test_v2_crc32c_both_ways(tmp_path, rng, supports):
    data = _data("<i4", rng)
    _both_ways(tmp_path, data, dict(filters=[numcodecs.CRC32C()], compressors=None),
               dict(filters=[{"id": "crc32c"}], compressor=None), 2, supports)
    assert json.load(open(tmp_path / "t" / ".zarray"))["filters"] == [{"id": "crc32c"}]


def test_v2_big_endian_timedelta_both_ways(tmp_path, rng, supports):
    data = rng.integers(-10**9, 10**9, SHAPE).astype(">m8[s]")
    data[0, :3] = np.timedelta64("NaT")
    _both_ways(tmp_path, data, dict(compressors=None), dict(compressor=None), 2, supports)
    assert json.load(open(tmp_path / "t" / ".zarray"))["dtype"] == ">m8[s]"
