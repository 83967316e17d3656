#!/usr/bin/env bash
# Builds c-blosc 1.21.7 (the release numcodecs bundles, so the one
# zarr-python and vcztools decode with) into .deps/c-blosc as a static,
# position-independent library over Debian's zstd, lz4, zlib and snappy (the
# v3 spec's blosc compressors; numcodecs' own build leaves snappy out). CMake
# prefers it to Debian's libblosc 1.21.3, whose bitshuffle decodes about 25%
# slower (docs/architecture.md, "Dependencies and why"). The sources are the
# python-blosc release on PyPI, checked against a pinned SHA-256. Re-running it
# when the library is in place does nothing.
#   usage: scripts/build_blosc.sh PYTHON   (an interpreter with pip)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=$1
RELEASE=blosc==1.11.4
SDIST=blosc-1.11.4.tar.gz
SHA256=e0b312d9554d3aea93c75af4ad70dfa8b815ef4fe2b658c313b2f27ed0f41d37
PREFIX=$PWD/.deps/c-blosc
STAMP=$PREFIX/.stamp
# What the stamp holds: the sources and the options (a new option rebuilds).
BUILD_ID="$SHA256 snappy"

if [ -f "$PREFIX/lib/libblosc.a" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$BUILD_ID" ]; then
  exit 0
fi

echo "setup: building c-blosc 1.21.7 into .deps/c-blosc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m pip download -q --no-deps --no-binary blosc "$RELEASE" -d "$work" 2>/dev/null
echo "$SHA256  $work/$SDIST" | sha256sum -c --quiet -
tar xzf "$work/$SDIST" -C "$work"

# The sources come without their find modules (cmake/, which their
# CMakeLists.txt makes the only module path), so two small ones go there: the
# library then links Debian's zstd and lz4 instead of compiling its own copies,
# whose symbols would shadow the ones turbozarr's own codecs call.
src=$work/blosc-1.11.4/blosc/c-blosc
mkdir -p "$src/cmake"
for pkg in LZ4:LZ4:lz4:lz4.h Zstd:ZSTD:zstd:zstd.h Snappy:SNAPPY:snappy:snappy-c.h; do
  IFS=: read -r module var lib header <<< "$pkg"
  cat > "$src/cmake/Find${module}.cmake" <<EOF_MODULE
find_path(${var}_INCLUDE_DIR ${header})
find_library(${var}_LIBRARY ${lib})
if(${var}_INCLUDE_DIR AND ${var}_LIBRARY)
  set(${var}_FOUND TRUE)
endif()
EOF_MODULE
done
cmake -S "$src" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib \
  -DBUILD_SHARED=OFF -DBUILD_STATIC=ON -DBUILD_TESTS=OFF -DBUILD_BENCHMARKS=OFF \
  -DBUILD_FUZZERS=OFF -DDEACTIVATE_SNAPPY=OFF \
  -DPREFER_EXTERNAL_ZSTD=ON -DPREFER_EXTERNAL_LZ4=ON -DPREFER_EXTERNAL_ZLIB=ON \
  -Wno-dev > "$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
rm -rf "$PREFIX"
cmake --install "$work/build" > /dev/null
echo "$BUILD_ID" > "$STAMP"
