"""Workload F: sparse single-cell counts, turbozarr.sparse beside anndata's
h5ad, zarr-python CSR arrays, TileDB-SOMA and BPCells, per 10,000-cell
tile of a synthetic snRNA-seq-like matrix (datasets/sparse.py).

An experiment file with `suite = "sparse"` selects this runner:

    turbozarr-bench run bench/experiments/workload-f.toml

The matrix is written once in each side's format (sparse_fixture.py); the
stored size of each is reported per cell and against the h5ad file. Each
operation then runs `warmup + repeats` times per side, the sides in turn,
every run in a process of its own (sparse_child.py says what is timed); the
figures are medians. Every side runs in the harness's interpreter: a
library not installed there reads `unavailable`, a side without a call for
an operation `unsupported`, with the reason.

Nobody is checked by itself: every read's CSR is digested as the matrix it
is (checksum.csr_digest: rows sorted, values as counts) and must equal the
digest of the generator's tile; a gather must equal scipy's rows of the same
tile; a loader epoch must hand out every cell exactly once.

Loader cases (`[loader]`): CellLoader epochs for every number of workers,
store and prefetch asked, the store "local" or throttled ("throttled-150":
50 ms per request and 150 MB/s per connection; "throttled-60" at 60 MB/s);
`[memory]` runs one long loader and samples the resident memory of the main
process and its workers.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import tomllib
import uuid
from pathlib import Path
from typing import Any

from turbozarr_bench.config import DEFAULT_DATA_DIR
from turbozarr_bench.datasets.registry import resolve
from turbozarr_bench.datasets.spec import DatasetSpec, SpecError
from turbozarr_bench.results_csv import finish_run, side_line, timing_columns

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"suite", "title", "description", "repeats", "warmup", "dataset", "datasets",
        "operation", "impl", "tile", "loader", "memory", "data_dir", "output"}
# side -> (module that says it is installed, distribution whose version is recorded)
IMPLS: dict[str, tuple[str, str]] = {
    "turbozarr": ("turbozarr", "turbozarr"),
    "turbozarr-sorted": ("turbozarr", "turbozarr"),
    "h5ad": ("anndata", "anndata"),
    "zarr-python": ("zarr", "zarr"),
    "tiledbsoma": ("tiledbsoma", "tiledbsoma"),
    "bpcells": ("bpcells", "bpcells"),
    "scipy": ("scipy", "scipy"),
}
READS = ("read_tile", "read_tile_threads", "decode_only")
OPERATIONS = READS + ("gather", "loader", "loader_memory")
STORES = {"local": {"store": "local"},
          "throttled-150": {"store": "throttled", "latency_ms": 50.0, "mb_per_s": 150.0},
          "throttled-60": {"store": "throttled", "latency_ms": 50.0, "mb_per_s": 60.0}}
LOADER_DEFAULTS = {"workers": [0, 1, 2], "store": ["local"], "prefetch": [2],
                   "batch_size": 5000, "window_tiles": 2, "connections": 8}
MEMORY_DEFAULTS = {"workers": 2, "batches": 1000, "sample_every": 100, "batch_size": 5000,
                   "prefetch": 2, "window_tiles": 2}
COLUMNS = ["run_id", "time", "dataset", "operation", "case", "impl", "version", "status",
           "reason", "runs", "seconds", "cpu", "peak_rss_mb", "cells", "nnz", "cells_per_s",
           "digest", "expected", "agrees", "ratio_to_turbozarr", "stored_bytes",
           "kb_per_cell", "of_h5ad", "growth_pct", "samples_mb"]
CHILD_TIMEOUT = 3600


class SparseConfigError(ValueError):
    pass


def _list(path: Path, raw: dict, key: str, default: list, known=None) -> list:
    value = raw.get(key, default)
    value = value if isinstance(value, list) else [value]
    if not value:
        raise SparseConfigError(f"{path}: '{key}' must not be empty")
    if known is not None:
        bad = [v for v in value if v not in known]
        if bad:
            raise SparseConfigError(f"{path}: unknown {key} {bad} (known: {sorted(known)})")
    return value


def _table(path: Path, raw: dict, key: str, defaults: dict) -> dict:
    table = raw.get(key, {})
    if not isinstance(table, dict):
        raise SparseConfigError(f"{path}: [{key}] must be a table")
    unknown = set(table) - set(defaults)
    if unknown:
        raise SparseConfigError(f"{path}: unknown keys in [{key}]: {sorted(unknown)} "
                                f"(known: {sorted(defaults)})")
    return {**defaults, **table}


def load(path: Path) -> dict[str, Any]:
    raw = tomllib.loads(path.read_text())
    unknown = set(raw) - KEYS
    if unknown:
        raise SparseConfigError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(KEYS)})")
    try:
        spec = resolve(raw.get("dataset", "f-counts"), raw.get("datasets", {}), str(path))
    except SpecError as e:
        raise SparseConfigError(str(e)) from None
    if spec.kind != "csr":
        raise SparseConfigError(f"{path}: dataset '{spec.name}' is not a counts matrix")
    impls = _list(path, raw, "impl", list(IMPLS), IMPLS)
    if "turbozarr" not in impls:
        raise SparseConfigError(f"{path}: impl must include turbozarr (the ratios are against it)")
    loader = _table(path, raw, "loader", LOADER_DEFAULTS)
    for s in loader["store"]:
        if s not in STORES:
            raise SparseConfigError(f"{path}: unknown store {s!r} (known: {sorted(STORES)})")
    tiles = -(-spec.values["cells"] // spec.values["tile_cells"])
    tile = int(raw.get("tile", tiles // 2))
    if not 0 <= tile < tiles:
        raise SparseConfigError(f"{path}: tile {tile} is outside [0, {tiles})")
    out = raw.get("output")
    return {
        "title": raw.get("title", path.stem),
        "repeats": int(raw.get("repeats", 3)),
        "warmup": int(raw.get("warmup", 0)),
        "spec": spec,
        "operations": _list(path, raw, "operation", list(OPERATIONS[:-1]), OPERATIONS),
        "impls": ["turbozarr"] + [i for i in impls if i != "turbozarr"],
        "tile": tile,
        "loader": loader,
        "memory": _table(path, raw, "memory", MEMORY_DEFAULTS),
        "output": (path.parent / out).resolve() if out
        else path.parent / "results" / f"{path.stem}.csv",
        "data_dir": Path(raw.get("data_dir", DEFAULT_DATA_DIR)).expanduser(),
    }


def _child_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT / "bench")]))


def availability(impls: list[str]) -> dict[str, tuple[str, str]]:
    """impl -> (version, "") when this interpreter has it, else ("", why not)."""
    import importlib.metadata

    from turbozarr_bench.sparse_fixture import installed

    out = {}
    for impl in impls:
        module, dist = IMPLS[impl]
        if not installed(module):
            out[impl] = ("", f"{dist} is not installed in {sys.executable}")
            continue
        try:
            out[impl] = (importlib.metadata.version(dist), "")
        except importlib.metadata.PackageNotFoundError:
            out[impl] = ("in-tree", "")
    return out


def _child(doc: dict) -> dict[str, Any]:
    try:
        proc = subprocess.run([sys.executable, "-m", "turbozarr_bench.sparse_child",
                               json.dumps(doc)], capture_output=True, text=True,
                              env=_child_env(), timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{doc['impl']} {doc['op']}: more than {CHILD_TIMEOUT} s") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        why = proc.stderr.strip()[-2000:]
        if proc.returncode < 0:  # a crash prints nothing of its own
            import signal
            why = (f"the process died of {signal.Signals(-proc.returncode).name}"
                   + (f": {why}" if why else ""))
        raise RuntimeError(f"{doc['impl']} {doc['op']}: {why}")
    return json.loads(lines[-1])


def _cases(exp: dict) -> list[tuple[str, str, dict]]:
    """(operation, case name, params) for every run the experiment asks."""
    out = []
    for op in exp["operations"]:
        if op == "loader":
            lo = exp["loader"]
            conns = lo["connections"] if isinstance(lo["connections"], list) \
                else [lo["connections"]]
            for store in lo["store"]:
                # Connections matter only to the throttled store.
                for c in (conns if STORES[store]["store"] == "throttled" else conns[:1]):
                    where = store if STORES[store]["store"] != "throttled" or len(conns) == 1 \
                        else f"{store} x{c}"
                    for workers in lo["workers"]:
                        for prefetch in lo["prefetch"]:
                            params = {**STORES[store], "workers": workers,
                                      "prefetch": prefetch, "batch_size": lo["batch_size"],
                                      "window_tiles": lo["window_tiles"], "connections": c}
                            out.append((op, f"{where}, {workers} workers, prefetch {prefetch}",
                                        params))
        elif op == "loader_memory":
            m = exp["memory"]
            out.append((op, f"{m['workers']} workers, {m['batches']} batches",
                        {**STORES["local"], **m}))
        else:
            out.append((op, "", {}))
    return out


def _sides(op: str, impls: list[str]) -> list[str]:
    if op == "gather":
        return [i for i in impls if i in ("turbozarr", "scipy")]
    if op in ("loader", "loader_memory"):
        return ["turbozarr"]
    return [i for i in impls if i != "scipy"]


def _case_rows(exp: dict, stamp: dict, op: str, case: str, params: dict, found: dict,
               run_id: str, log) -> list[dict]:
    spec: DatasetSpec = exp["spec"]
    sides = _sides(op, exp["impls"])
    status = {i: "ok" if found[i][0] else "unavailable" for i in sides}
    reason = {i: found[i][1] for i in sides if not found[i][0]}
    runs: dict[str, list[dict]] = {i: [] for i in sides}
    doc = {"op": op, "spec": spec.to_json(), "formats": stamp["formats"], "tile": exp["tile"],
           "params": params, "cache": stamp["cache"]}
    repeats = 1 if op == "loader_memory" else exp["repeats"]
    for k in range((0 if op == "loader_memory" else exp["warmup"]) + repeats):
        for impl in [i for i in sides if status[i] == "ok"]:
            try:
                r = _child({**doc, "impl": impl})
            except RuntimeError as e:
                status[impl], reason[impl] = "failed", str(e).splitlines()[-1][:300]
                log(f"    {impl}: FAILED {e}")
                continue
            if r.get("status") == "unsupported":
                status[impl], reason[impl] = "unsupported", r["reason"]
                continue
            if k >= (0 if op == "loader_memory" else exp["warmup"]):
                runs[impl].append(r)
    if op in READS:
        expected = stamp["tiles"][exp["tile"]]
    else:
        expected = ""
    ours = runs["turbozarr"] if status["turbozarr"] == "ok" and runs["turbozarr"] else None
    ours_median = statistics.median(r["seconds"] for r in ours) if ours else None
    rows = []
    for impl in sides:
        row = {c: "" for c in COLUMNS}
        row.update({"run_id": run_id, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "dataset": spec.name, "operation": op, "case": case, "impl": impl,
                    "version": found[impl][0], "status": status[impl],
                    "reason": reason.get(impl, "")})
        rs = runs.get(impl) or []
        if status[impl] == "ok" and rs:
            seconds = statistics.median(r["seconds"] for r in rs)
            first = rs[0]
            want = expected or first.get("expected", "")
            digests = {r["digest"] for r in rs}
            problems = [] if not want or digests == {want} else [
                f"digest {sorted(digests)} != {want}"]
            if op == "loader" and first["cells"] != spec.values["cells"]:
                problems.append(f"{first['cells']} cells in an epoch, not {spec.values['cells']}")
            if problems:
                log(f"    {impl}: DISAGREES: {'; '.join(problems)}")
            row.update({**timing_columns(rs, seconds), "cells": first["cells"],
                        "nnz": first.get("nnz", ""),
                        "cells_per_s": round(first["cells"] / seconds) if seconds else "",
                        "digest": first["digest"], "expected": want, "agrees": not problems,
                        "ratio_to_turbozarr": (float(f"{seconds / ours_median:.4g}")
                                               if ours_median else "")})
            if op == "loader_memory":
                row.update({"growth_pct": first["growth_pct"],
                            "samples_mb": " ".join(str(s) for s in first["samples_mb"])})
        rows.append(row)
    log(_line(rows))
    return rows


def size_rows(exp: dict, stamp: dict, run_id: str) -> list[dict]:
    """The stored size of each format: bytes, kB per cell, share of h5ad."""
    spec = exp["spec"]
    cells = spec.values["cells"]
    h5ad = stamp["bytes"].get("h5ad")
    by_format = {"turbozarr": "turbozarr", "h5ad": "h5ad", "zarr-python": "zarr-csr",
                 "tiledbsoma": "soma", "bpcells": "bpcells"}
    rows = []
    for impl, fmt in by_format.items():
        if fmt not in stamp["bytes"]:
            continue
        b = stamp["bytes"][fmt]
        row = {c: "" for c in COLUMNS}
        row.update({"run_id": run_id, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "dataset": spec.name, "operation": "stored_size", "impl": impl,
                    "status": "ok", "cells": cells, "stored_bytes": b,
                    "kb_per_cell": round(b / cells / 1000, 3),
                    "of_h5ad": round(b / h5ad, 4) if h5ad else ""})
        rows.append(row)
    return rows


def run(path: Path, list_only: bool = False, log=print) -> int:
    try:
        exp = load(Path(path))
    except SparseConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    found = availability(exp["impls"])
    spec = exp["spec"]
    if list_only:
        log(f"{spec.name}: {spec.describe()}, tile {exp['tile']}")
        for op, case, _ in _cases(exp):
            log(f"  {op}{f' ({case})' if case else ''}")
        for impl in exp["impls"]:
            version, why = found[impl]
            log(f"  {impl}: {version or 'unavailable'}{f' ({why})' if why else ''}")
        log(f"{exp['warmup']} warm-up + {exp['repeats']} runs per side, {sys.executable}")
        return 0
    from turbozarr_bench import sparse_fixture

    exp["data_dir"].mkdir(parents=True, exist_ok=True)
    log(f"{spec.name}: {spec.describe()}")
    stamp = sparse_fixture.ensure(spec, exp["data_dir"], log=log)
    run_id, failed = uuid.uuid4().hex[:8], 0
    rows = size_rows(exp, stamp, run_id)
    for r in rows:
        log(f"  stored {r['impl']:<12} {r['stored_bytes'] / 1e6:9.1f} MB  "
            f"{r['kb_per_cell']:.3f} kB/cell" + (f"  {r['of_h5ad']:.1%} of h5ad"
                                                 if r["of_h5ad"] != "" else ""))
    for op, case, params in _cases(exp):
        got = _case_rows(exp, stamp, op, case, params, found, run_id, log)
        ours = got[0]
        if ours["status"] != "ok" or any(r["agrees"] is False for r in got):
            failed += 1
        rows.extend(got)
    return finish_run(exp["output"], rows, COLUMNS, markdown(rows), failed, log)


def _line(rows: list[dict]) -> str:
    ours = rows[0]

    def loader_figures(r: dict) -> str:
        if not r["operation"].startswith("loader"):
            return ""
        growth = f", memory growth {r['growth_pct']}%" if r["growth_pct"] != "" else ""
        return f" ({r['cells_per_s']} cells/s{growth})"

    return side_line(ours["operation"] + (f" ({ours['case']})" if ours["case"] else ""), rows,
                     44, loader_figures)


def markdown(rows: list[dict]) -> str:
    """A run's rows as Markdown: the stored sizes, then a line per operation
    (and loader case) with a column per side, and turbozarr's speed-up over
    the fastest other reader."""
    out = []
    sizes = [r for r in rows if r["operation"] == "stored_size"]
    if sizes:
        out += ["| format | stored MB | kB per cell | of h5ad |", "|---|---|---|---|"]
        for r in sizes:
            share = f"{float(r['of_h5ad']):.1%}" if r["of_h5ad"] not in ("", None) else ""
            out.append(f"| {r['impl']} | {int(r['stored_bytes']) / 1e6:.1f} | "
                       f"{float(r['kb_per_cell']):.3f} | {share} |")
        out.append("")
    timed = [r for r in rows if r["operation"] != "stored_size"]
    impls: list[str] = []
    for r in timed:
        if r["impl"] not in impls and r["status"] != "unavailable":
            impls.append(r["impl"])
    groups: dict[tuple[str, str], dict[str, dict]] = {}
    for r in timed:
        groups.setdefault((r["operation"], r["case"]), {})[r["impl"]] = r
    out += ["| operation | case | " + " | ".join(impls)
            + " | speed-up vs fastest other | turbozarr cells/s |",
            "|---|---|" + "---|" * (len(impls) + 2)]
    for (op, case), by in groups.items():
        cells = []
        for impl in impls:
            r = by.get(impl)
            if r is None:
                cells.append("")
            elif r["status"] == "ok" and r["seconds"] not in ("", None):
                mark = "" if str(r["agrees"]) == "True" else " (differs)"
                cells.append(f"{float(r['seconds']) * 1000:.1f} ms{mark}")
            else:
                cells.append(r["status"])
        ours = by.get("turbozarr")
        others = [r for i, r in by.items() if not i.startswith("turbozarr")
                  and r["status"] == "ok" and r["seconds"] not in ("", None)]
        speed = rate = ""
        if ours and ours["status"] == "ok" and ours["seconds"] not in ("", None):
            rate = f"{int(ours['cells_per_s']):,}"
            if ours.get("growth_pct") not in ("", None):
                rate += f" (memory growth {float(ours['growth_pct']):.1f}%)"
            if others:
                best = min(others, key=lambda r: float(r["seconds"]))
                speed = f"{float(best['seconds']) / float(ours['seconds']):.1f}x ({best['impl']})"
        out.append(f"| {op} | {case} | " + " | ".join(cells) + f" | {speed} | {rate} |")
    missing = {r["impl"]: r["reason"] for r in timed if r["status"] == "unavailable"}
    if missing:
        out += ["", "Unavailable: " + "; ".join(f"{i} ({w})" for i, w in missing.items()) + "."]
    return "\n".join(out) + "\n"
