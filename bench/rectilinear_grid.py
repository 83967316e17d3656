"""Rectilinear chunk grids: turbozarr against zarr-python 3.4 on the same
stored arrays (chunks of several sizes along each dimension), for full
reads, a window read, full writes and writes of a window that cuts chunks.
Unsharded, and sharded (rectilinear shards of regular inner chunks). Warm
page cache, one process, the two libraries interleaved run by run; prints
medians of wall time and their ratios (turbozarr's alone without
zarr-python 3.2 or later).

    PYTHONPATH=python .venv312/bin/python bench/rectilinear_grid.py
        [--size 4096] [--repeats 7] [--dir /tmp/rectilinear-grid] [--pipeline]

--pipeline times zarr-python's own API under turbozarr.ZarrCodecPipeline in
turbozarr's column (the drop-in), against zarr-python's default pipeline.

The row and column edges cycle through 160, 352, 224 and 288 (a mean of
256); shards cycle through 1024 and 2048 rows and columns with inner chunks
of (256, 256); --size a multiple of 256. float32, zstd level 1.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import time

import numpy as np

import turbozarr as tz

try:
    import zarr
except ImportError:  # turbozarr alone
    zarr = None
if zarr is not None and not hasattr(zarr.Array, "write_chunk_sizes"):
    zarr = None  # before 3.2: no rectilinear grids

CODECS = [{"name": "zstd", "configuration": {"level": 1}}]


def edges(size: int, cycle: list[int]) -> list[int]:
    """Edges from `cycle`, repeated, the last one cut to end at `size`."""
    out, total = [], 0
    for e in itertools.cycle(cycle):
        if total >= size:
            return out
        out.append(min(e, size - total))
        total += out[-1]
    return out


def layouts(size: int) -> dict[str, dict]:
    chunk = edges(size, [160, 352, 224, 288])
    shard = edges(size, [1024, 2048])  # whole inner chunks, as size is
    return {"chunks": {"chunks": [chunk, chunk]},
            "shards": {"shards": [shard, shard], "chunks": (256, 256)}}


def median_seconds(ours, theirs, repeats: int) -> tuple[float, float | None]:
    """Medians of `repeats` runs of each (theirs may be None), interleaved
    run by run after one warm-up run each."""
    runs: dict[int, list[float]] = {0: [], 1: []}
    fns = [f for f in (ours, theirs) if f is not None]
    for f in fns:
        f()
    for _ in range(repeats):
        for k, f in enumerate(fns):
            start = time.perf_counter()
            f()
            runs[k].append(time.perf_counter() - start)
    return (statistics.median(runs[0]),
            statistics.median(runs[1]) if theirs is not None else None)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--dir", default="/tmp/rectilinear-grid")
    p.add_argument("--pipeline", action="store_true",
                   help="turbozarr's column: zarr-python under turbozarr's codec pipeline")
    args = p.parse_args()
    if args.pipeline and zarr is None:
        p.error("--pipeline needs zarr-python 3.2 or later")
    n = args.size
    if n % 256:
        p.error("--size must be a multiple of 256 (the inner chunks)")
    data = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    window = (slice(n // 3, n // 3 + n // 4), slice(n // 5, n // 5 + n // 4))
    print(f"float32 ({n}, {n}), {data.nbytes / 2**20:.0f} MiB; medians of {args.repeats}")
    mine_label = "zarr-python+turbozarr pipeline" if args.pipeline else "turbozarr"
    print(f"{'layout':8} {'operation':22} {mine_label:>11} {'zarr-python':>12} {'ratio':>7}")
    if zarr is not None:
        zarr.config.set({"array.rectilinear_chunks": True})
    for name, layout in layouts(n).items():
        base = os.path.join(args.dir, name)
        shutil.rmtree(base, ignore_errors=True)
        ours = tz.create(os.path.join(base, "tz"), shape=(n, n), dtype="f4",
                         compressors=CODECS, **layout)
        ours[...] = data
        theirs = None
        if zarr is not None:
            theirs = zarr.open_array(os.path.join(base, "tz"), mode="r+")
        if args.pipeline:
            import turbozarr.zarr_pipeline  # noqa: F401 (registers the pipeline)

            # The pipeline is chosen when the array is opened, and kept.
            with zarr.config.set({"codec_pipeline.path": "turbozarr.ZarrCodecPipeline",
                                  "codec_pipeline.strict": True}):
                ours = zarr.open_array(os.path.join(base, "tz"), mode="r+")
        ops = {
            "read all": (lambda: ours[...], lambda: theirs[...]),
            "read a window": (lambda: ours[window], lambda: theirs[window]),
            "write all": (lambda: ours.__setitem__(Ellipsis, data),
                          lambda: theirs.__setitem__(Ellipsis, data)),
            "write a window": (lambda: ours.__setitem__(window, data[window]),
                               lambda: theirs.__setitem__(window, data[window])),
        }
        for op, (mine, peer) in ops.items():
            a, b = median_seconds(mine, peer if theirs is not None else None, args.repeats)
            if b is None:
                print(f"{name:8} {op:22} {a * 1e3:9.1f} ms")
            else:
                print(f"{name:8} {op:22} {a * 1e3:9.1f} ms {b * 1e3:10.1f} ms {b / a:6.2f}x")
        np.testing.assert_array_equal(ours[...], data)


if __name__ == "__main__":
    main()
