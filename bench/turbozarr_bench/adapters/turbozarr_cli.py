"""The turbozarr command-line tool, where a command fits an operation.

Only the round trip fits: `turbozarr cp SRC DST` copies an array keeping its
format, chunks and codecs, streaming blocks within its --memory budget. The
timing includes starting the process (a few milliseconds). Threads come from
TURBOZARR_NUM_THREADS. The binary is `build/cli/turbozarr` in the repository
unless [env.turbozarr-cli] binary names another.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

from turbozarr_bench.adapters.base import Driver as _Base, build_optimization

NAME = "turbozarr-cli"
ENV = "binary"
REQUIRES: tuple[str, ...] = ()
SUPPORTS = frozenset({"round_trip"})
FORMATS = frozenset({"zarr2", "zarr3"})
STORES = frozenset({"local", "zip"})
OPTIONS: dict[str, list] = {}
NOTE = "`turbozarr cp SRC DST --no-progress` in a subprocess"
REASONS = {
    "op:read_full": "the CLI prints values as text (cat); it has no read-into-memory command",
    "op:read_chunks": "the CLI has no chunk-by-chunk read command",
    "op:read_inner_chunks": "the CLI has no inner-chunk read command",
    "op:write_full": "the CLI writes only copies of existing arrays (cp)",
    "store:memory": "a memory:// store does not outlive the CLI process",
}


class Driver(_Base):
    def __init__(self, case):
        super().__init__(case)
        self.binary = case["env"]["binary"]

    def versions(self) -> dict[str, str]:
        v = super().versions()
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True)
        v["turbozarr-cli"] = (out.stdout or out.stderr).strip().splitlines()[0] if (
            out.stdout or out.stderr) else "unknown"
        v["turbozarr-cli"] += f" ({self.binary}, {build_optimization(self.binary)})"
        return v

    def zip_source(self, path: str) -> Any:
        return path

    def zip_target(self, path: str) -> Any:
        return path

    def copy(self, source: Any, target: Any) -> None:
        env = dict(os.environ, TURBOZARR_NUM_THREADS=str(self.threads))
        proc = subprocess.run([self.binary, "cp", source, target, "--no-progress"],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"turbozarr cp exited {proc.returncode}: {proc.stderr.strip()}")
