"""Streaming scan versus one full read: GB/s of Array.iter_blocks (consumer
does nothing with the blocks) and of a[...] on the same array, warm page
cache, runs interleaved so that load on a shared machine hits both alike;
prints medians of wall and CPU time (all threads of the process) and their
ratios.

    PYTHONPATH=python .venv/bin/python bench/scan_blocks.py [--shape 8192 8192]
        [--chunks 1024 1024] [--codec numcodecs.lz4] [--budget-mib 256]
        [--repeats 9] [--dir /tmp/scan-blocks]

The array is written once per (shape, chunks, codec) and reused.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time

import numpy as np

import turbozarr as tz


def make_array(path: str, shape: tuple[int, int], chunks: tuple[int, int],
               codec: str) -> tz.Array:
    spec = os.path.join(path, "spec.json")
    want = {"shape": shape, "chunks": chunks, "codec": codec}
    if os.path.exists(spec) and json.load(open(spec)) == want:
        return tz.open(os.path.join(path, "a"))
    a = tz.create(os.path.join(path, "a"), shape=shape, dtype="f4", chunks=chunks,
                  compressors=[{"name": codec}], overwrite=True)
    # Smooth values with low-order noise: lz4 compresses them about 2x.
    rng = np.random.default_rng(0)
    x = np.linspace(0, 20, shape[1], dtype=np.float32)
    for r0 in range(0, shape[0], chunks[0]):
        rows = min(chunks[0], shape[0] - r0)
        slab = np.sin(x + np.float32(r0) / 100)[None, :].repeat(rows, axis=0)
        slab += rng.integers(0, 4, size=slab.shape).astype(np.float32) / 1024
        a[r0:r0 + rows] = slab
    json.dump(want, open(spec, "w"))
    return a


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--shape", type=int, nargs=2, default=[8192, 8192])
    p.add_argument("--chunks", type=int, nargs=2, default=[1024, 1024])
    p.add_argument("--codec", default="numcodecs.lz4")
    p.add_argument("--budget-mib", type=int, default=256)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--dir", default="/tmp/scan-blocks")
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    a = make_array(args.dir, tuple(args.shape), tuple(args.chunks), args.codec)
    budget = args.budget_mib << 20
    nbytes = a.nbytes

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def full() -> tuple[float, float]:
        c, t = cpu(), time.perf_counter()
        out = a[...]
        dt, dc = time.perf_counter() - t, cpu() - c
        assert out.nbytes == nbytes
        return dt, dc

    def scan() -> tuple[float, float]:
        c, t = cpu(), time.perf_counter()
        seen = 0
        for _, block in a.iter_blocks(readahead_bytes=budget):
            seen += block.nbytes
        dt, dc = time.perf_counter() - t, cpu() - c
        assert seen == nbytes
        return dt, dc

    full(), scan()  # warm the page cache and the allocator
    times: dict[str, list[float]] = {"full": [], "scan": []}
    cpus: dict[str, list[float]] = {"full": [], "scan": []}
    for _ in range(args.repeats):
        for name, run in (("full", full), ("scan", scan)):
            dt, dc = run()
            times[name].append(dt)
            cpus[name].append(dc)
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpus.items()}
    blocks = sum(1 for _ in a.iter_blocks(readahead_bytes=budget))
    print(f"array {tuple(args.shape)} f4 chunks {tuple(args.chunks)} {args.codec}, "
          f"{nbytes / 2**20:.0f} MiB, budget {args.budget_mib} MiB -> {blocks} blocks, "
          f"{tz.config.get_threads()} threads, {args.repeats} runs each")
    for k in ("full", "scan"):
        print(f"  {k:5s} median {med[k] * 1e3:8.1f} ms  {nbytes / med[k] / 1e9:6.2f} GB/s"
              f"  (min {min(times[k]) * 1e3:.1f} ms)  cpu {med_cpu[k] * 1e3:8.1f} ms")
    print(f"  scan / full ratio: wall {med['scan'] / med['full']:.3f}, "
          f"cpu {med_cpu['scan'] / med_cpu['full']:.3f}")


if __name__ == "__main__":
    main()
