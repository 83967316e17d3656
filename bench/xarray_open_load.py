"""xr.open_dataset(...).load() of about 1 GB through three engines.

    PYTHONPATH=python .venv312/bin/python bench/xarray_open_load.py [--runs 3]

Engines: engine="turbozarr" (this package's backend), engine="zarr" with
zarr-python's default codec pipeline, and engine="zarr" with the zarrs
pipeline (zarr.config codec_pipeline.path = zarrs.ZarrsCodecPipeline).
Datasets, written once by Dataset.to_zarr into --data (default
~/.cache/turbozarr-bench/xarray): four float32 variables of (256, 512, 512),
1 GiB in memory, zarr_format 3, as
  sharded-zstd:  chunks (16, 128, 128) in shards (64, 512, 512), zstd level 3
  chunked-blosc: chunks (32, 128, 128), blosc lz4 with byte shuffle.
Each run is a fresh process timing open + load (imports excluded) with the
files in the page cache, as wall time and as CPU time (user + system, all
threads; the steadier figure on a shared machine); the engines alternate (A B C A B C ...), and every
engine's sums of the loaded variables must agree. Prints the median of the
runs per engine and its ratio to turbozarr's, and the load average. Not part of make test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ENGINES = ("turbozarr", "zarr", "zarr+zarrs")
SHAPE = (256, 512, 512)
NVARS = 4


def _layouts():
    import zarr

    return {
        "sharded-zstd": {"chunks": (16, 128, 128), "shards": (64, 512, 512),
                         "compressors": [zarr.codecs.ZstdCodec(level=3)]},
        "chunked-blosc": {"chunks": (32, 128, 128),
                          "compressors": [zarr.codecs.BloscCodec(
                              cname="lz4", clevel=5, shuffle="shuffle")]},
    }


def make_dataset():
    """Smooth fields plus noise rounded to 1/64: compresses about 2:1, as
    measured fields often do."""
    import numpy as np
    import xarray as xr

    rng = np.random.default_rng(0)
    t, y, x = (np.arange(n, dtype="f4") for n in SHAPE)
    base = (np.sin(t[:, None, None] / 20) + np.cos(y[None, :, None] / 30)
            + np.sin(x[None, None, :] / 40)).astype("f4")
    data = {}
    for i in range(NVARS):
        noise = rng.standard_normal(SHAPE, dtype="f4") * 0.5
        data[f"v{i}"] = (("time", "y", "x"), np.round((base * (i + 1) + noise) * 64) / 64,
                         {"units": "1", "index": i})
    coords = {"time": np.arange(SHAPE[0], dtype="i8"), "y": y * 0.1, "x": x * 0.1}
    return xr.Dataset(data, coords=coords)


def prepare(root: Path) -> dict[str, Path]:
    paths = {}
    ds = None
    for name, layout in _layouts().items():
        path = root / f"{name}.zarr"
        paths[name] = path
        if (path / "zarr.json").exists():
            continue
        if ds is None:
            ds = make_dataset()
        print(f"writing {path} ...", flush=True)
        ds.to_zarr(path, mode="w", zarr_format=3, consolidated=True,
                   encoding={v: dict(layout) for v in ds.data_vars})
    return paths


def child(engine: str, path: str) -> None:
    """One timed open + load; prints JSON {seconds, sums}."""
    import xarray as xr

    if engine == "turbozarr":
        from turbozarr.xarray_backend import TurbozarrBackendEntrypoint
        engine_arg = TurbozarrBackendEntrypoint
    else:
        import zarr
        engine_arg = "zarr"
        if engine == "zarr+zarrs":
            import zarrs  # noqa: F401
            zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    cpu0, start = _cpu_seconds(), time.perf_counter()
    ds = xr.open_dataset(path, engine=engine_arg).load()
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu0
    sums = {name: float(var.values.sum(dtype="f8")) for name, var in ds.data_vars.items()}
    print(json.dumps({"seconds": seconds, "cpu": cpu, "sums": sums}))


def _cpu_seconds() -> float:
    """User + system time of this process, all its threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def warm(path: Path) -> int:
    """Reads every file once, so the runs find them in the page cache."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            with open(os.path.join(dirpath, f), "rb") as fh:
                total += len(fh.read())
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path,
                        default=Path.home() / ".cache" / "turbozarr-bench" / "xarray")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    args.data.mkdir(parents=True, exist_ok=True)
    paths = prepare(args.data)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; "
          f"{NVARS} x float32 {SHAPE} = {NVARS * 4 * math.prod(SHAPE) / 2**30:.2f} "
          f"GiB in memory; median of {args.runs} runs, each in a new process")
    for name, path in paths.items():
        on_disk = warm(path)
        times: dict[str, list[float]] = {e: [] for e in ENGINES}
        cpus: dict[str, list[float]] = {e: [] for e in ENGINES}
        sums: dict[str, dict] = {}
        for _ in range(args.runs):
            for engine in ENGINES:
                out = subprocess.run([sys.executable, __file__, "--child", engine, str(path)],
                                     check=True, capture_output=True, text=True).stdout
                result = json.loads(out.strip().splitlines()[-1])
                times[engine].append(result["seconds"])
                cpus[engine].append(result["cpu"])
                sums.setdefault(engine, result["sums"])
                if result["sums"] != sums[ENGINES[0]]:
                    sys.exit(f"{engine} loaded other values from {path}: {result['sums']} "
                             f"!= {sums[ENGINES[0]]}")
        print(f"\n{name} ({on_disk / 2**20:.0f} MiB on disk), load average "
              f"{os.getloadavg()[0]:.1f} after the runs")
        for label, values in (("wall", times), ("cpu", cpus)):
            base = statistics.median(values[ENGINES[0]])
            for engine in ENGINES:
                med = statistics.median(values[engine])
                runs = " ".join(f"{t:.2f}" for t in values[engine])
                print(f"  {label:<4} {engine:<11} median {med:6.2f} s  ({runs})  "
                      f"{med / base:5.2f}x {ENGINES[0]}'s")


if __name__ == "__main__":
    main()
