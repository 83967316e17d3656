"""Workload E: OME-Zarr image IO and pyramid creation, turbozarr beside
ngio, ome-zarr-py, zarr-python and the other OME-Zarr libraries, on the
images of ome_tasks.py.

An experiment file with `suite = "ome"` selects this runner:

    turbozarr-bench run bench/experiments/workload-e.toml

Each operation runs `warmup + repeats` times per side, the sides in turn
(turbozarr, ngio, ome-zarr-py, ...), every run in a process of its own
(ome_child.py, which says what is timed). The figures are medians. Every
side is run in the harness's interpreter (.venv-ome, `make bench-ome-env`,
has every peer): a peer that is not installed there reads `unavailable`
with the reason, a side without a call for an operation `unsupported` with
the reason; neither is left out of the results. A case's outputs are
removed when the case is over, not between its runs (_clear says why).

Nobody is timed for less work, and nobody is checked by itself:
- reads come from a fixture written once by plain zarr-python with NGFF
  metadata written by hand (ome_fixture.py), and what each side returns
  must have the digest of the pixels the generator made;
- writes go into a fresh image and are read back with zarr-python; the
  digest must be the pixels handed in;
- a create is audited from what the side left on disk: as many levels as
  asked, each of the shape that halving y and x gives, the image's dtype,
  level 0 exactly the pixels handed in. The digest of the whole pyramid is
  recorded beside it: equal for sides that pick and round alike (nearest:
  turbozarr, the numpy reference, ngio, ome-zarr-py and bioio take
  x[1::2, 1::2], ngff-zarr and iohub x[::2, ::2]; mean: turbozarr and the
  numpy reference round half to even, ngio and ome-zarr-py truncate), and
  what each side was handed for the method is in `method_native`.
A turbozarr run that fails or any row that disagrees fails the command; a
peer that fails is a finding in the table. Beside every read and write
stands its ceiling (ome_ceiling.py): on every core, the codec's own time
for the chunks a read decodes, or for encoding the chunks a write makes and
writing its keys into new files.
"""

from __future__ import annotations

import json
import os
import shutil
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
from turbozarr_bench.results_csv import finish_run, side_line, timing_columns
from turbozarr_bench.datasets.spec import DatasetSpec, SpecError
from turbozarr_bench.ome_tasks import (BY_NAME, IMAGES, METHODS, OPERATIONS, Operation,
                                       describe, level_shapes, region, resolve_image)

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"suite", "title", "description", "repeats", "warmup", "image", "operation", "impl",
        "method", "data_dir", "output", "images"}
# Every side of the workload (ome_child.py drives each): the module that
# says it is installed and the distribution whose version is recorded.
IMPLS: dict[str, tuple[str, str]] = {
    "turbozarr": ("turbozarr", "turbozarr"),
    "ngio": ("ngio", "ngio"),
    "ome-zarr-py": ("ome_zarr", "ome-zarr"),
    "zarr-python": ("zarr", "zarr"),
    "tensorstore": ("tensorstore", "tensorstore"),
    "ngff-zarr": ("ngff_zarr", "ngff-zarr"),
    "bioio": ("bioio_ome_zarr", "bioio-ome-zarr"),
    "iohub": ("iohub", "iohub"),
    "acquire-zarr": ("acquire_zarr", "acquire-zarr"),
}
COLUMNS = ["run_id", "time", "image", "operation", "method", "impl", "version", "status",
           "reason", "runs", "seconds", "cpu", "peak_rss_mb", "bytes", "rate_mib_s", "digest",
           "expected", "agrees", "ratio_to_turbozarr", "method_native", "levels",
           "level_shapes", "pyramid_digest", "ceiling_s", "of_ceiling"]
CHILD_TIMEOUT = 3600  # seconds one run may take before it counts as failed
SETTLE_SECONDS = 6  # after deleting a case's outputs (_clear says why)


class OmeConfigError(ValueError):
    pass


def _names(path: Path, raw: dict, key: str, default: list[str], known) -> list[str]:
    value = raw.get(key, default)
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not value:
        raise OmeConfigError(f"{path}: '{key}' must be a non-empty list, got {value!r}")
    bad = [v for v in value if v not in known]
    if bad:
        raise OmeConfigError(f"{path}: unknown {key} {bad} (known: {sorted(known)})")
    return value


def load(path: Path) -> dict[str, Any]:
    raw = tomllib.loads(path.read_text())
    unknown = set(raw) - KEYS
    if unknown:
        raise OmeConfigError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(KEYS)})")
    if raw.get("suite", "ome") != "ome":
        raise OmeConfigError(f"{path}: suite must be \"ome\", got {raw['suite']!r}")
    tables = raw.get("images", {})
    if not isinstance(tables, dict) or not all(isinstance(t, dict) for t in tables.values()):
        raise OmeConfigError(f"{path}: [images.<name>] must be tables")
    names = _names(path, raw, "image", ["small"], set(IMAGES) | set(tables))
    try:
        images = [resolve_image(n, tables, str(path)) for n in names]
    except SpecError as e:
        raise OmeConfigError(str(e)) from None
    operations = _names(path, raw, "operation", [op.name for op in OPERATIONS], BY_NAME)
    impls = _names(path, raw, "impl", list(IMPLS), IMPLS)
    if "turbozarr" not in impls:
        raise OmeConfigError(f"{path}: impl must include turbozarr (the ratios are against it)")
    base = path.parent
    out = raw.get("output")
    return {
        "title": raw.get("title", path.stem),
        "repeats": int(raw.get("repeats", 3)),
        "warmup": int(raw.get("warmup", 1)),
        "images": images,
        "operations": [BY_NAME[o] for o in operations],
        "impls": ["turbozarr"] + [i for i in impls if i != "turbozarr"],
        "methods": _names(path, raw, "method", list(METHODS), METHODS),
        "output": (base / out).resolve() if out else base / "results" / f"{path.stem}.csv",
        "data_dir": Path(raw.get("data_dir", DEFAULT_DATA_DIR)).expanduser(),
    }


# -- the sides -------------------------------------------------------------------


def _child_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT / "bench")]))


def availability(impls: list[str]) -> dict[str, tuple[str, str]]:
    """impl -> (version, "") when the children's interpreter has it, else
    ("", why not), asked of that interpreter in the children's environment."""
    probe = """
import importlib.util, importlib.metadata, json, sys
out = {}
for impl, (module, dist) in json.loads(sys.argv[1]).items():
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        out[impl] = ["", f"{dist} is not installed in {sys.executable}"]
        continue
    try:
        out[impl] = [importlib.metadata.version(dist), ""]
    except importlib.metadata.PackageNotFoundError:
        out[impl] = ["in-tree", ""]
print(json.dumps(out))
"""
    doc = json.dumps({i: IMPLS[i] for i in impls})
    proc = subprocess.run([sys.executable, "-c", probe, doc], capture_output=True, text=True,
                          env=_child_env())
    if proc.returncode != 0:
        raise RuntimeError(f"probing the sides failed: {proc.stderr[-2000:]}")
    return {k: (v[0], v[1]) for k, v in json.loads(proc.stdout).items()}


def _child(impl: str, op: Operation, spec: DatasetSpec, fixture: Path | None, method: str,
           work: Path) -> dict[str, Any]:
    run_dir = Path(tempfile.mkdtemp(prefix=f"{impl}-", dir=work))
    doc = json.dumps({"impl": impl, "op": op.name, "image": spec.to_json(),
                      "path": str(fixture) if fixture else "", "workdir": str(run_dir),
                      "method": method})
    try:
        proc = subprocess.run([sys.executable, "-m", "turbozarr_bench.ome_child", doc],
                              capture_output=True, text=True, env=_child_env(),
                              timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{impl} {op.name}: more than {CHILD_TIMEOUT} s") from None
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if proc.returncode != 0:
        raise RuntimeError(f"{impl} {op.name}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the checks ------------------------------------------------------------------


def _expected_read(op: Operation, spec: DatasetSpec, fixture: Path) -> str:
    """The digest of the pixels a read must return: the fixture's own for
    the whole image, the generator's for a region."""
    if op.region == "full":
        return json.loads((fixture.parent / "stamp.json").read_text())["checksum"]
    from turbozarr_bench.checksum import array_digest
    from turbozarr_bench.datasets.pixels import make_generator

    gen = make_generator("ome", spec.shape, spec.dtype, spec.seed)
    return array_digest(gen(region(op, spec)))


def _pyramid_problems(spec: DatasetSpec, audit: dict) -> list[str]:
    want = level_shapes(spec)
    levels = audit.get("levels", [])
    problems = []
    if len(levels) != len(want):
        problems.append(f"{len(levels)} levels, not {len(want)}")
    for k, (lv, shape) in enumerate(zip(levels, want)):
        if lv["shape"] != shape:
            problems.append(f"level {k} is {lv['shape']}, not {shape}")
        if lv["dtype"] != spec.dtype:
            problems.append(f"level {k} is {lv['dtype']}, not {spec.dtype}")
        # zstd, or nothing: a side that skipped the codec did less work. A
        # crc32c after it (turbozarr's default checksum) is more work, not less.
        codec = [] if spec.values["codec"] == "none" else [
            "Zstd" if spec.zarr_format == 2 else "ZstdCodec"]
        stored = list(lv.get("compressors") or [])
        if stored[-1:] == ["Crc32cCodec"]:
            stored = stored[:-1]
        if stored != codec:
            problems.append(f"level {k} is compressed by {lv.get('compressors')}, not {codec}")
    if audit.get("zarr_format") != spec.zarr_format:
        problems.append(f"Zarr v{audit.get('zarr_format')}, not v{spec.zarr_format}")
    return problems


# -- the run ---------------------------------------------------------------------


def _clear(work: Path) -> None:
    """Removes what the runs of a case wrote, once the case is over, and
    lets the file system settle. Not between runs: ext4 without a journal
    (this machine's disks) skips every inode freed in the last 5 seconds
    (35 while their table block is dirty) when it allocates one, scanning
    past each, so a run that starts right after another's image was deleted
    pays for that deletion (up to a second of a medium create). Syncing and
    then waiting out the 5 seconds leaves the next case none."""
    wrote = False
    for entry in list(work.iterdir()):
        wrote = wrote or any(entry.iterdir())
        shutil.rmtree(entry, ignore_errors=True)
    if wrote:  # reads leave empty run directories: nothing to settle
        os.sync()
        time.sleep(SETTLE_SECONDS)


def _case_rows(exp: dict, spec: DatasetSpec, op: Operation, method: str,
               fixture: Path | None, expected: str, found: dict, work: Path, run_id: str,
               log) -> list[dict]:
    """One operation on every side (A B C A B C ...), as CSV rows,
    turbozarr's first."""
    status: dict[str, str] = {}
    reason: dict[str, str] = {}
    runs: dict[str, list[dict]] = {}
    for impl in exp["impls"]:
        version, why = found[impl]
        if not version:
            status[impl], reason[impl] = "unavailable", why
        else:
            status[impl], runs[impl] = "ok", []
    for k in range(exp["warmup"] + exp["repeats"]):
        for impl in [i for i in exp["impls"] if status[i] == "ok"]:
            try:
                r = _child(impl, op, spec, fixture, method, work)
            except RuntimeError as e:
                status[impl], reason[impl] = "failed", str(e).splitlines()[-1][:300]
                log(f"    {impl}: FAILED {e}")
                continue
            if r.get("status") == "unsupported":
                status[impl], reason[impl] = "unsupported", r["reason"]
                continue
            if k >= exp["warmup"]:
                runs[impl].append(r)
    _clear(work)
    ours = runs.get("turbozarr") if status["turbozarr"] == "ok" else None
    ours_median = statistics.median(r["seconds"] for r in ours) if ours else None
    rows = []
    for impl in exp["impls"]:
        row = {c: "" for c in COLUMNS}
        row.update({"run_id": run_id, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "image": spec.name, "operation": op.name,
                    "method": method if op.kind == "create" else "", "impl": impl,
                    "version": found[impl][0], "status": status[impl],
                    "reason": reason.get(impl, "")})
        rs = runs.get(impl) or []
        if status[impl] == "ok" and rs:
            seconds = statistics.median(r["seconds"] for r in rs)
            first = rs[0]
            want = expected or first["expected"]
            digests = {r["digest"] for r in rs}
            problems = [] if digests == {want} else [f"digest {sorted(digests)} != {want}"]
            if op.kind == "create":
                audit = first["audit"]
                problems += _pyramid_problems(spec, audit)
                row.update({"levels": len(audit["levels"]),
                            "level_shapes": " ".join("x".join(map(str, lv["shape"][2:]))
                                                     for lv in audit["levels"]),
                            "pyramid_digest": audit["pyramid_digest"]})
            if problems:
                log(f"    {impl}: DISAGREES: {'; '.join(problems)}")
            row.update({
                **timing_columns(rs, seconds),
                "bytes": first["bytes"],
                "rate_mib_s": round(first["bytes"] / seconds / 2**20, 1) if seconds else "",
                "digest": first["digest"], "expected": want, "agrees": not problems,
                "ratio_to_turbozarr": (float(f"{seconds / ours_median:.4g}")
                                       if ours_median else ""),
                "method_native": first.get("method_native", ""),
            })
        rows.append(row)
    log(_line(rows))
    return rows


def _add_ceiling(rows: list[dict], op: Operation, spec: DatasetSpec, fixture: Path | None,
                 work: Path, log) -> None:
    """The ceiling of a read or write (ome_ceiling.py) on every row, and each
    side's time as a share of it. A write's ceiling writes files under
    `work`, cleared again before the next case."""
    from turbozarr_bench import ome_ceiling

    index = region(op, spec)
    if op.kind == "read":
        ceiling = ome_ceiling.read_seconds(fixture, spec, index)
    elif op.kind == "write":
        from turbozarr_bench.datasets.pixels import make_generator

        data = make_generator("ome", spec.shape, spec.dtype, spec.seed)(index)
        ceiling = ome_ceiling.write_seconds(spec, index, data, work)
        _clear(work)
    else:
        return
    if ceiling is None:
        return
    for r in rows:
        r["ceiling_s"] = round(ceiling, 6)
        if r["status"] == "ok" and r["seconds"]:
            r["of_ceiling"] = round(ceiling / r["seconds"], 3)
    ours = rows[0]
    log(f"  {'':<30} ceiling {ceiling:.4f} s"
        + (f", turbozarr at {ours['of_ceiling']:.0%} of it" if ours["of_ceiling"] else ""))


def run(path: Path, list_only: bool = False, log=print) -> int:
    try:
        exp = load(Path(path))
    except OmeConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    found = availability(exp["impls"])
    if list_only:
        for spec in exp["images"]:
            log(f"{spec.name}: {describe(spec)}")
        log("operations: " + ", ".join(op.name for op in exp["operations"])
            + "; create by " + ", ".join(exp["methods"]))
        for impl in exp["impls"]:
            version, why = found[impl]
            log(f"  {impl}: {version or 'unavailable'}{f' ({why})' if why else ''}")
        log(f"{exp['warmup']} warm-up + {exp['repeats']} runs per side, {sys.executable}")
        return 0
    from turbozarr_bench import ome_fixture

    run_id, rows, failed = uuid.uuid4().hex[:8], [], 0
    exp["data_dir"].mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".ome-work-", dir=exp["data_dir"]))
    try:
        for spec in exp["images"]:
            log(f"{spec.name}: {describe(spec)}")
            fixture = None
            if any(op.kind == "read" for op in exp["operations"]):
                fixture = ome_fixture.ensure(spec, exp["data_dir"], log=log)
            for op in exp["operations"]:
                if op.kind != "create" and region(op, spec) is None:
                    log(f"  {op.name}: skipped, the image has no ROI size")
                    continue
                expected = _expected_read(op, spec, fixture) if op.kind == "read" else ""
                for method in (exp["methods"] if op.kind == "create" else [""]):
                    got = _case_rows(exp, spec, op, method, fixture, expected, found, work,
                                     run_id, log)
                    _add_ceiling(got, op, spec, fixture, work, log)
                    ours = got[0]
                    if ours["status"] != "ok" or any(r["agrees"] is False for r in got):
                        failed += 1
                    rows.extend(got)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish_run(exp["output"], rows, COLUMNS, markdown(rows), failed, log)


def _line(rows: list[dict]) -> str:
    """turbozarr beside each side that ran, and what the others say."""
    ours = rows[0]
    return side_line(ours["operation"] + (f" ({ours['method']})" if ours["method"] else ""),
                     rows, 30)


def markdown(rows: list[dict]) -> str:
    """The rows of one run as a Markdown table: a line per image, operation
    and method, a column per side that ran anywhere (seconds, or why not),
    turbozarr's speed-up over the fastest peer; the sides that were
    unavailable throughout below it, with the reason."""
    impls: list[str] = []
    for r in rows:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    shown = [i for i in impls if any(r["impl"] == i and r["status"] != "unavailable"
                                     for r in rows)]
    groups: dict[tuple[str, str, str], dict[str, dict]] = {}
    for r in rows:
        groups.setdefault((r["image"], r["operation"], r["method"]), {})[r["impl"]] = r
    out = ["| image | operation | method | " + " | ".join(shown)
           + " | speed-up vs fastest peer | peak MiB (tz / fastest peer) | ceiling |",
           "|---|---|---|" + "---|" * (len(shown) + 3)]
    for (image, op, method), by in groups.items():
        cells = []
        for impl in shown:
            r = by.get(impl)
            if r is None:
                cells.append("")
            elif r["status"] == "ok":
                mark = "" if str(r["agrees"]) == "True" else " (differs)"
                cells.append(f"{float(r['seconds']):.4f} s{mark}")
            else:
                cells.append(r["status"])
        ours = by.get("turbozarr")
        peers = [r for i, r in by.items() if i != "turbozarr" and r["status"] == "ok"]
        speed = peak = ""
        if ours and ours["status"] == "ok" and peers:
            best = min(peers, key=lambda r: float(r["seconds"]))
            speed = f"{float(best['seconds']) / float(ours['seconds']):.1f}x ({best['impl']})"
            peak = f"{float(ours['peak_rss_mb']):.0f} / {float(best['peak_rss_mb']):.0f}"
        ceiling = ""
        if ours and ours.get("ceiling_s") not in (None, ""):
            ceiling = f"{float(ours['ceiling_s']):.4f} s"
            if ours.get("of_ceiling") not in (None, ""):
                ceiling += f" (tz at {float(ours['of_ceiling']):.0%})"
        out.append(f"| {image} | {op} | {method} | " + " | ".join(cells)
                   + f" | {speed} | {peak} | {ceiling} |")
    missing = {}
    for i in impls:
        if i not in shown:
            missing[i] = next(r["reason"] for r in rows if r["impl"] == i)
    if missing:
        out.append("")
        out.append("Unavailable: " + "; ".join(f"{i} ({why})" for i, why in missing.items())
                   + ".")
    return "\n".join(out) + "\n"
