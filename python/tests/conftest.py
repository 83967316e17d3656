"""Shared test helpers: bit-exact comparison, random data per dtype,
children run under each multiprocessing start method with a timeout, and
the `supports` records of interop tests (support_records.py), written for
docs/support.md when TURBOZARR_SUPPORT_RECORD names a file."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import platform
import sys
import warnings

import numpy as np
import pytest

import support_records

# Start methods of multiprocessing that children are tested under.
METHODS = ["fork", "forkserver", "spawn"]
CHILD_TIMEOUT = 60  # seconds; a hung child fails the test after this


def assert_bit_equal(actual, expected) -> None:
    """Same dtype, shape and elements; floats compared by their bits (so NaN
    payloads and the sign of zero count)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if actual.dtype.kind in "fc":
        # Same dtype (byte order included), so equal bytes means equal bits.
        if np.ascontiguousarray(actual).tobytes() != np.ascontiguousarray(expected).tobytes():
            np.testing.assert_array_equal(actual, expected)  # for a readable message
            raise AssertionError("float arrays differ in their bits (NaN payloads or -0.0)")
    elif actual.dtype.kind == "O":
        assert [type(x) for x in actual.ravel()] == [type(x) for x in expected.ravel()]
        assert actual.ravel().tolist() == expected.ravel().tolist()
    else:
        np.testing.assert_array_equal(actual, expected)


_UNICODE_ALPHABET = list("abcXYZ019 _-éüß漢字🙂\u0394")


def stored_chunks(path) -> dict[str, bytes]:
    """The chunks stored under a local array's directory: {key: bytes},
    metadata documents left out."""
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            if f in (".zarray", ".zattrs", ".zgroup", "zarr.json"):
                continue
            full = os.path.join(root, f)
            with open(full, "rb") as stream:
                out[os.path.relpath(full, path)] = stream.read()
    return out


def answer_byte_range(handler, data: bytes, asked: str, body: bool = True,
                      headers: dict[str, str] | None = None) -> None:
    """Answers `handler`'s request of `data` with the single byte range
    `asked` ("bytes=first-[last]" or "bytes=-suffix") as object stores and
    nginx do: 206 with Content-Range, or 416 when it starts past the end."""
    first, _, last = asked[len("bytes="):].partition("-")
    if first == "":
        start, end = max(0, len(data) - int(last)), len(data)
    else:
        start = int(first)
        end = min(len(data), int(last) + 1) if last else len(data)
    if start >= len(data):
        handler.send_response(416)
        handler.send_header("Content-Range", f"bytes */{len(data)}")
        handler.send_header("Content-Length", "0")
        handler.end_headers()
        return
    handler.send_response(206)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
    handler.send_header("Content-Length", str(end - start))
    handler.end_headers()
    if body:
        handler.wfile.write(data[start:end])


def random_data(dtype, shape, rng: np.random.Generator) -> np.ndarray:
    """Values that exercise every bit: random bit patterns for numbers
    (including NaNs with payloads, infinities and subnormals), random text and
    bytes of varying length for strings."""
    n = int(np.prod(shape))
    if dtype == "string":
        words = ["".join(rng.choice(_UNICODE_ALPHABET, size=rng.integers(0, 8))) for _ in range(n)]
        return np.array(words, dtype=np.dtypes.StringDType()).reshape(shape)
    if dtype == "bytes":
        out = np.empty(n, dtype=object)
        out[:] = [rng.integers(0, 256, size=rng.integers(0, 8), dtype=np.uint8).tobytes()
                  for _ in range(n)]
        return out.reshape(shape)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iufc":
        raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8)
        return raw.view(dt).reshape(shape).copy()
    if dt.kind == "S":
        # Trailing NULs are padding in numpy's S type; keep them out of the values.
        letters = np.frombuffer(b"abcdefghXYZ0123\x01\xff", dtype="S1")
        vals = [b"".join(rng.choice(letters, size=rng.integers(0, dt.itemsize + 1))) for _ in range(n)]
        return np.array(vals, dtype=dt).reshape(shape)
    if dt.kind == "U":
        vals = ["".join(rng.choice(_UNICODE_ALPHABET, size=rng.integers(0, dt.itemsize // 4 + 1)))
                for _ in range(n)]
        return np.array(vals, dtype=dt).reshape(shape)
    if dt.kind == "V":
        raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8)
        return raw.view(dt).reshape(shape).copy()
    raise ValueError(dtype)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture
def keep_thread_count():
    """Restores turbozarr's thread count after a test that changes it."""
    import turbozarr as tz

    before = tz.config.get_threads()
    yield
    tz.config.set_threads(before)


def run_in_pool(method: str, fn, *args) -> None:
    """Runs fn(*args) in a Pool child started by `method`; it must return
    True within CHILD_TIMEOUT seconds."""
    ctx = mp.get_context(method)
    with warnings.catch_warnings():
        # Python 3.12 warns that forking a process with threads may deadlock
        # the child: that is what the callers test.
        warnings.filterwarnings("ignore", category=DeprecationWarning,
                                message=".*fork.*")
        with ctx.Pool(1) as pool:
            result = pool.apply_async(fn, args)
            try:
                assert result.get(timeout=CHILD_TIMEOUT) is True
            except mp.TimeoutError:
                pool.terminate()
                pytest.fail(f"a {method!r} child hung in {fn.__name__}")


def run_in_process(method: str, fn, *args) -> None:
    """As run_in_pool, with a Process: exit code 0 is success."""
    ctx = mp.get_context(method)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning,
                                message=".*fork.*")
        p = ctx.Process(target=_exit_with, args=(fn, *args))
        p.start()
    p.join(CHILD_TIMEOUT)
    if p.is_alive():
        p.kill()
        p.join()
        pytest.fail(f"a {method!r} child hung in {fn.__name__}")
    assert p.exitcode == 0, f"the {method!r} child failed (exit code {p.exitcode})"


def _exit_with(fn, *args) -> None:
    sys.exit(0 if fn(*args) is True else 1)


@pytest.fixture
def supports(record_property) -> support_records.Supports:
    """Records what the test proves against a peer (support_records.py)."""
    return support_records.Supports(record_property)


# The records of a test count only if it passed: setup, call and teardown,
# with no xfail mark. The call's outcome waits here for the teardown's.
_PASSED_CALLS: set[str] = set()


def pytest_runtest_logreport(report) -> None:
    path = os.environ.get("TURBOZARR_SUPPORT_RECORD")
    if not path:
        return
    if report.when == "call":
        if report.passed and not hasattr(report, "wasxfail"):
            _PASSED_CALLS.add(report.nodeid)
        return
    if report.when != "teardown" or report.nodeid not in _PASSED_CALLS:
        return
    _PASSED_CALLS.discard(report.nodeid)
    records = [value for name, value in report.user_properties
               if name == support_records.PROPERTY]
    if not report.passed or not records:
        return
    python = ".".join(platform.python_version_tuple()[:2])
    lines = "".join(json.dumps({"python": python, "test": report.nodeid, **r}) + "\n"
                    for r in records)
    with open(path, "a", encoding="utf-8") as f:  # one write per test
        f.write(lines)
