"""Appending to existing zip archives: turbozarr adds arrays to archives that
zarr-python's ZipStore and Python's zipfile wrote, and zarr-python's ZipStore
in mode "a" adds to archives turbozarr wrote; both read everything back bit
for bit. Old entries keep their bytes; a key written again replaces the old
entry (one name in the directory, no duplicate warning); an append that did
not finish leaves an archive `turbozarr fsck --repair` restores to the old
entries plus the new whole ones.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data
from support_records import ZIPFILE, peer

zarr = pytest.importorskip("zarr")
ZARR = peer("zarr")
APPENDED = "zip archive, appended to"

pytestmark = pytest.mark.filterwarnings("ignore::zarr.errors.ZarrUserWarning")

ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}

CLI = os.environ.get("TURBOZARR_CLI", "")
needs_cli = pytest.mark.skipif(not CLI or not os.access(CLI, os.X_OK),
                               reason="TURBOZARR_CLI does not name the built binary")


def zarr_python_write(path: Path, mode: str, name: str, values: np.ndarray,
                      zarr_format: int = 3, **store_kwargs) -> None:
    """`values` as array `name` of the root group, written by zarr-python
    through a ZipStore opened in `mode`."""
    store = zarr.storage.ZipStore(path, mode=mode, **store_kwargs)
    try:
        root = zarr.open_group(store=store, mode="a", zarr_format=zarr_format)
        a = root.create_array(name, shape=values.shape, dtype=values.dtype,
                              chunks=tuple(max(1, s // 3) for s in values.shape))
        a[...] = values
    finally:
        store.close()


def zarr_python_read(path: Path, name: str) -> np.ndarray:
    store = zarr.storage.ZipStore(path, mode="r")
    try:
        return zarr.open_array(store=store, path=name, mode="r")[...]
    finally:
        store.close()


def names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        return zf.namelist()


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_turbozarr_appends_an_array_to_a_zarr_python_archive(tmp_path, rng, zarr_format,
                                                             compression, supports):
    x = random_data("<i4", (17, 23), rng)
    y = random_data("float64", (40, 7), rng)
    path = tmp_path / "zp.zip"
    zarr_python_write(path, "w", "x", x, zarr_format, compression=compression)
    before = path.read_bytes()

    root = tz.open_group(path, mode="a")
    codecs = {"compressors": [ZSTD]} if zarr_format == 3 else {}
    a = root.create_array("y", shape=y.shape, dtype=y.dtype, chunks=(16, 4), **codecs)
    a[...] = y
    assert_bit_equal(root["x"][...], x)  # the old array reads while appending
    root.store.close()

    assert path.read_bytes()[:len(before)] == before, "an old byte changed"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Duplicate name" from zipfile
        listed = names(path)
    assert len(listed) == len(set(listed))
    assert_bit_equal(zarr_python_read(path, "x"), x)
    assert_bit_equal(zarr_python_read(path, "y"), y)
    assert_bit_equal(tz.open_array(path, path="x")[...], x)
    assert_bit_equal(tz.open_array(path, path="y")[...], y)
    assert sorted(tz.open_group(path).array_keys()) == ["x", "y"]
    supports.array(tz.open_array(path, path="x"), "read", peer=ZARR)
    supports.array(tz.open_array(path, path="y"), "write", peer=ZARR)
    supports("store", APPENDED, "write", peer=ZARR)


def test_zarr_python_appends_an_array_to_a_turbozarr_archive(tmp_path, rng, supports):
    x = random_data("uint16", (30, 11), rng)
    y = random_data("complex64", (9,), rng)
    path = tmp_path / "tz.zip"
    with tz.ZipStore(path, mode="w") as store:
        tz.group(store)
        tz.create(store, path="x", shape=x.shape, dtype=x.dtype, chunks=(7, 5))[...] = x
    del store  # the writer's lock goes with the store
    zarr_python_write(path, "a", "y", y)
    assert_bit_equal(tz.open_array(path, path="x")[...], x)
    assert_bit_equal(tz.open_array(path, path="y")[...], y)
    assert_bit_equal(zarr_python_read(path, "x"), x)
    # And turbozarr appends again to what zarr-python appended to.
    z = np.arange(12, dtype="i1")
    tz.create(str(path), path="z", shape=z.shape, dtype=z.dtype, chunks=(5,))[...] = z
    tz.open_store(path, append=True).close()
    for name, values in (("x", x), ("y", y), ("z", z)):
        assert_bit_equal(zarr_python_read(path, name), values)
        assert_bit_equal(tz.open_array(path, path=name)[...], values)
    supports.array(tz.open_array(path, path="y"), "read", peer=ZARR)
    supports.array(tz.open_array(path, path="x"), "write", peer=ZARR)
    supports("store", APPENDED, ["read", "write"], peer=ZARR)


def test_writing_an_existing_array_again_replaces_its_entries(tmp_path, rng, supports):
    x = random_data("<i4", (12, 12), rng)
    path = tmp_path / "a.zip"
    zarr_python_write(path, "w", "x", x)
    old_names = names(path)
    a = tz.open_array(path, path="x", mode="r+")
    a[:4] = -1
    want = x.copy()
    want[:4] = -1
    assert_bit_equal(a[...], want)
    a.store.flush()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sorted(names(path)) == sorted(old_names)  # the same keys, once each
    assert_bit_equal(zarr_python_read(path, "x"), want)
    # Chunks that become all fill value are erased: dropped from the directory.
    a[...] = 0
    a.store.close()
    assert [n for n in names(path) if n.startswith("x/c")] == []
    assert_bit_equal(zarr_python_read(path, "x"), np.zeros_like(x))
    assert_bit_equal(tz.open_array(path, path="x")[...], np.zeros_like(x))
    supports.array(a, "write", peer=ZARR)
    supports("store", APPENDED, "write", peer=ZARR)


def test_a_name_zarr_python_wrote_twice_reads_its_later_entry_and_is_replaced(tmp_path):
    path = tmp_path / "dup.zip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("k", b"first")
            zf.writestr("other", b"o")
            zf.writestr("k", b"second")
    with tz.ZipStore(path, mode="a") as store:
        assert store.get("k") == b"second"
        store.set("new", b"n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert names(path) == ["k", "other", "k", "new"]  # untouched names stay
    with tz.ZipStore(path, mode="a") as store:
        store.set("k", b"third")
    assert names(path) == ["other", "new", "k"]
    with zipfile.ZipFile(path) as zf:
        assert zf.read("k") == b"third"


@pytest.mark.parametrize("variant", ["zip64", "deflated", "comment"])
def test_zipfile_archives_keep_their_entries_and_comment(tmp_path, variant, supports):
    path = tmp_path / "zf.zip"
    big = bytes(range(256)) * 300
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED
                         if variant == "deflated" else zipfile.ZIP_STORED) as zf:
        with zf.open("old/a", "w", force_zip64=variant == "zip64") as f:
            f.write(big)
        zf.writestr("old/", b"")  # a directory entry: not a key, kept
        if variant == "comment":
            zf.comment = b"kept across appends"
    with tz.open_store(path, append=True) as store:
        assert store.get("old/a") == big
        store.set("new/b", b"b" * 1000)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        assert zf.namelist() == ["old/a", "old/", "new/b"]
        assert zf.read("old/a") == big and zf.read("new/b") == b"b" * 1000
        assert zf.comment == (b"kept across appends" if variant == "comment" else b"")
    supports("store", "zip archive", "read", peer=ZIPFILE)
    supports("store", APPENDED, "write", peer=ZIPFILE)


def test_modes_and_options(tmp_path):
    path = tmp_path / "m.zip"
    # Mode "a" on an absent archive writes a new one.
    with tz.ZipStore(path, mode="a") as store:
        store.set("k", b"v")
    with tz.ZipStore(path, mode="a") as store:
        assert store.writable and store.get("k") == b"v"
        store.erase("k")
        store.set("k2", b"v2")
    del store  # the writer's lock goes with the store
    assert names(path) == ["k2"]
    with pytest.raises(tz.InvalidArgumentError, match="append cannot be combined with"):
        tz.open_store(path, append=True, read_only=True)
    tz.group(str(path), path="g")
    # Opening to append writes nothing until something is written.
    before = path.read_bytes()
    g = tz.open(str(path), path="g", mode="a")
    assert g.attrs.asdict() == {}
    del g
    assert path.read_bytes() == before
    # A node of an archive open for appending does not pickle (one process
    # writes an archive); read-only, it does.
    with pytest.raises(TypeError, match="being written"):
        pickle.dumps(tz.open_group(path, mode="r+"))
    assert pickle.loads(pickle.dumps(tz.open_group(path, mode="r"))).path == ""
    # One writer at a time: a second appender is refused while the first writes.
    first = tz.ZipStore(path, mode="a")
    second = tz.ZipStore(path, mode="a")
    first.set("x", b"1")
    with pytest.raises(tz.AlreadyExistsError, match=f"zip://{path}: another writer"):
        second.set("y", b"2")
    first.close()
    del first  # its lock goes with it
    with pytest.raises(tz.AlreadyExistsError, match="changed after it was opened"):
        second.set("y", b"2")
    assert sorted(names(path)) == ["g/zarr.json", "k2", "x", "zarr.json"]


APPENDER = """
import os, sys
import turbozarr as tz
store = tz.ZipStore(sys.argv[1], mode="a")
for i in range(40):
    store.set(f"new/c/{i}", bytes([i]) * 5000)
os._exit(0)  # killed: no central directory written
"""


@needs_cli
def test_an_interrupted_append_is_repaired_to_the_old_and_new_entries(tmp_path, rng):
    x = random_data("<i8", (20, 20), rng)
    path = tmp_path / "killed.zip"
    zarr_python_write(path, "w", "x", x, compression=zipfile.ZIP_DEFLATED)
    before = path.read_bytes()
    subprocess.run([sys.executable, "-c", APPENDER, str(path)], check=True, timeout=60,
                   env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert path.read_bytes()[:len(before)] == before
    with pytest.raises(zipfile.BadZipFile):  # 200 KB after the old end record
        zipfile.ZipFile(path)
    check = subprocess.run([CLI, "fsck", str(path)], capture_output=True, text=True)
    assert check.returncode == 1, check.stderr
    assert "an append that did not finish" in check.stdout
    repair = subprocess.run([CLI, "fsck", "--repair", str(path)], capture_output=True,
                            text=True)
    assert repair.returncode == 0, repair.stderr
    assert "repaired" in repair.stdout
    # zarr-python's deflated entries are kept as they were, the new ones added.
    assert_bit_equal(zarr_python_read(path, "x"), x)
    assert_bit_equal(tz.open_array(path, path="x")[...], x)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        assert [zf.read(f"new/c/{i}") for i in range(40)] == [bytes([i]) * 5000
                                                              for i in range(40)]


@needs_cli
def test_cli_copies_into_an_existing_archive(tmp_path, rng, supports):
    x = random_data("float32", (10, 10), rng)
    y = random_data("int16", (8, 3), rng)
    path = tmp_path / "a.zip"
    zarr_python_write(path, "w", "x", x)
    src = tmp_path / "y.zarr"
    tz.create(str(src), shape=y.shape, dtype=y.dtype, chunks=(3, 3))[...] = y
    proc = subprocess.run([CLI, "cp", str(src), f"{path}/y", "--no-progress"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert_bit_equal(zarr_python_read(path, "x"), x)
    assert_bit_equal(zarr_python_read(path, "y"), y)
    supports("store", APPENDED, "write", peer=ZARR)
