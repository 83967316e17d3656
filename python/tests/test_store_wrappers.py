"""Store wrappers from Python: ThrottledStore waits its latency and
bandwidth on every request, MetricsStore counts the requests and bytes of a
read, CachingStore serves a second read without touching the store beneath
(counted by a MetricsStore under it). Every wrapper holds arrays like any
store."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import turbozarr as tz


def int_array(store, rng) -> np.ndarray:
    """A 40 x 30 int32 array in 4 x 3 chunks of `store`, filled at random."""
    data = rng.integers(-1000, 1000, size=(40, 30), dtype=np.int32)
    a = tz.create_array(store, shape=data.shape, chunks=(10, 10), dtype="i4")
    a[...] = data
    return data


def chunk_keys(store) -> list[str]:
    return [k for k in store.list() if k.startswith("c/")]


def timed_get(store, key: str) -> tuple[bytes | None, float]:
    start = time.perf_counter()
    value = store.get(key)
    return value, time.perf_counter() - start


def test_throttled_store_waits_the_latency_on_every_get():
    inner = tz.MemoryStore()
    inner.set("k", b"value")
    slow = tz.ThrottledStore(inner, latency=0.02)
    slow_times = []
    for _ in range(5):
        value, seconds = timed_get(slow, "k")
        assert value == b"value"
        slow_times.append(seconds)
    assert min(slow_times) >= 0.020, slow_times
    # The wait is the wrapper's: the store beneath answers at once.
    assert min(timed_get(inner, "k")[1] for _ in range(5)) < 0.020
    value, seconds = timed_get(slow, "absent")
    assert value is None
    assert seconds >= 0.020


def test_throttled_store_bandwidth_and_connections():
    inner = tz.MemoryStore()
    inner.set("big", bytes(20_000))
    # 20,000 bytes at 1 MB/s take 20 ms on the wire.
    narrow = tz.ThrottledStore(inner, bytes_per_second=1e6, connections=1)
    value, seconds = timed_get(narrow, "big")
    assert value == bytes(20_000)
    assert seconds >= 0.020
    with pytest.raises(ValueError, match="latency"):
        tz.ThrottledStore(inner, latency=-1)
    with pytest.raises(ValueError, match="connections"):
        tz.ThrottledStore(inner, connections=-2)


def test_throttled_store_holds_arrays(rng, tmp_path):
    store = tz.ThrottledStore(str(tmp_path / "d.zarr"), latency=0.001, connections=4)
    assert store.describe().startswith("throttled(file://")
    data = int_array(store, rng)
    np.testing.assert_array_equal(tz.open_array(store)[...], data)
    np.testing.assert_array_equal(tz.open_array(str(tmp_path / "d.zarr"))[...], data)


def test_metrics_count_the_gets_and_bytes_of_a_read(rng):
    inner = tz.MemoryStore()
    data = int_array(inner, rng)
    counted = tz.MetricsStore(inner)
    a = tz.open_array(counted)
    assert counted.metrics()["gets"] >= 1  # the metadata
    counted.reset_metrics()
    assert counted.metrics() == {
        "gets": 0, "get_misses": 0, "bytes_read": 0, "get_many_calls": 0, "sets": 0,
        "bytes_written": 0, "erases": 0, "lists": 0, "seconds": 0.0}

    np.testing.assert_array_equal(a[...], data)
    keys = chunk_keys(inner)
    assert len(keys) == 12
    m = counted.metrics()
    assert m["gets"] == 12
    assert m["get_misses"] == 0
    assert m["bytes_read"] == sum(len(inner.get(k)) for k in keys)
    assert m["sets"] == m["erases"] == m["lists"] == 0
    assert m["seconds"] > 0

    # One chunk's worth: one get of that chunk's bytes.
    counted.reset_metrics()
    np.testing.assert_array_equal(a[10:20, 20:30], data[10:20, 20:30])
    m = counted.metrics()
    assert (m["gets"], m["bytes_read"]) == (1, len(inner.get("c/1/2")))

    # Writes count too, and the Store methods answer through the wrapper.
    counted.reset_metrics()
    counted.set("extra", b"12345")
    assert counted.get("extra") == b"12345"
    assert counted.get("absent") is None
    m = counted.metrics()
    assert (m["sets"], m["bytes_written"]) == (1, 5)
    assert (m["gets"], m["get_misses"], m["bytes_read"]) == (2, 1, 5)
    assert "memory://" in repr(counted)


def test_cache_serves_a_second_read_without_the_inner_store(rng):
    inner = tz.MemoryStore()
    data = int_array(inner, rng)
    counted = tz.MetricsStore(inner)
    cached = tz.CachingStore(counted, capacity_bytes=1 << 20)
    a = tz.open_array(cached, mode="r+")
    np.testing.assert_array_equal(a[...], data)
    assert counted.metrics()["gets"] >= 12

    counted.reset_metrics()
    np.testing.assert_array_equal(a[...], data)
    assert counted.metrics()["gets"] == 0
    assert counted.metrics()["bytes_read"] == 0

    # A write through the cache drops what it held of that chunk only.
    a[0:10, 0:10] = 7
    data[0:10, 0:10] = 7
    counted.reset_metrics()
    np.testing.assert_array_equal(a[...], data)
    m = counted.metrics()
    assert m["gets"] == 1
    assert m["bytes_read"] == len(inner.get("c/0/0"))


def test_a_cache_too_small_to_hold_a_chunk_reads_through(rng):
    inner = tz.MemoryStore()
    data = int_array(inner, rng)
    counted = tz.MetricsStore(inner)
    a = tz.open_array(tz.CachingStore(counted, capacity_bytes=0))
    np.testing.assert_array_equal(a[...], data)
    counted.reset_metrics()
    np.testing.assert_array_equal(a[...], data)
    assert counted.metrics()["gets"] == 12
    with pytest.raises(ValueError, match="capacity_bytes"):
        tz.CachingStore(inner, capacity_bytes=-1)


def test_store_set_takes_any_buffer_and_get_array_shares_the_value():
    store = tz.MemoryStore()
    values = np.arange(1000, dtype=np.uint16)
    store.set("a", values)               # a numpy array, no bytes() first
    store.set("b", memoryview(b"xyz"))
    assert store.get("a") == values.tobytes()
    got = store.get_array("a")
    assert got.dtype == np.uint8 and got.shape == (2000,)
    assert got.tobytes() == values.tobytes()
    assert store.get_array("b").tobytes() == b"xyz"
    assert store.get_array("missing") is None
    assert store.sizes(["a", "missing", "b"]) == [2000, None, 3]
    del store                            # the array owns its bytes
    assert got.view(np.uint16)[999] == 999
    with pytest.raises(ValueError, match="not C-contiguous"):
        tz.MemoryStore().set("c", np.arange(10)[::2])


def test_fault_store_reads_and_writes_fail_cleanly_or_are_right(rng):
    # Reads through a faulty store either raise an error naming a key or
    # return exactly what is stored; writes that fail leave each chunk old
    # or new. The store underneath holds the truth.
    clean = tz.MemoryStore()
    data = int_array(clean, rng)
    # Chunks only: the metadata opens cleanly.
    faulty = tz.FaultStore(clean, rate=0.3, key_contains="c/", seed=3, spike=0.001)
    a = tz.open_array(faulty, mode="r+")
    truth = tz.open_array(clean)
    failed = 0
    for i in range(40):
        if i % 2:
            try:
                got = a[5:35, 3:27]
            except (tz.StoreIOError, tz.CorruptionError) as e:
                failed += 1
                assert "'c/" in str(e), str(e)
            else:
                np.testing.assert_array_equal(got, data[5:35, 3:27])
        else:
            new = data.copy()
            new[10:30, 5:25] = i
            try:
                a[10:30, 5:25] = new[10:30, 5:25]
            except (tz.StoreIOError, tz.CorruptionError) as e:
                failed += 1
                assert "'c/" in str(e), str(e)
            try:
                now = truth[...]
            except tz.CorruptionError as e:  # a partial write left a chunk damaged
                assert "'c/" in str(e), str(e)
                now = None
            if now is not None:
                for r in range(0, 40, 10):
                    for c in range(0, 30, 10):
                        unit = now[r:r + 10, c:c + 10]
                        assert (np.array_equal(unit, data[r:r + 10, c:c + 10])
                                or np.array_equal(unit, new[r:r + 10, c:c + 10]))
                data = now
            else:
                # Rewrite the whole array cleanly and go on from there.
                tz.open_array(clean, mode="r+")[...] = new
                data = new
    assert failed > 0 and tz.fault_count(faulty) > 0


def test_fault_store_arguments_and_errors():
    store = tz.MemoryStore()
    store.set("k", b"value")
    always = tz.FaultStore(store, "read_error", rate=1.0)
    with pytest.raises(tz.StoreIOError, match=r"key 'k': injected I/O error \(EIO\)"):
        always.get("k")
    assert tz.fault_count(always) == 1
    full = tz.FaultStore(store, ["write_error"], rate=1.0)
    with pytest.raises(tz.StoreIOError, match=r"injected full disk"):
        full.set("k", b"other")
    assert store.get("k") == b"value"
    only_x = tz.FaultStore(store, ["read_error"], rate=1.0, key_contains="x")
    assert only_x.get("k") == b"value"
    with pytest.raises(ValueError, match="unknown faults"):
        tz.FaultStore(store, ["melt"], rate=0.1)
    with pytest.raises(ValueError, match="rate"):
        tz.FaultStore(store, rate=2)


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_a_durable_local_store_syncs_each_value_and_its_directory(tmp_path):
    # Counted with strace: a durable store's write of 4 chunks syncs each
    # chunk's file and its directory; an ordinary one syncs nothing.
    script = (
        "import sys, numpy as np, turbozarr as tz\n"
        "s = tz.LocalStore(sys.argv[1], durable=sys.argv[2] == '1')\n"
        "a = tz.create_array(s, shape=(20, 20), chunks=(10, 10), dtype='i4')\n"
        "a[...] = np.arange(400, dtype='i4').reshape(20, 20)\n"
        "assert (tz.open_array(sys.argv[1])[...] == np.arange(400).reshape(20, 20)).all()\n")
    counts = {}
    for durable in ("0", "1"):
        out = subprocess.run(
            ["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", sys.executable, "-c", script,
             str(tmp_path / f"d{durable}"), durable],
            capture_output=True, text=True, env=dict(os.environ), check=True)
        # strace -c's table: % time, seconds, usecs/call, calls, [errors,]
        # syscall. The calls column by position: usecs/call reads 0 on a
        # loaded machine, and a pattern once took it for the count.
        counts[durable] = sum(int(line.split()[3]) for line in out.stderr.splitlines()
                              if line.split()[-1:] == ["fsync"])
    assert counts["0"] == 0
    # 4 chunks and the metadata document, each file and its directory.
    assert counts["1"] >= 2 * 5, counts
