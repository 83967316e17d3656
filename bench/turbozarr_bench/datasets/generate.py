"""Writes one fixture with plain zarr-python, in blocks of bounded size.

Run as a child process (`python -m turbozarr_bench.datasets.generate SPEC.json
DIR`) in the harness's own interpreter, whose zarr and numcodecs are pinned
(see bench/README.md, "What is measured, and how"). No contestant's encoder touches a fixture, so no
contestant reads its own output. The stamp (stamp.json) is written last; a
directory without one is an interrupted generation and is thrown away.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from turbozarr_bench.checksum import ArrayDigest
from turbozarr_bench.datasets.pixels import make_generator, slabs
from turbozarr_bench.datasets.spec import DatasetSpec, validate

BLOCK_BUDGET = 256 << 20  # bytes of generated values held at once


def aligned_blocks(shape, unit, itemsize: int, budget: int = BLOCK_BUDGET) -> Iterator[tuple]:
    """Regions covering `shape`, each a whole number of `unit`s (clipped at the
    edges), grown along the trailing axes first up to `budget` bytes, so every
    store key is written exactly once."""
    rank = len(shape)
    block = list(unit)
    for axis in range(rank - 1, -1, -1):
        full = math.ceil(shape[axis] / unit[axis]) * unit[axis]
        per_unit_len = itemsize * math.prod(block) // block[axis]
        fit = budget // max(per_unit_len, 1)
        if fit >= full:
            block[axis] = full
            continue
        block[axis] = max(unit[axis], fit // unit[axis] * unit[axis])
        break
    grid = [math.ceil(shape[d] / block[d]) for d in range(rank)]
    for idx in np.ndindex(*grid):
        yield tuple(slice(i * b, min((i + 1) * b, s)) for i, b, s in zip(idx, block, shape))


def zarr_compressors(spec: DatasetSpec) -> Any:
    """The zarr-python compressor object(s) the spec names."""
    import numcodecs
    import zarr

    v = spec.values
    codec = v["codec"]
    if codec == "none":
        return None
    shuffles = {"none": 0, "byte": 1, "bit": 2}
    if v["zarr_format"] == 2:
        if codec == "zstd":
            return numcodecs.Zstd(level=v["level"])
        if codec == "gzip":
            return numcodecs.GZip(level=v["level"])
        return numcodecs.Blosc(cname=codec.split("-", 1)[1], clevel=v["level"],
                               shuffle=shuffles[v["shuffle"]])
    if codec == "zstd":
        return zarr.codecs.ZstdCodec(level=v["level"], checksum=False)
    if codec == "gzip":
        return zarr.codecs.GzipCodec(level=v["level"])
    names = {"none": "noshuffle", "byte": "shuffle", "bit": "bitshuffle"}
    return zarr.codecs.BloscCodec(cname=codec.split("-", 1)[1], clevel=v["level"],
                                  shuffle=names[v["shuffle"]],
                                  typesize=np.dtype(v["dtype"]).itemsize)


def _write_array(spec: DatasetSpec, target: Path) -> str:
    import zarr

    v = spec.values
    gen = make_generator(v["pixels"], v["shape"], v["dtype"], v["seed"])
    kwargs: dict[str, Any] = dict(shape=tuple(v["shape"]), dtype=v["dtype"],
                                  chunks=tuple(v["chunks"]), fill_value=v["fill_value"],
                                  zarr_format=v["zarr_format"],
                                  compressors=zarr_compressors(spec))
    if v.get("shards"):
        kwargs["shards"] = tuple(v["shards"])
    if v["zarr_format"] == 2:
        kwargs["filters"] = None
    else:
        kwargs["filters"] = []
    z = zarr.create_array(store=zarr.storage.LocalStore(str(target)), **kwargs)
    itemsize = np.dtype(v["dtype"]).itemsize
    for region in aligned_blocks(v["shape"], spec.write_unit, itemsize):
        z[region] = gen(region)
    return _digest(spec, gen)


def _write_npy(spec: DatasetSpec, target: Path) -> str:
    v = spec.values
    gen = make_generator(v["pixels"], v["shape"], v["dtype"], v["seed"])
    out = np.lib.format.open_memmap(str(target), mode="w+", dtype=v["dtype"],
                                    shape=tuple(v["shape"]))
    for region in slabs(tuple(v["shape"]), np.dtype(v["dtype"]).itemsize):
        out[region] = gen(region)
    out.flush()
    del out
    return _digest(spec, gen)


def _digest(spec: DatasetSpec, gen) -> str:
    v = spec.values
    d = ArrayDigest(v["shape"], v["dtype"])
    for region in slabs(tuple(v["shape"]), np.dtype(v["dtype"]).itemsize):
        d.update(gen(region))
    return d.hexdigest()


def stored_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file())


def write_stamp(directory: Path, stamp: dict[str, Any]) -> dict[str, Any]:
    """Writes stamp.json (with the writing libraries' versions added) in one
    rename, so that a fixture whose stamp is there was written whole."""
    import numcodecs
    import zarr

    stamp = dict(stamp, writer=f"zarr-python {zarr.__version__}, numcodecs "
                              f"{numcodecs.__version__}, numpy {np.__version__}")
    tmp = directory / "stamp.json.tmp"
    tmp.write_text(json.dumps(stamp, indent=1))
    os.replace(tmp, directory / "stamp.json")
    return stamp


def generate(spec: DatasetSpec, directory: Path) -> dict[str, Any]:
    """Writes the fixture into `directory` (which must be empty) and returns its stamp."""
    start = time.perf_counter()
    directory.mkdir(parents=True, exist_ok=True)
    if spec.kind == "npy":
        target = directory / "data.npy"
        digest = _write_npy(spec, target)
    elif spec.kind == "array":
        target = directory / "data.zarr"
        digest = _write_array(spec, target)
    elif spec.kind == "csr":
        from turbozarr_bench.datasets.sparse import write_csr

        target = directory / "data.zarr"
        digest = write_csr(spec, target)
    else:
        from turbozarr_bench.datasets.vcz import write_vcz

        target = directory / "data.zarr"
        digest = write_vcz(spec, target)
    files = stored_files(target)
    stamp = {
        "name": spec.name,
        "spec": spec.values,
        "spec_hash": spec.spec_hash(),
        "target": target.name,
        "checksum": digest,
        "nbytes": spec.nbytes,
        "stored_bytes": sum(p.stat().st_size for p in files),
        "nfiles": len(files),
        "seconds": round(time.perf_counter() - start, 3),
    }
    return write_stamp(directory, stamp)


def main(argv: list[str]) -> int:
    doc = json.loads(Path(argv[0]).read_text())
    name = doc.pop("name")
    spec = validate(name, doc, "generator")
    stamp = generate(spec, Path(argv[1]))
    print(json.dumps(stamp))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
