"""One case, in a process of its own: `python -m turbozarr_bench.child CASE.json OUT.json`.

A process per case makes the peak RSS a figure about this case (the high-water
mark only rises), and stops a case inheriting the heap, the allocator's free
lists and the warmed imports of the one before it.

Sequence: import the adapter (and its library) and record RSS; build the
operation (open stores, load a memory store, generate a write's source array)
and record RSS again as the base; reset the peak; run warm-up + repeats, each
after an untimed setup and a gc.collect(); read the peak; run the checksum
call; write the result document. A raised Unsupported marks the case
`unsupported`; any other exception marks it `failed` with the exception.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from turbozarr_bench import measure


def _warm(files: list[Path]) -> None:
    buf = bytearray(8 << 20)
    for p in files:
        with open(p, "rb", buffering=0) as f:
            while f.readinto(buf):
                pass


def _sync_seconds(output: Path | None) -> float | None:
    """Time to make a written array durable, measured after the timed runs."""
    if output is None or not output.exists():
        return None
    start = time.perf_counter()
    for p in measure.files_under(output):
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return time.perf_counter() - start


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"status": "failed", "reason": "", "versions": {}, "notes": []}
    result["rss_start_mb"] = measure.rss_mb()
    try:
        # "package.module" (its Driver) or "package.module:Class"
        modname, _, cls = case["module"].partition(":")
        module = importlib.import_module(modname)
        driver_cls = getattr(module, cls) if cls else module.Driver
        from turbozarr_bench import ops
        from turbozarr_bench.adapters.base import Unsupported

        try:
            driver = driver_cls(case)
            driver.configure()
            result["versions"] = driver.versions()
            result["rss_import_mb"] = measure.rss_mb()
            if hasattr(driver, "build_measured"):  # a ceiling
                m = driver.build_measured()
            else:
                m = ops.build(case, driver)
            if case["cache"] == "warm" and m.files:
                _warm(m.files)
            result.update(_measure(case, m))
            result["notes"] = driver.notes + result.pop("extra_notes", [])
            result["status"] = "ok"
        except Unsupported as e:
            result["status"] = "unsupported"
            result["reason"] = str(e)
    except Exception as e:  # noqa: BLE001 - the row records what went wrong
        result["status"] = "failed"
        result["reason"] = f"{type(e).__name__}: {e}".strip()[:500]
        result["traceback"] = traceback.format_exc()[-4000:]
    return result


def _measure(case: dict[str, Any], m) -> dict[str, Any]:
    warmup, repeats = int(case["warmup"]), int(case["repeats"])
    samples: list[float] = []
    cpus: list[float] = []
    resident: list[float] = []
    rss_base = measure.rss_mb()
    peak_reset = measure.reset_peak_rss()
    for i in range(warmup + repeats):
        m.setup()
        if i >= warmup and m.files:
            r = measure.resident_fraction(m.files)
            if r is not None:
                resident.append(r)
        gc.collect()
        c0 = measure.cpu_seconds()
        t0 = time.perf_counter()
        out = m.run()
        t1 = time.perf_counter()
        c1 = measure.cpu_seconds()
        del out
        inner = getattr(m, "inner_time", None)
        elapsed = inner.pop("last") if inner and "last" in inner else t1 - t0
        if i >= warmup:
            samples.append(elapsed)
            cpus.append(c1 - c0)
    peak = measure.peak_rss_mb()
    # A subprocess's memory (the CLI, forked decoders) is not in this
    # process's high-water mark; the kernel keeps the largest waited-for child's.
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    notes = []
    if peak is not None and kids > peak:
        notes.append(f"peak RSS is a subprocess's ({kids:.0f} MB; this process {peak:.0f} MB)")
        peak = kids
    res: dict[str, Any] = {
        "extra_notes": notes,
        "samples": samples,
        "cpu_samples": cpus,
        "nbytes": m.nbytes,
        "rss_base_mb": rss_base,
        "rss_peak_mb": peak,
        "peak_reset": peak_reset,
        "resident_before": (sum(resident) / len(resident)) if resident else None,
    }
    if m.finish is not None:
        m.finish()
    res["sync_seconds"] = _sync_seconds(m.output) if case["store"] != "memory" else None
    if m.output is not None:
        res["output"] = str(m.output)
    if m.checksum is not None:
        m.setup()
        res["checksum"] = m.checksum()
    return res


def main(argv: list[str]) -> int:
    case = json.loads(Path(argv[0]).read_text())
    result = run_case(case)
    Path(argv[1]).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
