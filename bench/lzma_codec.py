"""numcodecs' lzma codec: turbozarr against zarr-python (numcodecs over
Python's lzma module) on the same stored array, full writes and reads, warm
page cache, one process, interleaved run by run; prints medians and ratios
and checks that both wrote the same bytes.

    PYTHONPATH=python .venv312/bin/python bench/lzma_codec.py [--size 2048]
        [--repeats 5] [--dir /tmp/lzma-codec]

A (size, size) int32 array (a smooth field plus noise, about 4x
compressible) in chunks of (256, 256), compressed three ways: numcodecs'
default (xz, preset 6) in v2, preset 1 in v3, and a raw delta + LZMA2 chain
in v3. Both sides run the same liblzma; what differs is the rest.
"""

from __future__ import annotations

import argparse
import filecmp
import lzma
import os
import shutil

import numpy as np

import turbozarr as tz
from interleaved import median_ms

try:
    import zarr
except ImportError:  # turbozarr alone
    zarr = None

CASES = {
    "v2 default (xz, preset 6)": (2, {"id": "lzma"}),
    "v3 preset 1": (3, {"name": "numcodecs.lzma", "configuration": {"preset": 1}}),
    "v3 raw delta + lzma2": (3, {"name": "numcodecs.lzma", "configuration": {
        "format": lzma.FORMAT_RAW,
        "filters": [{"id": lzma.FILTER_DELTA, "dist": 4},
                    {"id": lzma.FILTER_LZMA2, "preset": 1}]}}),
}


def same_chunks(a: str, b: str) -> bool:
    """Whether every chunk stored under `a` is stored under `b` with the same bytes."""
    compared = 0
    for root, _, files in os.walk(a):
        for f in files:
            if f in (".zarray", ".zattrs", "zarr.json"):
                continue
            rel = os.path.relpath(os.path.join(root, f), a)
            if not filecmp.cmp(os.path.join(a, rel), os.path.join(b, rel), shallow=False):
                return False
            compared += 1
    return compared > 0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--dir", default="/tmp/lzma-codec")
    args = p.parse_args()
    n = args.size
    y, x = np.mgrid[0:n, 0:n]
    data = (y * 3 + x // 2 + np.random.default_rng(0).integers(0, 16, (n, n))).astype("<i4")
    print(f"int32 ({n}, {n}), {data.nbytes / 2**20:.0f} MiB in (256, 256) chunks; "
          f"medians of {args.repeats}")
    print(f"{'codec':28} {'op':6} {'turbozarr':>11} {'zarr-python':>12} {'ratio':>7}")
    for name, (zarr_format, codec) in CASES.items():
        ours_path = os.path.join(args.dir, "tz")
        theirs_path = os.path.join(args.dir, "zarr")
        for path in (ours_path, theirs_path):
            shutil.rmtree(path, ignore_errors=True)
        kwargs = ({"compressor": codec} if zarr_format == 2 else {"compressors": [codec]})
        ours = tz.create(ours_path, shape=(n, n), chunks=(256, 256), dtype="<i4",
                         zarr_format=zarr_format, **kwargs)
        theirs = None
        if zarr is not None:
            shutil.copytree(ours_path, theirs_path)
            theirs = zarr.open_array(theirs_path, mode="r+")
        for op, mine, peer in (
                ("write", lambda: ours.__setitem__(Ellipsis, data),
                 lambda: theirs.__setitem__(Ellipsis, data)),
                ("read", lambda: ours[...], lambda: theirs[...])):
            fns = [mine] + ([peer] if theirs is not None else [])
            times = median_ms(fns, args.repeats)
            line = f"{name:28} {op:6} {times[0]:8.1f} ms"
            if len(times) > 1:
                line += f" {times[1]:9.1f} ms {times[1] / times[0]:6.2f}x"
            print(line)
        np.testing.assert_array_equal(ours[...], data)
        if theirs is not None:
            np.testing.assert_array_equal(theirs[...], data)
            assert same_chunks(ours_path, theirs_path), f"{name}: the stored chunks differ"


if __name__ == "__main__":
    main()
