#!/usr/bin/env bash
# Installs everything turbozarr needs on a fresh Debian machine, idempotently:
# the C++ toolchain and libraries from Debian's packages, and three Python
# virtual environments with the build tools, numpy and the test oracles:
# .venv (the default python3, requirements-dev.txt), .venv312 (Python 3.12,
# requirements-py312.txt: zarr-python 3.4, xarray and dask need 3.12) and
# .venv-vcz (requirements-vcz.txt: vcztools and bio2zarr, the VCF Zarr peers,
# kept apart so that their pins do not move the others'). `--ome-peers` adds
# .venv-ome (requirements-ome-peers.txt: workload E's other OME-Zarr peers);
# `--sparse-peers` adds .venv-sparse (requirements-sparse-peers.txt: workload F's).
# Re-running it when everything is present takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential ninja-build pkg-config clang libclang-rt-14-dev
  libzstd-dev liblz4-dev libblosc-dev libdeflate-dev zlib1g-dev libbz2-dev libzfp-dev
  liblzma-dev  # numcodecs' lzma codec (Python's lzma module links the same library)
  libsnappy-dev  # blosc's "snappy" compressor (in the v3 spec; TensorStore writes it)
  libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libbenchmark-dev libcli11-dev
  libsqlite3-dev  # the .bgen.bgi index that view-bgen writes is an SQLite database
  nginx  # the HTTP store tests serve files from a real web server on loopback
  openssl  # and make its test certificate for HTTP/2 over TLS
  zstd   # scripts/fixtures: one compressor fixture is the tool's own framing
  ccache # the Makefile's compiler launcher: rebuilds and wheel builds reuse objects
  bcftools tabix plink2 plink1.9  # the VCF Zarr layer's oracles, and bgzip for its fixtures
)

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
# requirements file $3 installed; a stamp (a copy of the file) skips the
# install while the file is unchanged.
make_venv() {
  local venv=$1 py=$2 requirements=$3
  if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating $venv"
    "$py" -m venv "$venv"
  fi
  local stamp=$venv/.requirements-stamp
  if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "setup: installing the Python requirements of $requirements into $venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -r "$requirements"
    cp "$requirements" "$stamp"
  fi
}

# A Python 3.12 interpreter that can make virtual environments: $PYTHON312,
# python3.12 on PATH (a pyenv shim answers only where that version is
# selected), one that pyenv installed, or the system's. Prints its path, or
# nothing.
is_py312() {
  "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1
}
find_py312() {
  local candidates=()
  [ -n "${PYTHON312:-}" ] && candidates+=("$PYTHON312")
  candidates+=("$(command -v python3.12 || true)")
  local pyenv_root
  pyenv_root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
  local c
  for c in "$pyenv_root"/versions/3.12*/bin/python3.12 /root/.pyenv/versions/3.12*/bin/python3.12 \
           /usr/bin/python3.12 /usr/local/bin/python3.12; do
    candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    if [ -n "$c" ] && [ -x "$c" ] && is_py312 "$c"; then echo "$c"; return; fi
  done
}

# The interpreter .venv312 is made with: find_py312's, else Debian's package
# when apt offers one, else a message saying what to install.
require_py312() {
  PY312=$(find_py312)
  if [ -z "$PY312" ] && apt-cache show python3.12-venv >/dev/null 2>&1; then
    echo "setup: installing python3.12 from Debian's packages"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      python3.12 python3.12-venv python3.12-dev >/dev/null
    PY312=$(find_py312)
  fi
  if [ -z "$PY312" ]; then
    cat >&2 <<'MSG'
setup: no Python 3.12 interpreter found (tried $PYTHON312, python3.12 on PATH,
pyenv's versions and Debian's python3.12 package). The Python 3.12 environment
(.venv312: zarr-python 3.4, xarray, dask) needs one. Install Python 3.12 with
its venv module, for example `pyenv install 3.12` or, where apt has it,
`apt-get install python3.12 python3.12-venv python3.12-dev`, or point
PYTHON312 at an interpreter, then run this again.
MSG
    exit 1
  fi
}

make_venv .venv "${PYTHON:-python3}" requirements-dev.txt
make_venv .venv-vcz "${PYTHON:-python3}" requirements-vcz.txt
PY312=""
[ -x .venv312/bin/python ] || require_py312
make_venv .venv312 "$PY312" requirements-py312.txt
# Workload E's other OME-Zarr peers, only when asked (make bench-ome-env).
if [ "${1:-}" = "--ome-peers" ]; then
  [ -n "$PY312" ] || require_py312
  make_venv .venv-ome "$PY312" requirements-ome-peers.txt
fi
# Workload F's peers (TileDB-SOMA, BPCells), only when asked (make bench-sparse-env).
if [ "${1:-}" = "--sparse-peers" ]; then
  [ -n "$PY312" ] || require_py312
  make_venv .venv-sparse "$PY312" requirements-sparse-peers.txt
fi

# c-blosc 1.21.7 from its release sources, which CMake prefers to Debian's.
bash scripts/build_blosc.sh .venv/bin/python
# The NGFF JSON schemas the OME-Zarr tests validate against.
bash scripts/fetch_ngff_schemas.sh .venv/bin/python
