"""The driver: trials run in long-lived worker processes, the parent holds
each to a deadline, and the outcomes are counted into the table.

A trial is a seed. The seed picks the layout, the read path and the kind
of damage (round robin over every combination, so any range of seeds
covers them evenly) and, through random.Random(seed), the key, the bytes
and the read's selection. The same seed with the same layouts, paths and
interpreter is the same trial: `--replay SEED` runs it again and prints
what it did.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import queue
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import damage as damage_mod
from . import layouts as layouts_mod
from . import readers as readers_mod

OUTCOMES = ("correct", "error_key", "error_other", "missing_fill", "silent",
            "unexpected", "crash", "hang")
OUTCOME_TITLES = {
    "correct": "correct",
    "error_key": "error naming the key",
    "error_other": "other clean error",
    "missing_fill": "missing→fill",
    "silent": "silently wrong",
    "unexpected": "unexpected exception",
    "crash": "crash",
    "hang": "hang",
}
DEFAULT_TIMEOUT = 20.0
DOC_BEGIN = "<!-- integrity-table:begin -->"
DOC_END = "<!-- integrity-table:end -->"


# -- what a seed means ---------------------------------------------------------------

@dataclass(frozen=True)
class Combo:
    layout: str
    path: str
    kind: str


def selected_layouts(names: list[str] | None) -> list[layouts_mod.Layout]:
    every = layouts_mod.all_layouts()
    if not names:
        return every
    unknown = set(names) - {lay.name for lay in every}
    if unknown:
        raise SystemExit(f"unknown layouts: {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(lay.name for lay in every)}")
    return [lay for lay in every if lay.name in names]


def combos(layouts: list[layouts_mod.Layout], cli: str | None) -> list[Combo]:
    """Every (layout, path, kind), in the order seeds take them: the
    (layout, path) pairs first, then again with the next kind of damage,
    so that any run of as many seeds as there are pairs reads every
    layout through every path, and six times as many meet every
    combination once."""
    pairs = [(lay.name, reader.name) for lay in layouts
             for reader in readers_mod.readers_for(lay.kind, lay.zip, cli)]
    return [Combo(layout, path, kind) for kind in damage_mod.KINDS for layout, path in pairs]


def combo_of(seed: int, table: list[Combo]) -> Combo:
    return table[seed % len(table)]


# -- classification ---------------------------------------------------------------------

# Besides turbozarr's own: the built-in families its errors derive from,
# the binary's refusals, and zipfile's (zarr-python's ZipStore reads
# archives with it).
CLEAN_ERRORS: tuple[type, ...] = (ValueError, LookupError, OSError, NotImplementedError,
                                  readers_mod.CommandError, zipfile.BadZipFile)


def _clean_types() -> tuple[type, ...]:
    from turbozarr.errors import TurbozarrError
    return CLEAN_ERRORS + (TurbozarrError,)


def same(got: Any, want: Any) -> bool:
    """Equal, bit for bit (NaN payloads and -0.0 count), in type and shape."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and \
            all(same(got[k], want[k]) for k in want)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and \
            all(same(g, w) for g, w in zip(got, want))
    if isinstance(want, (str, bytes)):
        return type(got) is type(want) and got == want
    if hasattr(want, "tocsr"):  # scipy sparse
        if not hasattr(got, "tocsr") or got.shape != want.shape or got.dtype != want.dtype:
            return False
        g, w = got.tocsr(), want.tocsr()
        g.sort_indices()
        w.sort_indices()
        return (np.array_equal(g.indptr, w.indptr) and np.array_equal(g.indices, w.indices)
                and same(np.asarray(g.data), np.asarray(w.data)))
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype != w.dtype or g.shape != w.shape:
        return False
    if w.dtype.kind in "OTU":
        return g.tolist() == w.tolist()
    return np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(w).tobytes()


def only_fill_differs(got: Any, want: Any, fill: Any) -> bool:
    """Whether every element that differs holds the fill value: what a
    missing chunk reads as. A text answer (a VCF) cannot say which values
    it came from, so a changed text counts as filled."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and \
            all(only_fill_differs(got[k], want[k], fill) for k in want)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and \
            all(only_fill_differs(g, w, fill) for g, w in zip(got, want))
    if isinstance(want, str):
        return isinstance(got, str)
    if hasattr(want, "tocsr"):
        return False
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype != w.dtype or g.shape != w.shape:
        return False
    if same(g, w):
        return True
    if w.dtype.kind in "OTU":
        differ = np.array([a != b for a, b in zip(g.ravel().tolist(), w.ravel().tolist())])
        return all(v == (fill or "") for v in np.asarray(g.ravel().tolist(), dtype=object)[differ])
    size = w.dtype.itemsize
    as_bytes = f"V{size}"
    gv = np.ascontiguousarray(g).view(as_bytes).ravel()
    wv = np.ascontiguousarray(w).view(as_bytes).ravel()
    differ = gv != wv
    if fill is None:
        fill = 0
    try:
        f = np.array(float("nan") if fill == "NaN" else fill, dtype=w.dtype).view(as_bytes)
    except (TypeError, ValueError, OverflowError):
        return False
    return bool((gv[differ] == f).all())


def classify(built: layouts_mod.Built, d: damage_mod.Damage, got: Any, want: Any,
             error: BaseException | None) -> tuple[str, str]:
    """(outcome, detail): the error's type and message, or what differed."""
    if error is not None:
        text = f"{type(error).__name__}: {str(error)[:300]}"
        if isinstance(error, readers_mod.ChildCrashed):
            return "crash", text
        if isinstance(error, readers_mod.ChildHung):
            return "hang", text
        if not isinstance(error, _clean_types()) or not str(error).strip():
            return "unexpected", f"[{origin(error)}] {text}"
        message = str(error)
        named = any(k in message for k in d.keys())
        if d.target == "meta":
            # A metadata document is named by its node: "array 'a' in ...".
            node = d.key.rpartition("/")[0] or "/"
            named = named or f"'{node}'" in message
        if built.layout.zip and (d.kind == "truncate" or d.target == "index"):
            named = named or built.root.name in message
        return ("error_key" if named else "error_other"), text
    if same(got, want):
        return "correct", ""
    # A deleted chunk, or one whose name a damaged zip directory lost, is
    # missing: what reads as its array's fill value is what the format says.
    if d.kind == "delete" and d.target == "chunk":
        fills = [built.fills.get(damage_mod.array_of(d.key))]
    elif built.layout.zip and d.target == "index":
        fills = list(built.fills.values())
    else:
        fills = []
    if any(only_fill_differs(got, want, fill) for fill in fills):
        return "missing_fill", ""
    return "silent", _difference(got, want)


PEERS = ("zarr-python", "numcodecs", "zipfile")


def origin(error: BaseException) -> str:
    """Whose code raised `error`, by its innermost frame: turbozarr's, a
    peer's (zarr-python, numcodecs, the standard library's zipfile, which
    zarr-python's ZipStore reads with) or the campaign's own."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename.replace(os.sep, "/"))
        tb = tb.tb_next
    for path in reversed(frames):
        if "numcodecs/" in path:
            return "numcodecs"
        if "/zarr/" in path:
            return "zarr-python"
        if path.endswith("/zipfile.py") or "/zipfile/" in path:
            return "zipfile"
        if "/turbozarr/" in path:
            return "turbozarr"
        if "/integrity/" in path:
            return "campaign"
    return "turbozarr"


def _difference(got: Any, want: Any) -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        differ = sorted(k for k in want.keys() | got.keys()
                        if k not in got or k not in want or not same(got[k], want[k]))
        return "differs in " + ", ".join(differ[:5])
    if isinstance(want, np.ndarray) and isinstance(got, np.ndarray):
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}"
        return "elements differ"
    return f"got a different {type(want).__name__}"


# -- the worker ---------------------------------------------------------------------------

def worker_main(args: argparse.Namespace) -> None:
    """Runs trials named on standard input, one JSON line each; answers on
    what was standard output (standard output itself goes to standard
    error, so that nothing else can write into the answers)."""
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    work = Path(args.worker_dir)
    served = work / "layouts"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(args.pristine, served)
    scratch = work / "scratch"
    scratch.mkdir()
    layouts = selected_layouts(args.layouts)
    built = {lay.name: layouts_mod.load(served, lay) for lay in layouts}
    url, stop = readers_mod.serve(served)
    ctx = readers_mod.Context(url, served, scratch, args.cli, args.timeout)
    table = combos(layouts, args.cli)
    answers.write(json.dumps({"ready": len(table)}) + "\n")
    try:
        for line in sys.stdin:
            message = json.loads(line)
            if "seed" not in message:
                break
            seed = int(message["seed"])
            answers.write(json.dumps(run_trial(seed, table, built, ctx, answers)) + "\n")
    finally:
        stop()


def run_trial(seed: int, table: list[Combo], built: dict[str, layouts_mod.Built],
              ctx: readers_mod.Context, answers=None) -> dict[str, Any]:
    combo = combo_of(seed, table)
    b = built[combo.layout]
    reader = next(r for r in readers_mod.readers_for(b.layout.kind, b.layout.zip, ctx.cli)
                  if r.name == combo.path)
    rng = random.Random(seed)
    d = damage_mod.apply(b, combo.kind, rng)
    record = {"seed": seed, "layout": combo.layout, "path": combo.path, "kind": combo.kind,
              "target": d.target, "key": d.key, "other_key": d.other_key, "damage": d.detail}
    if answers is not None:  # so that a crash still says what the trial did
        answers.write(json.dumps({"start": record}) + "\n")
        _self_test(seed)
    try:
        got = want = error = None
        try:
            got, want = reader.read(ctx, b, d, rng)
        except Exception as e:  # noqa: BLE001 (every exception is an answer to classify)
            error = e
        outcome, detail = classify(b, d, got, want, error)
    finally:
        d.restore()
    record.update(outcome=outcome, detail=detail)
    return record


def _self_test(seed: int) -> None:
    """TURBOZARR_INTEGRITY_SELF_TEST="crash=3,hang=6": the worker dies of
    SIGSEGV in trial 3 and stops answering in trial 6, so that the test of
    the campaign can see both counted."""
    spec = os.environ.get("TURBOZARR_INTEGRITY_SELF_TEST", "")
    plan = dict(part.split("=") for part in spec.split(",") if "=" in part)
    if plan.get("crash") == str(seed):
        os.kill(os.getpid(), signal.SIGSEGV)
    if plan.get("hang") == str(seed):
        time.sleep(3600)


# -- the parent ---------------------------------------------------------------------------

class Worker:
    """One worker process, restarted after a crash or a hang."""

    def __init__(self, number: int, args: argparse.Namespace, work: Path):
        self.number = number
        self.args = args
        self.work = work
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.restarts = 0
        self.log = work / f"worker{number}.log"

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parents[1])]
            + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
        command = [sys.executable, "-m", "integrity", "worker", "--pristine", str(self.args.pristine),
                   "--worker-dir", str(self.work / f"w{self.number}"), "--timeout", str(self.args.timeout)]
        if self.args.cli:
            command += ["--cli", self.args.cli]
        if self.args.layouts:
            command += ["--layouts", *self.args.layouts]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(self.log, "ab"), env=env)
        self.buffer = b""
        ready = self._line(time.monotonic() + 600)
        if ready is None or "ready" not in ready:
            raise RuntimeError(f"worker {self.number} did not start: see {self.log}\n"
                               + self._log_tail())

    def _log_tail(self) -> str:
        try:
            return self.log.read_bytes()[-1500:].decode(errors="replace")
        except OSError:
            return ""

    def _line(self, deadline: float) -> dict | None:
        """The next answer, or None at end of file or past the deadline
        (then self.timed_out)."""
        self.timed_out = False
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.timed_out = True
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def trial(self, seed: int, table: list[Combo]) -> dict[str, Any]:
        if self.proc is None:
            self.start()
        combo = combo_of(seed, table)
        record: dict[str, Any] = {"seed": seed, "layout": combo.layout, "path": combo.path,
                                  "kind": combo.kind, "target": "?", "key": "?", "damage": ""}
        self.proc.stdin.write(json.dumps({"seed": seed}).encode() + b"\n")
        self.proc.stdin.flush()
        began = time.monotonic()
        deadline = began + self.args.timeout
        while True:
            answer = self._line(deadline)
            if answer is None:
                break
            if "start" in answer:
                record.update(answer["start"])
                continue
            answer["seconds"] = round(time.monotonic() - began, 4)
            return answer
        # No answer: a hang (past the deadline) or a crash (the pipe closed).
        if self.timed_out:
            self.proc.kill()
            self.proc.wait()
            record.update(outcome="hang", detail=f"no answer within {self.args.timeout:g} s")
        else:
            status = self.proc.wait()
            how = f"signal {-status}" if status < 0 else f"exit status {status}"
            record.update(outcome="crash", detail=f"the worker died ({how}): {self._log_tail()[-600:]}")
        self.proc = None
        self.restarts += 1
        return record

    def stop(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.write(b'{"quit": true}\n')
                self.proc.stdin.flush()
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def run_campaign(args: argparse.Namespace, seeds: list[int],
                 progress: bool = True) -> tuple[list[dict], list[Combo], float]:
    """Runs `seeds` on args.jobs workers; returns the records (in seed
    order), the combinations and the wall time."""
    layouts = selected_layouts(args.layouts)
    table = combos(layouts, args.cli)
    work = Path(args.workdir)
    todo: queue.Queue = queue.Queue()
    for s in seeds:
        todo.put(s)
    records: list[dict] = []
    lock = threading.Lock()
    failures: list[BaseException] = []
    started = time.monotonic()
    step = max(1, len(seeds) // 20)

    def drive(worker: Worker) -> None:
        try:
            while True:
                try:
                    seed = todo.get_nowait()
                except queue.Empty:
                    return
                record = worker.trial(seed, table)
                with lock:
                    records.append(record)
                    done = len(records)
                if progress and done % step == 0:
                    rate = done / (time.monotonic() - started)
                    print(f"integrity: {done}/{len(seeds)} trials, {rate:.0f}/s", file=sys.stderr,
                          flush=True)
        except BaseException as e:  # noqa: BLE001 (reported by the caller)
            failures.append(e)
        finally:
            worker.stop()

    workers = [Worker(i, args, work) for i in range(args.jobs)]
    threads = [threading.Thread(target=drive, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    records.sort(key=lambda r: r["seed"])
    return records, table, time.monotonic() - started


def prepare(args: argparse.Namespace) -> None:
    """Builds the pristine layouts once (unless args.pristine holds them)."""
    if args.workdir is None:
        args.workdir = tempfile.mkdtemp(prefix="tz-integrity-")
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    if args.pristine is None:
        args.pristine = str(Path(args.workdir) / "pristine")
        layouts_mod.build_all(Path(args.pristine), selected_layouts(args.layouts))


# -- the table -------------------------------------------------------------------------------

def is_checked(layout: layouts_mod.Layout, detected: bool) -> bool:
    return layout.checksummed is True or detected


def is_bad(record: dict, checksums: dict[str, bool]) -> bool:
    """A crash, a hang, an exception of an unexpected type raised by
    turbozarr (or the campaign), or a silently wrong read of a chunk or
    index of a checksummed layout (swaps aside: no per-chunk checksum can
    see them)."""
    if record["outcome"] in ("crash", "hang"):
        return True
    if record["outcome"] == "unexpected":
        # zarr-python's own metadata parsing, numcodecs and zipfile (under
        # the zarr-python path) are peers': counted, not turbozarr's to answer.
        return not record["detail"].startswith(tuple(f"[{p}]" for p in PEERS))
    return (record["outcome"] == "silent" and checksums.get(record["layout"], False)
            and record["kind"] != "swap" and record["target"] in ("chunk", "index"))


def _row(counter: collections.Counter, columns=OUTCOMES) -> list[str]:
    return [f"{counter[o]:,}" for o in columns]


def _outcome_table(title: str, first: str, rows: list[tuple[str, collections.Counter]]) -> list[str]:
    cols = [OUTCOME_TITLES[o] for o in OUTCOMES]
    out = [title, "", f"| {first} | trials | " + " | ".join(cols) + " |",
           "|---|---:|" + "---:|" * len(cols)]
    for name, c in rows:
        out.append(f"| {name} | {sum(c.values()):,} | " + " | ".join(_row(c)) + " |")
    return out + [""]


def markdown(records: list[dict], layouts: list[layouts_mod.Layout],
             detected: dict[str, bool], header: str) -> str:
    by_layout: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_kind: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    by_path: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    swaps: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    meta: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    unnamed: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in records:
        o = r["outcome"]
        if o in ("error_other", "unexpected"):
            unnamed[r["detail"].split(":", 1)[0].replace("[", "(").replace("]", ")")][r["layout"]] += 1
        if r["kind"] == "swap":
            swaps[r["layout"]][o] += 1
        elif r["target"] == "meta":
            meta[r["layout"]][o] += 1
        else:
            by_layout[r["layout"]][o] += 1
            by_kind[(r["layout"], r["kind"])][o] += 1
            by_path[r["path"]][o] += 1
    out = [header, "", "| layout | checksummed | what it is |", "|---|---|---|"]
    for lay in layouts:
        check = "yes" if is_checked(lay, detected[lay.name]) else "no"
        out.append(f"| {lay.name} | {check} | {lay.note} |")
    out.append("")
    out += _outcome_table("Damage to chunks and indexes (exchanged chunks and metadata below):",
                          "layout", [(lay.name, by_layout[lay.name]) for lay in layouts])
    out.append("Silently wrong reads per kind of damage (silently wrong / trials), chunks and indexes:")
    out.append("")
    kinds = [k for k in damage_mod.KINDS if k != "swap"]
    out.append("| layout | " + " | ".join(kinds) + " | silent rate |")
    out.append("|---|" + "---:|" * (len(kinds) + 1))
    for lay in layouts:
        cells = []
        for k in kinds:
            c = by_kind[(lay.name, k)]
            cells.append(f"{c['silent']:,} / {sum(c.values()):,}")
        total = by_layout[lay.name]
        n = sum(total.values())
        cells.append(f"{100.0 * total['silent'] / n:.2f}%" if n else "-")
        out.append(f"| {lay.name} | " + " | ".join(cells) + " |")
    out.append("")
    out += _outcome_table("Two chunks of one array exchanged (both valid: no per-chunk checksum sees it):",
                          "layout", [(lay.name, swaps[lay.name]) for lay in layouts])
    out += _outcome_table("Metadata documents damaged (Zarr keeps no checksum of its metadata):",
                          "layout", [(lay.name, meta[lay.name]) for lay in layouts])
    out.append("Errors that do not name the damaged key (every target), by type:")
    out.append("")
    out.append("| error | trials | layouts |")
    out.append("|---|---:|---|")
    for kind, per_layout in sorted(unnamed.items(), key=lambda kv: -sum(kv[1].values())):
        where = ", ".join(f"{name} {n:,}" for name, n in per_layout.most_common())
        out.append(f"| {kind} | {sum(per_layout.values()):,} | {where} |")
    out.append("")
    out += _outcome_table("By read path (chunks and indexes, every layout it applies to):",
                          "path", sorted(by_path.items()))
    return "\n".join(out) + "\n"


def bad_report(bad: list[dict], limit: int = 30) -> str:
    lines = []
    for r in bad[:limit]:
        lines.append(f"  seed {r['seed']}: {r['outcome']} - {r['layout']} / {r['path']} / "
                     f"{r['kind']} of {r['target']} '{r['key']}' ({r['damage']}): {r.get('detail', '')[:300]}")
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more")
    return "\n".join(lines)


def write_doc(path: Path, text: str) -> None:
    doc = path.read_text()
    if DOC_BEGIN not in doc or DOC_END not in doc:
        raise SystemExit(f"{path} has no {DOC_BEGIN} ... {DOC_END} markers")
    before, rest = doc.split(DOC_BEGIN, 1)
    _, after = rest.split(DOC_END, 1)
    path.write_text(before + DOC_BEGIN + "\n" + text + DOC_END + after)


def detected_checksums(args: argparse.Namespace, layouts: list[layouts_mod.Layout]) -> dict[str, bool]:
    return {lay.name: layouts_mod.load(Path(args.pristine), lay).checksum_detected for lay in layouts}


def versions() -> str:
    import turbozarr
    parts = [f"Python {platform.python_version()}", f"turbozarr {getattr(turbozarr, '__version__', '?')}"]
    try:
        import zarr
        parts.append(f"zarr-python {zarr.__version__}")
    except ImportError:
        pass
    try:
        git = ["git", "-C", str(layouts_mod.REPO)]
        commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        # The code measured, not the table being written: docs/ aside.
        changed = subprocess.run(git + ["diff", "--quiet", "HEAD", "--", ".", ":!docs"]).returncode
        parts.append(f"commit {commit}" + (" with uncommitted changes" if changed else ""))
    except (OSError, subprocess.CalledProcessError):
        pass
    return ", ".join(parts)


# -- the command --------------------------------------------------------------------------------

def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m integrity", description=__doc__)
    p.add_argument("mode", nargs="?", default="run", choices=["run", "worker"])
    p.add_argument("--trials", type=int, default=500)
    p.add_argument("--start", type=int, default=0, help="the first seed")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help="seconds a trial may take before it counts as a hang")
    p.add_argument("--layouts", nargs="*", help="only these layouts (default: all)")
    p.add_argument("--cli", default=os.environ.get("TURBOZARR_CLI") or
                   str(layouts_mod.REPO / "build" / "cli" / "turbozarr"))
    p.add_argument("--workdir", help="where layouts and workers live (default: a temporary directory)")
    p.add_argument("--pristine", help="layouts built already (by an earlier run)")
    p.add_argument("--worker-dir", help=argparse.SUPPRESS)
    p.add_argument("--replay", type=int, metavar="SEED", help="run one trial again and describe it")
    p.add_argument("--write-doc", type=Path, help="write the table into this file between the markers")
    p.add_argument("--records", type=Path, help="write every trial as a JSON line here")
    p.add_argument("--command", default="", help="the command to name in the table's heading")
    args = p.parse_args(argv)
    if args.cli and not os.path.isfile(args.cli):
        args.cli = None
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.mode == "worker":
        worker_main(args)
        return 0
    prepare(args)
    seeds = [args.replay] if args.replay is not None else list(range(args.start, args.start + args.trials))
    if args.replay is not None:
        args.jobs = 1
    records, table, seconds = run_campaign(args, seeds, progress=args.replay is None)
    layouts = selected_layouts(args.layouts)
    detected = detected_checksums(args, layouts)
    checks = {lay.name: is_checked(lay, detected[lay.name]) for lay in layouts}
    if args.replay is not None:
        print(json.dumps(records[0], indent=2))
        return 1 if is_bad(records[0], checks) else 0
    if args.records:
        with open(args.records, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    bad = [r for r in records if is_bad(r, checks)]
    when = datetime.date.today().isoformat()
    command = args.command or "python -m integrity --trials {:,}".format(len(seeds))
    header = (f"`{command}`, {when}: {len(seeds):,} trials (seeds {seeds[0]}-{seeds[-1]}, "
              f"{len(table)} combinations of layout, path and damage), {seconds / 60:.1f} min on "
              f"{args.jobs} workers; {versions()}.")
    text = markdown(records, layouts, detected, header)
    print(text)
    slowest = max(records, key=lambda r: r.get("seconds", 0.0))
    print(f"slowest trial: seed {slowest['seed']} ({slowest['layout']} / {slowest['path']} / "
          f"{slowest['kind']}), {slowest.get('seconds', 0.0):.2f} s")
    if bad:
        print(f"{len(bad)} bad trials (replay: python -m integrity --replay SEED):")
        print(bad_report(bad))
    if args.write_doc:
        write_doc(args.write_doc, text)
    return 1 if bad else 0
