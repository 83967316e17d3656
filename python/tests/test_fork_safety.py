"""Children started with multiprocessing ("fork", "forkserver" and "spawn")
after the parent read and wrote arrays, so that the parent's thread pool runs
and, for "fork", the child inherits it: the children read and write arrays in
a local directory (and through a memory store they inherit), read over HTTP,
read and write through the fault-injecting wrapper, and go on with a block
iterator the parent left half consumed. (Children over S3 are in
test_s3_store.py, beside its S3 server.) Every child run has a timeout, so a
child waiting for one of its parent's threads fails the test instead of
hanging it.

multiprocessing pickles the target by name, so the children's functions are
module-level and the arrays are reopened by path in "forkserver" and "spawn"
children (which inherit nothing); a "fork" child also uses the parent's
objects as they are.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import turbozarr as tz
from conftest import METHODS, assert_bit_equal, run_in_pool, run_in_process

SHAPE = (96, 80)
CHUNKS = (8, 8)


def values(seed: int) -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.int32).reshape(SHAPE) * 7 + seed


# Objects of the parent that a "fork" child inherits (set before the fork).
_inherited: dict = {}


def _child_reads_and_writes(path: str, seed: int) -> bool:
    """Reads `values(seed)` at `path`, writes `values(seed + 1)` there and
    reads it back, then again on a pool of another size (which, in a "fork"
    child, drops the inherited one). Raises on a difference, so the failure
    reaches the parent."""
    a = tz.open_array(path, mode="r+")
    assert_bit_equal(a[...], values(seed))
    a[...] = values(seed + 2)
    assert_bit_equal(a[...], values(seed + 2))
    tz.config.set_threads(3)
    a[...] = values(seed + 1)
    assert_bit_equal(a[...], values(seed + 1))
    assert_bit_equal(a[10:50, 3:77], values(seed + 1)[10:50, 3:77])
    return True


def _child_reads_http(url: str, seed: int) -> bool:
    a = tz.open_array(url)
    assert_bit_equal(a[...], values(seed))
    assert_bit_equal(a[5:90:3, 7], values(seed)[5:90:3, 7])
    return True


@pytest.fixture
def parent_array(tmp_path):
    """An array the parent wrote and read, so that its pool is running."""
    path = str(tmp_path / "a")
    a = tz.create(path, shape=SHAPE, dtype="i4", chunks=CHUNKS)
    a[...] = values(1)
    assert_bit_equal(a[...], values(1))
    return path, a


@pytest.mark.parametrize("method", METHODS)
def test_children_read_and_write_a_local_array(method, parent_array):
    path, a = parent_array
    run_in_pool(method, _child_reads_and_writes, path, 1)
    # The child's writes are in the directory; the parent reads them on its
    # own pool, which the child left alone.
    assert_bit_equal(a[...], values(2))
    a[...] = values(1)
    run_in_process(method, _child_reads_and_writes, path, 1)
    assert_bit_equal(a[...], values(2))


def test_fork_child_uses_the_parents_objects(parent_array):
    _, local = parent_array
    memory = tz.create("memory://", shape=SHAPE, dtype="i4", chunks=CHUNKS)
    memory[...] = values(5)
    # A small budget, so that the background reads stop ahead of the loop
    # with some blocks read and some not yet.
    it = local.iter_blocks(readahead_bytes=3 * 8 * 80 * 4)
    for _ in range(4):
        key, block = next(it)
        assert_bit_equal(block, values(1)[key])
    _inherited.update(memory=memory, memory_seed=5, blocks=it, blocks_left=12 - 4)
    try:
        run_in_pool("fork", _child_uses_inherited_iterator_and_memory)
        run_in_process("fork", _child_uses_inherited_iterator_and_memory)
    finally:
        _inherited.clear()
    # The parent's memory store is its own, and its iterator goes on.
    assert_bit_equal(memory[...], values(5))
    rest = list(it)
    assert len(rest) == 8
    for key, block in rest:
        assert_bit_equal(block, values(1)[key])


def _child_uses_inherited_iterator_and_memory() -> bool:
    memory = _inherited["memory"]
    seed = _inherited["memory_seed"]
    assert_bit_equal(memory[...], values(seed))
    memory[...] = values(seed + 1)
    assert_bit_equal(memory[...], values(seed + 1))
    # The rest of the parent's blocks, each equal to the parent's array.
    blocks = list(_inherited["blocks"])
    assert len(blocks) == _inherited["blocks_left"]
    for key, block in blocks:
        assert_bit_equal(block, values(1)[key])
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Python's file server with keep-alive (HTTP/1.1), so that the parent's
# connections stay open across the fork, and with Nagle's algorithm off: it
# writes headers and body apart, and the body would wait for a delayed ACK.
_SERVER = """
import functools, http.server, socketserver, sys
socketserver.StreamRequestHandler.disable_nagle_algorithm = True
class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
handler = functools.partial(Handler, directory=sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


@pytest.fixture
def http_array(tmp_path):
    """An array in a directory served over HTTP by a process of its own (so
    that no thread of the parent serves the children), read once by the
    parent so that its HTTP transport and connections exist."""
    # Few chunks: each is a request to a slow server.
    a = tz.create(str(tmp_path / "a"), shape=SHAPE, dtype="i4", chunks=(24, 40))
    a[...] = values(7)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(port), str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("python -m http.server did not come up")
                time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/a"
        remote = tz.open_array(url)
        assert_bit_equal(remote[...], values(7))
        yield url, remote
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize("method", METHODS)
def test_children_read_over_http(method, http_array):
    url, remote = http_array
    run_in_pool(method, _child_reads_http, url, 7)
    if method == "fork":
        _inherited["remote"] = remote
        try:
            run_in_pool("fork", _child_reads_inherited_http)
        finally:
            _inherited.clear()
    # The parent's connections were left alone.
    assert_bit_equal(remote[...], values(7))


def _child_reads_inherited_http() -> bool:
    remote = _inherited["remote"]
    assert_bit_equal(remote[...], values(7))
    assert_bit_equal(remote[3:60, 10:20], values(7)[3:60, 10:20])
    return True


def _child_through_faults(path: str, seed: int, inherited: bool) -> bool:
    """Reads `values(seed)` at `path` and writes `values(seed + 1)` through a
    fault wrapper (the parent's, if `inherited`), retrying what fails: every
    failure names a chunk, and what is read is never wrong."""
    if inherited:
        faulty = _inherited["faulty"]
    else:
        faulty = tz.FaultStore(tz.open_store(path), ["read_error", "write_error", "reset"],
                               rate=0.05, key_contains="c/1", seed=seed)
    a = tz.open_array(faulty, mode="r+")

    def retried(op):
        for _ in range(100):
            try:
                return op()
            except tz.StoreIOError as e:
                assert "'c/" in str(e), str(e)
        raise AssertionError("a fault on every one of 100 attempts")

    assert_bit_equal(retried(lambda: a[...]), values(seed))
    retried(lambda: a.__setitem__(Ellipsis, values(seed + 1)))
    assert_bit_equal(retried(lambda: a[...]), values(seed + 1))
    assert tz.fault_count(faulty) > 0
    return True


@pytest.mark.parametrize("method", METHODS)
def test_children_through_the_fault_wrapper(method, tmp_path):
    path = str(tmp_path / "a")
    tz.create(path, shape=SHAPE, dtype="i4", chunks=CHUNKS)[...] = values(3)
    # The parent uses its wrapper (faults, retries, its pool running) first.
    # Faults on the 30 chunks of rows 1, 10 and 11 only, so that a whole
    # read gets through one time in five.
    faulty = tz.FaultStore(tz.open_store(path), ["read_error", "write_error", "reset"],
                           rate=0.05, key_contains="c/1", seed=1)
    parent = tz.open_array(faulty, mode="r+")
    failed = 0
    for _ in range(5):
        try:
            assert_bit_equal(parent[...], values(3))
        except tz.StoreIOError:
            failed += 1
    assert failed > 0
    run_in_pool(method, _child_through_faults, path, 3, False)
    clean = tz.open_array(path, mode="r+")
    assert_bit_equal(clean[...], values(4))
    if method == "fork":
        clean[...] = values(3)
        _inherited["faulty"] = faulty
        try:
            run_in_process("fork", _child_through_faults, path, 3, True)
        finally:
            _inherited.clear()
        assert_bit_equal(clean[...], values(4))
    # The parent's wrapper goes on injecting and reading right.
    before = tz.fault_count(faulty)
    right = 0
    for _ in range(40):
        try:
            assert_bit_equal(parent[...], values(4))
            right += 1
        except tz.StoreIOError:
            pass
    assert right > 0 and tz.fault_count(faulty) > before
