"""The dataset registry and the on-disk fixture cache.

A fixture lives in `<data_dir>/<name>/`: `data.zarr` (or `data.npy`) plus
`stamp.json`, which records the spec hash, the writer's versions, the
reference checksum and the stored size. A stamp whose hash differs from the
spec's means the spec (or a generator) changed, and the fixture is rebuilt.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turbozarr_bench.datasets.registry import BUILTIN, resolve
from turbozarr_bench.datasets.spec import DatasetSpec, SpecError, validate

__all__ = ["BUILTIN", "DatasetSpec", "Fixture", "SpecError", "ensure", "fixture_if_cached",
           "resolve", "validate"]


@dataclass
class Fixture:
    spec: DatasetSpec
    directory: Path
    stamp: dict[str, Any]

    @property
    def path(self) -> Path:
        return self.directory / self.stamp["target"]

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec.to_json(), "path": str(self.path), "stamp": self.stamp}


def _read_stamp(directory: Path) -> dict[str, Any] | None:
    try:
        return json.loads((directory / "stamp.json").read_text())
    except (OSError, ValueError):
        return None


def fixture_if_cached(spec: DatasetSpec, data_dir: Path) -> Fixture | None:
    directory = data_dir / spec.name
    stamp = _read_stamp(directory)
    if stamp and stamp.get("spec_hash") == spec.spec_hash():
        return Fixture(spec, directory, stamp)
    return None


def ensure(spec: DatasetSpec, data_dir: Path, python: str | None = None,
           log=print) -> Fixture:
    """The cached fixture for `spec`, generated first if missing or stale.

    Generation runs in a child process of `python` (default: this interpreter)
    so its memory is returned when it ends.
    """
    cached = fixture_if_cached(spec, data_dir)
    if cached is not None:
        return cached
    directory = data_dir / spec.name
    if directory.exists():
        old = _read_stamp(directory)
        why = "changed spec" if old else "incomplete"
        log(f"  dataset {spec.name}: {why}, regenerating")
        shutil.rmtree(directory)
    data_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{spec.name}-", dir=data_dir))
    try:
        spec_file = staging / "spec.json"
        spec_file.write_text(json.dumps(spec.to_json()))
        out = staging / "fixture"
        writer = "numpy" if spec.kind == "npy" else "zarr-python"
        log(f"  dataset {spec.name}: generating {spec.describe()} with {writer} ...")
        from turbozarr_bench.envs import harness_path

        bench_root = harness_path()
        proc = subprocess.run(
            [python or sys.executable, "-m", "turbozarr_bench.datasets.generate",
             str(spec_file), str(out)],
            capture_output=True, text=True, env=_env_with_path(bench_root))
        if proc.returncode != 0:
            raise RuntimeError(f"generating dataset '{spec.name}' failed:\n{proc.stderr[-3000:]}")
        out.rename(directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    stamp = _read_stamp(directory)
    assert stamp is not None
    log(f"  dataset {spec.name}: {stamp['stored_bytes'] / 1e6:.1f} MB in {stamp['nfiles']} "
        f"files, {stamp['seconds']:.1f} s")
    return Fixture(spec, directory, stamp)


def _env_with_path(root: str) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    return env
