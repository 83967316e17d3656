"""What the per-key updates cost a write: the same writes made by two builds
of turbozarr (two source trees, each with its extension module built), in
alternating child processes (A B A B ...), so that a machine's drift weighs
on both alike. Prints each case's median wall time per build and the ratio.

    PYTHONPATH=python .venv/bin/python bench/write_lock_cost.py ../before/python python 7

The cases take every chunk or shard write through an update: 20,000 chunks
of 100 bytes (uncompressed, so that the per-chunk costs are what is timed)
written whole and written by halves (each chunk read, merged and stored),
and 16 shards of 64 x 64 inner chunks (workload B's layout, 64 MiB),
written whole. The local store writes to a directory on tmpfs (/dev/shm when
it exists), where no disk hides the per-chunk costs; the memory store takes
the in-process route. One engine thread per process and then two (all cores
of the machine the figures in docs/benchmarks.md come from).
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
    # (name, shape, dtype, chunks, shards, halves)
    ("20,000 chunks, whole", (2000, 1000), "u1", (10, 10), None, False),
    ("20,000 chunks, by halves", (2000, 1000), "u1", (10, 10), None, True),
    ("16 shards (workload B), whole", (4096, 4096), "i4", (64, 64), (1024, 1024), False),
]

CHILD = r"""
import json, os, sys, time, tempfile, shutil
import numpy as np
import turbozarr as tz
name, shape, dtype, chunks, shards, halves, store, threads, root = json.loads(sys.argv[1])
tz.config.set_threads(threads)
data = (np.arange(np.prod(shape), dtype=np.int64) % 251).astype(dtype).reshape(shape)
times = []
for _ in range(3):
    where = tempfile.mkdtemp(dir=root) if store == "local" else None
    target = where if store == "local" else "memory://"
    a = tz.create(target, shape=tuple(shape), dtype=dtype, chunks=tuple(chunks),
                  shards=tuple(shards) if shards else None, compressors=None)
    start = time.perf_counter()
    if halves:
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


def main(before: str, after: str, rounds: int) -> None:
    shm = Path("/dev/shm")
    root = tempfile.mkdtemp(dir=shm if shm.is_dir() else None)
    try:
        print(f"before: {before}\nafter:  {after}\nrounds: {rounds} (each the best of 3 writes)")
        print(f"{'case':34} {'store':6} {'threads':7} {'before':>10} {'after':>10} "
              f"{'before/after':>12}")
        for case in CASES:
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
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
