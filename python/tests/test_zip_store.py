"""Zip archives as stores, against zarr-python's ZipStore and Python's zipfile.

Arrays zarr-python writes into a ZipStore read bit for bit in turbozarr;
archives turbozarr writes read in zarr-python's ZipStore and pass zipfile's
testzip(); archives zipfile writes with deflated entries, data descriptors,
zip64 records or a comment read correctly; damaged archives raise
CorruptionError naming the archive. The CLI copies into and out of archives.
"""

from __future__ import annotations

import io
import os
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data
from support_records import ZIPFILE, peer

zarr = pytest.importorskip("zarr")
ZARR = peer("zarr")

pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrUserWarning",
                                        "ignore::UserWarning")

ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
GZIP = {"name": "gzip", "configuration": {"level": 5}}


def zarr_python_zip(path: Path, data: dict[str, np.ndarray], zarr_format: int = 3,
                    **kwargs) -> None:
    """Arrays written by zarr-python into one ZipStore, one per name."""
    store = zarr.storage.ZipStore(path, mode="w")
    try:
        root = zarr.open_group(store=store, mode="w", zarr_format=zarr_format)
        for name, values in data.items():
            parent, _, leaf = name.rpartition("/")
            group = root.require_group(parent) if parent else root
            a = group.create_array(leaf, shape=values.shape, dtype=values.dtype,
                                   chunks=tuple(max(1, s // 3) for s in values.shape),
                                   **kwargs)
            a[...] = values
    finally:
        store.close()


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["uint8", "<i4", "float64", "complex64", "bool"])
def test_zarr_python_zip_reads_bit_exactly(tmp_path, rng, zarr_format, dtype, supports):
    data = {"x": random_data(dtype, (17, 23), rng),
            "nested/y": random_data(dtype, (40,), rng)}
    path = tmp_path / "zp.zip"
    zarr_python_zip(path, data, zarr_format=zarr_format)
    for opener in (str(path), "zip://" + str(path), tz.ZipStore(path),
                   tz.open_store(path, read_only=True)):
        root = tz.open_group(opener)
        assert root.store.describe() == f"zip://{path}"
        assert not root.store.writable
        for name, values in data.items():
            a = root[name]
            assert_bit_equal(a[...], values)
            assert_bit_equal(a[3:11:2, ...] if values.ndim == 2 else a[5:31:3],
                             values[3:11:2, ...] if values.ndim == 2 else values[5:31:3])
            supports.array(a, "read", peer=ZARR)


def test_zarr_python_zip_compressed_and_sharded(tmp_path, rng, supports):
    values = random_data("<u2", (64, 48), rng)
    path = tmp_path / "sharded.zip"
    store = zarr.storage.ZipStore(path, mode="w")
    a = zarr.create_array(store=store, shape=values.shape, dtype=values.dtype,
                          chunks=(8, 8), shards=(32, 24), compressors=[ZSTD])
    a[...] = values
    store.close()
    t = tz.open_array(path)
    assert_bit_equal(t[...], values)
    assert_bit_equal(t[5:40, 7:9], values[5:40, 7:9])
    supports.array(t, "read", peer=ZARR)


def test_turbozarr_zip_reads_in_zarr_python_and_zipfile(tmp_path, rng, supports):
    path = tmp_path / "tz.zip"
    values = random_data("float32", (30, 20), rng)
    strings = random_data("string", (12,), rng)
    with tz.ZipStore(path, mode="w") as store:
        g = tz.group(store)
        a = g.create_array("a", shape=values.shape, dtype=values.dtype, chunks=(7, 6),
                           compressors=[GZIP])
        a[...] = values
        s = g.create_array("s", shape=strings.shape, dtype="string", chunks=(5,))
        s[...] = strings
        v2 = tz.create(store, shape=(9,), dtype="<i8", chunks=(4,), zarr_format=2, path="v2")
        v2[...] = np.arange(9)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        names = zf.namelist()
        assert "zarr.json" in names and "a/zarr.json" in names and "v2/.zarray" in names
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        assert len(names) == len(set(names))
    zstore = zarr.storage.ZipStore(path, mode="r")
    try:
        root = zarr.open_group(store=zstore, mode="r")
        assert_bit_equal(root["a"][...], values)
        assert root["s"][...].tolist() == strings.tolist()
        # A v2 array is not a member of a v3 group: open it by path.
        v2 = zarr.open_array(store=zstore, path="v2", mode="r", zarr_format=2)
        assert v2[...].tolist() == list(range(9))
    finally:
        zstore.close()
    # And turbozarr reads its own archive back.
    assert_bit_equal(tz.open_array(path, path="a")[...], values)
    for name in ("a", "s", "v2"):
        supports.array(tz.open_array(path, path=name), "write", peer=ZARR)


def test_open_with_mode_w_replaces_an_archive_and_flush_finishes_it(tmp_path):
    path = tmp_path / "w.zip"
    a = tz.open(str(path), mode="w", shape=(10,), dtype="u1", chunks=(4,))
    a[...] = np.arange(10, dtype="u1")
    a.store.flush()  # complete on disk while the array is still open
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["c/0", "c/1", "c/2", "zarr.json"]
    del a
    # mode "w" again: a new archive in place of the old one.
    b = tz.open(str(path), mode="w", shape=(3,), dtype="u1", chunks=(3,))
    b[...] = [7, 8, 9]
    b.store.close()
    assert tz.open_array(path)[...].tolist() == [7, 8, 9]
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["c/0", "zarr.json"]


def test_an_existing_archive_opens_read_only_in_mode_r(tmp_path):
    path = tmp_path / "ro.zip"
    a = tz.create(str(path), shape=(4,), dtype="u1", chunks=(2,))
    a[...] = 1
    del a
    with pytest.raises(tz.ReadOnlyError):
        tz.open_array(path, mode="r")[0] = 5
    # Writes through a store that can only read name the archive and say why.
    with pytest.raises(tz.InvalidArgumentError,
                       match=f"zip://{path} is an existing archive.*appending"):
        tz.ZipStore(path).set("c/0", b"x")
    assert tz.open_array(path)[...].tolist() == [1, 1, 1, 1]
    with pytest.raises(tz.NotFoundError, match="does not exist"):
        tz.open(str(tmp_path / "missing.zip"), mode="r")
    with pytest.raises(tz.AlreadyExistsError):
        tz.ZipStore(path, mode="x")
    with pytest.raises(ValueError, match="'r', 'w', 'x' or 'a', got 'q'"):
        tz.ZipStore(path, mode="q")


def test_erase_and_overwrite_follow_zarr_python(tmp_path):
    with tz.ZipStore(tmp_path / "e.zip", mode="w") as store:
        store.set("k", b"first")
        store.set("k", b"second")  # the last value wins
        assert store.get("k") == b"second"
        store.erase("absent")  # nothing to remove: fine
        with pytest.raises(tz.UnsupportedError, match="cannot erase 'k'"):
            store.erase("k")
    with zipfile.ZipFile(tmp_path / "e.zip") as zf:
        assert zf.namelist() == ["k"] and zf.read("k") == b"second"


def _pack(directory: Path, path: Path, **writestr_kwargs) -> None:
    """A directory's files as a zip archive with keys at the root."""
    with zipfile.ZipFile(path, "w") as zf:
        for p in sorted(directory.rglob("*")):
            if p.is_file():
                info = zipfile.ZipInfo(p.relative_to(directory).as_posix(),
                                       date_time=(2024, 5, 6, 7, 8, 10))
                info.compress_type = writestr_kwargs.get("compression", zipfile.ZIP_STORED)
                with zf.open(info, "w", force_zip64=writestr_kwargs.get("force_zip64", False)) as f:
                    f.write(p.read_bytes())
        zf.comment = writestr_kwargs.get("comment", b"")


@pytest.fixture
def local_array(tmp_path, rng):
    values = random_data("<i2", (31, 19), rng)
    directory = tmp_path / "src.zarr"
    a = zarr.create_array(store=str(directory), shape=values.shape, dtype=values.dtype,
                          chunks=(8, 5), compressors=[ZSTD])
    a[...] = values
    return directory, values


@pytest.mark.parametrize("variant", [
    {"compression": zipfile.ZIP_DEFLATED},
    {"force_zip64": True},
    {"compression": zipfile.ZIP_DEFLATED, "force_zip64": True},
    {"comment": b"made by zipfile"},
])
def test_zipfile_variants_read_correctly(tmp_path, local_array, variant, supports):
    directory, values = local_array
    path = tmp_path / "variant.zip"
    _pack(directory, path, **variant)
    with zipfile.ZipFile(path) as zf:
        if variant.get("force_zip64"):
            assert all(i.extract_version >= 45 for i in zf.infolist())
        if variant.get("compression"):
            assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in zf.infolist())
    t = tz.open_array(path)
    assert_bit_equal(t[...], values)
    assert_bit_equal(t[2:29:3, 4], values[2:29:3, 4])
    store = tz.ZipStore(path)
    assert store.get("zarr.json") == (directory / "zarr.json").read_bytes()
    supports("store", "zip archive", "read", peer=ZIPFILE)


class _Unseekable(io.RawIOBase):
    """A write-only stream: zipfile then writes data descriptors."""

    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.data += b
        return len(b)


def test_data_descriptors_and_bytes_in_front(tmp_path, local_array, supports):
    directory, values = local_array
    sink = _Unseekable()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(directory.rglob("*")):
            if p.is_file():
                zf.writestr(p.relative_to(directory).as_posix(), p.read_bytes())
    raw = bytes(sink.data)
    assert struct.unpack("<H", raw[6:8])[0] & 0x08, "the entries use data descriptors"
    path = tmp_path / "dd.zip"
    path.write_bytes(b"#!/bin/sh\necho self-extracting stub\n" + raw)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
    assert_bit_equal(tz.open_array(path)[...], values)
    supports("store", "zip archive", "read", peer=ZIPFILE)


def test_damaged_archives_raise_corruption_naming_the_archive(tmp_path, local_array):
    directory, values = local_array
    good = tmp_path / "good.zip"
    _pack(directory, good)
    raw = good.read_bytes()
    bad = tmp_path / "bad.zip"
    # Cut anywhere: the end record is gone.
    for n in (0, 10, len(raw) // 2, len(raw) - 1):
        bad.write_bytes(raw[:n])
        with pytest.raises(tz.CorruptionError, match=f"zip://{bad}"):
            tz.open_array(bad)
    # A flipped byte in a chunk's data: its CRC-32 says so, naming the entry.
    with zipfile.ZipFile(good) as zf:
        info = zf.getinfo("c/1/1")
    data_at = info.header_offset + 30 + len(info.filename)
    damaged = bytearray(raw)
    damaged[data_at + 3] ^= 0x40
    bad.write_bytes(bytes(damaged))
    a = tz.open_array(bad)
    with pytest.raises(tz.CorruptionError, match=r"entry 'c/1/1': CRC-32 mismatch"):
        a[...]
    assert_bit_equal(a[:8, :5], values[:8, :5])  # other chunks still read


def test_more_than_65535_entries(tmp_path):
    path = tmp_path / "many.zip"
    n = 65536 + 9
    a = tz.create(str(path), shape=(n,), dtype="u1", chunks=(1,), compressors=None)
    a[...] = np.arange(n) % 251 + 1  # no chunk equals the fill value: all are stored
    a.store.flush()
    raw = path.read_bytes()
    assert raw[-42:-38] == b"PK\x06\x07", "a zip64 end of central directory locator"
    with zipfile.ZipFile(path) as zf:
        assert len(zf.namelist()) == n + 1
        assert zf.read("c/65535") == bytes([65535 % 251 + 1])
    assert tz.open_array(path)[-5:].tolist() == [i % 251 + 1 for i in range(n - 5, n)]


CLI = os.environ.get("TURBOZARR_CLI", "")
needs_cli = pytest.mark.skipif(not CLI or not os.access(CLI, os.X_OK),
                               reason="TURBOZARR_CLI does not name the built binary")


def run_cli(*args, expect=0):
    proc = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect, (proc.returncode, proc.stdout, proc.stderr)
    return proc


@needs_cli
def test_cli_copies_into_and_out_of_archives(tmp_path, local_array, supports):
    directory, values = local_array
    out = tmp_path / "copy.zip"
    run_cli("cp", directory, out, "--codec", "gzip:1", "--no-progress")
    zstore = zarr.storage.ZipStore(out, mode="r")
    assert_bit_equal(zarr.open_array(store=zstore, mode="r")[...], values)
    zstore.close()
    # An existing archive is not replaced without --overwrite: its root holds
    # an array already.
    before = out.read_bytes()
    proc = run_cli("cp", directory, out, expect=1)
    assert str(out) in proc.stderr, proc.stderr
    assert out.read_bytes() == before
    # Into a group inside a new archive, then info and cat through the archive path.
    nested = tmp_path / "nested.zip"
    run_cli("cp", out, nested, "--dst-path", "g/a", "--no-progress")
    info = run_cli("info", f"{nested}/g/a").stdout
    assert "Shape             : [31, 19]" in info
    cat = run_cli("cat", f"zip://{nested}", "0, :3", "--path", "g/a").stdout
    assert cat.strip() == str(values[0, :3].tolist())
    tree = run_cli("tree", nested).stdout
    assert "g" in tree and "a" in tree
    # Copy out to a directory.
    back = tmp_path / "back.zarr"
    run_cli("cp", f"{nested}/g/a", back, "--no-progress")
    assert_bit_equal(zarr.open_array(str(back), mode="r")[...], values)
    supports("store", "zip archive", "write", peer=ZARR)
    # --overwrite replaces the whole archive.
    run_cli("cp", back, nested, "--overwrite", "--no-progress")
    with zipfile.ZipFile(nested) as zf:
        assert "g/zarr.json" not in zf.namelist() and zf.testzip() is None


def test_store_urls(tmp_path):
    d = tmp_path / "d.zarr"
    tz.create(str(d), shape=(2,), dtype="u1")[...] = 3
    for url in (str(d), f"file://{d}", d):
        assert tz.open_store(url).describe() == f"file://{d}"
    ro = tz.open_store(d, read_only=True)
    assert not ro.writable and ro.get("c/0") is not None
    with pytest.raises(tz.InvalidArgumentError, match="read-only"):
        ro.set("k", b"v")
    assert tz.open_store("memory://").describe() == "memory://"
    with pytest.raises(tz.UnsupportedError, match="'ftp://host/x.zarr'"):
        tz.open_store("ftp://host/x.zarr")
    http = tz.open_store("https://host/x.zarr")  # opening sends no request
    assert http.describe() == "https://host/x.zarr" and not http.writable
    assert tz.open_store(tmp_path / "new.zip").describe() == f"zip://{tmp_path}/new.zip"
    assert not (tmp_path / "new.zip").exists(), "nothing is written until the first write"
