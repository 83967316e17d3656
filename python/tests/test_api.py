"""The turbozarr Python API: creating and opening, numpy-style indexing,
writes, resize, attributes, groups, stores, threads and error mapping."""

from __future__ import annotations

import json
import math
import os
import pathlib
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data


@pytest.fixture
def arr2d(tmp_path):
    data = np.arange(13 * 17, dtype="i4").reshape(13, 17)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="i4", chunks=(4, 5))
    a[...] = data
    return a, data


# -- creating, opening and describing ------------------------------------------

def test_create_describes_the_array(tmp_path):
    a = tz.create(str(tmp_path / "a"), shape=(30, 20), dtype="f4", chunks=(4, 5),
                  shards=(8, 10), fill_value=1.5, attributes={"k": "v"},
                  dimension_names=["y", "x"])
    assert a.shape == (30, 20)
    assert a.dtype == np.dtype("float32")
    assert a.chunks == (4, 5)
    assert a.shards == (8, 10)
    assert a.ndim == 2 and a.size == 600 and a.nbytes == 2400
    assert a.fill_value == np.float32(1.5)
    assert a.zarr_format == 3
    assert a.attrs["k"] == "v"
    assert a.dimension_names == ("y", "x")
    assert a.cdata_shape == (4, 2) and a.nchunks == 8
    assert "shape=(30, 20)" in repr(a) and "float32" in repr(a)
    assert "Shard shape" in a.info
    assert a.metadata["codecs"][0]["name"] == "sharding_indexed"
    assert_bit_equal(a[...], np.full((30, 20), 1.5, dtype="f4"))


def test_unsharded_array_reports_no_shards(tmp_path):
    a = tz.create(str(tmp_path / "a"), shape=(10,), dtype="u2", chunks=(3,))
    assert a.shards is None and a.chunks == (3,)


def test_v2_array_description(tmp_path):
    a = tz.create(str(tmp_path / "a"), shape=(5, 6), dtype=">i2", chunks=(2, 3),
                  zarr_format=2, order="F", fill_value=-1)
    assert a.zarr_format == 2 and a.order == "F"
    assert a.dtype == np.dtype(">i2")
    assert a.fill_value == -1
    assert json.loads((tmp_path / "a" / ".zarray").read_text())["dtype"] == ">i2"


def test_open_accepts_path_objects_and_file_urls(tmp_path):
    tz.create(tmp_path / "a", shape=(3,), dtype="i1")[...] = [1, 2, 3]
    assert tz.open(pathlib.Path(tmp_path / "a"))[...].tolist() == [1, 2, 3]
    assert tz.open(f"file://{tmp_path / 'a'}")[...].tolist() == [1, 2, 3]


def test_open_modes(tmp_path):
    path = str(tmp_path / "x")
    with pytest.raises(tz.NotFoundError):
        tz.open(path, mode="r")
    with pytest.raises(FileNotFoundError):  # the built-in base class works too
        tz.open(path, mode="r+")
    g = tz.open(path, mode="a")  # nothing there: a group is created
    assert isinstance(g, tz.Group)
    a = tz.open(path, mode="w", shape=(4,), dtype="i2", chunks=(2,))
    assert isinstance(a, tz.Array)
    with pytest.raises(tz.AlreadyExistsError):
        tz.open(path, mode="w-", shape=(4,), dtype="i2")
    ro = tz.open(path)  # default mode "r"
    assert ro.read_only
    with pytest.raises(tz.ReadOnlyError):
        ro[0] = 1
    with pytest.raises(tz.ReadOnlyError):
        ro.attrs["a"] = 1
    with pytest.raises(tz.ReadOnlyError):
        ro.resize(8)
    rw = tz.open(path, mode="r+")
    rw[0] = 7
    assert tz.open(path)[0] == 7
    with pytest.raises(tz.NotFoundError):
        tz.open(path, zarr_format=2)


def test_create_without_overwrite_refuses_existing(tmp_path):
    tz.create(str(tmp_path / "a"), shape=(3,), dtype="i1")
    with pytest.raises(tz.AlreadyExistsError):
        tz.create(str(tmp_path / "a"), shape=(3,), dtype="i1")
    b = tz.create(str(tmp_path / "a"), shape=(5,), dtype="f8", overwrite=True)
    assert b.shape == (5,)


def test_memory_stores_are_shared_through_store_objects():
    store = tz.MemoryStore()
    a = tz.create(store, shape=(4, 4), dtype="u1", chunks=(2, 2), path="deep/a")
    a[1:3, 1:3] = 9
    b = tz.open(store, path="deep/a")
    assert b[...].sum() == 36
    assert "deep/a/c/0/0" in store.list("deep")
    assert tz.create("memory://", shape=(2,), dtype="i1")[...].tolist() == [0, 0]


def test_array_helper_and_numpy_protocol():
    data = np.linspace(0, 1, 12).reshape(3, 4)
    a = tz.array(data, chunks=(2, 2))
    assert_bit_equal(np.asarray(a), data)
    assert np.asarray(a, dtype="f4").dtype == np.float32
    assert len(a) == 3
    assert [row.tolist() for row in a] == data.tolist()


def test_auto_chunks_follow_zarr_python():
    a = tz.create("memory://", shape=(1000, 1000), dtype="f8")
    assert a.chunks == (250, 250)


# -- indexing -----------------------------------------------------------------

INDEX_KEYS = [
    (), Ellipsis, 0, -1, 12, slice(None), slice(2, 9), slice(None, None, 3),
    slice(1, -1, 4), slice(-5, None), slice(None, None, -1), slice(10, 2, -3),
    slice(7, 7), slice(20, 30), (slice(None), 0), (3, slice(None, None, 2)), (-2, -3),
    (Ellipsis, 4), (slice(1, 12, 5), slice(16, 0, -4)), (np.int64(5), np.int32(-1)),
    (slice(None, None, 2), Ellipsis), (Ellipsis, slice(3, 5), ),
]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=[repr(k) for k in INDEX_KEYS])
def test_getitem_matches_numpy(arr2d, key):
    a, data = arr2d
    got = a[key]
    want = data[key]
    assert type(got) is type(want) or (np.ndim(got) == 0 and np.ndim(want) == 0)
    assert_bit_equal(got, want)


@pytest.mark.parametrize("key", INDEX_KEYS, ids=[repr(k) for k in INDEX_KEYS])
def test_setitem_matches_numpy(arr2d, rng, key):
    a, data = arr2d
    model = data.copy()
    shape = model[key].shape if np.ndim(model[key]) else ()
    value = rng.integers(-1000, 1000, size=shape).astype("i4")
    model[key] = value
    a[key] = value
    assert_bit_equal(a[...], model)
    a[key] = 5  # scalars broadcast
    model[key] = 5
    assert_bit_equal(a[...], model)


def test_setitem_broadcasts_rows_and_converts_types(arr2d):
    a, data = arr2d
    model = data.copy()
    a[2:5] = np.arange(17)  # broadcast over rows
    model[2:5] = np.arange(17)
    a[:, 1] = [7.9] * 13  # floats into an int array truncate, as in numpy
    model[:, 1] = 7
    assert_bit_equal(a[...], model)


@pytest.mark.parametrize("key,error", [
    (13, IndexError), (-14, IndexError), ((0, 0, 0), IndexError), ((None,), IndexError),
    (slice(None, None, 0), ValueError), ((Ellipsis, Ellipsis), IndexError),
    ("a", IndexError), (np.array([1.5]), IndexError), (True, IndexError),
])
def test_bad_indices_raise(arr2d, key, error):
    a, _ = arr2d
    with pytest.raises(error):
        a[key]


def test_setitem_shape_mismatch_raises(arr2d):
    a, _ = arr2d
    with pytest.raises(ValueError):
        a[0:2, 0:3] = np.zeros((3, 2))


def test_zero_dimensional_array(tmp_path):
    a = tz.create(str(tmp_path / "s"), shape=(), dtype="f8", fill_value=2.0)
    assert a[()] == 2.0 and isinstance(a[()], np.float64)
    a[()] = 4.5
    assert a[...].shape == () and a[...] == 4.5


def test_empty_array(tmp_path):
    a = tz.create(str(tmp_path / "e"), shape=(0, 3), dtype="i4", chunks=(2, 2))
    assert a[...].shape == (0, 3)
    a[...] = np.zeros((0, 3))


# -- data types ---------------------------------------------------------------

@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float16", "complex128",
                                   "S5", "U3", "V2", "string", "bytes"])
def test_round_trip_every_dtype(tmp_path, rng, zarr_format, dtype):
    data = random_data(dtype, (7, 5), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, chunks=(3, 2),
                  dtype={"string": str, "bytes": bytes}.get(dtype, dtype),
                  zarr_format=zarr_format)
    a[...] = data
    b = tz.open(str(tmp_path / "a"))
    assert_bit_equal(b[...], data)
    assert_bit_equal(b[1::2, -1], data[1::2, -1])


def test_string_arrays_use_numpy_string_dtype(tmp_path):
    a = tz.create(str(tmp_path / "s"), shape=(4,), dtype=str, chunks=(3,))
    assert a.dtype == np.dtypes.StringDType()
    assert a.fill_value == ""
    a[...] = ["α", "", "longer text", "🙂"]
    a[1] = "b"
    assert a[...].tolist() == ["α", "b", "longer text", "🙂"]
    with pytest.raises(TypeError):
        tz.create("memory://", shape=(2,), dtype=object)


def test_bytes_arrays_hold_bytes_objects(tmp_path):
    a = tz.create(str(tmp_path / "b"), shape=(3,), dtype=bytes, chunks=(2,), zarr_format=2)
    assert a.dtype == np.dtype(object)
    a[...] = np.array([b"\x00x", b"", b"yz"], dtype=object)
    assert a[...].tolist() == [b"\x00x", b"", b"yz"]
    with pytest.raises(TypeError):
        a[0] = "text"


def test_big_endian_v2_reads_in_stored_order(tmp_path):
    a = tz.create(str(tmp_path / "a"), shape=(6,), dtype=">f8", chunks=(4,), zarr_format=2,
                  compressor=None)
    a[...] = np.arange(6, dtype="<f8")
    got = tz.open(str(tmp_path / "a"))[...]
    assert got.dtype == np.dtype(">f8")
    assert got.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert (tmp_path / "a" / "0").read_bytes() == np.arange(4, dtype=">f8").tobytes()


@pytest.mark.parametrize("dtype,shape", [("u1", (7, 13)), ("<f8", (5,)), (">i2", (3, 4)),
                                         ("i4", ()), ("u2", (0, 4))])
def test_results_start_on_a_64_byte_boundary(tmp_path, dtype, shape):
    # The kernel copies reads into memory aligned like this several times
    # faster on some CPUs than into numpy's default 16-byte alignment.
    a = tz.create(str(tmp_path / "a"), shape=shape, dtype=dtype,
                  chunks=tuple(max(n, 1) for n in shape),
                  zarr_format=2 if dtype.startswith(">") else 3)
    data = np.arange(math.prod(shape), dtype=dtype).reshape(shape)
    a[...] = data
    for _ in range(3):
        got = a[...]
        assert got.ctypes.data % 64 == 0 or got.size == 0  # (no data to place)
        assert got.flags.c_contiguous and got.flags.writeable
        assert got.dtype == np.dtype(dtype) and got.shape == shape
        assert_bit_equal(got, data)


# -- resize and attributes ----------------------------------------------------

def test_resize_keeps_data_and_erases_outside_chunks(arr2d):
    a, data = arr2d
    a.resize(20, 8)
    assert a.shape == (20, 8)
    expected = np.zeros((20, 8), dtype="i4")
    expected[:13, :8] = data[:, :8]
    assert_bit_equal(a[...], expected)
    a.resize((5, 5))
    assert_bit_equal(a[...], data[:5, :5])
    # Chunks wholly outside (5, 5) are gone; the partly-inside ones keep their
    # stored elements, so growing back shows them, as in zarr-python.
    assert sorted(k for k in a.store.list(a.path) if "/c/" in "/" + k) == [
        a.chunk_key((0, 0)), a.chunk_key((1, 0))]
    a.resize((13, 17))
    expected = np.zeros((13, 17), dtype="i4")
    expected[:8, :5] = data[:8, :5]
    assert_bit_equal(tz.open(a.store, path=a.path)[...], expected)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_attributes_write_through(tmp_path, zarr_format):
    a = tz.create(str(tmp_path / "a"), shape=(2,), dtype="i1", zarr_format=zarr_format)
    a.attrs["x"] = {"nested": [1, 2.5, None]}
    a.attrs.update(y="z", n=3)
    del a.attrs["n"]
    assert dict(a.attrs) == {"x": {"nested": [1, 2.5, None]}, "y": "z"}
    b = tz.open(str(tmp_path / "a"))
    assert b.attrs.asdict() == {"x": {"nested": [1, 2.5, None]}, "y": "z"}
    assert "y" in b.attrs and len(b.attrs) == 2
    a.attrs.put({})
    assert tz.open(str(tmp_path / "a")).attrs.asdict() == {}


# -- groups -------------------------------------------------------------------

@pytest.mark.parametrize("zarr_format", [2, 3])
def test_groups(tmp_path, zarr_format):
    root = tz.group(str(tmp_path / "g"), zarr_format=zarr_format, attributes={"r": 1})
    sub = root.create_group("sub", attributes={"s": 2})
    arr = sub.create_array("arr", shape=(4, 4), dtype="u2", chunks=(2, 2))
    arr[...] = 3
    root.create_array("top", shape=(2,), dtype="f4")
    assert root.zarr_format == zarr_format and arr.zarr_format == zarr_format

    g = tz.open_group(str(tmp_path / "g"))
    assert g.keys() == ["sub", "top"]
    assert list(g) == ["sub", "top"] and len(g) == 2
    assert g.array_keys() == ["top"] and g.group_keys() == ["sub"]
    assert "sub" in g and "nope" not in g
    assert isinstance(g["sub"], tz.Group) and isinstance(g["top"], tz.Array)
    assert g["sub/arr"][...].tolist() == [[3] * 4] * 4
    assert g["sub"].attrs["s"] == 2 and g.attrs["r"] == 1
    assert [n for n, _ in g.members()] == ["sub", "top"]
    assert [n for n, _ in g.arrays()] == ["top"] and [n for n, _ in g.groups()] == ["sub"]
    with pytest.raises(KeyError):
        g["missing"]
    tree = g.tree()
    assert "sub" in tree and "arr" in tree and "top" in tree
    assert g.require_group("sub").path.endswith("sub")
    assert tz.open(str(tmp_path / "g"), path="sub/arr").shape == (4, 4)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_consolidated_metadata(tmp_path, zarr_format):
    root = tz.group(str(tmp_path / "g"), zarr_format=zarr_format)
    a = root.create_array("a", shape=(3,), dtype="i4", chunks=(2,))
    a[...] = [1, 2, 3]
    root.create_group("b").create_array("c", shape=(2,), dtype="f8")
    assert not root.is_consolidated
    consolidated = root.consolidate()
    assert consolidated.is_consolidated
    g = tz.open_group(str(tmp_path / "g"))
    assert g.is_consolidated
    assert g.keys() == ["a", "b"]
    assert g["a"][...].tolist() == [1, 2, 3]
    if zarr_format == 2:
        assert (tmp_path / "g" / ".zmetadata").exists()
    else:
        assert "consolidated_metadata" in json.loads((tmp_path / "g" / "zarr.json").read_text())


def test_open_group_on_array_fails(tmp_path):
    tz.create(str(tmp_path / "a"), shape=(2,), dtype="i1")
    with pytest.raises(tz.NotFoundError):
        tz.open_group(str(tmp_path / "a"))
    tz.group(str(tmp_path / "g"))
    with pytest.raises(tz.NotFoundError):
        tz.open_array(str(tmp_path / "g"))


# -- threads ------------------------------------------------------------------

def test_thread_count_setting_and_results_independent_of_it(tmp_path, rng, keep_thread_count):
    data = random_data("float64", (64, 64), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="f8", chunks=(8, 8))
    a[...] = data
    for n in (1, 2, 3):
        tz.config.set_threads(n)
        assert tz.config.get_threads() == n
        assert_bit_equal(a[3:60:3, ::-2], data[3:60:3, ::-2])
    for bad in (0, -1, 1025):
        with pytest.raises(ValueError, match=f"from 1 to 1024, not {bad}"):
            tz.config.set_threads(bad)
        assert tz.config.get_threads() == 3


def test_thread_count_changes_while_other_threads_read_and_write(tmp_path, rng,
                                                                 keep_thread_count):
    data = random_data("int32", (256, 256), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="i4", chunks=(16, 16))
    s = tz.create(str(tmp_path / "s"), shape=data.shape, dtype="i4", chunks=(16, 16),
                  shards=(128, 128))
    stop = threading.Event()
    errors = []
    rounds = []

    def work():
        try:
            while True:  # at least one round, however early `stop` comes
                a[...] = data
                assert_bit_equal(a[...], data)
                assert_bit_equal(a[3:250:3, ::-5], data[3:250:3, ::-5])
                s[...] = data
                assert_bit_equal(s[5:200, 7:], data[5:200, 7:])
                rounds.append(1)
                if stop.is_set():
                    break
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    workers = [threading.Thread(target=work) for _ in range(2)]
    for w in workers:
        w.start()
    try:
        for n in range(40):
            tz.config.set_threads(1 + n % 4)
            time.sleep(0.005)
    finally:
        stop.set()
        for w in workers:
            w.join()
    assert not errors, errors
    assert len(rounds) >= 2


@pytest.mark.parametrize("value, expected", [
    ("3", 3), ("1", 1), ("0", None), ("x", None), ("3x", None), ("1025", None)])
def test_thread_count_from_the_environment(value, expected):
    # A fresh interpreter, because the pool is sized once, on first use.
    env = dict(os.environ, TURBOZARR_NUM_THREADS=value)
    proc = subprocess.run(
        [sys.executable, "-c", "import turbozarr; print(turbozarr.config.get_threads())"],
        env=env, capture_output=True, text=True, check=True)
    if expected is not None:
        assert int(proc.stdout) == expected
        assert proc.stderr == ""
    else:
        # Unusable values fall back to the number of cores, with a warning.
        assert int(proc.stdout) == os.cpu_count()
        assert proc.stderr == (
            f"turbozarr: warning: TURBOZARR_NUM_THREADS='{value}' is not a whole number "
            f"from 1 to 1024; using one thread per core ({os.cpu_count()})\n")


def test_concurrent_python_threads_read_correctly(tmp_path, rng):
    data = random_data("int32", (40, 40), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="i4", chunks=(7, 7))
    a[...] = data
    errors = []

    def worker(i):
        try:
            for _ in range(20):
                assert_bit_equal(a[i::4, :], data[i::4, :])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# -- errors -------------------------------------------------------------------

ERROR_CODES = [
    (1, tz.NotFoundError, FileNotFoundError),
    (2, tz.CorruptionError, tz.TurbozarrError),
    (3, tz.InvalidArgumentError, ValueError),
    (4, tz.StoreIOError, OSError),
    (5, tz.UnsupportedError, NotImplementedError),
    (6, tz.CancelledError, tz.TurbozarrError),
    (7, tz.AlreadyExistsError, FileExistsError),
]


@pytest.mark.parametrize("code,cls,builtin", ERROR_CODES)
def test_status_codes_map_to_exception_classes(code, cls, builtin):
    with pytest.raises(cls, match="the message") as info:
        tz._core._raise_status(code, "the message")
    assert isinstance(info.value, builtin)
    assert isinstance(info.value, tz.TurbozarrError)
    assert str(info.value) == "the message"


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_corrupt_chunk_raises_corruption_naming_the_key(tmp_path, zarr_format):
    a = tz.create(str(tmp_path / "a"), shape=(8,), dtype="f8", chunks=(4,),
                  zarr_format=zarr_format)
    a[...] = np.arange(8.0)
    key = a.chunk_key((1,))
    (tmp_path / "a" / key).write_bytes(b"\x28\xb5\x2f\xfd garbage, not zstd")
    with pytest.raises(tz.CorruptionError) as info:
        tz.open(str(tmp_path / "a"))[...]
    assert key in str(info.value)
    assert tz.open(str(tmp_path / "a"))[:4].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_truncated_uncompressed_chunk_is_corruption(tmp_path):
    a = tz.create(str(tmp_path / "a"), shape=(8,), dtype="i4", chunks=(4,), compressors=None)
    a[...] = np.arange(8)
    key = a.chunk_key((0,))
    (tmp_path / "a" / key).write_bytes(b"\x01\x02\x03")
    with pytest.raises(tz.CorruptionError, match=re.escape(key)):
        a[...]


def test_bad_metadata_is_corruption(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "zarr.json").write_text("{ not json")
    with pytest.raises(tz.CorruptionError, match="zarr.json"):
        tz.open(str(tmp_path / "a"))


def test_unknown_codec_is_unsupported(tmp_path):
    with pytest.raises(tz.UnsupportedError, match="no-such-codec"):
        tz.create(str(tmp_path / "a"), shape=(4,), dtype="i4",
                  compressors=[{"name": "no-such-codec", "configuration": {}}])


def test_get_basic_selection_into_a_reused_buffer(arr2d):
    a, data = arr2d
    out = np.empty((4, 17), dtype="i4")
    for start in (0, 4, 8):
        assert a.get_basic_selection(np.s_[start:start + 4], out=out) is out
        assert_bit_equal(out, data[start:start + 4])
    rev = np.empty((13,), dtype="i4")
    a.get_basic_selection((slice(None, None, -1), 3), out=rev)  # reversed: goes via a copy
    assert_bit_equal(rev, data[::-1, 3])
    with pytest.raises(ValueError):
        a.get_basic_selection(np.s_[0:2], out=np.empty((3, 17), dtype="i4"))
    a.set_basic_selection((0, slice(None)), 0)
    assert a[0].sum() == 0
