"""Sorted row gathers (the batch reads of ML loaders): turbozarr's
a.oindex[rows, :] against zarr-python's z.oindex[rows, :] on the same stored
array, and a contiguous read of as many chunks beside them (what decoding
the touched chunks costs). Warm page cache, one process, the readers
interleaved run by run; prints medians of wall time and their ratios.

    PYTHONPATH=python .venv312/bin/python bench/sorted_gather.py [--rows 512]
        [--shape 1000000 64] [--chunks 1000 64] [--shards 0] [--repeats 9]
        [--dir /tmp/sorted-gather]

--shards N stores shards of N rows (inner chunks of --chunks). zarr-python
(3.4 or later) is optional; without it only turbozarr's rows print.

--serve BINARY [--latency-ms 5] reads over HTTP instead: the directory is
served by BINARY (build/bench/serve/tz_http_serve) with that latency per
answer, turbozarr reads the URL and zarr-python reads it through fsspec;
the server's request count is printed per reader.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import time

import numpy as np

import turbozarr as tz

try:
    import zarr
except ImportError:  # turbozarr alone
    zarr = None


def make_array(path: str, shape: tuple[int, int], chunks: tuple[int, int],
               shards: int) -> None:
    spec = os.path.join(path, "spec.json")
    want = {"shape": shape, "chunks": chunks, "shards": shards}
    if os.path.exists(spec) and json.load(open(spec)) == want:
        return
    a = tz.create(os.path.join(path, "a"), shape=shape, dtype="f4", chunks=chunks,
                  shards=(shards, shape[1]) if shards else None,
                  compressors=[{"name": "zstd", "configuration": {"level": 1}}],
                  overwrite=True)
    rng = np.random.default_rng(0)
    step = shards or chunks[0]
    for r0 in range(0, shape[0], step * 10):
        rows = min(step * 10, shape[0] - r0)
        a[r0:r0 + rows] = rng.standard_normal((rows, shape[1]), dtype=np.float32)
    json.dump(want, open(spec, "w"))


@contextlib.contextmanager
def served(binary: str, root: str, latency_ms: float):
    """The URL of `root` served by tz_http_serve; on exit, its request count."""
    server = subprocess.Popen([binary, "--root", root, "--latency-ms", str(latency_ms)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    counts: dict = {}
    try:
        yield server.stdout.readline().strip(), counts
    finally:
        server.stdin.close()
        lines = server.stderr.read().strip().splitlines()  # the counts: its last line
        counts.update(json.loads(lines[-1]) if lines else {})
        server.wait()


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=512)
    p.add_argument("--shape", type=int, nargs=2, default=[1_000_000, 64])
    p.add_argument("--chunks", type=int, nargs=2, default=[1000, 64])
    p.add_argument("--shards", type=int, default=0)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--dir", default="/tmp/sorted-gather")
    p.add_argument("--serve", help="tz_http_serve: read over HTTP")
    p.add_argument("--latency-ms", type=float, default=5.0)
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    make_array(args.dir, tuple(args.shape), tuple(args.chunks), args.shards)
    if args.serve:
        over_http(args)
        return
    path = os.path.join(args.dir, "a")
    a = tz.open_array(path)
    z = zarr.open_array(path, mode="r") if zarr is not None else None
    rng = np.random.default_rng(1)
    batches = [np.sort(rng.choice(args.shape[0], args.rows, replace=False))
               for _ in range(args.repeats + 1)]
    touched = len(np.unique(batches[0] // args.chunks[0]))
    contiguous = touched * args.chunks[0]
    # Same answers, and one untimed pass to warm the page cache.
    expected = a[...][batches[0]] if args.shape[0] * args.shape[1] <= 2**28 else None
    got = a.oindex[batches[0], :]
    if expected is not None:
        assert np.array_equal(got, expected)
    if z is not None:
        assert np.array_equal(z.oindex[batches[0], :], got)
    a[:contiguous]
    times: dict[str, list[float]] = {"turbozarr oindex": [], "turbozarr a[:n] (same chunks)": []}
    if z is not None:
        times["zarr-python oindex"] = []
    for rows in batches[1:]:
        times["turbozarr oindex"].append(timed(lambda: a.oindex[rows, :]))
        if z is not None:
            times["zarr-python oindex"].append(timed(lambda: z.oindex[rows, :]))
        times["turbozarr a[:n] (same chunks)"].append(timed(lambda: a[:contiguous]))
    ours = statistics.median(times["turbozarr oindex"])
    print(f"{args.rows} sorted rows of {tuple(args.shape)} f4, chunks {tuple(args.chunks)}"
          f"{f', shards of {args.shards} rows' if args.shards else ''}: {touched} chunks "
          f"touched, medians of {args.repeats}")
    for name, values in times.items():
        m = statistics.median(values)
        print(f"  {name:32s} {m * 1000:8.1f} ms   {m / ours:5.2f}x turbozarr's gather")


def over_http(args) -> None:
    """Each reader on a server of its own (so that its requests are counted),
    all batches in turn; medians and requests per gather."""
    rng = np.random.default_rng(1)
    batches = [np.sort(rng.choice(args.shape[0], args.rows, replace=False))
               for _ in range(args.repeats)]
    readers = {"turbozarr oindex": lambda url: tz.open_array(url + "/a")}
    if zarr is not None:
        readers["zarr-python oindex"] = lambda url: zarr.open_array(url + "/a", mode="r")
    expected = tz.open_array(os.path.join(args.dir, "a")).oindex[batches[0], :]
    print(f"{args.rows} sorted rows of {tuple(args.shape)} f4, chunks {tuple(args.chunks)}"
          f"{f', shards of {args.shards} rows' if args.shards else ''}, over HTTP with "
          f"{args.latency_ms} ms latency, medians of {args.repeats}")
    medians = {}
    for name, open_reader in readers.items():
        with served(args.serve, args.dir, args.latency_ms) as (url, counts):
            reader = open_reader(url)
            assert np.array_equal(reader.oindex[batches[0], :], expected)
            times = [timed(lambda: reader.oindex[rows, :]) for rows in batches]
        medians[name] = statistics.median(times)
        requests = counts.get("requests", 0) / (len(batches) + 1)
        print(f"  {name:20s} {medians[name] * 1000:8.1f} ms   {requests:6.0f} requests per "
              f"gather   {medians[name] / medians['turbozarr oindex']:5.2f}x turbozarr's")


if __name__ == "__main__":
    main()
