"""dask: turbozarr arrays as dask arrays, and dask arrays written into them
safely in parallel.

    x = turbozarr.to_dask(turbozarr.open("in.zarr"))     # one block per shard
    turbozarr.store(x * 2, turbozarr.open("out.zarr", mode="r+"))

A write replaces whole shards (whole chunks, when unsharded): a block that
covers part of one reads the shard, changes it and writes it back, under
the shard's lock (shared by the processes of one machine; docs/guarantees.md),
so blocks of one shard written at once wait for each other and lose
nothing. ``store`` rechunks the dask array so that each block is one write
unit of the target (clipped to the region written): no block then waits or
reads a shard back, and writers on machines that share only a network file
system, which the locks do not reach, stay apart too. Each block is written
by the worker that computed it, into the array unpickled there (its store's
URL and path; see turbozarr._store for the stores that pickle). dask is
imported here only, when these functions are first used.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from turbozarr._array import Array
from turbozarr._optional import import_optional
from turbozarr._store import store_spec


def write_unit(a: Array) -> tuple[Any, ...]:
    """The shape of what one write replaces: the shard, else the chunk; on a
    rectilinear grid, the sizes of the shards (chunks) along each dimension,
    in dask's form."""
    if not a.regular_chunks:
        return a.write_chunk_sizes
    return a.shards if a.shards is not None else a.chunks


def to_dask(a: Array, chunks: Any = None, *, name: str | None = None) -> Any:
    """`a` as a dask array. Blocks are `a`'s write units (shards, else
    chunks) unless `chunks` says otherwise (anything dask.array.from_array
    takes, "auto" included). The name is a deterministic token of where `a`
    lives (store URL and path) and its layout, so the same array opened
    twice gives the same graph keys; pass `name` to choose another."""
    da = import_optional("dask.array", "dask", "turbozarr.to_dask")
    from dask.base import tokenize

    if not isinstance(a, Array):
        raise TypeError(f"to_dask takes a turbozarr.Array, not {type(a).__name__}")
    chunks = write_unit(a) if chunks is None else chunks
    if name is None:
        name = "turbozarr-" + tokenize(a, chunks)
    return da.from_array(a, chunks=chunks, name=name, lock=False, fancy=False,
                         meta=np.empty((0,) * a.ndim, dtype=a.dtype))


def _region(region: Any, shape: tuple[int, ...]) -> tuple[slice, ...]:
    """`region` as one slice with step 1 and bounds in the array per
    dimension."""
    if region is None:
        region = ()
    if not isinstance(region, tuple):
        region = (region,)
    if len(region) > len(shape):
        raise ValueError(f"region {region} has more entries than the target has "
                         f"dimensions ({len(shape)})")
    out = []
    for r, extent in zip(region + (slice(None),) * (len(shape) - len(region)), shape):
        if not isinstance(r, slice):
            raise TypeError(f"region takes slices, not {r!r}")
        start, stop, step = r.indices(extent)
        if step != 1:
            raise ValueError(f"region slices take step 1, not {r!r}")
        out.append(slice(start, max(start, stop)))
    return tuple(out)


def aligned_chunks(region: tuple[slice, ...],
                   unit: tuple[Any, ...]) -> tuple[tuple[int, ...], ...]:
    """dask chunks over `region` whose blocks are whole write units of the
    target's grid (which starts at the target's origin, not the region's),
    clipped to the region. Per dimension `unit` is the unit's length, or the
    sizes of a rectilinear grid's units."""
    chunks = []
    for r, u in zip(region, unit):
        if isinstance(u, int):
            bounds = range((r.start // u + 1) * u, r.stop + u, u)
        else:
            bounds = list(itertools.accumulate(u))
        sizes = []
        at = r.start
        for bound in bounds:
            if bound <= at:
                continue
            if at >= r.stop:
                break
            end = min(bound, r.stop)
            sizes.append(end - at)
            at = end
        chunks.append(tuple(sizes) if sizes else (0,))
    return tuple(chunks)


def _check_target_travels(target: Array, source: Any, scheduler: Any) -> None:
    """TypeError, saying why, when the scheduler runs tasks in other
    processes and `target` cannot be pickled (dask would report only that
    its graph could not be serialized). Called by `store` once dask.array
    has imported, so dask is there."""
    import dask.local
    import dask.threaded
    from dask.base import get_scheduler

    in_process = (dask.threaded.get, dask.local.get_sync)
    if get_scheduler(scheduler=scheduler, collections=[source]) not in in_process:
        store_spec(target.store)


def store(source: Any, target: Array, region: Any = None, *, lock: Any = False,
          compute: bool = True, return_stored: bool = False, **kwargs: Any) -> Any:
    """Writes the dask array `source` into ``target[region]`` (the whole of
    `target` when `region` is None) without losing updates when `source`'s
    blocks cut across the target's shards: `source` is first rechunked to
    the target's write units (shards, else chunks) as they fall in `region`,
    so no two blocks write the same unit, and each block is written as
    ``target[block's region] = block`` where it was computed.

    The workers unpickle `target` (its store URL and path): a memory://
    store works with dask's threaded and synchronous schedulers only (others
    raise TypeError). `region` is a tuple of
    slices with step 1. `lock`, `compute`, `return_stored` and the other
    keywords go to dask.array.store, whose result this is (None, or a
    Delayed with compute=False)."""
    da = import_optional("dask.array", "dask", "turbozarr.store")

    if not isinstance(target, Array):
        raise TypeError(f"store writes into a turbozarr.Array, not {type(target).__name__}")
    target._check_writable()
    source = da.asarray(source)
    region = _region(region, target.shape)
    want = tuple(r.stop - r.start for r in region)
    if source.shape != want:
        raise ValueError(f"source has shape {source.shape} but target[region] has "
                         f"shape {want}")
    _check_target_travels(target, source, kwargs.get("scheduler"))
    aligned = source.rechunk(aligned_chunks(region, write_unit(target)))
    return da.store(aligned, target, lock=lock, regions=region, compute=compute,
                    return_stored=return_stored, **kwargs)
