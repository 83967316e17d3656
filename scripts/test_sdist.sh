#!/usr/bin/env bash
# `make test-sdist`: the source distribution that `make wheels` made builds
# into a working package as `pip install turbozarr-<version>.tar.gz` builds it
# on a machine with the packages scripts/setup.sh installs (a compiler and the
# -dev packages): in pip's own isolated build environment (scikit-build-core
# and nanobind from PyPI), from a directory outside the tree, compiling
# everything (about 10 minutes on 2 cores). Then a round trip through the
# installed package and its command-line tool.
#   scripts/test_sdist.sh WHEELS PYTHON
set -euo pipefail
cd "$(dirname "$0")/.."
wheels=$(realpath -m "$1") python=$2
sdists=("$wheels"/dist/turbozarr-*.tar.gz)
[ -f "${sdists[0]}" ] || { echo "test-sdist: no sdist in $wheels/dist (make wheels)" >&2; exit 1; }
venv=$wheels/venv-sdist
rm -rf "$venv"
"$python" -m venv "$venv"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
start=$SECONDS
(cd "$scratch" && "$venv/bin/python" -m pip install -q "${sdists[0]}")
echo "test-sdist: built and installed $(basename "${sdists[0]}") in $((SECONDS - start)) s"
(cd "$scratch" && "$venv/bin/python" -I -c '
import numpy as np, subprocess, sys, turbozarr as tz
from pathlib import Path
a = tz.create("s.zarr", shape=(30, 20), dtype="i2", chunks=(8, 8))
a[...] = np.arange(600, dtype="i2").reshape(30, 20)
assert (tz.open("s.zarr")[...] == np.arange(600).reshape(30, 20)).all()
out = subprocess.run([Path(sys.executable).parent / "turbozarr", "cat", "s.zarr", "29, 19"],
                     capture_output=True, text=True, check=True).stdout
assert out.strip() == "599", out
print("test-sdist: turbozarr", tz.__version__, "from the sdist reads and writes")
')
