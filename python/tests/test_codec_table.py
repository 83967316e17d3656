"""The engine's codec table, which builds new metadata, agrees with what
zarr-python and numcodecs themselves write for each codec."""

import numcodecs
import pytest
from zarr.codecs import BloscCodec, Crc32cCodec, GzipCodec, ZstdCodec

from turbozarr import _core

ROWS = _core.codec_table()


def test_rows_name_every_codec_once():
    names = [r["name"] for r in ROWS if r["name"]]
    ids = [r["numcodecs_id"] for r in ROWS if r["numcodecs_id"]]
    assert len(names) == len(set(names)) and len(ids) == len(set(ids))
    assert {"bytes", "transpose", "vlen-utf8", "vlen-bytes", "sharding_indexed", "zstd",
            "gzip", "blosc", "crc32c"} <= set(names)
    assert {"blosc", "zstd", "lz4", "gzip", "zlib", "bz2", "lzma", "crc32c", "delta",
            "shuffle", "vlen-utf8", "vlen-bytes"} <= set(ids)


@pytest.mark.parametrize("row", [r for r in ROWS if r["numcodecs_defaults"]],
                         ids=lambda r: r["numcodecs_id"])
def test_numcodecs_defaults_are_numcodecs_own(row):
    config = numcodecs.get_codec({"id": row["numcodecs_id"]}).get_config()
    if row["numcodecs_id"] == "zstd":
        del config["checksum"]  # zarr-python writes a v2 zstd without "checksum": false
    completed = _core.complete_codec({"id": row["numcodecs_id"]}, 1, 2)
    assert list(completed.items()) == list(config.items())


@pytest.mark.parametrize("codec", [ZstdCodec(), GzipCodec(), Crc32cCodec(),
                                   BloscCodec(typesize=4, shuffle="shuffle"),
                                   BloscCodec(typesize=1, shuffle="bitshuffle")],
                         ids=repr)
def test_v3_defaults_are_zarr_pythons(codec):
    written = codec.to_dict()
    itemsize = written.get("configuration", {}).get("typesize", 4)
    completed = _core.complete_codec({"name": written["name"]}, itemsize, 3)
    assert completed == written
    assert list(completed.get("configuration", {})) == list(
        written.get("configuration", {}))


def test_malformed_codec_is_invalid_argument():
    with pytest.raises(ValueError):
        _core.complete_codec({"configuration": {}}, 4, 3)
