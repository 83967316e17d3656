"""What the per-key updates cost a write, and what the version checks cost a
sharded read: the same writes and reads made by two builds of turbozarr (two
source trees, each with its extension module built), in alternating child
processes (A B A B ...), so that a machine's drift weighs on both alike.
Prints each case's median wall time per build and the ratio.

    PYTHONPATH=python .venv/bin/python bench/write_lock_cost.py ../before/python python 7 [CASE]

CASE, when given, keeps the cases whose name contains it ("read").

The cases take every chunk or shard write through an update: 20,000 chunks
of 100 bytes (uncompressed, so that the per-chunk costs are what is timed)
written whole and written by halves (each chunk read, merged and stored),
and 16 shards of 64 x 64 inner chunks (workload B's layout, 64 MiB),
written whole; then reads of the same layouts: the 20,000 chunks whole, and
a window of each of the 16 shards (its index, then its inner chunks: the
reads whose versions are compared). The local store writes to a directory
on tmpfs (/dev/shm when it exists), where no disk hides the per-chunk costs;
the memory store takes the in-process route. One engine thread per process
and then two (all cores of the machine the figures in
docs/benchmarks-history.md come from).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = [
    # (name, shape, dtype, chunks, shards, mode)
    ("20,000 chunks, whole", (2000, 1000), "u1", (10, 10), None, "write"),
    ("20,000 chunks, by halves", (2000, 1000), "u1", (10, 10), None, "halves"),
    ("16 shards (workload B), whole", (4096, 4096), "i4", (64, 64), (1024, 1024), "write"),
    ("20,000 chunks, read", (2000, 1000), "u1", (10, 10), None, "read"),
    ("16 shards, read a window of each", (4096, 4096), "i4", (64, 64), (1024, 1024),
     "read-window"),
]

CHILD = r"""
import json, os, sys, time, tempfile, shutil
import numpy as np
import turbozarr as tz
name, shape, dtype, chunks, shards, mode, store, threads, root = json.loads(sys.argv[1])
tz.config.set_threads(threads)
data = (np.arange(np.prod(shape), dtype=np.int64) % 251).astype(dtype).reshape(shape)
times = []
for _ in range(3):
    where = tempfile.mkdtemp(dir=root) if store == "local" else None
    target = where if store == "local" else "memory://"
    a = tz.create(target, shape=tuple(shape), dtype=dtype, chunks=tuple(chunks),
                  shards=tuple(shards) if shards else None, compressors=None)
    if mode.startswith("read"):
        a[...] = data
    start = time.perf_counter()
    if mode == "read":
        a[...]
    elif mode == "read-window":
        # 100 x 100 elements inside every shard: not whole, so each shard's
        # index is read, then the inner chunks the window needs.
        # Twenty rounds, so that the time is not a few milliseconds.
        unit = shards[0]
        for _ in range(20):
            for r in range(0, shape[0], unit):
                for c in range(0, shape[1], unit):
                    a[r + 10:r + 110, c + 10:c + 110]
    elif mode == "halves":
        # Left halves of every chunk, then right halves: the second pass
        # reads, merges and stores every chunk.
        step = chunks[1]
        for left in (True, False):
            cols = [slice(c, c + step // 2) if left else slice(c + step // 2, c + step)
                    for c in range(0, shape[1], step)]
            for sl in cols:
                a[:, sl] = data[:, sl]
    else:
        a[...] = data
    times.append(time.perf_counter() - start)
    if where:
        shutil.rmtree(where)
print(json.dumps(min(times)))
"""


def run(tree: str, case: tuple, store: str, threads: int, root: str) -> float:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([*case, store, threads, root])],
                         env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main(before: str, after: str, rounds: int, only: str = "") -> None:
    shm = Path("/dev/shm")
    root = tempfile.mkdtemp(dir=shm if shm.is_dir() else None)
    try:
        print(f"before: {before}\nafter:  {after}\nrounds: {rounds} (each the best of 3 writes)")
        print(f"{'case':34} {'store':6} {'threads':7} {'before':>10} {'after':>10} "
              f"{'before/after':>12}")
        for case in [c for c in CASES if only in c[0]]:
            for store in ("local", "memory"):
                for threads in (1, 2):
                    b, a = [], []
                    for _ in range(rounds):
                        b.append(run(before, case, store, threads, root))
                        a.append(run(after, case, store, threads, root))
                    mb, ma = statistics.median(b), statistics.median(a)
                    print(f"{case[0]:34} {store:6} {threads:7} {mb * 1e3:8.1f}ms "
                          f"{ma * 1e3:8.1f}ms {mb / ma:11.2f}x", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5,
         sys.argv[4] if len(sys.argv) > 4 else "")
