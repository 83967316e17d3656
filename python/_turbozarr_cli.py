"""The `turbozarr` command: runs the C++ command-line tool that a wheel
installs inside the package (turbozarr/_bin/turbozarr), replacing this
process so that its output, exit status and signals are the tool's own.
`turbozarr sparse ...` runs in Python instead (turbozarr/_sparse_cli.py),
where the .h5ad reader lives.

A module of its own beside the package, not inside it: importing
turbozarr.anything runs turbozarr/__init__.py first, which loads numpy and the
engine (about 100 ms), and `turbozarr --help` should answer at once. This
finds the package's folder without importing it."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def _package_dir() -> Path:
    spec = importlib.util.find_spec("turbozarr")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("turbozarr: the turbozarr package is not installed in this environment")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def main() -> None:
    if sys.argv[1:2] == ["sparse"]:
        from turbozarr._sparse_cli import main as sparse_main
        sys.exit(sparse_main(sys.argv[2:]))
    executable = _package_dir() / "_bin" / "turbozarr"
    if not os.access(executable, os.X_OK):
        sys.exit(
            f"turbozarr: the command-line tool is not installed ({executable} is missing).\n"
            "It comes with the package when installed by `pip install` (or from a wheel);\n"
            "in a source tree `make build` builds it as build/cli/turbozarr."
        )
    os.execv(executable, ["turbozarr", *sys.argv[1:]])


if __name__ == "__main__":
    main()
