#!/usr/bin/env bash
# Puts the NGFF 0.4 and 0.5 JSON schemas (the OME-Zarr specification's, as
# the ngff-zarr release on PyPI ships them, checked against a pinned SHA-256)
# in .deps/ngff-schemas/<version>/, where the OME-Zarr tests validate what
# turbozarr writes against them. Re-running it when they are there does
# nothing.
#   usage: scripts/fetch_ngff_schemas.sh PYTHON   (an interpreter with pip)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=$1
WHEEL=ngff_zarr-0.50.0-py3-none-any.whl
SHA256=967124641361bec40e3057635062e4b5b2771a442e78e25a16673e49e5f82853
TARGET=$PWD/.deps/ngff-schemas
STAMP=$TARGET/.stamp

if [ "$(cat "$STAMP" 2>/dev/null)" = "$SHA256" ]; then exit 0; fi

echo "setup: fetching the NGFF JSON schemas into .deps/ngff-schemas"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m pip download -q --no-deps "ngff-zarr==0.50.0" -d "$work" 2>/dev/null
echo "$SHA256  $work/$WHEEL" | sha256sum -c --quiet -
rm -rf "$TARGET"
"$PYTHON" - "$work/$WHEEL" "$TARGET" <<'PY'
import sys, zipfile, pathlib
wheel, target = sys.argv[1], pathlib.Path(sys.argv[2])
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        parts = name.split("/")
        if parts[:2] == ["ngff_zarr", "spec"] and parts[2] in ("0.4", "0.5") \
                and parts[3] == "schemas" and name.endswith(".schema"):
            out = target / parts[2] / parts[4]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(z.read(name))
PY
echo "$SHA256" > "$STAMP"
