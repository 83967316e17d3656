"""Checksums on request (`turbozarr.create(..., checksum=True)`): the codecs
they add, arrays that zarr-python, TensorStore and zarrs read as turbozarr
wrote them, checksummed arrays they wrote that turbozarr verifies, and a
damaged byte that is an error naming the chunk, never other numbers."""

from __future__ import annotations

import json

import numpy as np
import pytest

import turbozarr as tz

VALUES = np.arange(60 * 50, dtype="<i4").reshape(60, 50) * 7919


def flip(path, at=None) -> None:
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2 if at is None else at] ^= 0x04
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("kind", ["v3", "v3-sharded", "v3-raw", "v2-zstd", "v2-blosc"])
def test_checksum_true_adds_one_check_that_every_read_verifies(tmp_path, kind):
    kwargs = {"v3": {}, "v3-sharded": {"shards": (20, 20)},
              "v3-raw": {"compressors": None},
              "v2-zstd": {"zarr_format": 2},
              "v2-blosc": {"zarr_format": 2, "compressor": {"id": "blosc", "cname": "lz4"}},
              }[kind]
    path = tmp_path / "a.zarr"
    a = tz.create(path, shape=VALUES.shape, dtype="<i4", chunks=(10, 10), checksum=True,
                  **kwargs)
    a[...] = VALUES
    if kind.startswith("v3"):
        codecs = json.loads((path / "zarr.json").read_text())["codecs"]
        if kind == "v3-sharded":
            codecs = codecs[0]["configuration"]["codecs"]
        assert codecs[-1] == {"name": "crc32c"}
        assert sum(c["name"] == "crc32c" for c in codecs) == 1
        key = path / "c" / "1" / "2"
    else:
        zarray = json.loads((path / ".zarray").read_text())
        if kind == "v2-zstd":
            assert zarray["compressor"]["checksum"] is True and zarray["filters"] is None
        else:
            assert zarray["filters"] == [{"id": "crc32c", "location": "end"}]
        key = path / "1.2"
    np.testing.assert_array_equal(tz.open(path)[...], VALUES)
    flip(key)
    damaged = tz.open(path)
    name = "c/1/2" if kind.startswith("v3") else "1.2"
    with pytest.raises(tz.CorruptionError, match=name.replace(".", r"\.")):
        damaged[...]
    if kind != "v3-sharded":  # one element of the damaged chunk, alone
        with pytest.raises(tz.CorruptionError, match=name.replace(".", r"\.")):
            damaged[15, 25]
    np.testing.assert_array_equal(damaged[:10], VALUES[:10])


def test_without_it_arrays_keep_zarr_pythons_defaults(tmp_path):
    v3 = tz.create(tmp_path / "v3.zarr", shape=(10,), dtype="i4", chunks=(5,))
    v2 = tz.create(tmp_path / "v2.zarr", shape=(10,), dtype="i4", chunks=(5,), zarr_format=2)
    text = (tmp_path / "v3.zarr" / "zarr.json").read_text()
    assert "crc32c" not in text and '"checksum": false' in text
    assert "checksum" not in (tmp_path / "v2.zarr" / ".zarray").read_text()
    assert v3.shape == v2.shape == (10,)


@pytest.mark.parametrize("sharded", [False, True])
def test_peers_read_what_turbozarr_checksummed(tmp_path, sharded):
    zarr = pytest.importorskip("zarr")
    path = tmp_path / "a.zarr"
    a = tz.create(path, shape=VALUES.shape, dtype="<i4", chunks=(10, 10), checksum=True,
                  shards=(20, 50) if sharded else None)
    a[...] = VALUES
    np.testing.assert_array_equal(zarr.open_array(path, mode="r")[...], VALUES)
    try:
        import tensorstore as ts
    except ImportError:
        ts = None
    if ts is not None:
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}},
                    read=True).result()
        np.testing.assert_array_equal(t.read().result(), VALUES)
    v2 = tz.create(tmp_path / "v2.zarr", shape=VALUES.shape, dtype="<i4", chunks=(10, 10),
                   checksum=True, zarr_format=2)
    v2[...] = VALUES
    np.testing.assert_array_equal(zarr.open_array(tmp_path / "v2.zarr", mode="r")[...], VALUES)


def test_zarrs_reads_what_turbozarr_checksummed(tmp_path):
    zarr = pytest.importorskip("zarr")
    pytest.importorskip("zarrs")
    path = tmp_path / "a.zarr"
    a = tz.create(path, shape=VALUES.shape, dtype="<i4", chunks=(10, 10), checksum=True,
                  shards=(20, 50))
    a[...] = VALUES
    with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"}):
        np.testing.assert_array_equal(zarr.open_array(path, mode="r")[...], VALUES)


@pytest.mark.parametrize("how", ["crc32c", "zstd-checksum"])
def test_turbozarr_verifies_what_zarr_python_checksummed(tmp_path, how):
    zarr = pytest.importorskip("zarr")
    from zarr.codecs import Crc32cCodec, ZstdCodec

    compressors = ([ZstdCodec(level=1), Crc32cCodec()] if how == "crc32c"
                   else [ZstdCodec(level=1, checksum=True)])
    path = tmp_path / "a.zarr"
    z = zarr.create_array(path, shape=VALUES.shape, dtype="<i4", chunks=(10, 10),
                          compressors=compressors)
    z[...] = VALUES
    np.testing.assert_array_equal(tz.open(path)[...], VALUES)
    # zstd's checksum is the frame's last 4 bytes: damage there is found too.
    flip(path / "c" / "2" / "3", at=-1 if how == "zstd-checksum" else None)
    with pytest.raises(tz.CorruptionError, match="c/2/3"):
        tz.open(path)[20:30, 30:40]


def test_damaged_metadata_that_is_not_utf8_is_a_corruption_error(tmp_path):
    # The error quotes the damaged bytes; they reach Python escaped, not as a
    # UnicodeDecodeError in place of the error that names the document.
    a = tz.create(tmp_path / "u.zarr", shape=(4,), dtype="i4")
    a[...] = 1
    doc = tmp_path / "u.zarr" / "zarr.json"
    raw = bytearray(doc.read_bytes())
    raw[raw.index(b'"shape"') + 1] = 0xA4
    doc.write_bytes(bytes(raw))
    with pytest.raises(tz.CorruptionError, match=r"zarr\.json.*\\xa4"):
        tz.open_array(tmp_path / "u.zarr")
