#!/usr/bin/env bash
# make test-wheel-bare: the wheels that `make wheels` made, installed as a new
# user installs them, on machines that have never seen this project's set-up.
#   scripts/bare_root/test_wheels.sh DIST ROOTS
# DIST holds the wheels; ROOTS keeps the Debian roots between runs.
#
# Each root is made by debootstrap (minbase, plus python3 and python3-venv:
# no compiler, no -dev package, none of the libraries scripts/setup.sh
# installs). Inside it, with an empty LD_LIBRARY_PATH, a fresh virtual
# environment gets the wheel and its dependencies from PyPI and runs
# scripts/bare_root/checks.py:
#   Debian 12 (bookworm), its Python 3.11:  cp311 wheel, turbozarr[all] and
#     zarr-python 3.1 (the newest there, too old for the codec pipeline)
#   Debian 12, pyenv's CPython 3.12 copied in (it links libc, libm and its
#     own libpython; its standard modules link the libraries Debian's
#     python3 brought): cp312 wheel, turbozarr[all] with zarr-python 3.4.2
#   Debian 13 (trixie), its Python 3.13: cp313 wheel, turbozarr[all] with
#     zarr-python 3.4.2, then one environment per extra (checks.py --only)
# and the failures a user must get from pip, not from the loader: a wheel for
# another Python is refused at install. The figures (wheel size, import and
# --help times, install time) go to ROOTS/figures.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" -eq 0 ] || { echo "test-wheel-bare: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
dist=$(realpath "$1") roots=$(realpath -m "$2")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
python312=${PYTHON312_HOME:-$(ls -d /root/.pyenv/versions/3.12* 2>/dev/null | head -1)}
mkdir -p "$roots"
figures=$roots/figures.txt
: > "$figures"

wheel_for() {  # the wheel for CPython tag $1 (cp311, ...)
  local w=("$dist"/turbozarr-*-"$1"-"$1"-manylinux*.whl)
  [ -f "${w[0]}" ] || { echo "test-wheel-bare: no $1 wheel in $dist (make wheels)" >&2; exit 1; }
  echo "${w[0]}"
}

make_root() {  # $1 suite: a root made once and kept (a stamp marks it whole)
  local root=$roots/$1
  if [ ! -f "$root/.complete" ]; then
    rm -rf "$root"
    echo "test-wheel-bare: debootstrap $1 (minbase, python3, python3-venv)"
    debootstrap --variant=minbase --include=python3,python3-venv "$1" "$root" "$mirror" \
      > "$roots/$1.debootstrap.log" 2>&1 || { tail -20 "$roots/$1.debootstrap.log" >&2; exit 1; }
    touch "$root/.complete"
  fi
  # What a machine has to reach PyPI: its resolver, and the certificate
  # authority of this network's proxy when the host has one configured.
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  local ca=${PIP_CERT:-${SSL_CERT_FILE:-}}
  rm -f "$root/etc/host-ca.crt"
  [ -n "$ca" ] && [ -f "$ca" ] && cp "$ca" "$root/etc/host-ca.crt"
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  mounted+=("$root/proc")
  rm -rf "$root/opt/check"
  mkdir -p "$root/opt/check/wheels"
  cp scripts/bare_root/checks.py README.md "$root/opt/check/"
  cp "$dist"/turbozarr-*.whl "$root/opt/check/wheels/"
}

mounted=()
cleanup() { for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || true; done; }
trap cleanup EXIT

in_root() {  # $1 root, then a shell command run there with a clean environment
  local root=$1; shift
  local cert=()
  [ -f "$root/etc/host-ca.crt" ] && cert=(PIP_CERT=/etc/host-ca.crt)
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
    LD_LIBRARY_PATH= PIP_DISABLE_PIP_VERSION_CHECK=1 "${cert[@]}" /bin/sh -ec "$*"
}

median_ms() {  # $1 root, $2 command run 7 times in fresh processes: the median wall time
  in_root "$1" "for i in 1 2 3 4 5 6 7; do s=\$(date +%s%N); $2 > /dev/null; \
    echo \$(( (\$(date +%s%N) - s) / 1000000 )); done | sort -n | sed -n 4p"
}

# $1 root, $2 interpreter there, $3 wheel tag, $4 label, $5 extra pip arguments:
# the wheel with every extra in a fresh environment, the checks, the figures.
full_check() {
  local root=$1 python=$2 tag=$3 label=$4 extra=${5:-}
  local wheel venv=/opt/venv-$tag
  wheel=/opt/check/wheels/$(basename "$(wheel_for "$tag")")
  echo "test-wheel-bare: $label: pip install ${wheel##*/}[all] $extra"
  in_root "$root" "rm -rf $venv && $python -m venv $venv && \
    $venv/bin/pip install -q '$wheel[all]' $extra 'moto[server]'"
  in_root "$root" "cd /tmp && $venv/bin/python /opt/check/checks.py /opt/check/README.md"
  # The figures: a fresh environment and the wheel alone (its dependencies
  # now in pip's cache), then fresh processes.
  in_root "$root" "rm -rf /opt/venv-time && $python -m venv /opt/venv-time"
  local start
  start=$(date +%s%N)
  in_root "$root" "/opt/venv-time/bin/pip install -q '$wheel'"
  local install_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  {
    echo "$label: $(basename "$wheel"): $(du -k "$(wheel_for "$tag")" | cut -f1) KiB"
    echo "  pip install of the wheel (numpy, ml_dtypes cached): ${install_ms} ms"
    echo "  python -c 'import turbozarr' (median of 7): $(median_ms "$root" "/opt/venv-time/bin/python -c 'import turbozarr'") ms"
    echo "  turbozarr --help (median of 7): $(median_ms "$root" "/opt/venv-time/bin/turbozarr --help") ms"
    echo "  python -c 'pass' (the interpreter alone): $(median_ms "$root" "/opt/venv-time/bin/python -c pass") ms"
  } | tee -a "$figures"
}

make_root bookworm
# With the newest zarr-python for Python 3.11 (3.1) beside it.
full_check "$roots/bookworm" /usr/bin/python3 cp311 "Debian 12, Python 3.11" "zarr"
# A wheel for another Python is pip's refusal at install, not a loader error.
if in_root "$roots/bookworm" "/opt/venv-cp311/bin/pip install --no-deps \
    /opt/check/wheels/$(basename "$(wheel_for cp313)")" > "$roots/refusal.log" 2>&1; then
  echo "test-wheel-bare: pip installed a cp313 wheel on Python 3.11" >&2; exit 1
fi
grep -q "is not a supported wheel on this platform" "$roots/refusal.log" ||
  { cat "$roots/refusal.log" >&2; exit 1; }
echo "test-wheel-bare: Python 3.11 refuses the cp313 wheel: $(grep -o 'ERROR.*' "$roots/refusal.log")"

if [ -n "$python312" ] && [ -x "$python312/bin/python3.12" ]; then
  if [ ! -x "$roots/bookworm$python312/bin/python3.12" ]; then  # copied once, kept
    mkdir -p "$roots/bookworm$python312"
    cp -a "$python312/." "$roots/bookworm$python312/"
  fi
  full_check "$roots/bookworm" "$python312/bin/python3.12" cp312 \
    "Debian 12, CPython 3.12 (pyenv's, copied in)" "zarr==3.4.2"
else
  echo "test-wheel-bare: no Python 3.12 to copy into the root (PYTHON312_HOME)" >&2; exit 1
fi

make_root trixie
full_check "$roots/trixie" /usr/bin/python3 cp313 "Debian 13, Python 3.13" "zarr==3.4.2"
# Each extra alone carries its layer (and none of the others' libraries).
wheel=/opt/check/wheels/$(basename "$(wheel_for cp313)")
for extra in base zarr xarray dask ome sparse vcz; do
  spec=$wheel; [ "$extra" = base ] || spec="$wheel[$extra]"
  in_root "$roots/trixie" "rm -rf /opt/venv-extra && python3 -m venv /opt/venv-extra && \
    /opt/venv-extra/bin/pip install -q '$spec' && \
    cd /tmp && /opt/venv-extra/bin/python /opt/check/checks.py /opt/check/README.md --only $extra" \
    > "$roots/extra-$extra.log" 2>&1 || { cat "$roots/extra-$extra.log" >&2; exit 1; }
  echo "test-wheel-bare: turbozarr[$extra] alone: $(tail -1 "$roots/extra-$extra.log")"
done
echo "test-wheel-bare: all passed; figures in $figures"
