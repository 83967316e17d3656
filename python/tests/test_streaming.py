"""Array.iter_blocks: blocks tile the selection and equal plain reads, for
every kind of selection, dtype and layout; arguments and errors; the
background reads stop when the loop does; and a scan of an array larger than
the budget stays in bounded memory."""

from __future__ import annotations

import gc
import json
import os
import pathlib
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import turbozarr as tz
from conftest import assert_bit_equal, random_data


def check_tiling(a, data, selection=Ellipsis, **kwargs):
    """Every block equals a[key] and data[key]; the keys cover data[selection]
    exactly once. Returns the blocks."""
    ids = np.arange(data.size).reshape(data.shape)
    want = np.sort(np.asarray(ids[selection]).ravel())
    seen = []
    blocks = []
    for key, block in a.iter_blocks(selection, **kwargs):
        assert isinstance(key, tuple) and len(key) == a.ndim
        assert isinstance(block, np.ndarray) and block.dtype == a.dtype
        assert block.flags.c_contiguous and block.flags.writeable
        assert_bit_equal(block, data[key])
        assert_bit_equal(block, a[key])
        seen.append(np.asarray(ids[key]).ravel())
        blocks.append((key, block))
    got = np.sort(np.concatenate(seen)) if seen else np.array([], dtype=ids.dtype)
    np.testing.assert_array_equal(got, want)  # each element once
    return blocks


@pytest.fixture
def arr2d(tmp_path, rng):
    data = random_data("int32", (37, 23), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="i4", chunks=(8, 5))
    a[...] = data
    return a, data


SELECTIONS = [
    Ellipsis,
    (slice(1, 36), slice(2, 22)),
    (slice(None, None, 2), slice(1, None, 3)),
    (slice(3, None, 9), slice(None, None, 7)),  # steps wider than a chunk
    (5, slice(None)),
    (slice(None), -1),
    (4, 7),
    (slice(10, 10), slice(None)),
]


@pytest.mark.parametrize("budget", [1 << 20, 3000, 1000, 200])
@pytest.mark.parametrize("selection", SELECTIONS, ids=repr)
def test_blocks_equal_reads(arr2d, selection, budget):
    a, data = arr2d
    check_tiling(a, data, selection, readahead_bytes=budget)


def test_default_blocks_are_rows_of_chunks(arr2d):
    a, data = arr2d
    keys = [key for key, _ in a.iter_blocks(readahead_bytes=3000)]
    # A row of 8 x 5 chunks is 8 * 23 * 4 = 736 bytes, within a quarter.
    assert keys == [(slice(r, min(r + 8, 37)), slice(0, 23)) for r in range(0, 37, 8)]
    # With the default budget the whole (small) array is one block.
    [(key, block)] = list(a.iter_blocks())
    assert key == (slice(0, 37), slice(0, 23))
    assert_bit_equal(block, data)


def test_explicit_block_shape(arr2d):
    a, data = arr2d
    blocks = check_tiling(a, data, (slice(1, None), slice(None)), block_shape=(10, 7))
    assert blocks[0][0] == (slice(1, 10), slice(0, 7))
    assert len(blocks) == 4 * 4
    check_tiling(a, data, block_shape=[1, 23])


@pytest.mark.parametrize("dtype", ["bool", "u1", "i8", "f2", "f8", "c16", "S3", "U2", "V4"])
def test_dtypes(tmp_path, rng, dtype):
    data = random_data(dtype, (9, 11), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype=data.dtype, chunks=(4, 3))
    a[...] = data
    check_tiling(a, data, readahead_bytes=400)


def test_v2_big_endian(tmp_path, rng):
    data = random_data(">f4", (13, 10), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype=">f4", chunks=(4, 4),
                  zarr_format=2, order="F")
    a[...] = data
    blocks = check_tiling(a, data, (slice(None, None, 2), slice(None)), readahead_bytes=200)
    assert blocks[0][1].dtype == np.dtype(">f4")


def test_sharded_with_missing_chunks(tmp_path, rng):
    data = random_data("u2", (32, 48), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="u2", chunks=(4, 6),
                  shards=(16, 24), fill_value=7)
    a[:30, :40] = data[:30, :40]
    data[30:, :] = 7
    data[:, 40:] = 7
    for budget in [1 << 20, 2048, 700, 100]:
        check_tiling(a, data, readahead_bytes=budget)
        check_tiling(a, data, (slice(3, 31, 2), slice(5, None)), readahead_bytes=budget)


def test_three_dimensions_and_scalars(tmp_path, rng):
    data = random_data("f4", (9, 10, 11), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="f4", chunks=(4, 3, 5))
    a[...] = data
    for budget in [1 << 20, 2000, 600, 240]:
        check_tiling(a, data, readahead_bytes=budget)
        check_tiling(a, data, (slice(1, None, 3), 4, slice(2, None, 2)),
                     readahead_bytes=budget)

    s = tz.create(str(tmp_path / "s"), shape=(), dtype="i2", chunks=())
    s[...] = 42
    [(key, block)] = list(s.iter_blocks())
    assert key == () and block.shape == () and block[()] == 42


def test_blocks_own_their_memory(arr2d):
    a, data = arr2d
    it = a.iter_blocks(readahead_bytes=3000)
    kept = [block for _, block in it]
    del it
    gc.collect()
    assert len(kept) == 5
    assert_bit_equal(np.concatenate(kept), data)
    for i, x in enumerate(kept):
        for y in kept[i + 1:]:
            assert not np.shares_memory(x, y)
    kept[0][...] = 0  # writable, and not shared with the array
    assert_bit_equal(a[:8], data[:8])


def test_arguments_and_errors(tmp_path, arr2d):
    a, _ = arr2d
    with pytest.raises(IndexError, match="positive steps"):
        a.iter_blocks((slice(None, None, -1), slice(None)))
    with pytest.raises(IndexError):
        a.iter_blocks((slice(None), slice(None), 0))
    # Errors come at the call, before the first block.
    with pytest.raises(tz.InvalidArgumentError, match="readahead_bytes of 100"):
        a.iter_blocks(readahead_bytes=100)
    with pytest.raises(tz.InvalidArgumentError, match="block_shape"):
        a.iter_blocks(block_shape=(4,))
    with pytest.raises(tz.InvalidArgumentError, match="more than readahead_bytes"):
        a.iter_blocks(block_shape=(37, 23), readahead_bytes=1000)

    s = tz.create(str(tmp_path / "s"), shape=(5,), dtype=str, chunks=(2,))
    with pytest.raises(tz.UnsupportedError, match="fixed-size data type"):
        s.iter_blocks()


def test_corrupt_chunk_raises_after_the_blocks_before_it(tmp_path, rng):
    data = random_data("i4", (32, 16), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="i4", chunks=(8, 8))
    a[...] = data
    (tmp_path / "a" / "c" / "2" / "1").write_bytes(b"not a zstd frame")
    got = []
    with pytest.raises(tz.CorruptionError, match=r"block 2 .*'c/2/1'"):
        for key, block in a.iter_blocks(readahead_bytes=2048):
            assert_bit_equal(block, data[key])
            got.append(key)
    assert got == [(slice(0, 8), slice(0, 16)), (slice(8, 16), slice(0, 16))]


def os_threads():
    """The threads of this process, native ones included, by task id."""
    return set(os.listdir("/proc/self/task"))


def threads_settle_at(idle, timeout=5.0):
    """Whether every thread started since `idle` (os_threads() then) is gone
    within `timeout` s: a joined thread's task can stay listed in /proc for a
    moment after the join returns (the kernel wakes the joiner before it
    reaps the task), the longer on a loaded machine. Threads of earlier
    tests that end meanwhile (a server's connection threads, say) do not
    count."""
    deadline = time.monotonic() + timeout
    while os_threads() - idle:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_stopping_early_stops_background_reads(arr2d):
    a, data = arr2d
    a[...]  # the thread pool exists before counting
    idle = os_threads()
    gen = a.iter_blocks(readahead_bytes=1000)
    key, block = next(gen)
    assert_bit_equal(block, data[key])
    assert os_threads() - idle  # the background readers
    gen.close()
    assert threads_settle_at(idle), os_threads() - idle

    for key, block in a.iter_blocks(readahead_bytes=1000):
        break
    del key, block
    gc.collect()
    assert threads_settle_at(idle), os_threads() - idle

    # A generator dropped before its first step never ran its cleanup, but
    # the engine's iterator is already reading and must stop too.
    gen = a.iter_blocks(readahead_bytes=1000)
    del gen
    gc.collect()
    assert threads_settle_at(idle), os_threads() - idle


def test_thread_count_changes_while_iterating(tmp_path, rng, keep_thread_count):
    data = random_data("f8", (96, 40), rng)
    a = tz.create(str(tmp_path / "a"), shape=data.shape, dtype="f8", chunks=(4, 8))
    a[...] = data
    tz.config.set_threads(3)
    got = np.empty_like(data)
    for n, (key, block) in enumerate(a.iter_blocks(readahead_bytes=4 * 40 * 8 * 3)):
        # Allowed at any time; later blocks read with the new count.
        tz.config.set_threads(1 + n % 3)
        assert tz.config.get_threads() == 1 + n % 3
        got[key] = block
    assert_bit_equal(got, data)


# -- bounded memory ----------------------------------------------------------

ROWS, COLS = 24576, 16384  # float32: 1.5 GiB
CHUNKS = (256, 4096)       # 4 MiB; a row of chunks is 16 MiB

SCAN = textwrap.dedent("""
    import json, resource, sys
    import numpy as np
    import turbozarr as tz

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    a = tz.open(sys.argv[1])
    base = (np.arange(a.shape[1]) % 251).astype(np.float32)
    a[:1, :1]  # start the thread pool before the baseline
    start = peak()
    elements = blocks = 0
    bad = []
    for key, block in a.iter_blocks(readahead_bytes=64 << 20):
        rows, cols = key
        want_first = base[cols] + rows.start % 7
        want_last = base[cols] + (rows.stop - 1) % 7
        r = np.arange(rows.start, rows.stop) % 7
        want_sum = float(base[cols].sum(dtype=np.float64)) * len(r) + r.sum() * (
            cols.stop - cols.start)
        if not (np.array_equal(block[0], want_first) and np.array_equal(block[-1], want_last)
                and block.sum(dtype=np.float64) == want_sum):
            bad.append(str(key))
        elements += block.size
        blocks += 1
    print(json.dumps({"growth": peak() - start, "elements": elements, "blocks": blocks,
                      "bad": bad[:3]}))
""")


def test_scan_larger_than_budget_stays_in_bounded_memory(tmp_path):
    path = str(tmp_path / "big")
    a = tz.create(path, shape=(ROWS, COLS), dtype="f4", chunks=CHUNKS,
                  compressors=[{"name": "zstd", "configuration": {"level": 1,
                                                                  "checksum": False}}])
    base = (np.arange(COLS) % 251).astype(np.float32)
    slab = np.empty((1024, COLS), dtype=np.float32)
    for r0 in range(0, ROWS, 1024):
        slab[...] = base
        slab += (np.arange(r0, r0 + 1024) % 7).astype(np.float32)[:, None]
        a[r0:r0 + 1024] = slab
    del slab

    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(tz.__file__).parent.parent))
    out = subprocess.run([sys.executable, "-c", SCAN, path], env=env, check=True,
                         capture_output=True, text=True, timeout=120)
    result = json.loads(out.stdout)
    assert result["bad"] == []
    assert result["elements"] == ROWS * COLS
    assert result["blocks"] == ROWS // CHUNKS[0]  # rows of chunks: 16 MiB each
    # The whole array is 1.5 GiB; the budget is 64 MiB plus the block the
    # loop holds while asking for the next.
    assert result["growth"] < 400 << 20, result
