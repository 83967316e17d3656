"""A short tour of turbozarr, run by `make demo`.

Creates a sharded, zstd-compressed Zarr v3 array and a blosc-compressed v2
array in a temporary directory, writes numpy data, reads selections back,
shows attributes and the group tree, and has zarr-python read the same bytes.
Every step is checked; the script exits non-zero if any check fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numcodecs
import numpy as np
import zarr

import turbozarr as tz

FAILURES: list[str] = []


def check(what: str, ok: bool) -> None:
    print(f"    {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        FAILURES.append(what)


def size_on_disk(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def timed(label: str, nbytes: int, fn):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    rate = f"{nbytes / 2**20 / seconds:8.0f} MiB/s" if nbytes >= 2**20 else ""
    print(f"  {label:<44} {seconds * 1e3:8.1f} ms  {rate}".rstrip())
    return result


def demo_v3(root: tz.Group, where: Path) -> np.ndarray:
    print("\n1. A v3 array: 2048 x 2048 float32, 256 x 256 chunks in 1024 x 1024 shards, zstd")
    y, x = np.mgrid[0:2048, 0:2048] / 256
    # A smooth field in steps of 1/64 K: values whose low mantissa bits are zero,
    # as quantised sensor data has, so that zstd has something to find.
    data = (280 + np.round(np.sin(x) * np.cos(y) * 640) / 64).astype("float32")
    a = root.create_group("images").create_array(
        "temperature", shape=data.shape, dtype="float32", chunks=(256, 256),
        shards=(1024, 1024),
        compressors=[{"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
        dimension_names=["y", "x"], attributes={"units": "K", "scale": 0.5},
    )
    timed("write everything", data.nbytes, lambda: a.__setitem__(..., data))
    stored = size_on_disk(where / "images" / "temperature")
    print(f"  stored {mib(data.nbytes)} as {mib(stored)} in 4 shard files "
          f"({data.nbytes / stored:.1f} times smaller)")

    whole = timed("read everything", data.nbytes, lambda: a[:])
    block = timed("read a[1000:1100, 500:900] (crosses shards)", 100 * 400 * 4,
                  lambda: a[1000:1100, 500:900])
    strided = timed("read a[::64, 7] (one column, every 64th row)", 32 * 4,
                    lambda: a[::64, 7])
    check("whole array reads back exactly", np.array_equal(whole, data))
    check("block selection matches numpy", np.array_equal(block, data[1000:1100, 500:900]))
    check("strided selection matches numpy", np.array_equal(strided, data[::64, 7]))
    check("attributes stored", dict(a.attrs) == {"units": "K", "scale": 0.5})
    print(f"  attributes: {dict(a.attrs)}  dimension names: {a.dimension_names}")
    return data


def demo_v2(where: Path) -> np.ndarray:
    print("\n2. A v2 array: 1,000,000 int64 in chunks of 100,000, blosc/lz4")
    data = np.cumsum(np.random.default_rng(1).integers(-3, 4, 1_000_000)).astype("int64")
    b = tz.create(where, shape=data.shape, dtype="int64", chunks=(100_000,), zarr_format=2,
                  compressor=numcodecs.Blosc(cname="lz4", clevel=5,
                                             shuffle=numcodecs.Blosc.SHUFFLE),
                  fill_value=0, attributes={"description": "a random walk"})
    timed("write everything", data.nbytes, lambda: b.__setitem__(..., data))
    b[10:20] = -1  # a partial write into one chunk
    data[10:20] = -1
    stored = size_on_disk(where)
    print(f"  stored {mib(data.nbytes)} as {mib(stored)} in {b.nchunks} chunk files "
          f"({data.nbytes / stored:.1f} times smaller)")
    tail = timed("read b[-5:]", 5 * 8, lambda: b[-5:])
    check("partial write and negative slice", np.array_equal(tail, data[-5:]) and
          np.array_equal(b[5:25], data[5:25]))
    check("v2 metadata written", (where / ".zarray").exists() and (where / ".zattrs").exists())
    return data


def demo_interop(v3_path: Path, v3_data: np.ndarray, v2_path: Path,
                 v2_data: np.ndarray) -> None:
    print(f"\n3. zarr-python {zarr.__version__} reads what turbozarr wrote")
    z3 = zarr.open_group(v3_path, mode="r")["images/temperature"]
    z2 = zarr.open_array(v2_path, mode="r")
    both = v3_data.nbytes + v2_data.nbytes
    v3_read, v2_read = timed("zarr-python reads both arrays", both, lambda: (z3[:], z2[:]))
    check("zarr-python reads the v3 sharded array identically",
          np.array_equal(v3_read, v3_data))
    check("zarr-python reads the v2 array identically", np.array_equal(v2_read, v2_data))
    check("zarr-python sees the attributes", dict(z3.attrs) == {"units": "K", "scale": 0.5})
    check("zarr-python sees the sharding", z3.shards == (1024, 1024) and z3.chunks == (256, 256))


def demo_cli(v3_path: Path) -> None:
    default = Path(__file__).resolve().parent.parent / "build" / "cli" / "turbozarr"
    cli = os.environ.get("TURBOZARR_CLI") or str(default)
    if not os.access(cli, os.X_OK):
        return
    print("\n4. The command-line tool: turbozarr cat demo.zarr/images/temperature '0, :4'")
    out = subprocess.run([cli, "cat", str(v3_path / "images/temperature"), "0, :4"],
                         capture_output=True, text=True)
    print("  " + out.stdout.strip())
    check("turbozarr cat exits 0", out.returncode == 0)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="turbozarr-demo-") as tmp:
        v3_path = Path(tmp) / "demo.zarr"
        v2_path = Path(tmp) / "legacy.zarr"
        print(f"turbozarr {tz.__version__} demo in {tmp}")
        root = tz.open_group(v3_path, mode="w", attributes={"title": "turbozarr demo"})
        v3_data = demo_v3(root, v3_path)
        root.create_group("tables").create_array("empty", shape=(10, 3), dtype="int8",
                                                 fill_value=-1)
        print("  the group's tree:")
        print("    " + tz.open_group(v3_path).tree().strip().replace("\n", "\n    "))
        empty = tz.open_group(v3_path)["tables/empty"]
        check("a never-written array reads as its fill value", bool((empty[:] == -1).all()))
        v2_data = demo_v2(v2_path)

        demo_interop(v3_path, v3_data, v2_path, v2_data)
        demo_cli(v3_path)

    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed: {', '.join(FAILURES)}")
        return 1
    print("\nAll checks passed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
