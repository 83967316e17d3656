"""Workload D: turbozarr beside vcztools on the vcztools benchmark suite's
tasks (vcz_tasks.py), on datasets the harness generates.

An experiment file with `suite = "vcz"` selects this runner:

    turbozarr-bench run bench/experiments/workload-d.toml

Each task runs `warmup + repeats` times per side, the sides in turn
(turbozarr, vcztools, turbozarr, ...), every run in a process of its own:
retrieval tasks in vcz_child.py (timed in-process, after one untimed pass),
output tasks as the two command lines (timed whole, start-up included). The
figures are medians; every run's digest must equal the other side's (the
values returned, or the files written: the .bgen.bgi by its rows), or the
run fails. Beside the bulk reads stands the blosc decode ceiling: the
call_genotype chunks the task reads, decoded by numcodecs in one process
per core, no framework in between.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from pathlib import Path
from typing import Any, Iterator

from turbozarr_bench.config import DEFAULT_DATA_DIR
from turbozarr_bench.results_csv import append_rows, timing_columns
from turbozarr_bench.datasets import ensure
from turbozarr_bench.datasets.registry import resolve
from turbozarr_bench.vcz_tasks import (BY_NAME, TASKS, Task, central_region,
                                       first_chunks_region)

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"suite", "title", "description", "repeats", "warmup", "dataset", "task", "output",
        "data_dir", "datasets", "turbozarr_cli", "vcztools_python", "store", "http"}
STORES = ("local", "http")
# The throttled server of the workload (50 ms per answer, 150 MB/s per
# connection), unless [http] says otherwise.
HTTP_DEFAULTS = {"latency_ms": 50.0, "megabytes_per_second": 150.0,
                 "server": "build/bench/serve/tz_http_serve"}
# vcztools reads URLs through one of two backends; over HTTP both run, and
# turbozarr is compared with the faster.
VCZTOOLS_BACKENDS = {"local": (None,), "http": ("fsspec", "obstore")}
CEILING_TASKS = {"first_variant_chunks": "variants", "first_samples_chunk": "samples"}
COLUMNS = ["run_id", "time", "dataset", "store", "task", "impl", "runs", "seconds", "cpu",
           "peak_rss_mb", "records", "bytes", "digest", "agrees", "ratio_to_vcztools",
           "rate_mib_s", "ceiling_mib_s", "of_ceiling"]


class VczConfigError(ValueError):
    pass


def load(path: Path) -> dict[str, Any]:
    raw = tomllib.loads(path.read_text())
    unknown = set(raw) - KEYS
    if unknown:
        raise VczConfigError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(KEYS)})")
    tasks = raw.get("task", [t.name for t in TASKS])
    bad = [t for t in tasks if t not in BY_NAME]
    if bad:
        raise VczConfigError(f"{path}: unknown tasks {bad} (known: {sorted(BY_NAME)})")
    stores = raw.get("store", ["local"])
    stores = [stores] if isinstance(stores, str) else stores
    if not stores or any(st not in STORES for st in stores):
        raise VczConfigError(f"{path}: store must be one or more of {list(STORES)}, got {stores}")
    http = dict(HTTP_DEFAULTS, **raw.get("http", {}))
    if set(http) - set(HTTP_DEFAULTS):
        raise VczConfigError(f"{path}: unknown [http] keys {sorted(set(http) - set(HTTP_DEFAULTS))}")
    base = path.parent
    out = raw.get("output")
    return {
        "stores": stores,
        "http": http,
        "title": raw.get("title", path.stem),
        "repeats": int(raw.get("repeats", 3)),
        "warmup": int(raw.get("warmup", 1)),
        "datasets": [resolve(n, raw.get("datasets", {}), str(path))
                     for n in raw.get("dataset", ["d-vcz-wide"])],
        "tasks": [BY_NAME[t] for t in tasks],
        "output": (base / out).resolve() if out else base / "results" / f"{path.stem}.csv",
        "data_dir": Path(raw.get("data_dir", DEFAULT_DATA_DIR)).expanduser(),
        "cli": Path(raw.get("turbozarr_cli", ROOT / "build" / "cli" / "turbozarr")),
        "vcztools_python": Path(raw.get("vcztools_python", ROOT / ".venv-vcz" / "bin" / "python")),
    }


# -- what each side runs ---------------------------------------------------------


def _side(impl: str) -> tuple[str, str | None]:
    """"vcztools-obstore" -> ("vcztools", "obstore"); "turbozarr" -> ("turbozarr", None)."""
    name, _, backend = impl.partition("-")
    return name, backend or None


def _child(exp: dict, impl: str, task: Task, path: str, region: str) -> dict[str, Any]:
    side, backend = _side(impl)
    python = sys.executable if side == "turbozarr" else str(exp["vcztools_python"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT / "bench")]))
    doc = json.dumps({"impl": side, "backend": backend, "task": task.name, "path": str(path),
                      "region": region})
    proc = subprocess.run([python, "-m", "turbozarr_bench.vcz_child", doc], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{impl} {task.name}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _command(exp: dict, impl: str, task: Task, path: str, region: str, stem: Path) -> list[str]:
    side, backend = _side(impl)
    if side == "turbozarr":
        head = [str(exp["cli"]), "vcz"]
    else:
        head = [str(exp["vcztools_python"]), "-m", "vcztools"]
    common = ["-M", "2", "-r", region]
    if backend:
        common += ["--backend-storage", backend]
        if backend == "obstore":
            common += ["--storage-option", 'client_options={"allow_http": true}']
    if task.output == "vcf":
        return head + ["view", "--no-version", *common, "-o", f"{stem}.vcf", str(path)]
    if task.output == "plink":
        return head + ["view-plink", *common, "-o", str(stem), str(path)]
    return head + ["view-bgen", *common, "--compression-level", str(task.level), "-o", str(stem),
                   str(path)]


def _files_digest(stem: Path) -> str:
    """The output files' bytes, but the .bgen.bgi's rows (an SQLite file's
    bytes depend on the library that wrote it)."""
    h = hashlib.sha256()
    for p in sorted(stem.parent.glob(stem.name + ".*")):
        if p.name.endswith(".bgi"):
            with sqlite3.connect(p) as db:
                rows = db.execute("SELECT * FROM Variant ORDER BY file_start_position").fetchall()
            h.update(f"{p.suffix}:{rows!r}".encode())
        else:
            h.update(f"{p.suffix}:".encode() + p.read_bytes())
    return h.hexdigest()[:16]


def _output_run(exp: dict, impl: str, task: Task, path: str, region: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="vcz-out-") as d:
        stem = Path(d) / "out"
        cmd = _command(exp, impl, task, path, region, stem)
        # The command is started by a small launcher process: a child keeps
        # the high-water mark of the process it was forked from, so one
        # forked from the harness would report the harness's memory.
        proc = subprocess.run([sys.executable, "-c", _LAUNCHER, *cmd], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: "
                               f"{proc.stderr[-2000:]}")
        seconds, cpu, peak_kib = (float(x) for x in proc.stdout.split())
        size = sum(p.stat().st_size for p in Path(d).iterdir())
        return {"seconds": seconds, "cpu": cpu, "peak_rss_mb": peak_kib / 1024, "records": 0,
                "bytes": size, "digest": _files_digest(stem)}


# Runs argv[1:] with its output discarded; prints wall seconds, CPU seconds
# and peak RSS in KiB; exits with the command's status.
_LAUNCHER = """
import os, subprocess, sys, time
t0 = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
seconds = time.perf_counter() - t0
code = os.waitstatus_to_exitcode(status)
if code == 0:
    print(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
sys.exit(code)
"""


# -- the decode ceiling ----------------------------------------------------------


def _ceiling(path: Path, task: Task, fmt: int, samples_chunks: int, variant_chunks: int) -> float:
    """MiB/s at which numcodecs decodes the call_genotype chunks `task`
    reads, one process per core."""
    import numcodecs

    from turbozarr_bench.ceilings import _decode_parallel

    gt = path / "call_genotype"
    meta = json.loads((gt / (".zarray" if fmt == 2 else "zarr.json")).read_text())
    if fmt == 2:
        chunks, codec = meta["chunks"], numcodecs.get_codec(meta["compressor"])
        key = lambda i, j: gt / f"{i}.{j}.0"  # noqa: E731
    else:
        chunks = meta["chunk_grid"]["configuration"]["chunk_shape"]
        cfg = meta["codecs"][-1]["configuration"]
        shuffle = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[cfg["shuffle"]]
        codec = numcodecs.Blosc(cname=cfg["cname"], clevel=cfg["clevel"], shuffle=shuffle)
        key = lambda i, j: gt / "c" / str(i) / str(j) / "0"  # noqa: E731
    if CEILING_TASKS[task.name] == "variants":
        keys = [key(i, j) for i in range(min(5, variant_chunks)) for j in range(samples_chunks)]
    else:
        keys = [key(i, 0) for i in range(variant_chunks)]
    payloads = [k.read_bytes() for k in keys if k.exists()]
    chunk_bytes = chunks[0] * chunks[1] * chunks[2]
    seconds = min(_decode_parallel(payloads, [codec], False, chunk_bytes, os.cpu_count() or 1)
                  for _ in range(3))
    return len(payloads) * chunk_bytes / seconds / 2**20


# -- the run ---------------------------------------------------------------------


def _consolidated(data: Path) -> bool:
    if (data / ".zgroup").exists():
        return (data / ".zmetadata").exists()
    return json.loads((data / "zarr.json").read_text()).get("consolidated_metadata") is not None


@contextlib.contextmanager
def _served(exp: dict, store: str, data: Path) -> Iterator[str | None]:
    """For store "http": the dataset directory served by the throttled
    server, as its base URL; else None. A server cannot list keys, so both
    sides find the dataset's arrays through consolidated metadata, written
    beside the dataset's own metadata first if it has none (bio2zarr does
    not consolidate)."""
    if store != "http":
        yield None
        return
    if not _consolidated(data):
        import zarr

        zarr.consolidate_metadata(str(data))
    from turbozarr_bench.http_server import HttpServer, command, resolve_binary, usable

    http = exp["http"]
    binary = resolve_binary(http["server"])
    if not usable(binary):
        raise VczConfigError(f"no HTTP server at {binary}: build the benchmarks first")
    with tempfile.TemporaryDirectory(prefix="vcz-http-") as logdir:
        server = HttpServer(command(binary, data.parent, http["latency_ms"],
                                    http["megabytes_per_second"]), Path(logdir))
        url = server.start()
        try:
            yield url.rstrip("/")
        finally:
            server.stop()


def _task_rows(exp: dict, dataset: str, store: str, task: Task, path: str, region: str,
               ceiling: float | None, run_id: str, log) -> list[dict] | None:
    """One task on every side (A B A B ...), as CSV rows, turbozarr's first;
    None when a side failed."""
    impls = ["turbozarr"] + [f"vcztools-{b}" if b else "vcztools"
                             for b in VCZTOOLS_BACKENDS[store]]
    runs: dict[str, list[dict]] = {impl: [] for impl in impls}
    try:
        for k in range(exp["warmup"] + exp["repeats"]):
            for impl in impls:
                r = (_output_run(exp, impl, task, path, region) if task.output
                     else _child(exp, impl, task, path, region))
                if k >= exp["warmup"]:
                    runs[impl].append(r)
    except RuntimeError as e:
        log(f"  {task.name}: FAILED {e}")
        return None
    digests = set().union(*({r["digest"] for r in rs} for rs in runs.values()))
    agrees = len(digests) == 1
    median = {impl: statistics.median(r["seconds"] for r in rs) for impl, rs in runs.items()}
    best_peer = min(median[i] for i in impls[1:])
    rows = []
    for impl, rs in runs.items():
        seconds = median[impl]
        rate = rs[0]["bytes"] / seconds / 2**20 if not task.output else None
        rows.append({
            "run_id": run_id, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
            "dataset": dataset, "store": store, "task": task.name, "impl": impl,
            **timing_columns(rs, seconds),
            "records": rs[0]["records"], "bytes": rs[0]["bytes"],
            "digest": rs[0]["digest"], "agrees": agrees,
            # Four significant figures: a ratio of 0.0364 (27x) keeps its precision.
            "ratio_to_vcztools": float(f"{seconds / best_peer:.4g}"),
            "rate_mib_s": round(rate, 1) if rate is not None else "",
            "ceiling_mib_s": round(ceiling, 1) if ceiling else "",
            "of_ceiling": round(rate / ceiling, 3) if ceiling and rate else "",
        })
    log(_line(rows))
    return rows


def run(path: Path, list_only: bool = False, log=print) -> int:
    try:
        exp = load(Path(path))
    except VczConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if list_only:
        for ds in exp["datasets"]:
            log(f"{ds.name}: {ds.describe()}")
        log("tasks: " + ", ".join(t.name for t in exp["tasks"]))
        log(f"{exp['warmup']} warm-up + {exp['repeats']} runs per side; turbozarr "
            f"{exp['cli']}, vcztools {exp['vcztools_python']}")
        return 0
    import numpy as np
    import zarr

    run_id, rows, failed = uuid.uuid4().hex[:8], [], 0
    for spec in exp["datasets"]:
        fx = ensure(spec, exp["data_dir"], log=log)
        data = fx.directory / fx.stamp["target"]
        root = zarr.open_group(str(data), mode="r")
        position_array = root["variant_position"]
        positions = position_array[:]
        contig = str(root["contig_id"][0])
        region = central_region(contig, positions)
        vc, sc = root["call_genotype"].chunks[:2]
        n_vchunks = -(-positions.size // vc)
        n_schunks = -(-root["sample_id"].shape[0] // sc)
        log(f"{spec.name}: {spec.describe()}; region {region}")
        for store in exp["stores"]:
            with _served(exp, store, data) as base:
                where_data = f"{base}/{data.name}" if base else str(data)
                if base:
                    http = exp["http"]
                    log(f"  over HTTP ({http['latency_ms']:g} ms per answer, "
                        f"{http['megabytes_per_second']:g} MB/s per connection)")
                for task in exp["tasks"]:
                    ceiling = None
                    if store == "local" and task.name in CEILING_TASKS:
                        ceiling = _ceiling(data, task, spec.zarr_format, n_schunks, n_vchunks)
                    where = region
                    if task.output:
                        where = first_chunks_region(contig, position_array, task.variant_chunks,
                                                    vc)
                    got = _task_rows(exp, spec.name, store, task, where_data, where, ceiling,
                                     run_id, log)
                    if got is None or not got[0]["agrees"]:
                        failed += 1
                    rows.extend(got or [])
    append_rows(exp["output"], rows, COLUMNS)
    log(f"results: {exp['output']}")
    return 1 if failed else 0


def _line(rows: list[dict]) -> str:
    """turbozarr beside the fastest vcztools backend."""
    ours, peers = rows[0], rows[1:]
    theirs = min(peers, key=lambda r: r["seconds"])
    extra = f", {ours['of_ceiling']:.0%} of the decode ceiling" if ours["of_ceiling"] else ""
    if len(peers) > 1:
        extra += f", vcztools via {theirs['impl'].partition('-')[2]}"
    same = "same output" if ours["agrees"] else "OUTPUTS DIFFER"
    return (f"  {ours['task']:<32} turbozarr {ours['seconds']:9.4f} s  vcztools "
            f"{theirs['seconds']:9.4f} s  {1 / ours['ratio_to_vcztools']:6.1f}x  "
            f"peak {ours['peak_rss_mb']:.0f}/{theirs['peak_rss_mb']:.0f} MiB  {same}{extra}")


def markdown(rows: list[dict]) -> str:
    """The rows of one run as a Markdown table, a line per task and store,
    turbozarr beside the fastest vcztools backend."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["dataset"], r.get("store") or "local", r["task"]), []).append(r)
    out = ["| dataset | store | task | turbozarr | vcztools 0.2.0 | speed-up "
           "| peak MiB (tz / vcztools) | of decode ceiling |",
           "|---|---|---|---|---|---|---|---|"]
    for (ds, store, task), rs in groups.items():
        ours = next(r for r in rs if r["impl"] == "turbozarr")
        theirs = min((r for r in rs if r["impl"] != "turbozarr"), key=lambda r: float(r["seconds"]))
        backend = theirs["impl"].partition("-")[2]
        ceiling = f"{float(ours['of_ceiling']):.0%}" if ours["of_ceiling"] else ""
        out.append(f"| {ds} | {store} | {task} | {float(ours['seconds']):.4f} s "
                   f"| {float(theirs['seconds']):.4f} s{f' ({backend})' if backend else ''} "
                   f"| {1 / float(ours['ratio_to_vcztools']):.1f}x "
                   f"| {float(ours['peak_rss_mb']):.0f} / {float(theirs['peak_rss_mb']):.0f} "
                   f"| {ceiling} |")
    return "\n".join(out) + "\n"
