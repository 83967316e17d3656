"""The results CSV: one schema, one row per case, runs append.

The machine, the versions and the load average are repeated on every row, so
one file answers cross-run questions without joins. Axis columns hold labels
(dataset `a-lz4-200`, threads `all`), the same tokens a config uses. A file
whose header differs from this schema is refused, never appended to: rows
under the wrong header would be read as the wrong measurements. Reading (for
reports) also accepts the header of an earlier version of this schema, the
columns added since then reading empty.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path
from typing import Any, Iterable

COLUMNS = [
    # what ran
    "run_id", "timestamp", "experiment", "kind", "op", "dataset", "workload", "impl",
    "variant", "store", "threads", "nthreads", "cache", "status", "reason",
    # timing (seconds)
    "seconds", "seconds_mad", "seconds_min", "seconds_max", "repeats", "warmup", "samples",
    "cpu_seconds", "cpu_per_wall",
    # volume; wire_* for store = http: the bytes the server sent per read (stored
    # bytes as they went over the wire) and their rate in MB/s (10^6 bytes)
    "nbytes", "stored_bytes", "gbps", "wire_bytes", "wire_mbps",
    # the emulated link (store = http): its latency and per-connection bandwidth,
    # the server's requests per read and peak connections, and link_pct = wire_mbps
    # over the per-connection bandwidth, in percent
    "latency_ms", "link_mbps", "requests", "peak_connections", "link_pct",
    # memory (MB = 2**20 bytes)
    "rss_import_mb", "rss_base_mb", "rss_peak_mb",
    # conditions and audit
    "resident_before", "sync_seconds", "checksum", "reference_checksum",
    # provenance
    "versions", "env", "fixture_writer", "machine", "cpu_model", "ncpu", "mem_gb", "kernel",
    "python", "loadavg", "note",
]

STATUSES = ("ok", "unsupported", "unavailable", "failed")

# Headers of earlier versions of the schema, readable (not appendable).
ADDED_FOR_HTTP = ("wire_bytes", "wire_mbps", "latency_ms", "link_mbps", "requests",
                  "peak_connections", "link_pct")
EARLIER = [[c for c in COLUMNS if c not in ADDED_FOR_HTTP]]


class SchemaError(ValueError):
    """A CSV whose header is not this schema's."""


def read_header(path: Path) -> list[str] | None:
    if not path.exists() or path.stat().st_size == 0:
        return None
    with open(path, newline="") as f:
        return next(csv.reader(f), None)


def is_older_schema(header: list[str] | None) -> bool:
    """True for the header of results written by an earlier version: our
    columns minus some added since, in order, and at least half of ours."""
    return (bool(header) and header != COLUMNS and 2 * len(header) >= len(COLUMNS)
            and [c for c in COLUMNS if c in header] == header)


def check_header(path: Path) -> None:
    """Raises SchemaError if `path` exists with another header (a file of
    an older schema passes: Appender sets it aside)."""
    header = read_header(path)
    if header is None or is_older_schema(header):
        return
    if header != COLUMNS:
        missing = [c for c in COLUMNS if c not in header]
        extra = [c for c in header if c not in COLUMNS]
        detail = []
        if missing:
            detail.append(f"missing {', '.join(missing)}")
        if extra:
            detail.append(f"unexpected {', '.join(extra)}")
        if not detail:
            detail.append("columns in another order")
        raise SchemaError(f"{path} has a different header ({'; '.join(detail)}); "
                          f"refusing to append - name another output in the experiment file")


def set_aside_older_schema(path: Path) -> Path | None:
    """When `path` holds results of an older schema (is_older_schema),
    renames it to
    `<stem>.before-<time>.csv` beside it, so that a run after an upgrade
    starts a fresh file and loses nothing; answers the new name. Any other
    header is left for check_header to refuse."""
    if not is_older_schema(read_header(path)):
        return None
    aside = path.with_name(f"{path.stem}.before-{time.strftime('%Y%m%d-%H%M%S')}.csv")
    path.rename(aside)
    return aside


class Appender:
    """Appends rows to `path`, writing the header first if the file is new.
    A file of an older results schema is set aside (set_aside_older_schema)
    with a note on stderr; a file with any other header is refused."""

    def __init__(self, path: Path):
        self.path = Path(path)
        aside = set_aside_older_schema(self.path)
        if aside is not None:
            print(f"note: {self.path} has the columns of an older version; "
                  f"kept as {aside.name}, starting a new file", file=sys.stderr)
        check_header(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = read_header(self.path) is None
        self._f = open(self.path, "a", newline="")
        self._w = csv.DictWriter(self._f, fieldnames=COLUMNS, extrasaction="raise")
        if new:
            self._w.writeheader()
            self._f.flush()

    def write(self, row: dict[str, Any]) -> None:
        unknown = set(row) - set(COLUMNS)
        if unknown:
            raise ValueError(f"not columns of the results schema: {sorted(unknown)}")
        self._w.writerow({c: _cell(row.get(c)) for c in COLUMNS})
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "Appender":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def read_rows(path: Path) -> list[dict[str, str]]:
    """All rows of a results CSV, checking its header (this schema's or an
    earlier version's, whose missing columns read as empty)."""
    path = Path(path)
    header = read_header(path)
    if header is None:
        raise SchemaError(f"{path} is empty or missing")
    if header not in EARLIER:
        check_header(path)
    with open(path, newline="") as f:
        return [{c: r.get(c, "") for c in COLUMNS} for r in csv.DictReader(f)]


def write_rows(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    with Appender(path) as a:
        for r in rows:
            a.write(r)


def append_rows(path: Path, rows: Iterable[dict[str, Any]], columns: list[str]) -> None:
    """Appends `rows` to the CSV at `path` (its header `columns` written
    when the file is new): the results file of a suite with its own columns
    (workloads D and E)."""
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        if new:
            w.writeheader()
        w.writerows(rows)


def timing_columns(runs: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The columns every suite gives a side's runs: how many, the median
    seconds (`seconds`), the median CPU seconds and the largest peak RSS."""
    import statistics

    return {"runs": len(runs), "seconds": round(seconds, 6),
            "cpu": round(statistics.median(r["cpu"] for r in runs), 6),
            "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1)}


def side_line(name: str, rows: list[dict[str, Any]], width: int,
              extra: Any = None) -> str:
    """One case's progress line: each side's median seconds (DIFFERS when
    its output does not agree, then `extra(row)` if given), or its status
    when it did not run; sides unavailable here are left out."""
    parts = []
    for r in rows:
        if r["status"] == "ok" and r["seconds"] != "":
            parts.append(f"{r['impl']} {r['seconds']:.4f} s" + ("" if r["agrees"] else " DIFFERS")
                         + (extra(r) if extra else ""))
        elif r["status"] != "unavailable":
            parts.append(f"{r['impl']} {r['status']}")
    return f"  {name:<{width}} " + "  ".join(parts)


def finish_run(output: Path, rows: list[dict[str, Any]], columns: list[str], table: str,
               failed: int, log: Any) -> int:
    """Appends a run's rows to its CSV, logs its Markdown `table` and the
    CSV's path; the exit status: 1 when a case failed or disagreed."""
    append_rows(output, rows, columns)
    log("")
    log(table)
    log(f"results: {output}")
    return 1 if failed else 0
