"""The operations, composed from a Driver's primitives (runs in the child).

Each operation becomes a Measured: `run` is the timed call, `setup` runs
before every call outside the timing (it empties a write target, drops the
page cache for a cold read), and `checksum` is one extra untimed call that
digests what was read. Opening the array is inside the timing: it is part of
what a caller waits for, and it costs every library a metadata read.

| op                | timed call                                           |
|-------------------|------------------------------------------------------|
| read_full         | open, read the whole array into one numpy array      |
| read_chunks       | open, read each chunk (each shard when sharded)      |
| read_inner_chunks | open, read each inner chunk of a sharded array       |
| write_full        | create a fresh array, write the whole array          |
| round_trip        | open the fixture, read, re-encode, write a copy      |

Chunk-by-chunk reads keep `threads` reads in flight, and each result is
handed to a sink that drops it (timed runs) or digests it (checksum run).

Stores: "local" reads the fixture directory, "memory" a copy of its keys in
memory, "zip" the fixture packed into `data.zip` beside it (built once, keys
at the archive's root, entries stored uncompressed: the layout zarr-python's
ZipStore writes), "http" the fixture directory served by the parent's
tz_http_serve at the case's `http.url` (reads only; the fixture files are
still the case's `files`, so a warm case warms the server's page cache);
writes go to `output.zarr` or `output.zip` in the case's work directory.
"""

from __future__ import annotations

import math
import os
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from turbozarr_bench import measure
from turbozarr_bench.adapters.base import Driver, Unsupported
from turbozarr_bench.checksum import RegionDigests, array_digest


@dataclass
class Measured:
    run: Callable[[], Any]
    setup: Callable[[], None]
    nbytes: int
    checksum: Callable[[], str] | None = None
    files: list[Path] = field(default_factory=list)  # fixture files, for cache state
    output: Path | None = None  # where a written array is left for the audit
    finish: Callable[[], None] | None = None  # after the last run (dump memory targets)


def grid_regions(shape, unit) -> list[tuple[slice, ...]]:
    counts = [math.ceil(s / u) for s, u in zip(shape, unit)]
    return [tuple(slice(i * u, min((i + 1) * u, s)) for i, u, s in zip(idx, unit, shape))
            for idx in np.ndindex(*counts)]


def _drop(_i: int, _a: np.ndarray) -> None:
    pass


def packed_zip(fixture: Path) -> Path:
    """The fixture directory packed into a zip archive beside it, made on first
    use (a regenerated fixture removes its directory, and the archive with it)."""
    fixture = Path(fixture)
    out = fixture.with_suffix(".zip")
    if out.exists():
        return out
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    files = sorted(p for p in fixture.rglob("*") if p.is_file())
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as zf:
        for p in files:
            zf.write(p, p.relative_to(fixture).as_posix())
    os.replace(tmp, out)
    return out


def build(case: dict[str, Any], driver: Driver) -> Measured:
    op = case["op"]
    fixture = case["fixture"]
    spec = fixture["spec"]
    path = fixture["path"]
    nbytes = int(fixture["stamp"]["nbytes"])
    store = case["store"]
    cold = case["cache"] == "cold"

    if store == "memory":
        source = driver.memory_source(path)
    elif store == "zip":
        path = str(packed_zip(Path(path)))
        source = driver.zip_source(path)
    elif store == "http":
        if op not in ("read_full", "read_chunks", "read_inner_chunks"):
            raise Unsupported("the HTTP store is read-only")
        source = driver.http_source(case["http"]["url"])
    elif store == "s3":
        if op not in ("read_full", "read_chunks", "read_inner_chunks"):
            raise Unsupported("the S3 rows are reads of the uploaded fixture")
        source = driver.s3_source(case["s3"])
    else:
        source = driver.local_source(path)
    files = measure.files_under(Path(path))

    def prepare_cache() -> None:
        if store == "memory":
            return
        if cold:
            measure.evict(files)

    if op in ("read_full", "read_chunks", "read_inner_chunks"):
        if op == "read_full":
            def run():
                return driver.read_all(driver.open(source))

            def checksum() -> str:
                return array_digest(driver.read_all(driver.open(source)))
        else:
            if op == "read_inner_chunks":
                if not spec.get("shards"):
                    raise Unsupported("the dataset is not sharded")
                unit = spec["chunks"]
            else:
                unit = spec.get("shards") or spec["chunks"]
            regions = grid_regions(spec["shape"], unit)
            concurrency = case["nthreads"]

            def run():
                driver.read_regions(source, regions, concurrency, _drop)

            def checksum() -> str:
                digests = RegionDigests()
                driver.read_regions(source, regions, concurrency, digests.add)
                return digests.hexdigest()

        return Measured(run=run, setup=prepare_cache, nbytes=nbytes, checksum=checksum,
                        files=files if store != "memory" else [])

    out_dir = Path(case["workdir"]) / ("output.zip" if store == "zip" else "output.zarr")
    state: dict[str, Any] = {}

    def new_target() -> None:
        if store == "memory":
            state["target"] = driver.memory_target()
        elif store == "zip":
            out_dir.unlink(missing_ok=True)
            state["target"] = driver.zip_target(str(out_dir))
        else:
            shutil.rmtree(out_dir, ignore_errors=True)
            state["target"] = driver.local_target(str(out_dir))

    def finish() -> None:
        if store == "memory":
            shutil.rmtree(out_dir, ignore_errors=True)
            out_dir.mkdir(parents=True)
            driver.dump_target(state["target"], str(out_dir))

    if op == "write_full":
        from turbozarr_bench.datasets.pixels import make_generator

        gen = make_generator(spec["pixels"], spec["shape"], spec["dtype"], spec["seed"])
        data = gen(tuple(slice(0, s) for s in spec["shape"]))

        def run_write():
            driver.write_all(driver.create(state["target"]), data)

        return Measured(run=run_write, setup=new_target, nbytes=nbytes, output=out_dir,
                        finish=finish)

    if op == "round_trip":
        def setup_round_trip() -> None:
            new_target()
            prepare_cache()

        def run_copy():
            driver.copy(source, state["target"])

        return Measured(run=run_copy, setup=setup_round_trip, nbytes=nbytes, output=out_dir,
                        finish=finish, files=files if store != "memory" else [])

    raise ValueError(f"unknown operation {op!r}")
