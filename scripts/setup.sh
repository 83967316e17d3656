#!/usr/bin/env bash
# Installs everything turbozarr needs on a fresh Debian machine, idempotently:
# the C++ toolchain and libraries from Debian's packages, and a Python virtual
# environment (.venv) with the build tools, numpy and the test oracles.
# Re-running it when everything is present takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential ninja-build pkg-config clang libclang-rt-14-dev
  libzstd-dev liblz4-dev libblosc-dev libdeflate-dev zlib1g-dev libbz2-dev
  libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libbenchmark-dev libcli11-dev
  nginx  # the HTTP store tests serve files from a real web server on loopback
  zstd   # scripts/fixtures: one compressor fixture is the tool's own framing
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

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements-stamp
if [ ! -f "$stamp" ] || ! cmp -s requirements-dev.txt "$stamp"; then
  echo "setup: installing Python requirements"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements-dev.txt
  cp requirements-dev.txt "$stamp"
fi
