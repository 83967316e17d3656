"""Timing shared by the stand-alone benchmark scripts beside it: functions
run interleaved, run by run, so that a machine's drift weighs on each alike."""

from __future__ import annotations

import statistics
import time


def median_ms(fns, repeats: int) -> list[float]:
    """Medians of `repeats` runs of each function (after one warm-up run of
    each), interleaved run by run, in milliseconds."""
    for f in fns:
        f()
    runs = [[] for _ in fns]
    for _ in range(repeats):
        for k, f in enumerate(fns):
            start = time.perf_counter()
            f()
            runs[k].append(time.perf_counter() - start)
    return [statistics.median(r) * 1e3 for r in runs]
