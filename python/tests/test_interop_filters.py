"""numcodecs' filters (categorize included) and checksums (jenkins_lookup3
too), and zarr-python's scale_offset, byte for byte with zarr-python in both
directions.

Each case writes an array with zarr-python (numcodecs objects in v2,
zarr.codecs.numcodecs / zarr.codecs objects in v3) and reads it with
turbozarr, bit-exactly against what zarr-python itself reads back (the
filters are lossy: the reference is numcodecs' arithmetic, not the input);
then turbozarr writes the same data with the same codecs given as JSON, every
stored chunk must equal zarr-python's byte for byte, and zarr-python reads it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data, stored_chunks
from support_records import peer

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zn = pytest.importorskip("zarr.codecs.numcodecs")

ZARR = peer("zarr")

pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrFutureWarning",
                                        "ignore::zarr.errors.ZarrUserWarning",
                                        "ignore::UserWarning",
                                        "ignore::RuntimeWarning")

SHAPE, CHUNKS = (13, 17), (4, 5)  # partial edge chunks, padded with the fill value


def _data(kind, dtype, rng):
    if kind == "random":
        return random_data(dtype, SHAPE, rng)
    if kind == "near1000":
        return (1000 + rng.random(SHAPE)).astype(dtype)
    if kind == "unit":
        return (rng.standard_normal(SHAPE) * 10).astype(dtype)
    if kind == "labels":  # mostly labels, some not, "" among them
        words = np.array(["female", "male", "\u00fcn\u00efco", "", "other", "mal"])
        return rng.choice(words, size=SHAPE).astype(dtype)
    raise AssertionError(kind)


def _both_ways(tmp_path, data, zarr_kwargs, tz_kwargs, zarr_format, supports):
    z = zarr.create_array(str(tmp_path / "z"), shape=data.shape, chunks=CHUNKS,
                          dtype=data.dtype, zarr_format=zarr_format, **zarr_kwargs)
    z[...] = data
    reference = zarr.open_array(str(tmp_path / "z"), mode="r")[...]
    a = tz.open(str(tmp_path / "z"))
    assert_bit_equal(a[...], reference)
    assert_bit_equal(a[2:11:3, 1:-1], reference[2:11:3, 1:-1])

    t = tz.create(str(tmp_path / "t"), shape=data.shape, dtype=data.dtype.str,
                  chunks=CHUNKS, zarr_format=zarr_format, **tz_kwargs)
    t[...] = data
    written, expected = stored_chunks(tmp_path / "t"), stored_chunks(tmp_path / "z")
    assert sorted(written) == sorted(expected)
    for key in expected:
        assert written[key] == expected[key], key
    assert_bit_equal(zarr.open_array(str(tmp_path / "t"), mode="r")[...], reference)
    supports.array(a, "read", peer=ZARR)
    supports.array(t, "write", peer=ZARR)
    return t


# (id, dtype, data kind, filters as numcodecs JSON, compressor as numcodecs JSON)
V2_CASES = [
    ("fso-f8-u1", "<f8", "near1000",
     [{"id": "fixedscaleoffset", "offset": 1000, "scale": 100, "dtype": "<f8",
       "astype": "|u1"}], {"id": "zstd", "level": 1}),
    ("fso-f8-i2-random", "<f8", "random",
     [{"id": "fixedscaleoffset", "offset": 0.5, "scale": 100, "dtype": "<f8",
       "astype": "<i2"}], None),
    ("fso-i4-int", "<i4", "random",
     [{"id": "fixedscaleoffset", "offset": 7, "scale": 3, "dtype": "<i4",
       "astype": "<i4"}], None),
    ("fso-f4", "<f4", "unit",
     [{"id": "fixedscaleoffset", "offset": -1.5, "scale": 8, "dtype": "<f4",
       "astype": "<i4"}], None),
    ("quantize-f4", "<f4", "unit", [{"id": "quantize", "digits": 2, "dtype": "<f4"}], None),
    ("quantize-f8-as-f4", "<f8", "random",
     [{"id": "quantize", "digits": 3, "dtype": "<f8", "astype": "<f4"}], {"id": "zstd",
                                                                          "level": 1}),
    ("quantize-f2", "<f2", "unit", [{"id": "quantize", "digits": 1, "dtype": "<f2"}], None),
    ("bitround-f8", "<f8", "random", [{"id": "bitround", "keepbits": 12}], None),
    ("bitround-f4", "<f4", "random", [{"id": "bitround", "keepbits": 5}], None),
    ("bitround-f2", "<f2", "random", [{"id": "bitround", "keepbits": 0}], None),
    ("astype-f8-f4", "<f8", "random",
     [{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}], None),
    ("astype-f8-i2", "<f8", "random",
     [{"id": "astype", "encode_dtype": "<i2", "decode_dtype": "<f8"}], None),
    ("astype-i4-u1", "<i4", "random",
     [{"id": "astype", "encode_dtype": "|u1", "decode_dtype": "<i4"}], None),
    ("packbits", "|b1", "random", [{"id": "packbits"}], {"id": "zstd", "level": 1}),
    ("categorize-u6", "<U6", "labels",
     [{"id": "categorize", "labels": ["female", "male", "\u00fcn\u00efco"], "dtype": "<U6",
       "astype": "|u1"}], {"id": "zstd", "level": 1}),
    ("categorize-u8-i2", "<U8", "labels",
     [{"id": "categorize", "labels": ["male", "male", "female"], "dtype": "<U8",
       "astype": "<i2"}], None),
    ("crc32", "<i4", "random", [{"id": "crc32"}], None),
    ("adler32-end", "<u2", "random", [{"id": "adler32", "location": "end"}],
     {"id": "zstd", "level": 1}),
    ("fletcher32", "<f8", "random", [{"id": "fletcher32"}], None),
    ("fletcher32-compressor", "|u1", "random", None, {"id": "fletcher32"}),
    ("crc32-after-delta", "<i8", "random",
     [{"id": "delta", "dtype": "<i8"}, {"id": "crc32", "location": "end"}], None),
    ("jenkins_lookup3", "<i4", "random",
     [{"id": "jenkins_lookup3", "initval": 0, "prefix": None}], None),
    ("jenkins_lookup3-compressor", "|u1", "random", None,
     {"id": "jenkins_lookup3", "initval": 4242, "prefix": None}),
]


@pytest.mark.parametrize("case", V2_CASES, ids=[c[0] for c in V2_CASES])
def test_v2_filters_both_ways(tmp_path, rng, case, supports):
    _, dtype, kind, filters, compressor = case
    data = _data(kind, dtype, rng)
    objects = [numcodecs.get_codec(dict(f)) for f in filters or []]
    comp = numcodecs.get_codec(dict(compressor)) if compressor else None
    t = _both_ways(tmp_path, data,
                   dict(filters=objects or None, compressors=comp),
                   dict(filters=filters, compressor=compressor), 2, supports)
    zarray = json.load(open(tmp_path / "t" / ".zarray"))
    assert zarray["filters"] == filters
    assert t.dtype == np.dtype(dtype)


def _v3_filter(name, **config):
    return {"name": name, "configuration": config}


# (id, dtype, data kind, zarr-python filters, compressors, turbozarr filters, compressors)
V3_CASES = [
    ("fso-u1", "float64", "near1000",
     [zn.FixedScaleOffset(offset=1000, scale=100, dtype="<f8", astype="|u1")], [],
     [_v3_filter("numcodecs.fixedscaleoffset", offset=1000, scale=100, dtype="<f8",
                 astype="|u1")], []),
    ("quantize", "float32", "random", [zn.Quantize(digits=3, dtype="<f4")], [],
     [_v3_filter("numcodecs.quantize", digits=3, dtype="<f4")], []),
    ("bitround", "float64", "random", [zn.BitRound(keepbits=9)], [zn.Zstd(level=1)],
     [_v3_filter("numcodecs.bitround", keepbits=9)],
     [_v3_filter("numcodecs.zstd", level=1)]),
    ("astype", "float64", "random",
     [zn.AsType(encode_dtype="<f4", decode_dtype="<f8")], [],
     [_v3_filter("numcodecs.astype", encode_dtype="<f4", decode_dtype="<f8")], []),
    ("packbits", "bool", "random", [zn.PackBits()], [zn.Zstd(level=1)],
     [_v3_filter("numcodecs.packbits")], [_v3_filter("numcodecs.zstd", level=1)]),
    ("delta", "int16", "random", [zn.Delta(dtype="<i2")], [],
     [_v3_filter("numcodecs.delta", dtype="<i2")], []),
    ("checksums", "uint16", "random", [],
     [zn.CRC32(), zn.Adler32(location="end"), zn.Fletcher32()], [],
     [_v3_filter("numcodecs.crc32"), _v3_filter("numcodecs.adler32", location="end"),
      _v3_filter("numcodecs.fletcher32")]),
    ("jenkins_lookup3", "float32", "random", [], [zn.JenkinsLookup3(initval=5), zn.Zstd(level=1)],
     [], [_v3_filter("numcodecs.jenkins_lookup3", initval=5),
          _v3_filter("numcodecs.zstd", level=1)]),
]


def _scale_offset_cases():
    codecs = pytest.importorskip("zarr.codecs")
    if not hasattr(codecs, "ScaleOffset"):
        return []
    return [
        ("scale_offset-int", "int32", "small-int", [codecs.ScaleOffset(offset=5, scale=10)],
         [], [{"name": "scale_offset", "configuration": {"offset": 5, "scale": 10}}], []),
        ("scale_offset-float", "float32", "random",
         [codecs.ScaleOffset(offset=0.25, scale="3")], [],
         [{"name": "scale_offset", "configuration": {"offset": 0.25, "scale": "3"}}], []),
        ("scale_offset-f2", "float16", "unit", [codecs.ScaleOffset(offset=1, scale=2)], [],
         [{"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}}], []),
    ]


V3_CASES += _scale_offset_cases()


@pytest.mark.parametrize("case", V3_CASES, ids=[c[0] for c in V3_CASES])
def test_v3_filters_both_ways(tmp_path, rng, case, supports):
    _, dtype, kind, zfilters, zcomp, filters, compressors = case
    if kind == "small-int":
        data = rng.integers(-1000, 1000, SHAPE).astype(dtype)
    else:
        data = _data(kind, dtype, rng)
    _both_ways(tmp_path, data, dict(filters=zfilters, compressors=zcomp),
               dict(filters=filters, compressors=compressors), 3, supports)
    meta = json.load(open(tmp_path / "t" / "zarr.json"))
    names = [c["name"] for c in meta["codecs"]]
    assert names == [f["name"] for f in filters] + ["bytes"] + [c["name"] for c in
                                                               compressors]


def test_v2_corrupt_checksum_names_array_and_chunk(tmp_path, rng):
    data = random_data("<i4", SHAPE, rng)
    t = tz.create(str(tmp_path / "t"), shape=SHAPE, dtype="<i4", chunks=CHUNKS,
                  zarr_format=2, compressor=None, filters=[{"id": "adler32"}])
    t[...] = data
    chunk = tmp_path / "t" / "1.2"
    raw = bytearray(chunk.read_bytes())
    raw[9] ^= 0x40
    chunk.write_bytes(bytes(raw))
    a = tz.open(str(tmp_path / "t"))
    assert_bit_equal(a[:4, :5], data[:4, :5])  # other chunks still read
    with pytest.raises(tz.CorruptionError, match=r"chunk '1\.2'.*adler32: checksum mismatch"):
        a[...]
    chunk.write_bytes(bytes(raw[:3]))  # too short for the sum
    with pytest.raises(tz.CorruptionError, match=r"1\.2.*cannot hold the 4-byte checksum"):
        a[4:8, 10:15]


def test_bad_filter_configuration_is_a_clear_error(tmp_path):
    with pytest.raises(tz.InvalidArgumentError, match=r'codec quantize: field "digits"'):
        tz.create(str(tmp_path / "q"), shape=(4,), dtype="<f8", zarr_format=2,
                  filters=[{"id": "quantize", "dtype": "<f8"}])
    with pytest.raises(tz.UnsupportedError, match=r"codec packbits: .* is not bool"):
        tz.create(str(tmp_path / "p"), shape=(4,), dtype="<i4", zarr_format=2,
                  filters=[{"id": "packbits"}])


# numcodecs' zfpy: the v2 compressor (handed the chunk as an array) and the
# v3 serializer, in each mode, against zarr-python with the zfpy wheel.
ZFPY_CASES = [
    ("accuracy-f8", "<f8", "unit", {"mode": 4, "tolerance": 0.01}),
    ("rate-f4", "<f4", "unit", {"mode": 2, "rate": 10}),
    ("precision-f8", "<f8", "random", {"mode": 3, "precision": 24}),
    ("reversible-i4", "<i4", "random", {"mode": 4}),
    ("accuracy-i8", "<i8", "random", {"mode": 4, "tolerance": 1000}),
]


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("case", ZFPY_CASES, ids=[c[0] for c in ZFPY_CASES])
def test_zfpy_both_ways(tmp_path, rng, case, zarr_format, supports):
    zfpy = pytest.importorskip("numcodecs.zfpy")
    if not hasattr(zfpy, "ZFPY"):
        pytest.skip("numcodecs without the zfpy package")
    _, dtype, kind, config = case
    data = _data(kind, dtype, rng)
    if zarr_format == 2:
        t = _both_ways(tmp_path, data, dict(compressors=zfpy.ZFPY(**config)),
                       dict(compressor={"id": "zfpy", **config}), 2, supports)
        expected = json.load(open(tmp_path / "z" / ".zarray"))["compressor"]
        assert json.load(open(tmp_path / "t" / ".zarray"))["compressor"] == expected
    else:
        t = _both_ways(tmp_path, data, dict(serializer=zn.ZFPY(**config), compressors=None),
                       dict(serializer={"name": "numcodecs.zfpy", "configuration": config},
                            compressors=None), 3, supports)
        expected = json.load(open(tmp_path / "z" / "zarr.json"))["codecs"]
        assert json.load(open(tmp_path / "t" / "zarr.json"))["codecs"] == expected
    if config == {"mode": 4}:  # no tolerance: zfp's reversible mode
        assert_bit_equal(t[...], data)
