"""The cast_value codec: turbozarr against zarr-python 3.4 (whose backend is
cast-value-rs) on the same stored array, full writes and reads, warm page
cache, one process, interleaved run by run; prints medians and ratios.

    PYTHONPATH=python .venv312/bin/python bench/cast_value.py [--size 4096]
        [--repeats 7] [--dir /tmp/cast-value]

A (size, size) float64 array of values in [0, 300) in chunks of (512, 512),
stored as float32, as uint8 (towards zero, clamped) and as int16 (the
defaults: nearest, ties to even, out of range an error), no compressor:
what is timed is the cast, the copy and the file system.
"""

from __future__ import annotations

import argparse
import os
import shutil

import numpy as np

import turbozarr as tz
from interleaved import median_ms

try:
    import zarr
    from zarr.codecs import CastValue
except ImportError:  # turbozarr alone
    zarr = None

CASTS = {
    "float64 -> float32": {"data_type": "float32"},
    "float64 -> uint8 (clamp)": {"data_type": "uint8", "rounding": "towards-zero",
                                 "out_of_range": "clamp"},
    "float64 -> int16": {"data_type": "int16"},
}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--dir", default="/tmp/cast-value")
    args = p.parse_args()
    n = args.size
    data = np.random.default_rng(0).random((n, n)) * 300
    print(f"float64 ({n}, {n}), {data.nbytes / 2**20:.0f} MiB; medians of {args.repeats}")
    print(f"{'cast':26} {'op':6} {'turbozarr':>11} {'zarr-python':>12} {'ratio':>7}")
    for name, config in CASTS.items():
        path = os.path.join(args.dir, config["data_type"])
        shutil.rmtree(path, ignore_errors=True)
        ours = tz.create(path, shape=(n, n), chunks=(512, 512), dtype="f8", zarr_format=3,
                         filters=[{"name": "cast_value", "configuration": config}],
                         compressors=[])
        ours[...] = data
        theirs = zarr.open_array(path, mode="r+") if zarr is not None else None
        for op, mine, peer in (
                ("write", lambda: ours.__setitem__(Ellipsis, data),
                 lambda: theirs.__setitem__(Ellipsis, data)),
                ("read", lambda: ours[...], lambda: theirs[...])):
            fns = [mine] + ([peer] if theirs is not None else [])
            times = median_ms(fns, args.repeats)
            line = f"{name:26} {op:6} {times[0]:8.1f} ms"
            if len(times) > 1:
                line += f" {times[1]:9.1f} ms {times[1] / times[0]:6.2f}x"
            print(line)
        np.testing.assert_array_equal(ours[...], theirs[...] if theirs is not None else ours[...])


if __name__ == "__main__":
    main()
