"""Reads from a server that closes every connection after its answer: Python's
own http.server as `python -m http.server` runs it (HTTP/1.0, a listen
backlog of 5, a thread per connection), with a fixed latency before each
answer. Every request opens a connection there. turbozarr, TensorStore and
zarr-python (fsspec) each read the whole array in a fresh process, the
readers alternating run by run; prints medians of wall time, ratios (time /
turbozarr's) and the handshakes the kernel dropped (ListenOverflows) per
reader. Every read is checked against the array's sum.

    PYTHONPATH=python .venv312/bin/python bench/closing_server.py [--latency-ms 30]
        [--chunks 256] [--repeats 5]

TensorStore and zarr-python are optional: a reader that does not import is
left out.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

READERS = {
    "turbozarr": """
import turbozarr
x = turbozarr.open_array(URL)[...]
""",
    "tensorstore": """
import tensorstore as ts
x = ts.open({"driver": "zarr3", "kvstore": URL + "/"}).result().read().result()
""",
    "zarr-python": """
import zarr
x = zarr.open_array(zarr.storage.FsspecStore.from_url(URL, read_only=True))[...]
""",
}


def serve(root: str, latency: float) -> None:
    """The server process: http.server's own classes, as its command line
    runs them, with `latency` seconds before each answer."""

    class Server(http.server.ThreadingHTTPServer):
        request_queue_size = 5  # socketserver's default, said out loud
        daemon_threads = True

    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the default: close after each answer

        def do_GET(self):  # noqa: N802
            time.sleep(latency)
            super().do_GET()

        def log_message(self, *args):
            pass

    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=root))
    print(server.server_address[1], flush=True)
    server.serve_forever(0.05)


def listen_overflows() -> int:
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split(), values.split()))["ListenOverflows"])
    return 0


def available(reader: str) -> bool:
    module = {"zarr-python": "zarr"}.get(reader, reader)
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True).returncode == 0


def timed_read(reader: str, url: str) -> tuple[float, int]:
    code = (f"import time, numpy\nURL = {url!r}\nstart = time.perf_counter()\n"
            + READERS[reader]
            + "print(time.perf_counter() - start, int(numpy.asarray(x, 'i8').sum()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=600).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", type=float, default=30)
    parser.add_argument("--chunks", type=int, default=256, help="a square number")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--serve", nargs=2, metavar=("ROOT", "LATENCY_S"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], float(args.serve[1]))
        return

    import turbozarr as tz

    side = int(round(args.chunks ** 0.5))
    values = np.random.default_rng(0).integers(0, 1000, size=(side * 128, side * 128),
                                               dtype="<i4")
    readers = [r for r in READERS if available(r)]
    with tempfile.TemporaryDirectory() as root:
        a = tz.create(os.path.join(root, "a"), shape=values.shape, dtype="<i4",
                      chunks=(128, 128),
                      compressors=[{"name": "zstd", "configuration": {"level": 1}}])
        a[...] = values
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", root, str(args.latency_ms / 1e3)],
            stdout=subprocess.PIPE, text=True)
        try:
            url = f"http://127.0.0.1:{server.stdout.readline().strip()}/a"
            runs = {r: [] for r in readers}
            dropped = {r: 0 for r in readers}
            for _ in range(args.repeats):
                for r in readers:
                    before = listen_overflows()
                    seconds, total = timed_read(r, url)
                    dropped[r] += listen_overflows() - before
                    if total != int(values.sum(dtype="i8")):
                        raise SystemExit(f"{r} read wrong values")
                    runs[r].append(seconds)
        finally:
            server.terminate()
            server.wait()
    base = statistics.median(runs["turbozarr"])
    print(f"{args.chunks} chunks of 64 KiB, HTTP/1.0 server, {args.latency_ms:g} ms per "
          f"answer, medians of {args.repeats} fresh processes:")
    for r in readers:
        m = statistics.median(runs[r])
        print(json.dumps({"reader": r, "median_s": round(m, 3),
                          "ratio": round(m / base, 2),
                          "runs": [round(s, 3) for s in runs[r]],
                          "handshakes_dropped": dropped[r]}))


if __name__ == "__main__":
    main()
