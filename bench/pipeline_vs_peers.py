"""A stand-alone check of issue 13's targets on workload B: zarr-python 3.4
with turbozarr.ZarrCodecPipeline against zarr-python's FusedCodecPipeline
and the zarrs pipeline, on the same work in one process, the pipelines
alternating, every result checked against the fixture's values. Prints the
medians and the ratios (peer / turbozarr).

    PYTHONPATH=python .venv312/bin/python bench/pipeline_vs_peers.py b-gzip local 2 4

DATASET is a workload B fixture under ~/.cache/turbozarr-bench/data (made by
the harness); STORE "local" (reads of the fixture directory, writes of a
fresh array into a temporary directory) or "memory" (the fixture's keys in
zarr-python's MemoryStore; zarrs has no memory store); then THREADS and the
number of rounds.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import zarr
from zarr.core.buffer import default_buffer_prototype

import turbozarr
import turbozarr.zarr_pipeline  # noqa: F401 (registers the pipeline)


def settings(threads: int, store: str) -> dict[str, dict]:
    pipelines = {
        "fused": {"codec_pipeline.path": "zarr.core.codec_pipeline.FusedCodecPipeline",
                  "codec_pipeline.max_workers": threads},
        "zarrs": {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                  "codec_pipeline.strict": True},
        "turbozarr": {"codec_pipeline.path": "turbozarr.ZarrCodecPipeline",
                      "codec_pipeline.strict": True},
    }
    if store == "memory":
        del pipelines["zarrs"]
    for conf in pipelines.values():
        conf["threading.max_workers"] = threads
    return pipelines


def memory_copy(root: Path) -> zarr.storage.MemoryStore:
    store = zarr.storage.MemoryStore()
    prototype = default_buffer_prototype()

    async def fill() -> None:
        for path in root.rglob("*"):
            if path.is_file():
                key = path.relative_to(root).as_posix()
                await store.set(key, prototype.buffer.from_bytes(path.read_bytes()))

    zarr.core.sync.sync(fill())
    return store


def main() -> None:
    dataset, store_kind, threads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    os.environ["RAYON_NUM_THREADS"] = str(threads)  # before zarrs' first decode
    import zarrs  # noqa: F401 (registers its pipeline)

    turbozarr.config.set_threads(threads)
    root = Path.home() / ".cache" / "turbozarr-bench" / "data" / dataset / "data.zarr"
    source = memory_copy(root) if store_kind == "memory" else zarr.storage.LocalStore(root)
    expected = zarr.open_array(root, mode="r")[:]
    compressors = zarr.open_array(root, mode="r").compressors
    pipelines = settings(threads, store_kind)
    times: dict[str, dict[str, list[float]]] = {"read": {}, "write": {}}
    scratch = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        for _ in range(rounds):
            for name, conf in pipelines.items():
                with zarr.config.set(conf):
                    z = zarr.open_array(source, mode="r")
                    started = time.perf_counter()
                    got = z[:]
                    times["read"].setdefault(name, []).append(time.perf_counter() - started)
                    assert np.array_equal(got, expected), f"{name} read wrong values"

                    target = (zarr.storage.MemoryStore() if store_kind == "memory"
                              else zarr.storage.LocalStore(scratch / name))
                    shutil.rmtree(scratch / name, ignore_errors=True)
                    started = time.perf_counter()
                    w = zarr.create_array(target, shape=expected.shape, dtype=expected.dtype,
                                          chunks=(64, 64), shards=(1024, 1024),
                                          compressors=compressors, fill_value=0)
                    w[:] = expected
                    times["write"].setdefault(name, []).append(time.perf_counter() - started)
                    assert np.array_equal(zarr.open_array(target)[:], expected), \
                        f"{name} wrote wrong values"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for op, by_pipeline in times.items():
        medians = {name: statistics.median(v) for name, v in by_pipeline.items()}
        ours = medians["turbozarr"]
        cells = ", ".join(f"{name} {m * 1000:.0f} ms ({m / ours:.2f}x)"
                          for name, m in medians.items())
        print(f"{dataset} {store_kind} {op} threads={threads}: {cells} "
              f"(medians of {rounds}; ratio = time / turbozarr's)")


if __name__ == "__main__":
    main()
