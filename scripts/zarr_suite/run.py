"""Runs zarr-python's own test suite (the tests/ of its source release on
PyPI, for the zarr-python installed here) with its default codec pipeline
and with turbozarr's, and compares them test by test.

    python scripts/zarr_suite/run.py              # both runs, then compare
    python scripts/zarr_suite/run.py --baseline   # turbozarr's run only
    python scripts/zarr_suite/run.py --only turbozarr -- -k sharding

A test that passes on the default pipeline must pass on turbozarr's unless
scripts/zarr_suite/known_differences.txt lists it with the reason; the run
fails otherwise, and also when a listed test no longer differs (so the list
stays true). The counts are printed and written to <work>/summary.txt.

--baseline (what `make test` runs) saves the default pipeline's run: the
tests that do not pass with it are in scripts/zarr_suite/default_failures.txt
(rewritten by a full run with --update-baseline), and every other test that
turbozarr's run does not pass must be a known difference.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
KNOWN = HERE / "known_differences.txt"
DEFAULT_FAILURES = HERE / "default_failures.txt"


def source_tree(work: Path, version: str) -> Path:
    """zarr-python's source release for `version`, fetched once."""
    tree = work / f"zarr-{version}"
    if (tree / "tests").is_dir():
        return tree
    work.mkdir(parents=True, exist_ok=True)
    archive_path = work / f"zarr-{version}.tar.gz"
    if not archive_path.is_file():
        fetch_sdist(version, archive_path)
    with tarfile.open(archive_path) as archive:
        archive.extractall(work, filter="data")
    return tree


def fetch_sdist(version: str, target: Path) -> None:
    """The sdist file itself, from the package index's JSON listing (PEP 691),
    checked against the sha256 the index gives. Not `pip download
    --no-binary`, which builds the release's metadata in an isolated build
    environment first: three minutes of installing hatchling on a machine
    with an empty pip cache, for a file it then only unpacks. Falls back to
    pip where the index does not answer in JSON."""
    name = target.name
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    request = urllib.request.Request(
        f"{index}/zarr/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            files = json.load(answer)["files"]
        (entry,) = [f for f in files if f["filename"] == name]
        with urllib.request.urlopen(urllib.parse.urljoin(f"{index}/zarr/", entry["url"]),
                                    timeout=300) as answer:
            data = answer.read()
    except (OSError, ValueError, KeyError) as err:
        print(f"zarr_suite: the index's JSON listing failed ({err}); asking pip")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--no-binary", ":all:", f"zarr=={version}", "-d", str(target.parent)],
                       check=True)
        return
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["hashes"]["sha256"]:
        raise SystemExit(f"zarr_suite: {name} from {index} has sha256 {digest}, "
                         f"the index lists {entry['hashes']['sha256']}")
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)


def entry_point_dir(work: Path) -> Path:
    """A directory that declares turbozarr's `zarr.codec_pipeline` entry point,
    as an installed turbozarr does, so that every process of the run (the
    children that tests start with spawn or forkserver too) finds the
    pipeline by name, not only the one the plugin is loaded in."""
    site = work / "entry-points"
    info = site / "turbozarr_source_tree-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: turbozarr-source-tree\n"
                                   "Version: 0\n")
    (info / "entry_points.txt").write_text(
        "[zarr.codec_pipeline]\nturbozarr = turbozarr._zarr_entry_point:ZarrCodecPipeline\n")
    return site


def run_suite(tree: Path, pipeline: str, report: Path, jobs: int,
              extra: list[str]) -> float:
    env = dict(os.environ)
    paths = [str(REPO / "python")]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests",
               "--ignore=tests/benchmarks", f"--junitxml={report}", "-o",
               "addopts=--benchmark-disable --doctest-modules "
               "--ignore=tests/test_regression/scripts --ignore=src/zarr/_cli"]
    if jobs > 1:
        command += ["-n", str(jobs)]
    if pipeline == "turbozarr":
        paths += [str(HERE), str(entry_point_dir(report.parent))]
        command += ["-p", "turbozarr_pipeline_plugin"]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    started = time.monotonic()
    subprocess.run(command + extra, cwd=tree, env=env, check=False)
    return time.monotonic() - started


def outcomes(report: Path) -> dict[str, str]:
    """test id -> passed, failed, skipped or error."""
    result = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        state = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                state = {"failure": "failed"}.get(child.tag, child.tag)
        result[name] = state
    return result


def known_differences() -> dict[str, str]:
    """Listed test ids (a prefix ending in '*' lists every test it starts) and
    their reasons."""
    known = {}
    for line in KNOWN.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            test, _, reason = line.partition(" -- ")
            known[test.strip()] = reason.strip()
    return known


def listed(test: str, known: dict[str, str]) -> str | None:
    for pattern in known:
        if test == pattern or (pattern.endswith("*") and test.startswith(pattern[:-1])):
            return pattern
    return None


def compare(default: dict[str, str], ours: dict[str, str], summary: Path,
            default_label: str = "default pipeline") -> int:
    known = known_differences()
    count = lambda runs, s: sum(1 for v in runs.values() if v == s)  # noqa: E731
    lines = [f"{'':28}{'passed':>8}{'failed':>8}{'error':>8}{'skipped':>8}"]
    for label, runs in ((default_label, default), ("turbozarr pipeline", ours)):
        lines.append(f"{label:28}" + "".join(
            f"{count(runs, s):8}" for s in ("passed", "failed", "error", "skipped")))
    regressions = sorted(t for t, s in default.items()
                         if s == "passed" and ours.get(t, "missing") != "passed")
    unexplained = [t for t in regressions if listed(t, known) is None]
    used = {listed(t, known) for t in regressions}
    stale = sorted(p for p in known if p not in used)
    lines.append(f"passing with the default pipeline, not with turbozarr's: "
                 f"{len(regressions)} ({len(regressions) - len(unexplained)} listed "
                 f"in {KNOWN.name})")
    lines += [f"  UNEXPLAINED {t}: {ours.get(t, 'missing')}" for t in unexplained]
    lines += [f"  STALE entry (no longer differs) {p}" for p in stale]
    text = "\n".join(lines)
    print(text)
    summary.write_text(text + "\n")
    return 1 if unexplained or stale else 0


def default_from_baseline(ours: dict[str, str]) -> dict[str, str]:
    """The default pipeline's outcomes as the saved baseline gives them: every
    test of this run passes there, except those listed."""
    failing = {line.strip() for line in DEFAULT_FAILURES.read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    return {t: ("failed" if t in failing else "passed") for t, s in ours.items()
            if s != "skipped"}


def save_baseline(default: dict[str, str], version: str) -> None:
    failing = sorted(t for t, s in default.items() if s in ("failed", "error"))
    DEFAULT_FAILURES.write_text(
        f"# Tests of zarr-python {version}'s suite that do not pass with its default\n"
        "# codec pipeline on this machine (scripts/zarr_suite/run.py --update-baseline).\n"
        + "".join(t + "\n" for t in failing))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=REPO / "build" / "zarr-python-suite")
    parser.add_argument("--only", choices=["default", "turbozarr"])
    parser.add_argument("--baseline", action="store_true",
                        help="run turbozarr's pipeline only, against default_failures.txt")
    parser.add_argument("--update-baseline", action="store_true",
                        help="rewrite default_failures.txt from the default run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    version = importlib.metadata.version("zarr")
    tree = source_tree(args.work, version)
    if args.baseline:
        args.only = "turbozarr"
    reports = {}
    for pipeline in ("default", "turbozarr"):
        if args.only in (None, pipeline):
            reports[pipeline] = args.work / f"{pipeline}.xml"
            seconds = run_suite(tree, pipeline, reports[pipeline], args.jobs,
                                args.pytest_args)
            print(f"zarr-python {version} suite, {pipeline} pipeline: {seconds:.0f} s")
    if args.baseline:
        ours = outcomes(reports["turbozarr"])
        return compare(default_from_baseline(ours), ours, args.work / "summary.txt",
                       "default (saved baseline)")
    if args.only is not None:
        return 0
    default = outcomes(reports["default"])
    if args.update_baseline:
        save_baseline(default, version)
    return compare(default, outcomes(reports["turbozarr"]), args.work / "summary.txt")


if __name__ == "__main__":
    sys.exit(main())
