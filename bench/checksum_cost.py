"""What a checksum costs: the same array written and read with zstd alone,
zstd with its content checksum (XXH64 of the decoded bytes, checked while
decompressing) and zstd followed by the crc32c codec (CRC-32C of the stored
bytes, checked before decompressing), and raw chunks with and without
crc32c; plain chunks as workload A's lz4-200 cut them and shards of inner
chunks as workload B's. turbozarr alone, one process, warm page cache,
interleaved run by run; prints medians and each variant's time against
the same layout without a checksum.

    PYTHONPATH=python:bench .venv/bin/python bench/checksum_cost.py \\
        [--mib 1024] [--repeats 7] [--dir /tmp/checksum-cost]

The data is workload A's kind (uint8, runs of equal bytes with noise, about
3x compressible), (rows, 20000) for --mib MiB.
"""

from __future__ import annotations

import argparse
import os
import shutil

import numpy as np

import turbozarr as tz
from interleaved import median_ms

ZSTD = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
ZSTD_CHECKSUM = {"name": "zstd", "configuration": {"level": 0, "checksum": True}}
CRC32C = {"name": "crc32c"}

# name -> (compressors, the variant it is measured against)
VARIANTS = {
    "zstd": ([ZSTD], None),
    "zstd, content checksum": ([ZSTD_CHECKSUM], "zstd"),
    "zstd + crc32c": ([ZSTD, CRC32C], "zstd"),
    "raw": ([], None),
    "raw + crc32c": ([CRC32C], "raw"),
}


def make_data(mib: int) -> np.ndarray:
    cols = 20_000
    rows = max(1, (mib << 20) // cols)
    rng = np.random.default_rng(0)
    runs = np.repeat(rng.integers(0, 256, size=rows * cols // 16 + 1, dtype=np.uint8), 16)
    noise = (rng.random(rows * cols) < 0.1).astype(np.uint8)
    return (runs[: rows * cols] + noise).reshape(rows, cols)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--mib", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--dir", default="/tmp/checksum-cost")
    args = p.parse_args()
    data = make_data(args.mib)
    rows, cols = data.shape
    layouts = {
        "chunks (rows/200, 20000)": dict(chunks=(max(1, rows // 200), cols)),
        "shards of 16, inner (rows/256, 2500)": dict(
            chunks=(max(1, rows // 256), cols // 8), shards=(max(1, rows // 256) * 4, cols // 2)),
    }
    print(f"uint8 {data.shape}, {data.nbytes / 2**20:.0f} MiB; medians of {args.repeats}, "
          f"{os.cpu_count()} cores")
    print(f"{'layout':38} {'codecs':24} {'stored MiB':>10} {'write':>10} {'read':>10} "
          f"{'read vs':>8} {'write vs':>8}")
    for layout, kwargs in layouts.items():
        arrays, paths = {}, {}
        for name, (compressors, _) in VARIANTS.items():
            path = paths[name] = os.path.join(args.dir, name.replace(" ", "_").replace(",", ""))
            shutil.rmtree(path, ignore_errors=True)
            arrays[name] = tz.create(path, shape=data.shape, dtype="uint8",
                                     compressors=compressors, **kwargs)
        names = list(VARIANTS)
        writes = median_ms([lambda a=arrays[n]: a.__setitem__(Ellipsis, data) for n in names],
                           args.repeats)
        reads = median_ms([lambda a=arrays[n]: a[...] for n in names], args.repeats)
        for k, name in enumerate(names):
            np.testing.assert_array_equal(arrays[name][...], data)
            stored = sum(os.path.getsize(os.path.join(r, f))
                         for r, _, files in os.walk(paths[name]) for f in files)
            base = VARIANTS[name][1]
            vs_read = vs_write = ""
            if base is not None:
                b = names.index(base)
                vs_read = f"{reads[k] / reads[b]:7.3f}x"
                vs_write = f"{writes[k] / writes[b]:7.3f}x"
            print(f"{layout:38} {name:24} {stored / 2**20:10.1f} {writes[k]:8.1f}ms "
                  f"{reads[k]:8.1f}ms {vs_read:>8} {vs_write:>8}")


if __name__ == "__main__":
    main()
