"""OME-Zarr images, labels and multiscale pyramids (NGFF 0.4 on Zarr v2,
0.5 on Zarr v3) on the turbozarr engine.

    >>> from turbozarr import ome
    >>> image = ome.create(pixels, "cells.ome.zarr", axes="czyx",
    ...                    pixel_sizes={"z": 2.0, "y": 0.5, "x": 0.5}, levels=4)
    >>> ome.open("cells.ome.zarr").read(level=2, roi={"y": slice(0, 128)})

The pyramid is built in C++ (turbozarr/ome.h): a level from the level
below, one chunk (or shard) of the level per task on all cores, within a
memory budget, so that an image that does not fit in memory is built from
a zarr-python, turbozarr or dask array a block at a time. docs/ome-zarr.md
has the methods, their rounding and what is supported of NGFF.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from turbozarr import _core
from turbozarr._api import create as _create_array
from turbozarr._api import group as _group
from turbozarr._api import open_group as _open_group
from turbozarr._array import Array
from turbozarr._dtypes import parse_dtype
from turbozarr._codecs import AUTO
from turbozarr._group import Group

__all__ = ["Axis", "Level", "Image", "create", "open", "METHODS"]

METHODS = ("mean", "nearest", "linear", "mode")
_AXIS_TYPES = {"t": "time", "c": "channel", "z": "space", "y": "space", "x": "space"}
_DEFAULT_UNITS = {"space": "micrometer", "time": "second"}
_COLORS = ("0000FF", "00FF00", "FF0000", "FF00FF", "00FFFF", "FFFF00", "FFFFFF")
_DEFAULT_BUDGET = 512 << 20


@dataclass(frozen=True)
class Axis:
    name: str
    type: str = ""
    unit: str = ""


@dataclass
class Level:
    """One resolution level: its array and where its pixels lie."""
    path: str
    scale: list[float]
    translation: list[float] | None
    array: Array

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)


def _version_of(zarr_format: int) -> str:
    return "0.4" if zarr_format == 2 else "0.5"


def _ome_attributes(attributes: Mapping[str, Any], version: str) -> Mapping[str, Any]:
    """The object that holds the NGFF keys: 0.5 keeps them under "ome"."""
    return attributes.get("ome", {}) if version == "0.5" else attributes


class Image:
    """An OME-Zarr image (or label image): its levels, axes and channels.

    Reads and writes go to the levels' arrays; `write` at level 0 remembers
    the region it changed, and `update_pyramid` rebuilds the coarser levels
    there alone.
    """

    def __init__(self, group: Group):
        self.group = group
        where = f"group '{group.path or '/'}' in {group.store.describe()}"
        attributes = dict(group.attrs)
        multiscale = json.loads(_core.ome_parse_multiscale(json.dumps(attributes), where))
        self._multiscale = multiscale
        self.version: str = multiscale["version"]
        self.name: str = multiscale.get("name", "")
        self.method: str = multiscale.get("type", "")
        self.axes = [Axis(a["name"], a.get("type", ""), a.get("unit", ""))
                     for a in multiscale["axes"]]
        self.levels: list[Level] = []
        for i, d in enumerate(multiscale["datasets"]):
            node = group.get(d["path"])
            if not isinstance(node, Array):
                raise ValueError(f"{where}: multiscales[0].datasets[{i}].path '{d['path']}' "
                                 "is not an array")
            if len(node.shape) != len(self.axes):
                raise ValueError(f"{where}: level '{d['path']}' has {len(node.shape)} "
                                 f"dimensions, the image {len(self.axes)} axes")
            transforms = d["coordinateTransformations"]
            self.levels.append(Level(
                d["path"], [float(v) for v in transforms[0]["scale"]],
                [float(v) for v in transforms[1]["translation"]] if len(transforms) > 1 else None,
                node))
        for upper, lower in zip(self.levels[1:], self.levels):
            for n_up, n_low, axis in zip(upper.shape, lower.shape, self.axes):
                if n_up > n_low:
                    raise ValueError(f"{where}: level '{upper.path}' is larger along "
                                     f"'{axis.name}' ({n_up}) than level '{lower.path}' "
                                     f"({n_low})")
        ome = _ome_attributes(attributes, self.version)
        self.omero: dict | None = ome.get("omero")
        self.image_label: dict | None = ome.get("image-label")
        self._dirty: list[tuple[list[int], list[int]]] = []

    # -- what it is -------------------------------------------------------------

    @property
    def axis_names(self) -> str:
        return "".join(a.name for a in self.axes)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.levels[0].shape

    @property
    def dtype(self) -> np.dtype:
        return self.levels[0].array.dtype

    @property
    def pixel_sizes(self) -> dict[str, float]:
        """Level 0's scale of each axis."""
        return {a.name: s for a, s in zip(self.axes, self.levels[0].scale)}

    @property
    def channel_names(self) -> list[str]:
        if not self.omero:
            return []
        return [c.get("label", "") for c in self.omero.get("channels", [])]

    def level(self, index: int = 0) -> Array:
        return self.levels[index].array

    @property
    def labels(self) -> list[str]:
        """The names of the label images beside this image."""
        node = self.group.get("labels")
        if not isinstance(node, Group):
            return []
        return list(_ome_attributes(dict(node.attrs), self.version).get("labels", []))

    def label(self, name: str) -> Image:
        return Image(self.group["labels"][name])

    def __repr__(self) -> str:
        shapes = ", ".join(str(lv.shape) for lv in self.levels)
        return (f"<turbozarr.ome.Image NGFF {self.version} axes '{self.axis_names}' "
                f"levels {shapes} in {self.group.store.describe()}>")

    # -- reading and writing ----------------------------------------------------

    def roi(self, roi: Mapping[str, Any] | None = None, *, level: int = 0,
            physical: bool = False) -> tuple[slice, ...]:
        """The index of `roi` (axis name -> slice, or (start, stop)) at
        `level`: in that level's pixels, or, with `physical`, in the units of
        the axes (start and stop through the level's scale and translation,
        the pixels whose centres lie inside)."""
        lv = self.levels[level]
        index = [slice(None)] * len(self.axes)
        names = [a.name for a in self.axes]
        for name, bounds in (roi or {}).items():
            if name not in names:
                raise KeyError(f"the image has no axis '{name}' (axes '{self.axis_names}')")
            d = names.index(name)
            start, stop = ((bounds.start, bounds.stop) if isinstance(bounds, slice)
                           else tuple(bounds))
            if physical:
                scale = lv.scale[d]
                offset = lv.translation[d] if lv.translation else 0.0
                start = None if start is None else int(np.ceil((start - offset) / scale - 0.5))
                stop = None if stop is None else int(np.ceil((stop - offset) / scale - 0.5))
            index[d] = slice(start, stop)
        return tuple(index)

    def read(self, roi: Mapping[str, Any] | None = None, *, level: int = 0,
             physical: bool = False) -> np.ndarray:
        """The pixels of `roi` (see `roi`) at `level`."""
        return self.levels[level].array[self.roi(roi, level=level, physical=physical)]

    def write(self, data: Any, roi: Mapping[str, Any] | None = None) -> None:
        """Writes `data` into `roi` of level 0 and remembers the region, for
        update_pyramid."""
        index = self.roi(roi)
        array = self.levels[0].array
        array[index] = data
        start, stop = [], []
        for s, n in zip(index, array.shape):
            lo, hi, _ = s.indices(n)
            start.append(lo)
            stop.append(hi)
        self._dirty.append((start, stop))

    def update_pyramid(self, region: tuple[Sequence[int], Sequence[int]] | None = None, *,
                       method: str | None = None, memory_budget: int = _DEFAULT_BUDGET,
                       progress: Callable[[int, int], None] | None = None) -> None:
        """Rebuilds the coarser levels from level 0: where `region` ((start,
        stop) in level-0 pixels) says, else where `write` changed level 0
        since the last update, else everywhere."""
        method = method or (self.method if self.method in METHODS else "mean")
        regions = [region] if region is not None else (self._dirty or [None])
        for r in regions:
            box = None if r is None else (list(r[0]), list(r[1]))
            for lower, upper in zip(self.levels, self.levels[1:]):
                factors = _core.ome_factors_between(lower.shape, upper.shape,
                                                    lower.scale, upper.scale)
                _core.ome_downsample_into(lower.array._core, upper.array._core, factors, method,
                                          region=box, memory_budget_bytes=memory_budget,
                                          progress=progress)
                if box is not None:  # the region at the next level
                    box = ([lo // f for lo, f in zip(box[0], factors)],
                           [-(-hi // f) for hi, f in zip(box[1], factors)])
        self._dirty.clear()

    def create_label(self, name: str, data: Any, *, method: str = "mode",
                     colors: Mapping[int, Sequence[int]] | None = None,
                     dtype: Any = None, chunks: Any = None, overwrite: bool = False,
                     memory_budget: int = _DEFAULT_BUDGET) -> Image:
        """A label image `labels/<name>` beside this image: the image's
        axes without its channel axis, its levels' factors, `method` (mode:
        never a label that was not there) and `colors` (label value -> RGBA)
        in its image-label metadata."""
        axes = [a for a in self.axes if a.type != "channel"]
        keep = [i for i, a in enumerate(self.axes) if a.type != "channel"]
        data = data if hasattr(data, "shape") else np.asarray(data)
        want = tuple(self.shape[i] for i in keep)
        if tuple(data.shape) != want:
            raise ValueError(f"label '{name}' has shape {tuple(data.shape)}; the image's "
                             f"without its channel axis is {want}")
        labels = self.group.require_group("labels")
        names = [n for n in self.labels if n != name] + [name]
        _set_ome_keys(labels, self.version, {"labels": names})
        factors = [_core.ome_factors_between(lo.shape, up.shape, lo.scale, up.scale)
                   for lo, up in zip(self.levels, self.levels[1:])]
        base_chunks = self.levels[0].array.chunks
        label = create(
            data, self.group.store, path=_join(labels.path, name),
            axes=[(a.name, a.type, a.unit) for a in axes],
            pixel_sizes={a.name: self.levels[0].scale[i] for a, i in zip(axes, keep)},
            translation=(None if self.levels[0].translation is None
                         else [self.levels[0].translation[i] for i in keep]),
            levels=len(self.levels), factors=[[f[i] for i in keep] for f in factors],
            method=method, chunks=chunks or [base_chunks[i] for i in keep],
            ngff_version=self.version, name=name, dtype=dtype, overwrite=overwrite,
            memory_budget=memory_budget, _label={"colors": colors})
        return label


def _join(parent: str, child: str) -> str:
    return f"{parent}/{child}" if parent else child


def _set_ome_keys(group: Group, version: str, keys: Mapping[str, Any]) -> None:
    attributes = dict(group.attrs)
    if version == "0.5":
        ome = dict(attributes.get("ome", {}))
        ome["version"] = version
        ome.update(keys)
        attributes["ome"] = ome
    else:
        attributes.update(keys)
    group.attrs.put(attributes)


# -- creating ------------------------------------------------------------------

def _axes_of(axes: Any, ndim: int) -> list[Axis]:
    if axes is None:
        axes = "tczyx"[5 - ndim:] if ndim <= 5 else None
        if axes is None:
            raise ValueError(f"an image has 2 to 5 axes, the data {ndim}")
    out = []
    for a in axes:
        if isinstance(a, Axis):
            out.append(a)
        elif isinstance(a, str):
            kind = _AXIS_TYPES.get(a, "")
            out.append(Axis(a, kind, _DEFAULT_UNITS.get(kind, "")))
        else:
            out.append(Axis(*a))
    if len(out) != ndim:
        raise ValueError(f"{len(out)} axes ('{''.join(a.name for a in out)}') for data of "
                         f"{ndim} dimensions")
    return out


def _level_factors(axes: list[Axis], shape: Sequence[int], levels: int | None,
                   min_size: int, downsample: Sequence[str], factors: Any) -> list[list[int]]:
    """The factors from each level to the next."""
    names = [a.name for a in axes]
    if (factors is not None and not isinstance(factors, Mapping) and factors
            and isinstance(factors[0], (list, tuple))):
        return [list(f) for f in factors]  # given per level
    if factors is None:
        for n in downsample:
            if n not in names:
                raise ValueError(f"downsample names axis '{n}'; the axes are '{''.join(names)}'")
        step = [2 if n in downsample else 1 for n in names]
    elif isinstance(factors, Mapping):
        step = [int(factors.get(n, 1)) for n in names]
    else:
        step = [int(f) for f in factors]
    if len(step) != len(names) or any(f < 1 for f in step):
        raise ValueError(f"factors {step} for axes '{''.join(names)}'")
    out: list[list[int]] = []
    current = list(shape)
    while True:
        if levels is not None:
            if len(out) + 1 >= levels:
                break
        else:
            scaled = [n for n, f in zip(current, step) if f > 1]
            if not scaled or max(scaled) <= min_size:
                break
        out.append(step)
        current = [max(1, n // f) for n, f in zip(current, step)]
    return out


def _default_chunks(axes: list[Axis], shape: Sequence[int]) -> list[int]:
    return [min(n, 256) if a.name in ("y", "x") else 1 for a, n in zip(axes, shape)]


def _omero(axes: list[Axis], shape: Sequence[int], coarse: np.ndarray,
           channel_names: Sequence[str] | None, channel_colors: Sequence[str] | None,
           contrast: tuple[float, float] | None) -> dict:
    """Channels: names, colours and display windows from percentiles of
    `coarse`, the coarsest level (a faithful sample of the pixels, read
    cheaply)."""
    c = [a.type for a in axes].index("channel") if any(
        a.type == "channel" for a in axes) else None
    n = shape[c] if c is not None else 1
    names = list(channel_names) if channel_names else [f"channel {i}" for i in range(n)]
    if len(names) != n:
        raise ValueError(f"{len(names)} channel names for {n} channels")
    if coarse.dtype == np.bool_:  # masks: a window of 0 to 1
        coarse = coarse.astype(np.uint8)
        lo, hi = 0.0, 1.0
    elif np.issubdtype(coarse.dtype, np.integer):
        lo, hi = float(np.iinfo(coarse.dtype).min), float(np.iinfo(coarse.dtype).max)
    else:
        lo, hi = float(np.nanmin(coarse)), float(np.nanmax(coarse))
    channels = []
    for i, name in enumerate(names):
        plane = coarse if c is None else np.take(coarse, i, axis=c)
        if contrast is not None and plane.size:
            start, end = (float(v) for v in np.nanpercentile(plane, contrast))
        else:
            start, end = lo, hi
        colors = channel_colors or _COLORS
        channels.append({"label": name, "color": colors[i % len(colors)], "active": True,
                         "window": {"min": lo, "max": hi, "start": start, "end": end}})
    return {"channels": channels, "rdefs": {"model": "color"}}


def _write_level0(data: Any, target: Array, memory_budget: int) -> None:
    """Copies `data` (numpy, zarr-python, turbozarr or dask array) into
    level 0, a block of whole write units at a time within the budget."""
    if isinstance(data, np.ndarray):
        target[...] = data
        return
    shape = target.shape
    unit = list(target._core.chunk_shape)
    item = np.dtype(target.dtype).itemsize
    # Blocks span whole write units along every axis but the first, as many
    # of those as the budget holds along the first.
    row_bytes = item * int(np.prod([min(u, n) if d == 0 else n
                                    for d, (u, n) in enumerate(zip(unit, shape))]))
    step = max(1, memory_budget // max(1, row_bytes)) * unit[0]
    for start in range(0, shape[0], step):
        stop = min(shape[0], start + step)
        block = np.asarray(data[start:stop])
        target[start:stop] = block


def create(data: Any, store: Any, *, path: str = "", axes: Any = None,
           pixel_sizes: Mapping[str, float] | None = None,
           translation: Sequence[float] | None = None,
           levels: int | None = None, min_size: int = 256,
           downsample: Sequence[str] = ("y", "x"), factors: Any = None,
           method: str = "mean", chunks: Any = None, shards: Any = None,
           compressors: Any = AUTO, ngff_version: str = "0.5", name: str | None = None,
           channel_names: Sequence[str] | None = None,
           channel_colors: Sequence[str] | None = None,
           contrast: tuple[float, float] | None = (0.1, 99.9), dtype: Any = None,
           memory_budget: int = _DEFAULT_BUDGET, overwrite: bool = False,
           progress: Callable[[int, int], None] | None = None, checksum: bool = True,
           _label: dict | None = None) -> Image:
    """Writes `data` as a new OME-Zarr image with its pyramid.

    - `data`: a numpy array, or a zarr-python, turbozarr or dask array (read
      a block at a time: memory stays within `memory_budget` bytes beyond
      what the source holds).
    - `axes`: names from t, c, z, y, x ("czyx"), or (name, type, unit)
      tuples; by default the last ones of "tczyx".
    - `pixel_sizes`: level 0's scale per axis name (default 1); `translation`
      its offset per axis.
    - `levels` in all, or as many as keep the largest downsampled axis above
      `min_size`; `downsample` the axes halved at each level, or `factors`
      (per axis name, or a list per axis, or one list per level).
    - `method`: mean, nearest, linear or mode (docs/ome-zarr.md).
    - `chunks`, `shards`, `compressors`: level 0's, as turbozarr.create; the
      levels keep them, capped at their size. `checksum` (default on): every
      level's chunks carry a checksum (as turbozarr.create's), so a damaged
      chunk is a CorruptionError, never other pixels.
    - `ngff_version`: "0.5" (Zarr v3) or "0.4" (Zarr v2).
    - `channel_names`, `channel_colors` (hex RGB) and `contrast`: the omero
      channels, their display windows at those percentiles of the pixels.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}'; known: {', '.join(METHODS)}")
    if ngff_version not in ("0.4", "0.5"):
        raise ValueError(f"ngff_version must be '0.4' or '0.5', not {ngff_version!r}")
    zarr_format = 2 if ngff_version == "0.4" else 3
    if not hasattr(data, "shape") or not hasattr(data, "dtype"):
        data = np.asarray(data)
    shape = tuple(int(n) for n in data.shape)
    dtype = np.dtype(dtype or data.dtype)
    if isinstance(data, np.ndarray) and data.dtype != dtype:
        data = data.astype(dtype)
    # A pyramid that cannot be built is refused before anything is written.
    _core.ome_check_downsample(json.dumps(parse_dtype(dtype).v3_data_type()), method)
    image_axes = _axes_of(axes, len(shape))
    steps = _level_factors(image_axes, shape, levels, min_size, downsample, factors)
    sizes = [float((pixel_sizes or {}).get(a.name, 1.0)) for a in image_axes]
    offset = list(translation) if translation is not None else None

    root = _group(store, path=path, zarr_format=zarr_format, overwrite=overwrite)
    base = _create_array(root.store, shape, dtype, path=_join(root.path, "0"),
                         chunks=list(chunks) if chunks is not None else _default_chunks(image_axes, shape),
                         shards=shards, compressors=compressors, zarr_format=zarr_format,
                         dimension_names=[a.name for a in image_axes] if zarr_format == 3 else None,
                         overwrite=overwrite, checksum=checksum)
    if isinstance(data, np.ndarray):
        data = np.ascontiguousarray(data)
    _write_level0(data, base, memory_budget)

    # The levels, and their scales and translations, by the C++ core.
    multiscale = json.loads(_core.ome_build_pyramid(
        base._core, root.path, steps, method, [(a.name, a.type, a.unit) for a in image_axes],
        sizes, offset, ngff_version, name or "",
        source_pixels=data if isinstance(data, np.ndarray) else None,
        memory_budget_bytes=memory_budget, progress=progress, overwrite=overwrite))
    keys: dict[str, Any] = {}
    if _label is not None:
        image_label: dict[str, Any] = {"version": ngff_version, "source": {"image": "../../"}}
        if _label.get("colors"):
            image_label["colors"] = [{"label-value": int(v), "rgba": [int(x) for x in rgba]}
                                     for v, rgba in _label["colors"].items()]
        keys["image-label"] = image_label
    else:
        coarse = root[multiscale["datasets"][-1]["path"]][...]
        keys["omero"] = _omero(image_axes, shape, coarse, channel_names, channel_colors,
                               contrast)
    # The group's attributes written once, then the image opened once.
    attributes = json.loads(_core.ome_write_multiscale(json.dumps(multiscale), "{}"))
    if zarr_format == 3:
        attributes["ome"].update(keys)
    else:
        attributes.update(keys)
    root.attrs.update(attributes)
    return Image(_open_group(root.store, "r+", path=root.path))


def open(store: Any, *, path: str = "", mode: str = "r") -> Image:  # noqa: A001
    """The OME-Zarr image (or label image) at `path` of `store` (a
    directory, .zip, http(s):// or s3:// URL, or a Store)."""
    return Image(_open_group(store, mode, path=path))
