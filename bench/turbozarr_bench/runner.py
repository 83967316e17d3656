"""The parent: plans the cases, prepares data and environments, runs each case
in a child process, audits writes, appends CSV rows, prints the table.

A case is one point of dataset x op x impl x variant x store x threads x
cache. Before anything is installed or generated, every case is classified:

- n/a: the operation does not apply to the dataset (inner chunks of an
  unsharded array, a cold page cache for a memory store...). These are not a
  property of any implementation, so they are dropped, and --list says how
  many and why.
- unsupported: the adapter declares it cannot express the case; a row with
  the adapter's reason is written, so the gap reads as a gap.
- to run: a child process in the adapter's environment. It can still come
  back unsupported (found at run time), failed (raised; the exception is the
  reason), or, if its environment did not install, unavailable.

Ceiling rows (kind = ceiling) are measured per dataset in the same run.

Store "http": the fixture directory is served by tz_http_serve (see
http_server.py), started for the case and stopped after it; the row gets the
server's counts per read (wire bytes, requests) and its peak connections.
Writes to it are `unsupported` (the server is read-only), and a cold cache is
not applicable (the page cache is the server's; its files are kept warm so
the link, not the disk, is measured).

Store "s3": the fixture is uploaded to a moto S3 server (s3_server.py), one
per run, and each case reads it through a tz_tcp_throttle with the same
[http] link, started for the case; the row gets the throttle's bytes per read
and peak connections (it sees bytes, not requests). Writes and a cold cache
are left out as for "http".
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from turbozarr_bench import adapters, envs as envs_mod, http_server, s3_server, table
from turbozarr_bench.adapters.base import READ_OPS, WRITE_OPS
from turbozarr_bench.config import Experiment
from turbozarr_bench.datasets import DatasetSpec, Fixture, ensure, fixture_if_cached
from turbozarr_bench.measure import loadavg, summarize
from turbozarr_bench.results_csv import Appender, check_header

CEILING_THREADS = {"memcpy": "1", "pagecache": "all", "decode-1": "1", "decode-all": "all"}


@dataclass
class Case:
    kind: str  # "impl" or "ceiling"
    impl: str
    op: str
    dataset: DatasetSpec
    store: str
    threads: str
    nthreads: int
    cache: str
    options: dict[str, Any] = field(default_factory=dict)
    state: str = "run"  # "run", "unsupported", "na"
    reason: str = ""

    @property
    def variant(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.options.items()) if self.kind == "impl" \
            else str(self.options.get("ceiling", ""))

    def label(self) -> str:
        v = f"[{self.variant}]" if self.variant else ""
        return (f"{self.op} {self.dataset.name} {self.impl}{v} store={self.store} "
                f"threads={self.threads} cache={self.cache}")


def nthreads_of(label: Any) -> int:
    return (os.cpu_count() or 1) if str(label) == "all" else int(label)


def _variants(exp: Experiment, impl: str, store: str | None = None) -> list[dict[str, Any]]:
    """The option combinations of `impl` for a case on `store` (None: on any of
    the experiment's stores, for --list); an axis scoped to other stores is
    left out."""
    mod = adapters.load(impl)
    declared = getattr(mod, "OPTIONS", {})
    scoped = getattr(mod, "OPTION_STORES", {})
    chosen = exp.options.get(impl, {})
    stores = set(exp.stores) if store is None else {store}
    axes = [(k, chosen.get(k, [values[0]])) for k, values in declared.items()
            if k not in scoped or stores & set(scoped[k])]
    if not axes:
        return [{}]
    return [dict(zip([a[0] for a in axes], combo))
            for combo in itertools.product(*[a[1] for a in axes])]


def not_applicable(op: str, ds: DatasetSpec, store: str, cache: str) -> str:
    if ds.kind in ("vcz", "csr"):
        return (f"workload {ds.values.get('workload', '?')} datasets have operations of their "
                f"own, which arrive with that workload's experiments")
    if ds.kind == "npy":
        if op != "read_full":
            return "a .npy fixture is read whole (read_full only)"
        if store != "local":
            return "a .npy fixture is a local file"
    if op == "read_inner_chunks" and not ds.sharded:
        return "the dataset is not sharded: it has no inner chunks"
    if cache == "cold" and store == "memory":
        return "a memory store has no page cache to drop"
    if cache == "cold" and store in ("http", "s3"):
        return (f"an {store.upper()} store's page cache is the server's, kept warm: the link "
                f"is measured, not the disk")
    if cache == "cold" and op == "write_full":
        return "write_full reads no fixture, so the page cache is irrelevant"
    return ""


def unsupported_reason(impl: str, case: Case) -> str:
    mod = adapters.load(impl)
    reasons = getattr(mod, "REASONS", {})
    fmt = case.dataset.format_label
    if case.store == "http" and case.op in WRITE_OPS:
        return "the HTTP store is read-only (the server answers GET and HEAD)"
    if case.store == "s3" and case.op in WRITE_OPS:
        return "the S3 rows read the fixture uploaded to moto; writes are timed on other stores"
    if case.op not in mod.SUPPORTS:
        return reasons.get(f"op:{case.op}", f"{impl} cannot express {case.op}")
    if fmt not in mod.FORMATS:
        return reasons.get(f"format:{fmt}", f"{impl} does not read {fmt} datasets")
    if case.store not in mod.STORES:
        return reasons.get(f"store:{case.store}", f"{impl} has no {case.store} store")
    excludes = getattr(mod, "excludes", None)
    if excludes is not None:
        return excludes({"op": case.op, "dataset": case.dataset.to_json(), "store": case.store,
                         "threads": case.nthreads, "cache": case.cache,
                         "options": case.options}) or ""
    return ""


def plan(exp: Experiment) -> list[Case]:
    cases: list[Case] = []
    for ds in exp.datasets:
        for op in exp.ops:
            for store, threads, cache in itertools.product(exp.stores, exp.threads, exp.caches):
                for impl in exp.impls:
                    for options in _variants(exp, impl, store):
                        c = Case("impl", impl, op, ds, store, str(threads),
                                 nthreads_of(threads), cache, options)
                        na = not_applicable(op, ds, store, cache)
                        if na:
                            c.state, c.reason = "na", na
                        else:
                            why = unsupported_reason(impl, c)
                            if why:
                                c.state, c.reason = "unsupported", why
                        cases.append(c)
        for name in exp.ceilings:
            t = CEILING_THREADS[name]
            c = Case("ceiling", "ceiling", "ceiling", ds, "local", t, nthreads_of(t), "warm",
                     {"ceiling": name})
            if ds.kind not in ("array", "npy"):
                c.state, c.reason = "na", "no ceiling for this dataset kind yet"
            elif name.startswith("decode") and (ds.kind == "npy" or ds.codec == "none"):
                c.state, c.reason = "na", "uncompressed: decoding is a copy (see memcpy)"
            cases.append(c)
    return cases


def runs_per_case(exp: Experiment, case: Case) -> str:
    base = exp.warmup + exp.repeats
    if case.kind == "ceiling":
        return f"{base}"
    if case.op in READ_OPS:
        return f"{base} + 1 checksum run"
    return f"{base} + 1 read-back by zarr-python"


# -- --list -------------------------------------------------------------------------------


def describe_plan(exp: Experiment, cases: list[Case], envs: dict[str, envs_mod.Env]) -> str:
    lines = [f"experiment {exp.path}" + (f": {exp.title}" if exp.title else "")]
    lines.append(f"  output   {exp.output}")
    lines.append(f"  data_dir {exp.data_dir}")
    lines.append(f"  env_dir  {exp.env_dir}")
    lines.append(f"  repeats {exp.repeats}, warmup {exp.warmup}, timeout {exp.timeout:.0f} s, "
                 f"baseline {exp.baseline}")
    link = table.link_title({"latency_ms": exp.http.latency_ms,
                             "link_mbps": exp.http.megabytes_per_second})
    for store, what, binary, per_case in (("http", "http server", exp.http.server, "server"),
                                          ("s3", "s3: moto behind", exp.http.throttle,
                                           "throttle")):
        if store in exp.stores:
            binary = http_server.resolve_binary(binary)
            state = "present" if http_server.usable(binary) else \
                "MISSING: its cases will read unavailable"
            lines.append(f"  {what} {binary} ({state}); {link}, one {per_case} per case")
    lines.append("")
    lines.append("datasets:")
    for ds in exp.datasets:
        cached = "cached" if fixture_if_cached(ds, exp.data_dir) else "to generate"
        size = f"{ds.nbytes / 1e9:.3g} GB" if ds.nbytes else ""
        lines.append(f"  {ds.name:<16} {ds.describe()}  {size} ({cached})")
    lines.append("")
    lines.append("implementations:")
    for impl in exp.impls:
        mod = adapters.load(impl)
        opts = _variants(exp, impl)
        v = "; variants: " + " | ".join(
            ",".join(f"{k}={x}" for k, x in o.items()) for o in opts) if opts != [{}] else ""
        for axis, stores in getattr(mod, "OPTION_STORES", {}).items():
            if opts != [{}] and axis in opts[0]:
                v += f" ({axis}: store {'/'.join(stores)} only)"
        lines.append(f"  {impl:<14} {getattr(mod, 'NOTE', '')}{v}")
    lines.append("")
    lines.append("environments:")
    for impl in exp.impls:
        e = envs.get(impl)
        if e is None:
            lines.append(f"  {impl}: (no case runs)")
        else:
            lines.append("  " + e.describe())
    run = [c for c in cases if c.state == "run"]
    lines.append("")
    lines.append(f"cases that will run ({len(run)}):")
    for c in run:
        lines.append(f"  {c.label():<90} runs/case {runs_per_case(exp, c)}")
    cannot = [c for c in cases if c.state == "unsupported"]
    lines.append("")
    lines.append(f"cases that cannot run ({len(cannot)}, written as `unsupported` rows):")
    for c in cannot:
        lines.append(f"  {c.label()}: {c.reason}")
    na = [c for c in cases if c.state == "na"]
    if na:
        lines.append("")
        by_reason: dict[str, int] = {}
        for c in na:
            by_reason[c.reason] = by_reason.get(c.reason, 0) + 1
        lines.append(f"combinations dropped as not applicable ({len(na)}):")
        for reason, n in by_reason.items():
            lines.append(f"  {n} x {reason}")
    return "\n".join(lines)


# -- running ------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
            mem = f"{kib / 2**20:.1f}"
    except (OSError, ValueError, IndexError):
        pass
    return {"machine": socket.gethostname(), "cpu_model": cpu, "ncpu": os.cpu_count(),
            "mem_gb": mem, "kernel": platform.release(), "python": platform.python_version()}


def _fixture_meta(fx: Fixture) -> dict | None:
    for name in ("zarr.json", ".zarray"):
        p = fx.path / name
        if p.is_file():
            return json.loads(p.read_text())
    return None


def _case_doc(case: Case, fx: Fixture, exp: Experiment, env: envs_mod.Env, workdir: Path,
              module: str) -> dict[str, Any]:
    return {
        "impl": case.impl, "module": module, "op": case.op, "store": case.store,
        "threads": case.threads, "nthreads": case.nthreads, "cache": case.cache,
        "options": case.options, "repeats": exp.repeats, "warmup": exp.warmup,
        "fixture": {"spec": fx.spec.to_json(), "path": str(fx.path), "stamp": fx.stamp,
                    "meta": _fixture_meta(fx)},
        "workdir": str(workdir), "env": {"binary": env.binary},
    }


def run_child(python: str, child_env: dict[str, str], doc: dict[str, Any], workdir: Path,
              timeout: float) -> dict[str, Any]:
    workdir.mkdir(parents=True, exist_ok=True)
    case_file, out_file = workdir / "case.json", workdir / "result.json"
    case_file.write_text(json.dumps(doc))
    cmd = [python, "-m", "turbozarr_bench.child", str(case_file), str(out_file)]
    proc = subprocess.Popen(cmd, env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"status": "failed", "reason": f"timeout: killed after {timeout:.0f} s"}
    if out_file.is_file():
        return json.loads(out_file.read_text())
    tail = (stderr or stdout).strip().splitlines()[-3:]
    why = f"child exited {proc.returncode}" + (": " + " | ".join(tail) if tail else "")
    if proc.returncode < 0:
        why = f"child killed by signal {-proc.returncode} (out of memory?)"
    return {"status": "failed", "reason": why}


def audit_write(path: str, timeout: float) -> dict[str, Any]:
    """Reads a written array back with zarr-python in the harness interpreter."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([envs_mod.harness_path()]
                                        + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                           if p])
    try:
        proc = subprocess.run([sys.executable, "-m", "turbozarr_bench.audit", path],
                              capture_output=True, text=True, env=env, timeout=timeout)
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as e:
        return {"error": f"audit failed: {e}"}


def make_row(exp: Experiment, run_id: str, case: Case, res: dict[str, Any],
             fx: Fixture | None, machine: dict[str, Any], env: envs_mod.Env | None,
             load: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": run_id, "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "experiment": exp.name, "kind": case.kind, "op": case.op, "dataset": case.dataset.name,
        "workload": case.dataset.values.get("workload", ""), "impl": case.impl,
        "variant": case.variant, "store": case.store, "threads": case.threads,
        "nthreads": case.nthreads, "cache": case.cache, "status": res.get("status", "failed"),
        "reason": res.get("reason", ""), "repeats": exp.repeats, "warmup": exp.warmup,
        "loadavg": load, "env": env.label if env else "",
        **machine,
    }
    if fx is not None:
        row["stored_bytes"] = fx.stamp.get("stored_bytes")
        row["fixture_writer"] = fx.stamp.get("writer")
        if case.kind == "impl" and case.op in ("read_full", "write_full", "round_trip"):
            row["reference_checksum"] = fx.stamp.get("checksum")
    versions = res.get("versions") or {}
    row["versions"] = "; ".join(f"{k} {v}" for k, v in versions.items())
    samples = res.get("samples") or []
    if row["status"] == "ok" and samples:
        st = summarize(samples)
        row.update(seconds=st["median"], seconds_mad=st["mad"], seconds_min=st["min"],
                   seconds_max=st["max"])
        row["samples"] = ";".join(f"{s:.6g}" for s in samples)
        cpu = summarize(res["cpu_samples"])["median"]
        row["cpu_seconds"] = cpu
        row["cpu_per_wall"] = cpu / st["median"] if st["median"] > 0 else None
        row["nbytes"] = res.get("nbytes")
        if res.get("nbytes") and st["median"] > 0:
            row["gbps"] = res["nbytes"] / st["median"] / 1e9
        for k in ("rss_import_mb", "rss_base_mb", "rss_peak_mb", "resident_before",
                  "sync_seconds", "checksum"):
            row[k] = res.get(k)
        if not res.get("peak_reset", True):
            res.setdefault("notes", []).append("peak RSS not resettable: includes set-up")
    notes = list(res.get("notes") or [])
    if case.kind == "impl" and case.op in ("write_full", "round_trip") and res.get("audit"):
        notes.append(res["audit"])
    if case.kind == "impl" and case.store in ("http", "s3"):
        _http_columns(exp, row, res, notes)
    row["note"] = "; ".join(notes)
    return row


def _http_columns(exp: Experiment, row: dict[str, Any], res: dict[str, Any],
                  notes: list[str]) -> None:
    """The link and the server's counts. The server lived for the whole case,
    so its totals are divided by the reads it served (warm-up, timed and the
    checksum run, which all read the whole selection)."""
    row["latency_ms"] = exp.http.latency_ms
    row["link_mbps"] = exp.http.megabytes_per_second
    srv = res.get("server")
    if srv is None:
        return
    reads = exp.warmup + exp.repeats + 1
    if srv["requests"] is None:  # tz_tcp_throttle: bytes, heads included
        notes.append(f"throttle: {srv['bytes_sent']} bytes sent, peak "
                     f"{srv['peak_connections']} connections over {reads} reads")
    else:
        notes.append(f"server: {srv['requests']} requests, {srv['bytes_sent']} bytes sent, "
                     f"peak {srv['peak_connections']} connections over {reads} reads")
    seconds = row.get("seconds")
    if row["status"] != "ok" or not seconds:
        return
    row["wire_bytes"] = srv["bytes_sent"] / reads
    row["requests"] = None if srv["requests"] is None else srv["requests"] / reads
    row["peak_connections"] = srv["peak_connections"]
    row["wire_mbps"] = row["wire_bytes"] / seconds / 1e6
    if exp.http.megabytes_per_second > 0:
        row["link_pct"] = 100 * row["wire_mbps"] / exp.http.megabytes_per_second


class Runner:
    def __init__(self, exp: Experiment, log: Callable[[str], None] = print):
        self.exp = exp
        self.log = log
        self.run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
        self.cases = plan(exp)
        needed = {c.impl for c in self.cases if c.state == "run" and c.kind == "impl"}
        self.envs = {impl: envs_mod.plan(impl, exp.env.get(impl, {}), exp.env_dir)
                     for impl in exp.impls if impl in needed}
        self._moto: s3_server.Moto | None = None

    def _start_moto(self, logdir: Path) -> str:
        """Starts the run's moto; "" or why its cases are unavailable."""
        binary = http_server.resolve_binary(self.exp.http.throttle)
        if not http_server.usable(binary):
            why = (f"no throttle at {binary} (build the tz_tcp_throttle target, or set "
                   f"[http] throttle)")
        else:
            moto = s3_server.Moto(logdir)
            try:
                self.log(f"s3: moto at {moto.start()}")
                self._moto = moto
                return ""
            except Exception as e:  # noqa: BLE001 - its cases are unavailable with this reason
                moto.stop()
                why = f"moto: {e}"
        self.log(f"s3: UNAVAILABLE - {why}")
        return why

    def describe(self) -> str:
        return describe_plan(self.exp, self.cases, self.envs)

    def run(self) -> list[dict[str, Any]]:
        exp = self.exp
        check_header(exp.output)  # refuse a mismatched CSV before any expensive work
        machine = machine_info()
        runnable = [c for c in self.cases if c.state == "run"]
        self.log(f"run {self.run_id}: {len(runnable)} cases to run, "
                 f"{sum(c.state == 'unsupported' for c in self.cases)} unsupported")
        self.log("environments:")
        envs_mod.prepare(list(self.envs.values()), self.log)
        self.log("datasets:")
        fixtures: dict[str, Fixture] = {}
        fixture_errors: dict[str, str] = {}
        for ds in exp.datasets:
            if not any(c.dataset.name == ds.name for c in runnable):
                continue
            try:
                fixtures[ds.name] = ensure(ds, exp.data_dir, log=self.log)
            except Exception as e:  # noqa: BLE001 - its cases fail with this reason
                fixture_errors[ds.name] = f"fixture generation failed: {e}"
                self.log(f"  dataset {ds.name}: FAILED - {e}")
        scratch = exp.data_dir / "_scratch" / self.run_id
        rows: list[dict[str, Any]] = []
        harness = envs_mod.Env("ceiling", "inline", python=sys.executable, ready=True)
        server_missing = ""
        if any(c.store == "http" for c in runnable):
            binary = http_server.resolve_binary(exp.http.server)
            if not http_server.usable(binary):
                server_missing = (f"no HTTP server at {binary} (build the tz_http_serve "
                                  f"target, or set [http] server)")
                self.log(f"http server: UNAVAILABLE - {server_missing}")
        s3_missing = ""
        if any(c.store == "s3" for c in runnable):
            s3_missing = self._start_moto(exp.data_dir / "_scratch" / f"{self.run_id}-moto")
        try:
            self.log("cases:")
            with Appender(exp.output) as out:
                for n, case in enumerate(c for c in self.cases if c.state != "na"):
                    fx = fixtures.get(case.dataset.name)
                    env = harness if case.kind == "ceiling" else self.envs.get(case.impl)
                    load = loadavg()
                    if case.state == "unsupported":
                        res = {"status": "unsupported", "reason": case.reason}
                    elif case.dataset.name in fixture_errors:
                        res = {"status": "failed", "reason": fixture_errors[case.dataset.name]}
                    elif env is None or not env.ready:
                        res = {"status": "unavailable",
                               "reason": env.reason if env else "no environment"}
                    elif case.store == "http" and server_missing:
                        res = {"status": "unavailable", "reason": server_missing}
                    elif case.store == "s3" and s3_missing:
                        res = {"status": "unavailable", "reason": s3_missing}
                    else:
                        res = self._run_one(case, fx, env, scratch / f"{n:04d}")
                    row = make_row(exp, self.run_id, case, res, fx, machine, env, load)
                    out.write(row)
                    rows.append(row)
                    self._progress(case, row)
        finally:
            if self._moto is not None:
                self._moto.stop()
                shutil.rmtree(self._moto.logdir, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
        self.log(f"appended {len(rows)} rows to {exp.output}")
        return rows

    def _run_one(self, case: Case, fx: Fixture, env: envs_mod.Env, workdir: Path) -> dict:
        module = "turbozarr_bench.ceilings" if case.kind == "ceiling" else \
            adapters.module_path(case.impl)
        doc = _case_doc(case, fx, self.exp, env, workdir, module)
        child_env = env.child_env() if case.kind == "impl" else envs_mod.Env(
            "h", "inline").child_env()
        if case.kind == "impl" and case.store in ("http", "s3"):
            res = self._run_served(case, fx, env, child_env, doc, workdir)
        else:
            res = run_child(env.python, child_env, doc, workdir, self.exp.timeout)
        if case.kind == "impl" and case.op in ("write_full", "round_trip") and \
                res.get("status") == "ok":
            a = audit_write(res.get("output", ""), self.exp.timeout)
            if "checksum" in a:
                res["checksum"] = a["checksum"]
                res["audit"] = f"read back by {a['auditor']}"
            else:
                res["checksum"] = None
                res["audit"] = f"unreadable by zarr-python: {a.get('error')}"
        shutil.rmtree(workdir, ignore_errors=True)
        return res

    def _run_served(self, case: Case, fx: Fixture, env: envs_mod.Env,
                    child_env: dict[str, str], doc: dict[str, Any], workdir: Path) -> dict:
        """The case's child, reading from a server (store "http") or a throttle in
        front of moto (store "s3") started for it alone."""
        h = self.exp.http
        if case.store == "s3":
            try:
                prefix = self._moto.upload(case.dataset.name, Path(fx.path))
            except Exception as e:  # noqa: BLE001 - the case fails with this reason
                return {"status": "failed", "reason": f"upload to moto: {e}"}
            argv = s3_server.throttle_command(http_server.resolve_binary(h.throttle),
                                              self._moto.endpoint, h.latency_ms,
                                              h.megabytes_per_second)
        else:
            argv = http_server.command(http_server.resolve_binary(h.server), fx.path,
                                       h.latency_ms, h.megabytes_per_second, h.backlog)
        server = http_server.HttpServer(argv, workdir / "server")
        try:
            url = server.start()
        except http_server.ServerError as e:
            return {"status": "failed", "reason": f"{case.store.upper()} server: {e}"}
        link = {"latency_ms": h.latency_ms, "megabytes_per_second": h.megabytes_per_second}
        if case.store == "s3":
            doc["s3"] = {**self._moto.source(url, prefix), **link}
        else:
            doc["http"] = {"url": url, **link}
        try:
            res = run_child(env.python, child_env, doc, workdir, self.exp.timeout)
        finally:
            try:
                stats = server.stop()
                problem = ""
            except http_server.ServerError as e:
                stats, problem = None, str(e)
        if stats is not None:
            res["server"] = dataclasses.asdict(stats)
        else:  # the timings stand; the row says why the link columns are empty
            res.setdefault("notes", []).append(f"{case.store.upper()} server: {problem}")
        return res

    def _progress(self, case: Case, row: dict[str, Any]) -> None:
        if row["status"] == "ok":
            detail = f"{table.fmt_seconds(float(row['seconds']))} {table.fmt_spread(row)}"
        else:
            detail = f"{row['status']}: {str(row['reason'])[:100]}"
        self.log(f"  {case.label():<88} {detail}")

    def table(self, rows: list[dict[str, Any]]) -> str:
        describe = {ds.name: ds.describe() for ds in self.exp.datasets}
        return table.render(rows, self.exp.baseline, describe, self.exp.title)
