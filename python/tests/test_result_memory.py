"""Large read results reuse the memory of dropped ones (result_memory_binding.cc):
the same pages come back for a result of the same size (or up to a quarter
smaller), every byte is the
read's (never what the previous result held), a result still referenced is
never reused, and the kept memory stays within its limit."""

from __future__ import annotations

import gc
import multiprocessing as mp
import time

import numpy as np
import pytest

import turbozarr as tz
from turbozarr import _core

from conftest import assert_bit_equal


@pytest.fixture
def big(tmp_path):
    """A 2048 x 1024 int32 array (8 MiB) with one chunk missing (fill 7)."""
    rng = np.random.default_rng(5)
    data = rng.integers(-(2**31), 2**31 - 1, size=(2048, 1024), dtype=np.int32)
    a = tz.create(str(tmp_path / "a.zarr"), shape=data.shape, dtype="int32",
                  chunks=(256, 256), fill_value=7)
    a[...] = data
    a[256:512, 256:512] = 7  # a chunk of the fill value alone: not stored
    data[256:512, 256:512] = 7
    assert a.store.get("c/1/1") is None
    return a, data, str(tmp_path / "a.zarr")


@pytest.fixture(autouse=True)
def fresh_cache():
    _core.set_result_cache_limit(None)
    _core.clear_result_cache()
    yield
    _core.set_result_cache_limit(None)
    _core.clear_result_cache()


def test_a_dropped_result_is_the_next_ones_memory(big):
    a, data, path = big
    first = a[...]
    address = first.ctypes.data
    assert address % 4096 == 0 and first.flags.c_contiguous and first.flags.writeable
    first[...] = -1  # what the next read must not show
    del first
    gc.collect()
    assert _core.result_cache_bytes() >= data.nbytes
    second = a[...]
    assert second.ctypes.data == address
    assert _core.result_cache_bytes() == 0
    assert_bit_equal(second, data)  # missing chunk's fill value included


def test_a_result_still_referenced_is_not_reused(big):
    a, data, path = big
    first = a[...]
    view = first[::2]  # keeps the block alive through its base
    del first
    second = a[...]
    assert second.ctypes.data != view.ctypes.data
    second[...] = 0
    assert_bit_equal(view, data[::2])


def test_other_sizes_and_small_results_take_their_own_memory(big):
    a, data, path = big
    whole = a[...]
    address = whole.ctypes.data
    del whole
    half = a[:1024]  # 4 MiB: another size, a new block
    assert half.ctypes.data != address
    assert_bit_equal(half, data[:1024])
    small = a[:10, :10]  # under POOLED_RESULT_BYTES: numpy's memory
    assert small.nbytes < _core.POOLED_RESULT_BYTES
    assert_bit_equal(small, data[:10, :10])
    del half, small
    assert _core.result_cache_bytes() == data.nbytes + data.nbytes // 2


def test_a_result_a_little_smaller_takes_a_dropped_block(big):
    a, data, path = big
    whole = a[...]
    address = whole.ctypes.data
    whole[...] = -1
    del whole
    # 1,800 of 2,048 rows: within a quarter of the dropped block's size.
    most = a[:1800]
    assert most.ctypes.data == address
    assert_bit_equal(most, data[:1800])
    assert _core.result_cache_bytes() == 0
    del most
    # Half: more than a quarter smaller, so a block of its own.
    half = a[:1024]
    assert half.ctypes.data != address
    assert _core.result_cache_bytes() == data.nbytes


def test_the_kept_memory_stays_within_its_limit(big):
    a, data, path = big
    _core.set_result_cache_limit(data.nbytes + data.nbytes // 4)
    blocks = [a[...], a[:1024], a[:512]]  # 8, 4 and 2 MiB
    del blocks
    # 14 MiB dropped against a limit of 10: the oldest kept blocks went.
    assert _core.result_cache_bytes() <= data.nbytes + data.nbytes // 4
    _core.set_result_cache_limit(0)
    assert _core.result_cache_bytes() == 0
    out = a[...]
    del out
    assert _core.result_cache_bytes() == 0, "nothing is kept with a limit of 0"
    assert_bit_equal(a[...], data)


def test_a_block_not_taken_again_soon_is_given_back(big):
    a, data, path = big
    _core.set_result_cache_limit(None, kept_for=0.2)
    x = a[...]
    del x
    assert _core.result_cache_bytes() == data.nbytes
    time.sleep(0.3)
    small = a[:1024]  # making (and dropping) a result looks at the kept blocks
    assert _core.result_cache_bytes() == 0
    del small
    assert _core.result_cache_bytes() == data.nbytes // 2


def _read_in_child(path, q):
    a = tz.open_array(path, mode="r")
    q.put(int(a[...].sum(dtype=np.int64)))


def test_a_forked_child_reads_with_the_parents_kept_blocks(big):
    a, data, path = big
    x = a[...]
    del x
    assert _core.result_cache_bytes() > 0
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_read_in_child, args=(path, q))
    p.start()
    p.join(60)
    assert p.exitcode == 0
    assert q.get(timeout=5) == int(data.sum(dtype=np.int64))
