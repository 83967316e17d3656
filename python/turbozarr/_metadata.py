"""The metadata documents of a new array (zarr.json, or .zarray + .zattrs),
written the way zarr-python 3.1 writes them for the same arguments."""

from __future__ import annotations

import itertools
import json
import math
import numbers
from typing import Any

import numpy as np

from turbozarr import _codecs
from turbozarr._dtypes import ZarrType, fill_value_json, parse_dtype


def normalize_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    out = tuple(int(s) for s in shape)
    if any(s < 0 for s in out):
        raise ValueError(f"shape must not be negative: {out}")
    return out


def guess_chunks(shape: tuple[int, ...], typesize: int) -> tuple[int, ...]:
    """zarr-python's (and h5py's) automatic chunk shape: halve dimensions in
    turn until a chunk is near a size that grows with the array."""
    increment_bytes, min_bytes, max_bytes = 256 * 1024, 128 * 1024, 64 * 1024 * 1024
    if not shape:
        return ()
    ndims = len(shape)
    chunks = np.maximum(np.array(shape, dtype="=f8"), 1)
    dset_size = np.prod(chunks) * typesize
    target = increment_bytes * (2 ** np.log10(dset_size / (1024.0 * 1024)))
    target = min(max(target, min_bytes), max_bytes)
    idx = 0
    while True:
        chunk_bytes = np.prod(chunks) * typesize
        if (chunk_bytes < target or abs(chunk_bytes - target) / target < 0.5) and (
            chunk_bytes < max_bytes
        ):
            break
        if np.prod(chunks) == 1:
            break
        chunks[idx % ndims] = math.ceil(chunks[idx % ndims] / 2.0)
        idx += 1
    return tuple(int(x) for x in chunks)


def normalize_chunks(chunks: Any, shape: tuple[int, ...], typesize: int) -> tuple[int, ...]:
    if chunks is None or chunks is True or chunks == "auto":
        return guess_chunks(shape, typesize)
    if chunks is False:
        return tuple(max(s, 1) for s in shape)
    if isinstance(chunks, numbers.Integral):
        chunks = (int(chunks),) * len(shape)
    chunks = tuple(chunks)
    if len(chunks) > len(shape):
        raise ValueError(f"chunks {chunks} have more dimensions than shape {shape}")
    chunks = chunks + tuple(shape[len(chunks):])
    out = tuple(max(s, 1) if c is None or c == -1 else int(c) for s, c in zip(shape, chunks))
    if any(c < 1 for c in out):
        raise ValueError(f"chunk sizes must be positive: {out}")
    return out


def is_rectilinear(chunks: Any) -> bool:
    """Whether `chunks` gives some dimension as a list of chunk sizes (a
    rectilinear grid), as zarr-python reads its `chunks` and `shards`."""
    if isinstance(chunks, (str, bytes, numbers.Integral)) or chunks is None:
        return False
    try:
        return any(not isinstance(c, numbers.Integral) and c is not None
                   and hasattr(c, "__iter__") for c in chunks)
    except TypeError:
        return False


def chunk_edges(chunks: Any, shape: tuple[int, ...]) -> list[int | list[int]]:
    """Per dimension the chunk sizes along it, as zarr-python normalises
    them: a list of positive sizes summing to the extent (any, on an empty
    dimension), or one size, a step repeated to cover it (-1: the whole
    extent), kept as an integer so that no list of the chunks is made."""
    chunks = tuple(chunks)
    if len(chunks) != len(shape):
        raise ValueError(f"chunks has {len(chunks)} dimensions but shape has "
                         f"{len(shape)} dimensions")
    out = []
    for d, (c, span) in enumerate(zip(chunks, shape)):
        if c is None or (isinstance(c, numbers.Integral) and c == -1):
            out.append(max(span, 1))
        elif isinstance(c, numbers.Integral):
            if c < 1:
                raise ValueError(f"chunk size must be positive, got {c} (dimension {d})")
            out.append(int(c))
        else:
            sizes = list(c)
            if not sizes or any(not isinstance(x, numbers.Integral) or x < 1 for x in sizes):
                raise ValueError(f"dimension {d}: chunk sizes must be a non-empty list of "
                                 f"positive integers, got {sizes!r}")
            if sum(sizes) != span and span != 0:
                raise ValueError(f"dimension {d}: chunk sizes {sizes} do not sum to the "
                                 f"extent {span}")
            out.append([int(x) for x in sizes])
    return out


def _runs(sizes: list[int]) -> list[Any]:
    """zarr-python's run-length form: [length, count] for runs of two or
    more, bare lengths otherwise."""
    out: list[Any] = []
    for size, group in itertools.groupby(sizes):
        n = len(list(group))
        out.append([size, n] if n > 1 else size)
    return out


def chunk_grid_document(edges: list[int | list[int]]) -> dict[str, Any]:
    """The rectilinear grid zarr-python 3.4 writes for these edges: a
    dimension given as a list keeps its sizes (as runs), even equal ones,
    and one given as an integer stays that integer (a step)."""
    shapes = [e if isinstance(e, int) else _runs(e) for e in edges]
    return {"name": "rectilinear",
            "configuration": {"kind": "inline", "chunk_shapes": shapes}}


def _longest(edge: int | list[int]) -> int:
    return edge if isinstance(edge, int) else max(edge)


_RECTILINEAR_CHUNKS_IN_SHARDS = (
    "rectilinear chunks with sharding are not supported; give rectilinear shards "
    "instead: chunks=(inner_size, ...), shards=[[shard_sizes], ...]")


def array_documents(
    shape: Any,
    dtype: Any,
    *,
    chunks: Any = None,
    shards: Any = None,
    fill_value: Any = None,
    compressors: Any = _codecs.AUTO,
    compressor: Any = _codecs.AUTO,
    filters: Any = None,
    serializer: Any = _codecs.AUTO,
    codecs: Any = None,
    zarr_format: int = 3,
    order: str = "C",
    dimension_separator: str | None = None,
    chunk_key_encoding: Any = None,
    attributes: dict | None = None,
    dimension_names: Any = None,
    shard_index_location: str = "end",
) -> tuple[ZarrType, str, str]:
    """(element type, metadata JSON, v2 .zattrs JSON or "null")."""
    zt = parse_dtype(dtype, zarr_format)
    shape = normalize_shape(shape)
    if zarr_format not in (2, 3):
        raise ValueError(f"zarr_format must be 2 or 3, got {zarr_format!r}")
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    attributes = dict(attributes or {})
    if zarr_format == 2:
        if is_rectilinear(chunks) or is_rectilinear(shards):
            raise ValueError("Zarr format 2 does not support rectilinear chunk grids")
        if shards is not None:
            raise ValueError("sharding needs zarr_format=3")
        if dimension_names is not None:
            raise ValueError("dimension_names need zarr_format=3")
        # zarr-python's v2 "compressors" argument means the one compressor.
        comp = compressor if compressor is not _codecs.AUTO else compressors
        filter_list, comp_json = _codecs.v2_codecs(zt, filters=filters, compressor=comp)
        chunk_shape = normalize_chunks(chunks, shape, zt.itemsize)
        zarray = {
            "shape": list(shape),
            "chunks": list(chunk_shape),
            "dtype": zt.v2_dtype(),
            "fill_value": fill_value_json(zt, fill_value, 2),
            "order": order,
            "filters": filter_list,
            "dimension_separator": dimension_separator or ".",
            "compressor": comp_json,
            "zarr_format": 2,
        }
        return zt, json.dumps(zarray), json.dumps(attributes)

    grid: dict[str, Any] | None = None
    if shards is not None and is_rectilinear(shards):
        if is_rectilinear(chunks):
            raise ValueError(_RECTILINEAR_CHUNKS_IN_SHARDS)
        edges = chunk_edges(shards, shape)
        grid = chunk_grid_document(edges)
        shard_shape = tuple(_longest(e) for e in edges)
        inner = normalize_chunks(chunks, shard_shape, zt.itemsize)
        for d, (e, c) in enumerate(zip(edges, inner)):
            bad = sorted({x for x in ([e] if isinstance(e, int) else e) if x % c})
            if bad:
                raise ValueError(f"shard sizes {bad} in dimension {d} are not divisible by "
                                 f"the inner chunk size {c}")
        grid_shape: tuple[int, ...] = shard_shape
    elif shards is not None:
        if is_rectilinear(chunks):
            raise ValueError(_RECTILINEAR_CHUNKS_IN_SHARDS)
        shard_shape = normalize_chunks(shards, shape, zt.itemsize)
        inner = normalize_chunks(chunks, shard_shape, zt.itemsize)
        if any(s % c for s, c in zip(shard_shape, inner)):
            raise ValueError(f"shard shape {shard_shape} must be a multiple of the chunk "
                             f"shape {inner}")
        grid_shape = shard_shape
    elif is_rectilinear(chunks):
        edges = chunk_edges(chunks, shape)
        grid = chunk_grid_document(edges)
        inner = grid_shape = tuple(_longest(e) for e in edges)
    else:
        inner = normalize_chunks(chunks, shape, zt.itemsize)
        grid_shape = inner
    if codecs is not None:
        codec_list = [_codecs._v3_codec(c) for c in _codecs._as_list(codecs)]
    else:
        comp = compressors if compressor is _codecs.AUTO else compressor
        codec_list = _codecs.v3_codecs(
            zt, chunks=inner, shards=grid_shape if shards is not None else None,
            filters=filters, serializer=serializer, compressors=comp,
            shard_index_location=shard_index_location)
    if chunk_key_encoding is None:
        chunk_key_encoding = {"name": "default",
                              "configuration": {"separator": dimension_separator or "/"}}
    doc: dict[str, Any] = {
        "shape": list(shape),
        "data_type": zt.v3_data_type(),
        "chunk_grid": grid or {"name": "regular",
                               "configuration": {"chunk_shape": list(grid_shape)}},
        "chunk_key_encoding": chunk_key_encoding,
        "fill_value": fill_value_json(zt, fill_value, 3),
        "codecs": codec_list,
        "attributes": attributes,
    }
    if dimension_names is not None:
        names = list(dimension_names)
        if len(names) != len(shape):
            raise ValueError(f"{len(names)} dimension_names for {len(shape)} dimensions")
        doc["dimension_names"] = names
    doc.update({"zarr_format": 3, "node_type": "array", "storage_transformers": []})
    return zt, json.dumps(doc), "null"
