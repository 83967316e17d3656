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

import csv
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
from typing import Any

from turbozarr_bench.config import DEFAULT_DATA_DIR
from turbozarr_bench.datasets import ensure
from turbozarr_bench.datasets.registry import resolve
from turbozarr_bench.vcz_tasks import (BY_NAME, TASKS, Task, central_region,
                                       first_chunks_region)

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"suite", "title", "description", "repeats", "warmup", "dataset", "task", "output",
        "data_dir", "datasets", "turbozarr_cli", "vcztools_python"}
CEILING_TASKS = {"first_variant_chunks": "variants", "first_samples_chunk": "samples"}
COLUMNS = ["run_id", "time", "dataset", "task", "impl", "runs", "seconds", "cpu",
           "peak_rss_mb", "records", "bytes", "digest", "agrees", "ratio_to_vcztools",
           "rate_mib_s", "ceiling_mib_s", "of_ceiling"]


class VczConfigError(ValueError):
    pass


def is_vcz_experiment(path: Path) -> bool:
    try:
        return tomllib.loads(Path(path).read_text()).get("suite") == "vcz"
    except (OSError, tomllib.TOMLDecodeError):
        return False


def load(path: Path) -> dict[str, Any]:
    raw = tomllib.loads(path.read_text())
    unknown = set(raw) - KEYS
    if unknown:
        raise VczConfigError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(KEYS)})")
    tasks = raw.get("task", [t.name for t in TASKS])
    bad = [t for t in tasks if t not in BY_NAME]
    if bad:
        raise VczConfigError(f"{path}: unknown tasks {bad} (known: {sorted(BY_NAME)})")
    base = path.parent
    out = raw.get("output")
    return {
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


def _child(exp: dict, impl: str, task: Task, path: Path, region: str) -> dict[str, Any]:
    python = sys.executable if impl == "turbozarr" else str(exp["vcztools_python"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT / "bench")]))
    doc = json.dumps({"impl": impl, "task": task.name, "path": str(path), "region": region})
    proc = subprocess.run([python, "-m", "turbozarr_bench.vcz_child", doc], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{impl} {task.name}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _command(exp: dict, impl: str, task: Task, path: Path, region: str, stem: Path) -> list[str]:
    if impl == "turbozarr":
        head = [str(exp["cli"]), "vcz"]
    else:
        head = [str(exp["vcztools_python"]), "-m", "vcztools"]
    common = ["-M", "2", "-r", region]
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


def _output_run(exp: dict, impl: str, task: Task, path: Path, region: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="vcz-out-") as d:
        stem = Path(d) / "out"
        cmd = _command(exp, impl, task, path, region, stem)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode() if proc.stderr else ""
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err[-2000:]}")
        size = sum(p.stat().st_size for p in Path(d).iterdir())
        return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime,
                "peak_rss_mb": usage.ru_maxrss / 1024, "records": 0, "bytes": size,
                "digest": _files_digest(stem)}


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
        for task in exp["tasks"]:
            where = region
            if task.output:
                where = first_chunks_region(contig, position_array, task.variant_chunks)
            runs: dict[str, list[dict]] = {"turbozarr": [], "vcztools": []}
            try:
                for k in range(exp["warmup"] + exp["repeats"]):
                    for impl in runs:
                        r = (_output_run(exp, impl, task, data, where) if task.output
                             else _child(exp, impl, task, data, where))
                        if k >= exp["warmup"]:
                            runs[impl].append(r)
            except RuntimeError as e:
                log(f"  {task.name}: FAILED {e}")
                failed += 1
                continue
            digests = {impl: {r["digest"] for r in rs} for impl, rs in runs.items()}
            agrees = len(digests["turbozarr"] | digests["vcztools"]) == 1
            ceiling = (_ceiling(data, task, spec.zarr_format, n_schunks, n_vchunks)
                       if task.name in CEILING_TASKS else None)
            median = {impl: statistics.median(r["seconds"] for r in rs)
                      for impl, rs in runs.items()}
            for impl, rs in runs.items():
                seconds = median[impl]
                rate = rs[0]["bytes"] / seconds / 2**20 if not task.output else None
                rows.append({
                    "run_id": run_id, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "dataset": spec.name, "task": task.name, "impl": impl, "runs": len(rs),
                    "seconds": round(seconds, 6),
                    "cpu": round(statistics.median(r["cpu"] for r in rs), 6),
                    "peak_rss_mb": round(max(r["peak_rss_mb"] for r in rs), 1),
                    "records": rs[0]["records"], "bytes": rs[0]["bytes"],
                    "digest": rs[0]["digest"], "agrees": agrees,
                    "ratio_to_vcztools": round(seconds / median["vcztools"], 4),
                    "rate_mib_s": round(rate, 1) if rate is not None else "",
                    "ceiling_mib_s": round(ceiling, 1) if ceiling else "",
                    "of_ceiling": round(rate / ceiling, 3) if ceiling and rate else "",
                })
            if not agrees:
                failed += 1
            log(_line(rows[-2], rows[-1]))
    _write_csv(exp["output"], rows)
    log(f"results: {exp['output']}")
    return 1 if failed else 0


def _line(ours: dict, theirs: dict) -> str:
    extra = f", {ours['of_ceiling']:.0%} of the decode ceiling" if ours["of_ceiling"] else ""
    same = "same output" if ours["agrees"] else "OUTPUTS DIFFER"
    return (f"  {ours['task']:<32} turbozarr {ours['seconds']:9.4f} s  vcztools "
            f"{theirs['seconds']:9.4f} s  {1 / ours['ratio_to_vcztools']:6.1f}x  "
            f"peak {ours['peak_rss_mb']:.0f}/{theirs['peak_rss_mb']:.0f} MiB  {same}{extra}")


def _write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            w.writeheader()
        w.writerows(rows)


def markdown(rows: list[dict]) -> str:
    """The rows of one run as a Markdown table, a line per task."""
    by = {(r["dataset"], r["task"], r["impl"]): r for r in rows}
    out = ["| dataset | task | turbozarr | vcztools 0.2.0 | speed-up | peak MiB (tz / vcztools) "
           "| of decode ceiling |", "|---|---|---|---|---|---|---|"]
    for (ds, task, impl), r in by.items():
        if impl != "turbozarr":
            continue
        v = by[(ds, task, "vcztools")]
        ceiling = f"{float(r['of_ceiling']):.0%}" if r["of_ceiling"] else ""
        out.append(f"| {ds} | {task} | {float(r['seconds']):.4f} s | {float(v['seconds']):.4f} s "
                   f"| {1 / float(r['ratio_to_vcztools']):.1f}x | {float(r['peak_rss_mb']):.0f} / "
                   f"{float(v['peak_rss_mb']):.0f} | {ceiling} |")
    return "\n".join(out) + "\n"
