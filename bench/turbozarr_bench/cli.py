"""turbozarr-bench: `run EXPERIMENT.toml [--list]` and `report RESULTS.csv [-o OUT] [--open]`.

There are no tuning flags: everything that shapes an experiment is in its
file, so the file committed next to a CSV is the whole recipe. --list is the
dry run, not a setting.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="turbozarr-bench", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run an experiment file")
    run.add_argument("experiment", type=Path)
    run.add_argument("--list", action="store_true",
                     help="print datasets, implementations, environments and cases, then exit")
    rep = sub.add_parser("report", help="write the HTML report of a results CSV")
    rep.add_argument("results", type=Path)
    rep.add_argument("-o", "--output", type=Path,
                     help="HTML file (default: RESULTS.html); a .md name writes a Markdown "
                          "summary instead")
    rep.add_argument("--open", action="store_true", help="open the report in a browser")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "run":
        return _run(args.experiment, args.list)
    return _report(args.results, args.output, args.open)


def _run(path: Path, list_only: bool) -> int:
    from turbozarr_bench import ome_runner, sparse_runner, vcz_runner
    from turbozarr_bench.config import suite_of

    # Workloads D, E and F have runners of their own.
    own = {"vcz": vcz_runner, "ome": ome_runner, "sparse": sparse_runner}.get(suite_of(path))
    if own is not None:
        return own.run(path, list_only)
    from turbozarr_bench.config import ConfigError, load
    from turbozarr_bench.results_csv import SchemaError
    from turbozarr_bench.runner import Runner

    try:
        exp = load(path)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    runner = Runner(exp)
    if list_only:
        print(runner.describe())
        return 0
    try:
        rows = runner.run()
    except SchemaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print()
    print(runner.table(rows))
    from turbozarr_bench.table import checksum_audit

    marks = checksum_audit(rows)
    mismatched = sum(m == "mismatch" for m in marks)
    own_failed = sum(r["status"] == "failed" and r["impl"].startswith("turbozarr") for r in rows)
    print()
    print(f"{len(rows)} rows: " + ", ".join(
        f"{sum(r['status'] == s for r in rows)} {s}"
        for s in ("ok", "unsupported", "unavailable", "failed")))
    print(f"results: {exp.output}   report: turbozarr-bench report {exp.output}")
    if mismatched:
        print(f"{mismatched} rows disagree with their cell's checksum majority", file=sys.stderr)
    # A peer failing is a finding to read in the table; turbozarr failing, or
    # anything returning other bytes than the rest, fails the command.
    return 1 if (mismatched or own_failed) else 0


def _report(results: Path, output: Path | None, open_it: bool) -> int:
    from turbozarr_bench.report_html import write_report
    from turbozarr_bench.results_csv import SchemaError

    out = output or results.with_suffix(".html")
    try:
        if out.suffix == ".md":
            from turbozarr_bench.results_csv import read_rows
            from turbozarr_bench.table import render_markdown

            rows = read_rows(results)
            latest = rows[-1]["run_id"] if rows else ""
            out.write_text(render_markdown([r for r in rows if r["run_id"] == latest],
                                           "zarr-python"))
        else:
            write_report(results, out)
    except SchemaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    if open_it:
        import webbrowser

        webbrowser.open(out.resolve().as_uri())
    return 0


if __name__ == "__main__":
    sys.exit(main())
