"""One isolated environment per implementation, installed on first use.

Kinds (an adapter's ENV):
- venv: `python -m venv` + `pip install <requires>` into
  `<env_dir>/<impl>-<hash of interpreter and pins>`; the hash changes with the
  pins, so a config that pins other versions gets its own environment and the
  old one stays cached. The interpreter is [env.<impl>] python, else one of
  the adapter's PYTHON version ("3.12": zarr-python 3.4 needs it) found by
  find_python, else the harness's own; an adapter whose version is nowhere
  to be found reads `unavailable` with the places looked in. An adapter with
  PROJECT_PATH = True also gets the repository's python/ directory on its
  PYTHONPATH (the in-place build, as a project environment). A `.installed` marker (with `pip freeze`) is written
  last; a directory without one is a failed or interrupted install and is
  rebuilt.
- project: the harness's own interpreter with the repository's python/
  directory first on PYTHONPATH, i.e. the in-place build of `make build`
  (turbozarr's own environment: what is measured is the working tree).
- binary: an executable (the turbozarr CLI); only its presence is checked.

An environment that fails to install or import is reported with the tail of
its log, and its cases read `unavailable`; the rest of the run goes on.
Children get the bench/ directory on PYTHONPATH, so the harness itself is
never installed into a peer's environment (its child-side modules need only
the standard library and numpy).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from turbozarr_bench import adapters

BENCH_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = BENCH_ROOT.parent
INSTALL_TIMEOUT = 900
_staged: list[str] = []


def harness_path() -> str:
    """A directory holding turbozarr_bench and nothing else, for children's
    PYTHONPATH. In the repository that is bench/; from an installed wheel the
    package's parent is site-packages, whose other packages must not leak into
    a peer's environment, so the package is copied to a directory of its own."""
    if "site-packages" not in BENCH_ROOT.parts and "dist-packages" not in BENCH_ROOT.parts:
        return str(BENCH_ROOT)
    if not _staged:
        import tempfile

        target = Path(tempfile.mkdtemp(prefix="turbozarr-bench-"))
        shutil.copytree(BENCH_ROOT / "turbozarr_bench", target / "turbozarr_bench",
                        ignore=shutil.ignore_patterns("__pycache__"))
        _staged.append(str(target))
    return _staged[0]


@dataclass
class Env:
    impl: str
    kind: str
    requires: tuple[str, ...] = ()
    base_python: str = ""
    path: Path | None = None
    python: str = ""  # the interpreter children run under
    pythonpath: list[str] = field(default_factory=list)
    binary: str = ""
    ready: bool = False
    reason: str = ""
    freeze: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.kind == "venv" and self.path is not None:
            return self.path.name
        return self.kind

    def child_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env["PYTHONPATH"] = os.pathsep.join([harness_path()] + self.pythonpath)
        env.pop("VIRTUAL_ENV", None)
        return env

    def describe(self) -> str:
        if self.kind == "venv":
            state = "cached" if self.ready else "to install"
            if self.path is None:
                return f"{self.impl}: UNAVAILABLE - {self.reason}"
            extra = f" + PYTHONPATH {':'.join(self.pythonpath)}" if self.pythonpath else ""
            return (f"{self.impl}: venv {self.path} ({state}) <- {' '.join(self.requires)}"
                    f"{extra}")
        if self.kind == "project":
            return (f"{self.impl}: project interpreter {self.python} + PYTHONPATH "
                    f"{':'.join(self.pythonpath)}")
        return f"{self.impl}: binary {self.binary}"


def _version_of(python: str) -> str:
    """"3.12" for a Python 3.12 interpreter; "" if it does not run."""
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def python_candidates(version: str) -> list[str]:
    """Where a Python `version` ("3.12") may be, in order: the base interpreter
    of the repository's `.venv<digits>` (e.g. .venv312), `python<version>` on
    PATH, pyenv's versions directory."""
    found: list[str] = []
    cfg = REPO_ROOT / (".venv" + version.replace(".", "")) / "pyvenv.cfg"
    if cfg.is_file():
        keys = dict(line.split("=", 1) for line in cfg.read_text().splitlines() if "=" in line)
        keys = {k.strip(): v.strip() for k, v in keys.items()}
        if keys.get("executable"):
            found.append(keys["executable"])
        if keys.get("home"):
            found.append(os.path.join(keys["home"], f"python{version}"))
    on_path = shutil.which(f"python{version}")
    if on_path:
        found.append(on_path)
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        for d in sorted(pyenv.glob(f"{version}.*"), reverse=True):
            found.append(str(d / "bin" / f"python{version}"))
    return list(dict.fromkeys(found))


_found_python: dict[str, str] = {}


def find_python(version: str) -> str:
    """The first candidate that runs and is Python `version`, or ""."""
    if version not in _found_python:
        _found_python[version] = next(
            (p for p in python_candidates(version) if _version_of(p) == version), "")
    return _found_python[version]


def plan(impl: str, env_config: dict[str, Any], env_dir: Path) -> Env:
    """The environment `impl` will run in, without installing anything."""
    module = adapters.load(impl)
    kind = getattr(module, "ENV", "venv")
    if kind == "project":
        python = env_config.get("python", sys.executable)
        default = [str(REPO_ROOT / "python")] if (REPO_ROOT / "python" / "turbozarr").is_dir() \
            else []  # installed: the turbozarr installed beside the harness
        paths = env_config.get("pythonpath", default)
        paths = [str((REPO_ROOT / p).resolve()) if not os.path.isabs(p) else p for p in paths]
        return Env(impl, kind, python=python, pythonpath=paths)
    if kind == "binary":
        binary = env_config.get("binary", "build/cli/turbozarr")
        if not os.path.isabs(binary):
            binary = str(REPO_ROOT / binary)
        return Env(impl, kind, binary=binary, python=sys.executable)
    if kind == "inline":  # test doubles: run in the harness interpreter
        return Env(impl, kind, python=sys.executable, ready=True,
                   pythonpath=list(getattr(module, "PYTHONPATH", [])))
    requires = tuple(env_config.get("requires", getattr(module, "REQUIRES", ())))
    paths = [str(REPO_ROOT / "python")] if getattr(module, "PROJECT_PATH", False) else []
    paths = [str((REPO_ROOT / p).resolve()) if not os.path.isabs(p) else p
             for p in env_config.get("pythonpath", paths)]
    version = getattr(module, "PYTHON", "")
    base_python = env_config.get("python") or (find_python(version) if version
                                               else sys.executable)
    if not base_python:
        looked = ", ".join(python_candidates(version)) or "nowhere: no candidate exists"
        return Env(impl, kind, requires=requires, pythonpath=paths,
                   reason=f"no Python {version} interpreter found (looked in: {looked}; "
                          f"tried .venv{version.replace('.', '')}, python{version} on PATH, "
                          f"pyenv's versions); set [env.{impl}] python")
    key = json.dumps({"python": _python_identity(base_python), "requires": sorted(requires)})
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    path = env_dir / f"{impl}-{digest}"
    python = str(path / "bin" / "python")
    e = Env(impl, kind, requires=requires, base_python=base_python, path=path, python=python,
            pythonpath=paths)
    marker = path / ".installed"
    if marker.is_file():
        e.ready = True
        e.freeze = json.loads(marker.read_text()).get("freeze", [])
    return e


def _python_identity(python: str) -> str:
    try:
        out = subprocess.run([python, "-c", "import sys; print(sys.version)"],
                             capture_output=True, text=True, timeout=60)
        return out.stdout.strip() or python
    except (OSError, subprocess.TimeoutExpired):
        return python


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _install_venv(e: Env, log: Callable[[str], None]) -> None:
    assert e.path is not None
    if e.path.exists():
        shutil.rmtree(e.path)
    e.path.parent.mkdir(parents=True, exist_ok=True)
    log(f"  env {e.impl}: installing {' '.join(e.requires)} into {e.path} ...")
    steps = [[e.base_python, "-m", "venv", str(e.path)],
             [e.python, "-m", "pip", "install", "--disable-pip-version-check", "-q",
              *e.requires]]
    logfile = e.path.parent / f"{e.path.name}.log"
    with open(logfile, "w") as lf:
        for cmd in steps:
            lf.write("$ " + " ".join(cmd) + "\n")
            lf.flush()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      timeout=INSTALL_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired) as exc:
                e.reason = f"install failed: {exc}"
                return
            lf.write(proc.stdout + proc.stderr)
            if proc.returncode != 0:
                e.reason = f"install failed ({' '.join(cmd[:4])}...): {_tail(proc.stderr)}"
                return
    freeze = subprocess.run([e.python, "-m", "pip", "freeze"], capture_output=True,
                            text=True).stdout.split()
    (e.path / ".installed").write_text(json.dumps({"requires": list(e.requires),
                                                   "freeze": freeze}))
    e.freeze = freeze
    e.ready = True
    log(f"  env {e.impl}: ready")


def _check_import(e: Env) -> None:
    """The adapter's library imports in its environment (or the binary runs)."""
    if e.kind == "binary":
        if not (os.path.isfile(e.binary) and os.access(e.binary, os.X_OK)):
            e.ready = False
            e.reason = (f"no executable at {e.binary} (run `make build`, or set "
                        f"[env.{e.impl}] binary)")
            return
        e.ready = True
        return
    module = adapters.module_path(e.impl)
    probe = ("import sys, importlib; "
             f"mod = importlib.import_module({module!r}); "
             "case = {'nthreads': 1, 'fixture': {}, 'env': {}, 'options': {}}; "
             "mod.Driver(case); print('ok')")
    try:
        proc = subprocess.run([e.python, "-c", probe], capture_output=True, text=True,
                              env=e.child_env(), timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        e.ready = False
        e.reason = f"import check failed: {exc}"
        return
    if proc.returncode != 0 or "ok" not in proc.stdout:
        e.ready = False
        last = _tail(proc.stderr, 3).splitlines()
        e.reason = f"import failed in {e.label}: {last[-1] if last else proc.returncode}"
        return
    e.ready = True


def prepare(envs: list[Env], log: Callable[[str], None] = print) -> None:
    """Installs what is missing (in parallel: mostly waiting on downloads) and
    checks each environment imports its library. Never raises: a broken
    environment is left with ready False and a reason."""
    todo = [e for e in envs if e.kind == "venv" and not e.ready and e.path is not None]
    if todo:
        with ThreadPoolExecutor(min(3, len(todo))) as pool:
            list(pool.map(lambda e: _install_venv(e, log), todo))
    for e in envs:
        if e.kind == "venv" and not e.ready:
            log(f"  env {e.impl}: UNAVAILABLE - {e.reason}")
            continue
        if e.kind == "inline":
            continue
        _check_import(e)
        if not e.ready:
            log(f"  env {e.impl}: UNAVAILABLE - {e.reason}")
