"""Workload E's images on disk, written by plain zarr-python with NGFF
metadata written here by hand: the read fixtures, the fresh images writes
go into, and zarr-python's own side of `create`.

No contestant's encoder writes a read fixture, so no contestant reads its
own output, and the metadata is the NGFF documents themselves (0.4 on Zarr
v2, 0.5 on v3), not any library's idea of them. The coarser levels are the
workload's reference pyramid, computed with numpy a block of planes at a
time (y and x halved, z kept): mean rounds half to even, nearest takes
`x[1::2, 1::2]` (docs/ome-zarr.md, "The pyramid, exactly").

    python -m turbozarr_bench.ome_fixture SPEC.json DIR

writes one read fixture into DIR (image.zarr and, last, stamp.json), in a
process of its own so its memory is returned when it ends.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from turbozarr_bench.checksum import ArrayDigest
from turbozarr_bench.datasets.pixels import make_generator
from turbozarr_bench.datasets.spec import DatasetSpec, validate
from turbozarr_bench.ome_tasks import (AXES, PIXEL_SIZE, Z_SPACING, describe, level_layout,
                                       level_shapes, ngff_version)

# Bumped when the layout of a fixture (its metadata, its levels) changes.
FIXTURE_VERSION = 1
BLOCK_BUDGET = 128 << 20  # bytes of level-0 pixels generated at once


# -- the pyramid, by the workload's rules ------------------------------------------


def halve(block: np.ndarray, method: str) -> np.ndarray:
    """One level down in y and x (the last two axes), sizes rounded down."""
    ny, nx = (max(1, n // 2) for n in block.shape[-2:])
    if method == "nearest":
        return np.ascontiguousarray(block[..., 1:2 * ny:2, 1:2 * nx:2]
                                    if block.shape[-1] > 1 else block[..., :ny, :nx])
    window = block[..., :2 * ny, :2 * nx].astype(np.int64)
    total = (window[..., 0::2, 0::2] + window[..., 1::2, 0::2] + window[..., 0::2, 1::2]
             + window[..., 1::2, 1::2])
    return np.rint(total / 4.0).astype(block.dtype)


# -- the metadata ------------------------------------------------------------------


def ngff_attributes(version: str, shapes: list[list[int]], name: str = "image") -> dict:
    """The group attributes of an image: multiscales (every level's scale,
    y and x doubling) and one omero channel."""
    axes = [{"name": "c", "type": "channel"},
            {"name": "z", "type": "space", "unit": "micrometer"},
            {"name": "y", "type": "space", "unit": "micrometer"},
            {"name": "x", "type": "space", "unit": "micrometer"}]
    datasets = []
    for k, shape in enumerate(shapes):
        factor = [shapes[0][d] / shape[d] for d in range(len(AXES))]
        scale = [1.0, Z_SPACING, PIXEL_SIZE * factor[2], PIXEL_SIZE * factor[3]]
        datasets.append({"path": str(k),
                         "coordinateTransformations": [{"type": "scale", "scale": scale}]})
    multiscale: dict[str, Any] = {"name": name, "axes": axes, "datasets": datasets}
    omero = {"channels": [{"label": "channel 0", "color": "00FF00", "active": True,
                           "window": {"min": 0, "max": 65535, "start": 0, "end": 65535}}],
             "rdefs": {"model": "color"}}
    if version == "0.4":
        return {"multiscales": [{"version": "0.4", **multiscale}],
                "omero": {"version": "0.4", **omero}}
    return {"ome": {"version": "0.5", "multiscales": [multiscale], "omero": omero}}


def _compressors(spec: DatasetSpec) -> Any:
    from turbozarr_bench.datasets.generate import zarr_compressors

    return zarr_compressors(spec)


def create_levels(spec: DatasetSpec, path: Path, shapes: list[list[int]] | None = None):
    """An empty image at `path` (zarr-python): the group with its NGFF
    attributes and one array per level, laid out as level 0 says, no chunk
    written. Returns the level arrays."""
    import zarr

    shapes = shapes or level_shapes(spec)
    version = ngff_version(spec)
    store = zarr.storage.LocalStore(str(path))
    root = zarr.open_group(store=store, mode="w", zarr_format=spec.zarr_format,
                           attributes=ngff_attributes(version, shapes))
    arrays = []
    for k, shape in enumerate(shapes):
        chunks, shards = level_layout(spec, shape)
        kwargs: dict[str, Any] = dict(name=str(k), shape=tuple(shape), dtype=spec.dtype,
                                      chunks=tuple(chunks), fill_value=spec.fill_value,
                                      compressors=_compressors(spec))
        if spec.zarr_format == 3:
            kwargs.update(filters=[], dimension_names=list(AXES))
            if shards:
                kwargs["shards"] = tuple(shards)
        else:
            kwargs.update(filters=None, chunk_key_encoding={"name": "v2", "separator": "/"})
        arrays.append(root.create_array(**kwargs))
    return arrays


def _plane_blocks(spec: DatasetSpec) -> list[slice]:
    """Runs of whole planes (z), each a whole number of write units along
    z, within BLOCK_BUDGET."""
    c, nz, ny, nx = spec.shape
    unit = spec.write_unit[1]
    plane = c * ny * nx * np.dtype(spec.dtype).itemsize
    step = max(unit, BLOCK_BUDGET // max(plane, 1) // unit * unit)
    return [slice(z, min(z + step, nz)) for z in range(0, nz, step)]


def write_pyramid(spec: DatasetSpec, path: Path, method: str,
                  source: Callable[[tuple], np.ndarray], digests: bool = True) -> list[str]:
    """The image of `spec` at `path`, level 0 from `source` (a region ->
    pixels) and every coarser level from the one below by `method`, a block
    of planes at a time. Returns each level's digest, read back (none when
    `digests` is false: zarr-python's timed create)."""
    arrays = create_levels(spec, path)
    for zs in _plane_blocks(spec):
        block = source((slice(0, spec.shape[0]), zs, slice(0, spec.shape[2]),
                        slice(0, spec.shape[3])))
        for k, array in enumerate(arrays):
            if k:
                block = halve(block, method)
            array[:, zs] = block
    return [digest_array(a) for a in arrays] if digests else []


def digest_array(array: Any, index: tuple = ()) -> str:
    """The digest (checksum.py) of `array[index]` (a zarr-python array, or
    anything indexable so), read a channel and a run of planes at a time."""
    full = [slice(0, n) for n in array.shape]
    for d, s in enumerate(index):
        full[d] = s
    shape = [s.stop - s.start for s in full]
    d = ArrayDigest(shape, array.dtype)
    plane = max(1, shape[2] * shape[3] * np.dtype(array.dtype).itemsize)
    step = max(1, BLOCK_BUDGET // plane)
    for c in range(full[0].start, full[0].stop):
        for z in range(full[1].start, full[1].stop, step):
            zs = slice(z, min(z + step, full[1].stop))
            d.update(np.asarray(array[c:c + 1, zs, full[2], full[3]]))
    return d.hexdigest()


def write_fixture(spec: DatasetSpec, directory: Path) -> dict[str, Any]:
    from turbozarr_bench.datasets.generate import write_stamp

    start = time.perf_counter()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "image.zarr"
    gen = make_generator("ome", spec.shape, spec.dtype, spec.seed)
    digests = write_pyramid(spec, target, "mean", gen)
    files = [p for p in target.rglob("*") if p.is_file()]
    stamp = {
        "name": spec.name, "spec": spec.values, "key": fixture_key(spec),
        "target": target.name, "checksum": digests[0],
        "level_checksums": digests,
        "stored_bytes": sum(p.stat().st_size for p in files), "nfiles": len(files),
        "seconds": round(time.perf_counter() - start, 3),
    }
    return write_stamp(directory, stamp)


def fixture_key(spec: DatasetSpec) -> str:
    return f"{spec.spec_hash()}-ngff{FIXTURE_VERSION}"


def ensure(spec: DatasetSpec, data_dir: Path, log=print) -> Path:
    """The cached read fixture of `spec` (`<data_dir>/<name>-ngff/image.zarr`),
    written first in a child process if missing or stale."""
    directory = data_dir / f"{spec.name}-ngff"
    try:
        stamp = json.loads((directory / "stamp.json").read_text())
    except (OSError, ValueError):
        stamp = None
    if stamp and stamp.get("key") == fixture_key(spec):
        return directory / stamp["target"]
    if directory.exists():
        log(f"  image {spec.name}: {'changed spec' if stamp else 'incomplete'}, regenerating")
        shutil.rmtree(directory)
    data_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{spec.name}-", dir=data_dir))
    try:
        (staging / "spec.json").write_text(json.dumps(spec.to_json()))
        log(f"  image {spec.name}: writing {describe(spec)} with zarr-python ...")
        root = Path(__file__).resolve().parents[1]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
        proc = subprocess.run([sys.executable, "-m", "turbozarr_bench.ome_fixture",
                               str(staging / "spec.json"), str(staging / "fixture")],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"writing image '{spec.name}' failed:\n{proc.stderr[-3000:]}")
        (staging / "fixture").rename(directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    stamp = json.loads((directory / "stamp.json").read_text())
    log(f"  image {spec.name}: {stamp['stored_bytes'] / 1e6:.1f} MB in {stamp['nfiles']} "
        f"files, {stamp['seconds']:.1f} s")
    return directory / stamp["target"]


def main(argv: list[str]) -> int:
    doc = json.loads(Path(argv[0]).read_text())
    name = doc.pop("name")
    stamp = write_fixture(validate(name, doc, "ome fixture"), Path(argv[1]))
    print(json.dumps({"checksum": stamp["checksum"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
