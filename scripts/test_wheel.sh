#!/usr/bin/env bash
# `make test-wheel` for one interpreter: builds a wheel from the source tree
# with the interpreter's environment (its pinned scikit-build-core and
# nanobind, no build isolation), installs it into a fresh virtual environment
# that holds only the wheel and numpy, and runs scripts/check_wheel.py there
# from an empty directory outside the tree.
#   scripts/test_wheel.sh WHEEL_DIR PYTHON REQUIREMENTS
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
wheel_dir=$(realpath -m "$1") python=$2 requirements=$3

tag=$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
dist=$wheel_dir/dist/$tag
venv=$wheel_dir/venv-$tag
rm -rf "$dist" "$venv"

# The compilers CMake picks by itself for the Makefile's builds (scikit-build-core
# would name the ones Python was built with, g++ here, which ccache counts as
# another compiler), behind ccache when it is installed: a first wheel build
# then reuses `make build`'s objects.
export CC=${CC:-cc} CXX=${CXX:-c++}
ccache=$(command -v ccache || true)
export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER-$ccache}
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER-$ccache}

start=$SECONDS
"$python" -m pip wheel . -q --no-build-isolation --no-deps -w "$dist"
wheels=("$dist"/turbozarr-*.whl)
echo "test-wheel: $(basename "${wheels[0]}") built in $((SECONDS - start)) s"

"$python" -m venv "$venv"
numpy_pin=$(grep -E '^numpy==' "$requirements")
"$venv/bin/python" -m pip install -q "$numpy_pin" "${wheels[0]}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && "$venv/bin/python" -I "$root/scripts/check_wheel.py")
