"""The write audit: read a written array back with plain zarr-python.

`python -m turbozarr_bench.audit PATH` prints the digest of the array at PATH
(a directory, or a zip archive when PATH ends in .zip)
(see checksum.py), read slab by slab along axis 0 so memory stays bounded. It
runs in the harness's interpreter, whose zarr-python is pinned, and never in a
contestant's environment: the auditor must not be a contestant, or the one
writer it can never catch is the one it agrees with.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from turbozarr_bench.checksum import ArrayDigest
from turbozarr_bench.datasets.pixels import slabs


def digest_store(path: str) -> dict:
    import zarr

    if path.endswith(".zip"):
        store = zarr.storage.ZipStore(path, mode="r")
    else:
        store = zarr.storage.LocalStore(path, read_only=True)
    a = zarr.open_array(store=store, mode="r")
    d = ArrayDigest(a.shape, a.dtype)
    for region in slabs(tuple(a.shape), np.dtype(a.dtype).itemsize):
        d.update(a[region])
    return {"checksum": d.hexdigest(), "shape": list(a.shape), "dtype": str(a.dtype),
            "auditor": f"zarr-python {zarr.__version__}"}


def main(argv: list[str]) -> int:
    try:
        print(json.dumps(digest_store(argv[0])))
    except Exception as e:  # noqa: BLE001 - reported as an unreadable write
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
