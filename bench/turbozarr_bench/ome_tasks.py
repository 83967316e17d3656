"""Workload E's images and operations (OME-Zarr image IO and pyramid
creation, as ngio's benchmark suite runs them; ../shared/workloads.md), as
data every side understands.

An image is a workload E dataset of the registry (datasets/registry.py:
e-small ... e-v2): its level 0 (shape, chunks, shards, codec, Zarr format),
its number of levels and its ROI size. The workload's short names (small,
medium, ...) name them here; an experiment adds its own with
`[images.<name>]` tables, which take the keys of a dataset table and may
derive from a short name (`base = "small"`).

The operations read or write level 0 over every channel and plane, in y
and x only:
- read_full, write_full: the whole of level 0;
- read_roi_aligned, write_roi_aligned: `[0:roi, 0:roi]`, on chunk bounds;
- read_roi_straddling, write_roi_straddling: the same size from
  `chunk // 2 + 1`, so every edge cuts a chunk (the inner chunk of a
  sharded image) and a write must merge with what is there;
- create: a multiscale pyramid from an array in memory (NGFF 0.4 on a
  Zarr v2 image, 0.5 on v3), y and x halved per level, by `method`.
Writes go into a fresh image (its arrays created, no chunk written).

Pure standard library and numpy: it is imported in the harness and in the
children.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turbozarr_bench.datasets.registry import resolve
from turbozarr_bench.datasets.spec import DatasetSpec, SpecError

# The workload's names for its images, and the registry's.
IMAGES: dict[str, str] = {
    "small": "e-small", "medium": "e-medium", "large": "e-large",
    "chunks64": "e-chunks64", "chunks512": "e-chunks512", "sharded": "e-sharded",
    "uncompressed": "e-uncompressed", "v2": "e-v2",
}
AXES = ("c", "z", "y", "x")
PIXEL_SIZE = 0.5    # y and x, in micrometres, at level 0
Z_SPACING = 1.0
METHODS = ("mean", "nearest")


@dataclass(frozen=True)
class Operation:
    name: str
    kind: str                 # "read", "write" or "create"
    region: str | None = None  # "full", "aligned", "straddling"; None for create


OPERATIONS: tuple[Operation, ...] = (
    Operation("read_full", "read", "full"),
    Operation("read_roi_aligned", "read", "aligned"),
    Operation("read_roi_straddling", "read", "straddling"),
    Operation("write_full", "write", "full"),
    Operation("write_roi_aligned", "write", "aligned"),
    Operation("write_roi_straddling", "write", "straddling"),
    Operation("create", "create"),
)
BY_NAME = {op.name: op for op in OPERATIONS}


def resolve_image(name: str, tables: dict[str, dict[str, Any]], where: str) -> DatasetSpec:
    """The spec of image `name`: an [images.<name>] table (whose `base` may
    be a short name) or a short or registry name; it must be a 4-D "ome"
    image with its number of levels."""
    renamed = {}
    for key, table in tables.items():
        table = dict(table)
        if isinstance(table.get("base"), str) and table["base"] in IMAGES:
            table["base"] = IMAGES[table["base"]]
        table.setdefault("workload", "E")
        renamed[key] = table
    spec = resolve(name if name in tables else IMAGES.get(name, name), renamed, where)
    v = spec.values
    if v.get("pixels") != "ome" or len(v["shape"]) != 4:
        raise SpecError(f"{where}: image '{name}' is not a workload E image (4-D, pixels 'ome')")
    if "levels" not in v:
        raise SpecError(f"{where}: image '{name}' says nothing of its number of levels")
    return DatasetSpec(name, v)  # named as the experiment names it


def ngff_version(spec: DatasetSpec) -> str:
    return "0.4" if spec.zarr_format == 2 else "0.5"


def region(op: Operation, spec: DatasetSpec) -> tuple[slice, ...] | None:
    """The level-0 region an IO operation covers (None: the image has no
    ROI size for a ROI operation)."""
    shape = spec.shape
    if op.region == "full":
        return tuple(slice(0, n) for n in shape)
    roi = spec.values.get("roi_size")
    if roi is None:
        return None
    start = 0 if op.region == "aligned" else spec.chunks[-1] // 2 + 1
    y = slice(min(start, shape[2]), min(start + roi, shape[2]))
    x = slice(min(start, shape[3]), min(start + roi, shape[3]))
    return (slice(0, shape[0]), slice(0, shape[1]), y, x)


def level_shapes(spec: DatasetSpec) -> list[list[int]]:
    """Every level's shape: y and x halved (rounding down, never below 1)."""
    shapes, current = [], list(spec.shape)
    for _ in range(spec.levels):
        shapes.append(list(current))
        current = current[:2] + [max(1, n // 2) for n in current[2:]]
    return shapes


def level_layout(spec: DatasetSpec, shape: list[int]) -> tuple[list[int], list[int] | None]:
    """A level's chunks and shards: level 0's, chunks capped at the level's
    size and shards at the whole chunks that cover it (as turbozarr, ngio
    and ome-zarr-py lay out their levels)."""
    chunks = [min(c, n) for c, n in zip(spec.chunks, shape)]
    shards = spec.values.get("shards")
    if shards is None:
        return chunks, None
    return chunks, [min(s, -(-n // c) * c) for s, n, c in zip(shards, shape, chunks)]


def describe(spec: DatasetSpec) -> str:
    roi = spec.values.get("roi_size")
    return (f"{spec.describe()}, NGFF {ngff_version(spec)}, {spec.levels} levels"
            + (f", ROI {roi}" if roi else ""))
