#!/usr/bin/env bash
# `make test-wheel` for one interpreter: installs that interpreter's wheel
# from `make wheels` (WHEELS/dist) into a fresh virtual environment that
# holds only the wheel and numpy, and runs scripts/check_wheel.py there from
# an empty directory outside the tree, with LD_LIBRARY_PATH empty.
#   scripts/test_wheel.sh WHEELS PYTHON REQUIREMENTS
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
wheels=$(realpath -m "$1") python=$2 requirements=$3

tag=$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
found=("$wheels"/dist/turbozarr-*-"$tag"-"$tag"-manylinux*.whl)
[ -f "${found[0]}" ] || { echo "test-wheel: no $tag wheel in $wheels/dist" >&2; exit 1; }
venv=$wheels/venv-$tag
rm -rf "$venv"
"$python" -m venv "$venv"
numpy_pin=$(grep -E '^numpy==' "$requirements")
"$venv/bin/python" -m pip install -q "$numpy_pin" "${found[0]}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && LD_LIBRARY_PATH= "$venv/bin/python" -I "$root/scripts/check_wheel.py")
