"""A stand-alone check: zarr-python 3.4 with turbozarr.ZarrCodecPipeline versus
turbozarr's native Array API on the same work, in one process, the two
alternating (A B, then B A) so that a loaded machine weighs on both alike.
Prints the medians of wall time and of process CPU time (all threads) and
their ratios. Uses the harness's cached fixtures (workloads A and B).

    PYTHONPATH=python .venv312/bin/python bench/pipeline_vs_native.py b-raw memory write 1 8
    PYTHONPATH=python .venv312/bin/python bench/pipeline_vs_native.py a-lz4-20000 local read 2 4

DATASET is a fixture under ~/.cache/turbozarr-bench/data; STORE "local" (the
fixture directory; writes go to a temporary directory) or "memory" (the
fixture's keys in zarr-python's MemoryStore / turbozarr's MemoryStore); OP
"read" (the whole array) or "write" (a fresh array, created inside the
timing as the harness does, from the fixture's own values; workload B only).
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import zarr
from zarr.core.buffer import default_buffer_prototype

import turbozarr as tz

PIPELINE = "turbozarr.ZarrCodecPipeline"


def main(dataset: str, store: str, op: str, threads: int, repeats: int) -> None:
    fixture = Path.home() / ".cache/turbozarr-bench/data" / dataset / "data.zarr"
    items = {p.relative_to(fixture).as_posix(): p.read_bytes()
             for p in fixture.rglob("*") if p.is_file()} if store == "memory" else {}
    tz.ZarrCodecPipeline  # noqa: B018 (joins zarr-python's registry)
    tz.config.set_threads(threads)
    zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.strict": True,
                     "threading.max_workers": threads})
    prototype = default_buffer_prototype()

    def zarr_source():
        if store == "local":
            return zarr.storage.LocalStore(str(fixture), read_only=True)
        return zarr.storage.MemoryStore(
            store_dict={k: prototype.buffer.from_bytes(v) for k, v in items.items()})

    def native_source():
        if store == "local":
            return str(fixture)
        s = tz.MemoryStore()
        for k, v in items.items():
            s.set(k, v)
        return s

    def checked(a):
        if type(a._async_array.codec_pipeline).__name__ != "ZarrCodecPipeline":
            raise SystemExit("zarr-python did not use turbozarr.ZarrCodecPipeline")
        return a

    scratch = Path(tempfile.mkdtemp())
    if op == "read":
        za = checked(zarr.open_array(zarr_source(), mode="r"))
        na = tz.open_array(native_source(), mode="r")
        runs = {"pipeline": lambda: za[...], "native": lambda: na[...]}
    else:
        meta = json.loads((fixture / "zarr.json").read_text())
        data = tz.open_array(str(fixture), mode="r")[...]
        count = iter(range(1 << 30))

        def target(kind):
            if store == "local":
                return scratch / f"{kind}{next(count)}"
            return zarr.storage.MemoryStore() if kind == "z" else tz.MemoryStore()

        def zarr_write():
            t = target("z")
            if store == "local":
                t = zarr.storage.LocalStore(t)
            a = checked(zarr.create_array(store=t, **_create_args(meta)))
            a[...] = data

        def native_write():
            t = target("n")
            a = tz.create(str(t) if store == "local" else t, shape=meta["shape"],
                          dtype=meta["data_type"],
                          chunks=meta["chunk_grid"]["configuration"]["chunk_shape"],
                          codecs=meta["codecs"], fill_value=meta["fill_value"], zarr_format=3,
                          chunk_key_encoding=meta.get("chunk_key_encoding"))
            a[...] = data

        runs = {"pipeline": zarr_write, "native": native_write}
    for run in runs.values():
        run()
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    for i in range(repeats):
        for name in (("pipeline", "native") if i % 2 == 0 else ("native", "pipeline")):
            cpu, wall = time.process_time(), time.perf_counter()
            runs[name]()
            samples[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    shutil.rmtree(scratch, ignore_errors=True)

    def med(name, j):
        return statistics.median(s[j] for s in samples[name]) * 1e3

    p, n = (med("pipeline", 0), med("pipeline", 1)), (med("native", 0), med("native", 1))
    print(f"{op} {dataset} {store} threads={threads}: wall {p[0]:.1f} / {n[0]:.1f} ms "
          f"= {p[0] / n[0]:.2f}x; CPU {p[1]:.1f} / {n[1]:.1f} ms = {p[1] / n[1]:.2f}x "
          f"(pipeline / native, medians of {repeats})")


def _create_args(meta):
    """zarr.create_array arguments reproducing a v3 fixture's zarr.json: the
    regular grid, the sharding codec's inner chunks and codecs."""
    codecs = meta["codecs"]
    args = dict(shape=tuple(meta["shape"]), dtype=meta["data_type"],
                fill_value=meta["fill_value"], zarr_format=3)
    if codecs[0]["name"] == "sharding_indexed":
        config = codecs[0]["configuration"]
        args["shards"] = tuple(meta["chunk_grid"]["configuration"]["chunk_shape"])
        args["chunks"] = tuple(config["chunk_shape"])
        inner = config["codecs"]
    else:
        args["chunks"] = tuple(meta["chunk_grid"]["configuration"]["chunk_shape"])
        inner = codecs
    args["serializer"] = inner[0]
    args["compressors"] = inner[1:]
    args["filters"] = []
    return args


if __name__ == "__main__":
    d, s, o, t, r = sys.argv[1:6]
    main(d, s, o, int(t), int(r))
