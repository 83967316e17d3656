"""Writing a dask array whose blocks cut across shards into a sharded array
on a LocalCluster of worker processes: turbozarr.store (rechunks to the
target's shards, then one task per shard) against dask.array.store into a
zarr-python array with its default pipeline (no lock: dask's default lock is
per process, and a cluster has several). Each run writes a new array, and
each result is then checked element by element; a write that lost updates
is marked WRONG. Prints the median wall time of each over the runs, and the
ratio. Runs are interleaved, so that load on a shared machine hits both
alike.

    PYTHONPATH=python .venv312/bin/python bench/dask_store.py [--shape 16384 16384]
        [--shards 2048 2048] [--inner 256 256] [--dask-chunks 3000 3100]
        [--workers 2] [--repeats 3] [--dir ~/.cache/turbozarr-dask-store]

The source is computed in the workers (no data in the graph): element
(i, j) is 1 + (i * columns + j) mod (2**24 - 1), exact in float32 and never
the fill value 0.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time

import numpy as np

_PERIOD = (1 << 24) - 1


def expected(rows: slice, cols: slice, columns: int) -> np.ndarray:
    i = np.arange(rows.start, rows.stop, dtype=np.int64)[:, None]
    j = np.arange(cols.start, cols.stop, dtype=np.int64)[None, :]
    return (1 + (i * columns + j) % _PERIOD).astype(np.float32)


def _fill(block_info=None, columns: int = 0) -> np.ndarray:
    (r0, r1), (c0, c1) = block_info[None]["array-location"]
    return expected(slice(r0, r1), slice(c0, c1), columns)


def source(shape: tuple[int, int], chunks: tuple[int, int]):
    import dask.array as da

    return da.map_blocks(_fill, dtype=np.float32, chunks=da.core.normalize_chunks(
        chunks, shape), columns=shape[1], meta=np.empty((0, 0), np.float32))


def wrong_elements(path: str, shape: tuple[int, int], rows_per_step: int) -> int:
    """Elements of the array at `path` (read with turbozarr: the format is
    the same) that differ from the source."""
    import turbozarr as tz

    a = tz.open_array(path)
    wrong = 0
    for r in range(0, shape[0], rows_per_step):
        rows = slice(r, min(r + rows_per_step, shape[0]))
        got = a[rows, :]
        wrong += int(np.count_nonzero(got != expected(rows, slice(0, shape[1]), shape[1])))
    return wrong


def _warm() -> None:
    """Imports on a worker what the writes use, before any is timed."""
    import turbozarr  # noqa: F401
    import zarr  # noqa: F401


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", type=int, nargs=2, default=[16384, 16384])
    p.add_argument("--shards", type=int, nargs=2, default=[2048, 2048])
    p.add_argument("--inner", type=int, nargs=2, default=[256, 256])
    p.add_argument("--dask-chunks", type=int, nargs=2, default=[3000, 3100])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--dir", default=os.path.expanduser("~/.cache/turbozarr-dask-store"))
    args = p.parse_args()

    import dask
    import dask.array as da
    import zarr
    from dask.distributed import Client, LocalCluster

    import turbozarr as tz

    shape, shards, inner = tuple(args.shape), tuple(args.shards), tuple(args.inner)
    x = source(shape, tuple(args.dask_chunks))
    os.makedirs(args.dir, exist_ok=True)
    print(f"float32 {shape} ({np.prod(shape) * 4 / 2**30:.2f} GiB), shards {shards}, "
          f"inner chunks {inner}, dask chunks {tuple(args.dask_chunks)} "
          f"({x.npartitions} blocks); LocalCluster of {args.workers} processes x 1 thread; "
          f"zarr {zarr.__version__}, dask {dask.__version__}")

    def write_turbozarr(path: str) -> None:
        target = tz.create(path, shape=shape, dtype="f4", chunks=inner, shards=shards,
                           fill_value=0, overwrite=True)
        tz.store(x, target)

    def write_zarr_python(path: str) -> None:
        target = zarr.create_array(path, shape=shape, dtype="f4", chunks=inner,
                                   shards=shards, fill_value=0, overwrite=True)
        da.store(x, target, lock=False)

    writers = {"turbozarr.store": write_turbozarr,
               f"zarr-python {zarr.__version__} da.store": write_zarr_python}
    times: dict[str, list[float]] = {k: [] for k in writers}
    wrong: dict[str, list[int]] = {k: [] for k in writers}
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(_warm)
        for run in range(args.repeats):
            for name, write in writers.items():
                path = os.path.join(args.dir, "zarr_python.zarr" if "zarr-python" in name
                                    else "turbozarr.zarr")
                shutil.rmtree(path, ignore_errors=True)
                t0 = time.perf_counter()
                write(path)
                times[name].append(time.perf_counter() - t0)
                wrong[name].append(wrong_elements(path, shape, shards[0]))
                mark = "" if wrong[name][-1] == 0 else "  WRONG"
                print(f"run {run + 1} {name}: {times[name][-1]:.2f} s, "
                      f"{wrong[name][-1]} wrong elements{mark}", flush=True)
    medians = {k: statistics.median(v) for k, v in times.items()}
    for name in writers:
        mark = "" if not any(wrong[name]) else "  WRONG (lost updates)"
        print(f"{name}: median {medians[name]:.2f} s over {args.repeats}; wrong elements "
              f"per run {wrong[name]}{mark}")
    tz_name, zp_name = writers
    print(f"ratio zarr-python / turbozarr.store: {medians[zp_name] / medians[tz_name]:.2f}")


if __name__ == "__main__":
    main()
