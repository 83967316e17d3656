"""Top-level functions: open, create and group, in the spirit of zarr-python.

Modes: "r" read-only (must exist), "r+" read-write (must exist), "a"
read-write (created if absent), "w" create (replacing what is there), "w-"
create (fail if something is there).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from turbozarr import _codecs, _core, _metadata
from turbozarr._array import Array
from turbozarr._group import Group
from turbozarr._store import as_store, normalize_path
from turbozarr.errors import AlreadyExistsError, NotFoundError

_MODES = ("r", "r+", "a", "w", "w-")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")


def _inspect(store: _core.Store, path: str) -> tuple[str, int] | None:
    try:
        return _core.inspect_node(store, path)
    except NotFoundError:
        return None


def _open_node(store: _core.Store, path: str,
               expect: str = "") -> _core.Array | _core.Group | None:
    """The node at `path`, from one read of its metadata (one round trip on
    a remote store, asking for the documents of the `expect`ed kind only);
    None if nothing is there."""
    try:
        return _core.open_node(store, path, expect)
    except NotFoundError:
        return None


def _wrap_existing(store: _core.Store, path: str, core: _core.Array | _core.Group,
                   mode: str, zarr_format: int | None) -> Array | Group:
    kind = "array" if isinstance(core, _core.Array) else "group"
    if zarr_format is not None and core.zarr_format != zarr_format:
        raise NotFoundError(f"the {kind} at path '{path}' in {store.describe()} is "
                            f"zarr_format {core.zarr_format}, not {zarr_format}")
    read_only = mode == "r"
    if kind == "array":
        return Array(core, read_only)
    return Group(core, read_only)


def open(store: Any, mode: str = "r", *, path: str = "", zarr_format: int | None = None,
         **kwargs: Any) -> Array | Group:
    """The array or group at `path` in `store`.

    With mode "a", "w" or "w-", a missing node is created: an array when
    `shape` is given (the other keywords as for create), else a group.
    `config` sets an array's write_empty_chunks and read_missing_chunks.
    """
    return _open(store, mode, path, zarr_format, "", kwargs)


def _open(store: Any, mode: str, path: str, zarr_format: int | None, expect: str,
          kwargs: dict[str, Any]) -> Array | Group:
    config = kwargs.pop("config", None)
    node = _open_or_create(store, mode, path, zarr_format, expect, kwargs)
    if config is not None:
        if not isinstance(node, Array):
            raise ValueError(f"config applies to arrays; path '{path}' holds a group")
        node._configure(config)
    return node


def _open_or_create(store: Any, mode: str, path: str, zarr_format: int | None,
                    expect: str, kwargs: dict[str, Any]) -> Array | Group:
    _check_mode(mode)
    path = normalize_path(path)
    # "w" at the root replaces everything there, which for a zip archive
    # means a new archive; the other modes that write add to an existing one.
    truncate = mode == "w" and path == ""
    store = as_store(store, read_only=mode == "r", truncate=truncate,
                     append=mode != "r" and not truncate)
    if mode in ("r", "r+", "a"):
        core = _open_node(store, path, expect)
        if core is not None:
            return _wrap_existing(store, path, core, mode, zarr_format)
        if mode != "a":
            raise NotFoundError(f"no array or group at path '{path}' in {store.describe()}")
    elif mode == "w-" and _inspect(store, path) is not None:
        raise AlreadyExistsError(f"an array or group is already at path '{path}' in "
                                 f"{store.describe()}")
    overwrite = mode == "w"
    fmt = 3 if zarr_format is None else zarr_format
    if "shape" in kwargs:
        return create(store, path=path, zarr_format=fmt, overwrite=overwrite, **kwargs)
    return group(store, path=path, zarr_format=fmt, overwrite=overwrite,
                 attributes=kwargs.pop("attributes", None))


def open_array(store: Any, mode: str = "r", *, path: str = "",
               zarr_format: int | None = None, **kwargs: Any) -> Array:
    """Like open, but the node must be (or become) an array."""
    node = _open(store, mode, path, zarr_format, "array", kwargs)
    if not isinstance(node, Array):
        raise NotFoundError(f"path '{path}' holds a group, not an array")
    return node


def open_group(store: Any, mode: str = "r", *, path: str = "",
               zarr_format: int | None = None, attributes: dict | None = None) -> Group:
    """Like open, but the node must be (or become) a group."""
    node = _open(store, mode, path, zarr_format, "group",
                 {"attributes": attributes} if attributes else {})
    if not isinstance(node, Group):
        raise NotFoundError(f"path '{path}' holds an array, not a group")
    return node


def group(store: Any = "memory://", *, path: str = "", zarr_format: int = 3,
          attributes: dict | None = None, overwrite: bool = False) -> Group:
    """The group at `path`: opened if one is there (and not overwrite),
    otherwise created."""
    path = normalize_path(path)
    truncate = overwrite and path == ""
    store = as_store(store, truncate=truncate, append=not truncate)
    if not overwrite:
        core = _open_node(store, path)
        if isinstance(core, _core.Group):
            return Group(core)
    core = _core.create_group(store, path, zarr_format, json.dumps(attributes or {}),
                              overwrite)
    return Group(core)


create_group = group


def create(store: Any, shape: Any, dtype: Any = "float64", *, path: str = "",
           chunks: Any = None, shards: Any = None, fill_value: Any = None,
           compressors: Any = _codecs.AUTO, compressor: Any = _codecs.AUTO,
           filters: Any = None, serializer: Any = _codecs.AUTO, codecs: Any = None,
           zarr_format: int = 3, order: str = "C", dimension_separator: str | None = None,
           chunk_key_encoding: Any = None, attributes: dict | None = None,
           dimension_names: Any = None, shard_index_location: str = "end",
           overwrite: bool = False, config: dict | None = None,
           checksum: bool = False) -> Array:
    """A new, empty array (every element the fill value).

    Defaults follow zarr-python 3.1: v3 with bytes + zstd(level 0), v2 with
    zstd(level 0); chunks guessed from the shape when not given. `compressors`
    (v3, or the one v2 compressor) and `filters` take JSON dicts,
    zarr-python codec objects or, for v2, numcodecs objects; `codecs` gives a
    whole v3 chain. `shards` makes a sharded v3 array whose inner chunks are
    `chunks`. Groups missing on the way to `path` are created, as
    zarr-python creates them. `config` sets the handle's write_empty_chunks
    and read_missing_chunks (Array.with_config). `checksum=True` gives every
    chunk a checksum that each read verifies (v3: a crc32c codec last in the
    chunks' codecs; v2: zstd's content checksum, or numcodecs' crc32c as the
    last filter), so a damaged chunk raises CorruptionError instead of
    reading as other numbers; zarr-python, TensorStore and zarrs read the
    v3 form, zarr-python the v2 one.
    """
    path = normalize_path(path)
    truncate = overwrite and path == ""
    store = as_store(store, truncate=truncate, append=not truncate)
    _, meta, zattrs = _metadata.array_documents(
        shape, dtype, chunks=chunks, shards=shards, fill_value=fill_value,
        compressors=compressors, compressor=compressor, filters=filters,
        serializer=serializer, codecs=codecs, zarr_format=zarr_format, order=order,
        dimension_separator=dimension_separator, chunk_key_encoding=chunk_key_encoding,
        attributes=attributes, dimension_names=dimension_names,
        shard_index_location=shard_index_location)
    core = _core.create_array(store, path, zarr_format, meta, zattrs, overwrite, checksum)
    return Array(core)._configure(config)


create_array = create


def array(data: Any, store: Any = "memory://", **kwargs: Any) -> Array:
    """A new array holding `data` (dtype and shape taken from it)."""
    data = np.asarray(data)
    kwargs.setdefault("dtype", data.dtype)
    a = create(store, data.shape, **kwargs)
    a[...] = data
    return a


def consolidate_metadata(store: Any, path: str = "") -> Group:
    """Writes consolidated metadata for the group at `path`."""
    store = as_store(store, append=True)
    return Group(_core.open_group(store, normalize_path(path))).consolidate()


# -- asyncio: the same calls, run off the event loop ----------------------------

async def open_async(store: Any, mode: str = "r", **kwargs: Any) -> Array | Group:
    """open for asyncio code: the metadata reads run on a worker thread
    while the event loop goes on (Array.get_async and set_async read and
    write)."""
    import asyncio  # loaded by then: the caller runs an event loop
    return await asyncio.to_thread(open, store, mode, **kwargs)


async def open_array_async(store: Any, mode: str = "r", **kwargs: Any) -> Array:
    """open_array for asyncio code (see open_async)."""
    import asyncio  # loaded by then: the caller runs an event loop
    return await asyncio.to_thread(open_array, store, mode, **kwargs)


async def open_group_async(store: Any, mode: str = "r", **kwargs: Any) -> Group:
    """open_group for asyncio code (see open_async)."""
    import asyncio  # loaded by then: the caller runs an event loop
    return await asyncio.to_thread(open_group, store, mode, **kwargs)


async def create_async(store: Any, shape: Any, dtype: Any = "float64",
                       **kwargs: Any) -> Array:
    """create for asyncio code (see open_async)."""
    import asyncio  # loaded by then: the caller runs an event loop
    return await asyncio.to_thread(create, store, shape, dtype, **kwargs)
