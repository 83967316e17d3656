"""The `turbozarr` command: runs the C++ command-line tool that a wheel
installs inside the package (turbozarr/_bin/turbozarr), replacing this
process so that its output, exit status and signals are the tool's own.
`turbozarr sparse ...` runs in Python instead (turbozarr/_sparse_cli.py),
where the .h5ad reader lives."""

from __future__ import annotations

import os
import sys
from pathlib import Path

EXECUTABLE = Path(__file__).resolve().parent / "_bin" / "turbozarr"


def main() -> None:
    if sys.argv[1:2] == ["sparse"]:
        from turbozarr._sparse_cli import main as sparse_main
        sys.exit(sparse_main(sys.argv[2:]))
    if not os.access(EXECUTABLE, os.X_OK):
        sys.exit(
            f"turbozarr: the command-line tool is not installed ({EXECUTABLE} is missing).\n"
            "It comes with the package when installed by `pip install` (or from a wheel);\n"
            "in a source tree `make build` builds it as build/cli/turbozarr."
        )
    os.execv(EXECUTABLE, ["turbozarr", *sys.argv[1:]])
