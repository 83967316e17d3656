#!/usr/bin/env bash
# Installs everything turbozarr needs on a fresh Debian machine, idempotently:
# the C++ toolchain and libraries from Debian's packages, and four Python
# virtual environments with the build tools, numpy and the test oracles:
# .venv (the default python3, requirements-dev.txt), .venv312 and .venv313
# (Python 3.12 and 3.13, both requirements-py312.txt: zarr-python 3.4, xarray
# and dask need 3.12 or later) and .venv-vcz (requirements-vcz.txt: vcztools
# and bio2zarr, the VCF Zarr peers, kept apart so that their pins do not move
# the others'). `--demo` installs only what `make demo` needs. `--ome-peers` adds
# .venv-ome (requirements-ome-peers.txt: workload E's other OME-Zarr peers);
# `--sparse-peers` adds .venv-sparse (requirements-sparse-peers.txt: workload F's).
# Re-running it when everything is present takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the library, the extension module and the command-line tool build with.
APT_PACKAGES=(
  build-essential ninja-build pkg-config
  libzstd-dev liblz4-dev libblosc-dev libdeflate-dev zlib1g-dev libbz2-dev libzfp-dev
  liblzma-dev  # numcodecs' lzma codec (Python's lzma module links the same library)
  libsnappy-dev  # blosc's "snappy" compressor (in the v3 spec; TensorStore writes it)
  libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libcli11-dev
  libsqlite3-dev  # the .bgen.bgi index that view-bgen writes is an SQLite database
  ccache # the Makefile's compiler launcher: rebuilds and wheel builds reuse objects
)
# What the tests, the benchmarks and the fuzzers add.
if [ "${1:-}" != "--demo" ]; then
  APT_PACKAGES+=(
    clang libclang-rt-14-dev libgtest-dev libgmock-dev libbenchmark-dev
    nginx  # the HTTP store tests serve files from a real web server on loopback
    openssl  # and make its test certificate for HTTP/2 over TLS
    zstd   # scripts/fixtures: one compressor fixture is the tool's own framing
    bcftools tabix plink2 plink1.9  # the VCF Zarr layer's oracles, and bgzip for its fixtures
    debootstrap  # make test-wheel-bare: a bare Debian root to install the wheels into
  )
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A virtual environment at $1 made by the interpreter $2, with the pins of
# requirements file $3 installed, or with $4 given, only the pins of the
# packages that regular expression names; a stamp (a copy of what was
# installed) skips the install while that is unchanged.
make_venv() {
  local venv=$1 py=$2 requirements=$3 only=${4:-}
  if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating $venv"
    "$py" -m venv "$venv"
  fi
  local pins=$venv/.requirements-$(basename "$requirements")
  if [ -n "$only" ]; then
    pins=$pins.subset
    grep -E "^($only)==" "$requirements" > "$pins.new"
  else
    cp "$requirements" "$pins.new"
  fi
  if [ ! -f "$pins" ] || ! cmp -s "$pins.new" "$pins"; then
    echo "setup: installing the Python requirements of $requirements${only:+ (only $only)} into $venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -r "$pins.new"
    mv "$pins.new" "$pins"
  else
    rm -f "$pins.new"
  fi
}

# An interpreter of Python $1 (3.12, 3.13) that can make virtual environments:
# $PYTHON312 / $PYTHON313, python3.12 on PATH (a pyenv shim answers only where
# that version is selected), one that pyenv installed, or the system's. Prints
# its path, or nothing.
is_python() {
  "$2" -c "import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != tuple(map(int, '$1'.split('.'))))" \
    >/dev/null 2>&1
}
find_python() {
  local version=$1 var="PYTHON${1/./}" candidates=()
  [ -n "${!var:-}" ] && candidates+=("${!var}")
  candidates+=("$(command -v "python$version" || true)")
  local pyenv_root
  pyenv_root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
  local c
  for c in "$pyenv_root"/versions/"$version"*/bin/python"$version" \
           /root/.pyenv/versions/"$version"*/bin/python"$version" \
           /usr/bin/python"$version" /usr/local/bin/python"$version"; do
    candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    if [ -n "$c" ] && [ -x "$c" ] && is_python "$version" "$c"; then echo "$c"; return; fi
  done
}

# Python $1's interpreter: find_python's, else Debian's package when apt offers
# one, else a message saying what to install.
require_python() {
  local version=$1 found
  found=$(find_python "$version")
  if [ -z "$found" ] && apt-cache show "python$version-venv" >/dev/null 2>&1; then
    echo "setup: installing python$version from Debian's packages" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      "python$version" "python$version-venv" "python$version-dev" >/dev/null
    found=$(find_python "$version")
  fi
  if [ -z "$found" ]; then
    cat >&2 <<MSG
setup: no Python $version interpreter found (tried \$PYTHON${version/./}, python$version on PATH,
pyenv's versions and Debian's python$version package). The Python $version environment
(zarr-python 3.4, xarray, dask) needs one. Install Python $version with its venv
module, for example \`pyenv install $version\` or, where apt has it,
\`apt-get install python$version python$version-venv python$version-dev\`, or point
PYTHON${version/./} at an interpreter, then run this again.
MSG
    exit 1
  fi
  echo "$found"
}

# `--demo` (make demo): only what the demo builds and runs, .venv and the C++
# build's packages, so that a newcomer's first run is quick.
if [ "${1:-}" = "--demo" ]; then
  # The build tools, and what examples/demo.py imports.
  make_venv .venv "${PYTHON:-python3}" requirements-dev.txt \
    'scikit-build-core|nanobind|numpy|ml_dtypes|zarr|numcodecs|crc32c'
else
  make_venv .venv "${PYTHON:-python3}" requirements-dev.txt
  make_venv .venv-vcz "${PYTHON:-python3}" requirements-vcz.txt
  # Python 3.12 and 3.13 share one list of pins.
  [ -x .venv312/bin/python ] || PY312=$(require_python 3.12)
  make_venv .venv312 "${PY312:-}" requirements-py312.txt
  [ -x .venv313/bin/python ] || PY313=$(require_python 3.13)
  make_venv .venv313 "${PY313:-}" requirements-py312.txt
fi
# Workload E's other OME-Zarr peers, only when asked (make bench-ome-env).
if [ "${1:-}" = "--ome-peers" ]; then
  make_venv .venv-ome "$(require_python 3.12)" requirements-ome-peers.txt
fi
# Workload F's peers (TileDB-SOMA, BPCells), only when asked (make bench-sparse-env).
if [ "${1:-}" = "--sparse-peers" ]; then
  make_venv .venv-sparse "$(require_python 3.12)" requirements-sparse-peers.txt
fi

# c-blosc 1.21.7 from its release sources, which CMake prefers to Debian's.
bash scripts/build_blosc.sh .venv/bin/python
# The NGFF JSON schemas the OME-Zarr tests validate against.
bash scripts/fetch_ngff_schemas.sh .venv/bin/python
