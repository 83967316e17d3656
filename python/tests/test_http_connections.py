"""Reading from a modest web server: Python's own http.server with HTTP/1.1
keep-alive, a listen backlog of 5 and 30 ms per answer. A client that opens
a connection per chunk at once overruns the backlog; the kernel drops the
handshakes that do not fit, and each costs seconds of SYN retransmits (such
a read took 15-30 s). turbozarr opens connections a few at a time, reuses
them and keeps to a cap per host."""

from __future__ import annotations

import contextlib
import functools
import http.server
import pickle
import socketserver
import threading
import time

import numpy as np
import pytest

import turbozarr as tz
from conftest import answer_byte_range
from support_records import HTTP_SERVER
from turbozarr._store import store_spec


class _CountingServer(http.server.ThreadingHTTPServer):
    request_queue_size = 5
    daemon_threads = True

    def __init__(self, root, handler_class=None):
        self.connections = 0  # accepted in all
        self.open = 0
        self.peak_open = 0
        self.requests = 0
        self.paths = []  # of the GETs answered whole
        self.ranged = {}  # path -> Range headers (_RangeHandler)
        self.lock = threading.Lock()
        handler = functools.partial(handler_class or _SlowHandler, directory=str(root))
        super().__init__(("127.0.0.1", 0), handler)


class _SlowHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive

    def setup(self):
        with self.server.lock:
            self.server.connections += 1
            self.server.open += 1
            self.server.peak_open = max(self.server.peak_open, self.server.open)
        super().setup()

    def finish(self):
        super().finish()
        with self.server.lock:
            self.server.open -= 1

    def do_GET(self):  # noqa: N802
        with self.server.lock:
            self.server.requests += 1
            self.server.paths.append(self.path)
        time.sleep(0.03)
        super().do_GET()

    def log_message(self, *args):
        pass


class _RangeHandler(_SlowHandler):
    """Answers "Range: bytes=first-[last]" with 206 and says so with
    "Accept-Ranges: bytes", as nginx and object stores do; counts the
    ranged GETs of each path."""

    def do_GET(self):  # noqa: N802
        asked = self.headers.get("Range", "")
        if not asked.startswith("bytes="):
            return super().do_GET()
        with self.server.lock:
            self.server.requests += 1
            self.server.ranged.setdefault(self.path, []).append(asked)
        time.sleep(0.03)
        with open(self.translate_path(self.path), "rb") as f:
            data = f.read()
        answer_byte_range(self, data, asked, headers={"Accept-Ranges": "bytes"})

    def end_headers(self):
        if self.command == "GET" and not self.headers.get("Range"):
            self.send_header("Accept-Ranges", "bytes")
        super().end_headers()


class _ClosingHandler(_SlowHandler):
    protocol_version = "HTTP/1.0"  # every connection closes after its answer


class _OneAtATimeServer(_CountingServer):
    """http.server's single-threaded HTTPServer: it answers one request at
    a time while the others wait in its backlog."""

    def process_request(self, request, client_address):
        socketserver.TCPServer.process_request(self, request, client_address)


def _write_array(root, values, chunks) -> None:
    """`values` as the uncompressed v2 array `root`/a."""
    a = tz.create_array(str(root / "a"), shape=values.shape, chunks=chunks,
                        dtype=values.dtype, zarr_format=2, compressors=None)
    a[...] = values


@contextlib.contextmanager
def _serving(server, scheme="http"):
    """`server` answering on a thread of its own; yields the URL of its a."""
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}/a"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def modest_server(tmp_path):
    values = np.arange(256 * 256, dtype="<i4").reshape(256, 256) * 7
    _write_array(tmp_path, values, (32, 32))
    server = _CountingServer(tmp_path)
    with _serving(server) as url:
        yield server, url, values


def test_a_read_keeps_to_the_connection_cap_and_reuses_connections(modest_server, supports):
    server, url, values = modest_server
    start = time.perf_counter()
    a = tz.open_array(tz.open_store(url))
    got = a[...]
    took = time.perf_counter() - start
    np.testing.assert_array_equal(got, values)
    supports("store", "http(s)", "read", peer=HTTP_SERVER)
    assert server.requests >= 64
    assert server.peak_open <= 32
    assert server.connections * 2 <= server.requests
    # A dropped handshake alone costs a second; the paced read about 0.3 s.
    assert took < 5


def test_a_server_that_closes_every_connection_gets_more_than_a_few_at_once(tmp_path,
                                                                           supports):
    """`python -m http.server` answers as HTTP/1.0: each request opens a
    connection. Held to four handshakes at a time, a read of 256 chunks
    went four requests per 30 ms (2 s, slower than zarr-python); the
    transport sees the host keeps no connection and lets more wait at once,
    paced, within the cap."""
    values = np.arange(256 * 256, dtype="<i4").reshape(256, 256) * 3
    _write_array(tmp_path, values, (16, 16))
    server = _CountingServer(tmp_path, _ClosingHandler)
    with _serving(server) as url:
        got = tz.open_array(tz.open_store(url))[...]
    np.testing.assert_array_equal(got, values)
    supports("store", "http(s)", "read", peer=HTTP_SERVER)
    assert server.requests >= 256
    assert server.connections == server.requests
    assert 8 < server.peak_open <= 32


@pytest.mark.parametrize("answers_ranges", [False, True])
def test_a_large_chunk_comes_in_parts_only_from_a_server_that_answers_ranges(
        tmp_path, answers_ranges):
    """One 16 MiB chunk: from a server that answers ranges it is fetched as
    ranged parts at once over several connections, the last one open-ended;
    Python's http.server ignores Range and says nothing of it, so there the
    chunk is asked for once, whole."""
    values = (np.arange(1024 * 4096, dtype="<i4") * 13).reshape(1024, 4096)
    _write_array(tmp_path, values, values.shape)
    server = _CountingServer(tmp_path, _RangeHandler if answers_ranges else None)
    with _serving(server) as url:
        got = tz.open_array(tz.open_store(url))[...]
    np.testing.assert_array_equal(got, values)
    if answers_ranges:
        parts = sorted(server.ranged["/a/0.0"])
        assert len(parts) == 2, parts
        assert parts[0].startswith("bytes=0-")
        assert sum(p.endswith("-") for p in parts) == 1
        assert "/a/0.0" not in server.paths
        assert server.peak_open >= 2
    else:
        assert server.ranged == {}
        assert server.paths.count("/a/0.0") == 1


def _listen_overflows() -> int:
    """Handshakes the kernel dropped for full listen backlogs, machine-wide."""
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split(), values.split()))["ListenOverflows"])
    return 0


def test_a_server_that_answers_one_request_at_a_time_is_not_overrun(tmp_path, supports):
    """http.server's single-threaded HTTPServer at HTTP/1.0: requests wait
    in its backlog of 5 while it answers one. Its answers on new connections
    slow down as more wait, so the transport keeps to a few at once rather
    than overrun the backlog (each dropped handshake costs a second)."""
    values = np.arange(128 * 128, dtype="<i4").reshape(128, 128) * 5
    _write_array(tmp_path, values, (16, 8))
    server = _OneAtATimeServer(tmp_path, _ClosingHandler)
    with _serving(server) as url:
        before = _listen_overflows()
        got = tz.open_array(tz.open_store(url))[...]
        after = _listen_overflows()
    np.testing.assert_array_equal(got, values)
    supports("store", "http(s)", "read", peer=HTTP_SERVER)
    assert server.requests >= 128
    assert server.peak_open == 1
    assert after == before


def test_max_connections_is_a_store_option(modest_server):
    server, url, values = modest_server
    store = tz.open_store(url, max_connections=3, deadline=60.0)
    a = tz.open_array(store)
    np.testing.assert_array_equal(a[...], values)
    # Connections answered with a 404 are closed by this server (http.server
    # closes after an error), so more than 3 open in all, never at once.
    assert server.peak_open <= 3
    # A pickled array reopens its store with the same options.
    again = pickle.loads(pickle.dumps(a))
    assert store_spec(again.store)[2] == {"max_connections": 3, "deadline": 60.0}
    np.testing.assert_array_equal(again[:32, :32], values[:32, :32])


def test_http_urls_take_connection_options_only():
    url = "http://127.0.0.1:1/a"
    with pytest.raises(ValueError, match="region") as e:
        tz.open_store(url, region="us-east-1", max_connections=2)
    assert "max_connections" not in str(e.value)
    with pytest.raises(TypeError, match="max_connections"):
        tz.open_store(url, max_connections=2.5)
    with pytest.raises(tz.InvalidArgumentError, match="max_connections"):
        tz.open_store(url, max_connections=-1)
    with pytest.raises(ValueError, match="max_connections"):
        tz.open_store("memory://", max_connections=2)
    with pytest.raises(TypeError, match="http2"):
        tz.open_store(url, http2=1)
    with pytest.raises(TypeError, match="ca_file"):
        tz.open_store(url, ca_file=3)


def test_https_with_a_private_certificate_authority(tmp_path, modest_server, supports):
    """A server whose certificate the system does not trust: refused by
    default, read with ca_file naming it."""
    import ssl
    import subprocess

    server, url, values = modest_server
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    tls = _CountingServer(tmp_path)
    tls.socket = context.wrap_socket(tls.socket, server_side=True)
    with _serving(tls, "https") as https:
        with pytest.raises(tz.TurbozarrError):
            tz.open_array(tz.open_store(https, deadline=20.0))
        a = tz.open_array(tz.open_store(https, ca_file=str(tmp_path / "cert.pem"),
                                        deadline=20.0))
        np.testing.assert_array_equal(a[...], values)
    supports("store", "http(s)", "read", peer=HTTP_SERVER)
