"""A stand-in for tz_http_serve, for the harness's tests only.

Same command line and lifecycle as the real server: `--root DIR [--latency-ms
L] [--megabytes-per-second B] [--port 0]`; prints `http://127.0.0.1:PORT` once
listening; serves GET and HEAD with one byte range (`a-b`, `a-`, `-n`) over
HTTP/1.1 keep-alive; stops on SIGTERM or EOF on stdin and then prints
{"requests", "bytes_sent", "peak_connections"} as one JSON line on stderr.
It sleeps L ms before each answer but does not pace bandwidth.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = self.bytes_sent = self.open = self.peak = 0

    def add(self, **kw: int) -> None:
        with self.lock:
            for k, v in kw.items():
                setattr(self, k, getattr(self, k) + v)
            self.peak = max(self.peak, self.open)


class _Counting:
    """The handler's wfile, counting every byte written (headers and bodies)."""

    def __init__(self, inner, stats: Stats) -> None:
        self.inner, self.stats = inner, stats

    def write(self, b) -> int:
        n = self.inner.write(b)
        self.stats.add(bytes_sent=len(b))
        return n

    def __getattr__(self, name: str):  # flush, close, closed...
        return getattr(self.inner, name)


def make_handler(root: Path, latency: float, stats: Stats):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.wfile = _Counting(self.wfile, stats)
            stats.add(open=1)

        def finish(self) -> None:
            try:
                super().finish()
            finally:
                stats.add(open=-1)

        def log_message(self, *args) -> None:
            pass

        def _answer(self, body: bool) -> None:
            stats.add(requests=1)
            time.sleep(latency)
            path = (root / self.path.split("?", 1)[0].lstrip("/")).resolve()
            if root not in path.parents or not path.is_file():
                return self._send(404, b"", body)
            data = path.read_bytes()
            rng = self.headers.get("Range")
            m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng or "")
            if rng is None or m is None or m.groups() == ("", ""):
                return self._send(200, data, body)
            a, b = m.groups()
            size = len(data)
            start, end = (size - min(int(b), size), size) if a == "" else \
                (int(a), min(int(b) + 1, size) if b else size)
            if start >= size or start >= end:
                return self._send(416, b"", body, {"Content-Range": f"bytes */{size}"})
            self._send(206, data[start:end], body,
                       {"Content-Range": f"bytes {start}-{end - 1}/{size}"})

        def _send(self, code: int, data: bytes, body: bool, headers=None) -> None:
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if body:
                self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._answer(True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(False)

    return Handler


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--latency-ms", type=float, default=50)
    p.add_argument("--megabytes-per-second", type=float, default=150)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--backlog", type=int, default=1024)
    args = p.parse_args()
    stats = Stats()
    root = Path(args.root).resolve()

    class Server(ThreadingHTTPServer):
        request_queue_size = args.backlog

    server = Server(("127.0.0.1", args.port), make_handler(root, args.latency_ms / 1e3, stats))
    server.daemon_threads = True
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def until_eof() -> None:
        sys.stdin.buffer.read()
        stop.set()

    threading.Thread(target=until_eof, daemon=True).start()
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    while not stop.wait(0.05):
        pass
    server.shutdown()
    server.server_close()
    print(json.dumps({"requests": stats.requests, "bytes_sent": stats.bytes_sent,
                      "peak_connections": stats.peak}), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
