"""Arrays and groups pickle as where they live (store URL, path, read-only
and write settings), never their data, and reopen in another process:
directories, zip archives (read), http(s) and s3 stores. Stores that cannot
be reopened elsewhere (memory://, a zip archive being written, throttled and
caching wrappers) refuse with a TypeError that says why."""

from __future__ import annotations

import http.server
import pickle
import re
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz
from conftest import answer_byte_range, assert_bit_equal

try:
    from test_s3_store import moto  # noqa: F401 (the moto S3 server fixture)
except ImportError:  # boto3 or moto absent
    @pytest.fixture(scope="module")
    def moto():
        pytest.skip("moto[s3] and boto3 are not installed")


class _RangeHandler(http.server.BaseHTTPRequestHandler):
    """Files under the server's root, with single byte ranges (as object
    stores and nginx answer them)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        self._answer(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        rel = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
        path = self.server.root / rel  # type: ignore[attr-defined]
        if not path.is_file():
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = path.read_bytes()
        asked = self.headers.get("Range", "").strip()
        if re.fullmatch(r"bytes=(\d*)-(\d*)", asked):
            answer_byte_range(self, data, asked, body)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def http_root(tmp_path_factory):
    """(directory, URL): an HTTP server on loopback serving the directory."""
    root = tmp_path_factory.mktemp("http")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RangeHandler)
    server.root = root
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def read_in_another_process(blob: bytes, key: str = "...") -> np.ndarray:
    """``pickle.loads(blob)[key]`` computed by a new Python process."""
    code = ("import pickle, sys\n"
            "a = pickle.loads(sys.stdin.buffer.read())\n"
            f"sys.stdout.buffer.write(pickle.dumps(a[{key}]))\n")
    done = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return pickle.loads(done.stdout)


def sharded(store, rng, shape=(300, 200), dtype="f8", **kwargs) -> tuple[tz.Array, np.ndarray]:
    data = rng.standard_normal(shape).astype(dtype)
    a = tz.create(store, shape=shape, dtype=dtype, chunks=(20, 25), shards=(100, 100),
                  **kwargs)
    a[...] = data
    return a, data


def test_a_pickle_holds_the_location_not_the_data(tmp_path, rng):
    a, data = sharded(tmp_path / "a.zarr", rng, shape=(1000, 1000))
    a.write_empty_chunks = True
    blob = pickle.dumps(a)
    assert len(blob) < 1000  # 8 MB of data behind it
    assert data[0, :4].tobytes() not in blob
    assert str(tmp_path / "a.zarr").encode() in blob
    b = pickle.loads(blob)
    assert isinstance(b, tz.Array)
    assert (b.shape, b.dtype, b.chunks, b.shards, b.path) == (a.shape, a.dtype, a.chunks,
                                                              a.shards, a.path)
    assert b.write_empty_chunks is True and b.read_only is False
    assert_bit_equal(b[...], data)


def test_unpickling_reads_the_metadata_anew(tmp_path, rng):
    a, data = sharded(tmp_path / "a.zarr", rng)
    blob = pickle.dumps(a)
    a.resize(400, 200)
    b = pickle.loads(blob)
    assert b.shape == (400, 200)
    assert_bit_equal(b[:300], data)


def test_read_only_travels_with_the_pickle(tmp_path, rng):
    sharded(tmp_path / "a.zarr", rng)
    b = pickle.loads(pickle.dumps(tz.open_array(tmp_path / "a.zarr", mode="r")))
    assert b.read_only and not b.store.writable
    with pytest.raises(tz.ReadOnlyError):
        b[0, 0] = 1.0


def test_directory_array_in_another_process_reads_and_writes(tmp_path, rng):
    a, data = sharded(tmp_path / "a.zarr", rng)
    assert_bit_equal(read_in_another_process(pickle.dumps(a)), data)
    code = ("import pickle, sys\n"
            "a = pickle.loads(sys.stdin.buffer.read())\n"
            "a[150:250, 50:60] = -1.5\n")
    done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(a),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    data[150:250, 50:60] = -1.5
    assert_bit_equal(a[...], data)


def test_zip_archive_being_read_pickles(tmp_path, rng):
    with tz.ZipStore(tmp_path / "a.zip", mode="w") as z:
        _, data = sharded(z, rng, path="in/x")
    a = tz.open_array(tmp_path / "a.zip", path="in/x")
    assert_bit_equal(read_in_another_process(pickle.dumps(a)), data)


def test_zip_archive_being_written_refuses(tmp_path, rng):
    z = tz.ZipStore(tmp_path / "a.zip", mode="w")
    a, _ = sharded(z, rng)
    with pytest.raises(TypeError, match="being written"):
        pickle.dumps(a)
    z.close()


def test_http_array_in_another_process(http_root, rng):
    root, url = http_root
    _, data = sharded(root / "h.zarr", rng, dtype="i4")
    a = tz.open_array(f"{url}/h.zarr")
    blob = pickle.dumps(a)
    assert f"{url}/h.zarr".encode() in blob
    assert_bit_equal(read_in_another_process(blob), data)
    assert_bit_equal(read_in_another_process(blob, "120:180, ::3"), data[120:180, ::3])


def test_s3_array_reopens_with_its_keyword_options(moto, rng, monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL",
                 "AWS_ENDPOINT_URL_S3", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    store = tz.open_store(f"s3://{moto.bucket}/pickled", **moto.options())
    _, data = sharded(store, rng, shape=(120, 130))
    a = tz.open_array(store)
    del store  # the array's store is now a new Python object of the same store
    blob = pickle.dumps(a)
    assert moto.endpoint.encode() in blob
    # Another process has no environment to find the server by: the options
    # come with the pickle.
    assert_bit_equal(read_in_another_process(blob), data)


def test_groups_pickle_and_open_their_members(tmp_path, rng):
    g = tz.group(tmp_path / "g.zarr", attributes={"k": 1})
    a = g.create_group("sub").create_array("x", shape=(10, 4), dtype="u2", chunks=(5, 2))
    a[...] = np.arange(40, dtype="u2").reshape(10, 4)
    h = pickle.loads(pickle.dumps(g))
    assert isinstance(h, tz.Group) and h.attrs["k"] == 1
    assert_bit_equal(h["sub/x"][...], np.arange(40, dtype="u2").reshape(10, 4))
    sub = pickle.loads(pickle.dumps(g["sub"]))
    assert sub.path == "sub" and sub.array_keys() == ["x"]


def test_memory_stores_refuse_with_a_reason(rng):
    a, _ = sharded("memory://", rng)
    with pytest.raises(TypeError, match="memory:// store"):
        pickle.dumps(a)
    with pytest.raises(TypeError, match="memory:// store"):
        pickle.dumps(tz.group())


@pytest.mark.parametrize("wrap", [lambda s: tz.CachingStore(s, 1 << 20),
                                  lambda s: tz.ThrottledStore(s, latency=0.001)])
def test_caching_and_throttled_wrappers_refuse(tmp_path, rng, wrap):
    sharded(tmp_path / "a.zarr", rng)
    a = tz.open_array(wrap(tz.open_store(tmp_path / "a.zarr")))
    with pytest.raises(TypeError, match="wrapper"):
        pickle.dumps(a)


def test_a_metrics_store_pickles_as_the_store_it_counts(tmp_path, rng):
    _, data = sharded(tmp_path / "a.zarr", rng)
    m = tz.MetricsStore(tz.open_store(tmp_path / "a.zarr"))
    b = pickle.loads(pickle.dumps(tz.open_array(m)))
    assert b.store.describe() == m.store.describe()
    gets = m.metrics()["gets"]
    assert_bit_equal(b[...], data)
    assert m.metrics()["gets"] == gets  # b reads past the counters


def test_dask_token_names_the_location(tmp_path, rng):
    tokenize = pytest.importorskip("dask.base").tokenize
    a, _ = sharded(tmp_path / "a.zarr", rng)
    sharded(tmp_path / "b.zarr", rng)
    assert tokenize(a) == tokenize(tz.open_array(tmp_path / "a.zarr", mode="r"))
    assert tokenize(a) != tokenize(tz.open_array(tmp_path / "b.zarr"))
    m, _ = sharded("memory://", rng)
    n, _ = sharded("memory://", rng)
    assert tokenize(m) == tokenize(m) and tokenize(m) != tokenize(n)
