"""Orthogonal and point selections read and written as boxes of the array.

An orthogonal selection (per dimension an int, a range or an index array;
see _selection_keys.py) is cut, per dimension, into runs. A range, or
indices in a regular progression, is one strided run; other indices,
sorted and made unique first, make one run per chunk they fall into (the
inner chunk, when sharded), read as the run's bounding box within that
chunk. Each combination of one run per dimension is a box of the array, and
every chunk a box overlaps holds selected elements: a read fetches and
decodes no chunk that the selection skips, a write rewrites none, and no
sparse selection reads a huge bounding box.

The boxes are read in one engine call (``read_boxes``: in parallel on the
engine's threads, the GIL released) and numpy places each one's selected
elements into the *compact* block, whose axes run over each dimension's
sorted unique indices; the caller's order, repeats and reversals are one
``take`` (or flip) per dimension at the end. Where a box needs no picking
and its place in the compact block is contiguous, the engine decodes
straight into it.

Point selections (coordinate and mask) are grouped by chunk: one box per
chunk around the points in it.

A write sends the engine each box with a mask of its selected elements (no
mask when every element of the box is selected); the engine merges only
those into each chunk under the chunk's update lock, so no other writer's
elements are lost. Values are converted and checked before the first box
is written.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from turbozarr import _dtypes
from turbozarr._selection_keys import Points

if TYPE_CHECKING:
    from turbozarr._array import Array

Range = tuple[int, int, int]

# Boxes read by one engine call hold at most this many bytes, so that a
# gather of a large selection does not hold every box's copy at once.
_BATCH_BYTES = 64 << 20

# How a dimension's compact axis becomes the result's: dropped (an integer
# index) or reversed (a negative step or decreasing indices); an intp array
# instead is a take along the axis (unsorted or repeated indices).
_DROP = "drop"
_REVERSE = "reverse"


class _Run(NamedTuple):
    at: int  # where the run starts along the compact axis
    count: int  # positions it fills there
    range: Range  # the box's extent in the array
    take: np.ndarray | None  # positions within the box; None: all of it


class _DimPlan(NamedTuple):
    runs: list[_Run]
    size: int  # length of the compact axis
    post: Any  # None, _DROP, _REVERSE or the inverse indices to take


# -- planning -----------------------------------------------------------------------


def _regular(u: np.ndarray) -> int | None:
    """The step of the increasing progression `u`, or None if irregular."""
    if len(u) == 1:
        return 1
    steps = np.diff(u)
    return int(steps[0]) if (steps == steps[0]).all() else None


def _runs(u: np.ndarray, chunk: int) -> list[_Run]:
    """The runs of the sorted unique indices `u` along a dimension chunked
    by `chunk`."""
    step = _regular(u)
    if step is not None:
        return [_Run(0, len(u), (int(u[0]), int(u[-1]) + 1, step), None)]
    cuts = np.flatnonzero(np.diff(u // chunk)) + 1
    runs = []
    for a, b in zip(itertools.chain((0,), cuts.tolist()), itertools.chain(cuts.tolist(), (len(u),))):
        part = u[a:b]
        lo, hi = int(part[0]), int(part[-1]) + 1
        step = _regular(part)
        if step is not None:
            runs.append(_Run(a, b - a, (lo, hi, step), None))
        else:
            runs.append(_Run(a, b - a, (lo, hi, 1), part - lo))
    return runs


def _plan_dim(index: int | range | np.ndarray, chunk: int) -> _DimPlan:
    if isinstance(index, int):
        return _DimPlan([_Run(0, 1, (index, index + 1, 1), None)], 1, _DROP)
    n = len(index)
    if n == 0:
        return _DimPlan([], 0, None)
    if isinstance(index, range):
        lo, hi = min(index[0], index[-1]), max(index[0], index[-1]) + 1
        post = _REVERSE if index.step < 0 and n > 1 else None
        return _DimPlan([_Run(0, n, (lo, hi, abs(index.step)), None)], n, post)
    steps = np.diff(index)
    if (steps > 0).all():
        return _DimPlan(_runs(index, chunk), n, None)
    if (steps < 0).all():
        return _DimPlan(_runs(index[::-1], chunk), n, _REVERSE)
    u, inverse = np.unique(index, return_inverse=True)
    return _DimPlan(_runs(u, chunk), len(u), inverse.reshape(-1))


def _result_shape(plans: list[_DimPlan]) -> tuple[int, ...]:
    return tuple(len(p.post) if isinstance(p.post, np.ndarray) else p.size
                 for p in plans if not (isinstance(p.post, str) and p.post == _DROP))


def _is(post: Any, what: str) -> bool:
    return isinstance(post, str) and post == what


# -- the engine's boxes ---------------------------------------------------------------


def box_shape(ranges: list[Range]) -> tuple[int, ...]:
    return tuple(len(range(*r)) for r in ranges)


def object_block(array: Array, values: list[Any], shape: tuple[int, ...]) -> np.ndarray:
    """Strings or bytes read by the engine as an array of the array's dtype."""
    if array._dtype.kind == "T":
        return np.array(values, dtype=array._dtype).reshape(shape)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def read_blocks(array: Array, boxes: list[list[Range]],
                outs: list[np.ndarray | None] | None = None) -> list[np.ndarray]:
    """The engine's blocks of `boxes`, read in one call (decoded in parallel),
    in the engine's layout: native byte order (strings and bytes as the
    array's dtype). Where `outs` gives a C-contiguous native block of the
    box's shape, the box is read into it."""
    fill = array.read_missing_chunks
    if array._variable:
        with array._chunks_required():
            values = array._core.read_boxes_objects(boxes, fill)
        return [object_block(array, v, box_shape(b)) for v, b in zip(values, boxes)]
    blocks = [o if o is not None else np.empty(box_shape(b), dtype=array._native)
              for b, o in zip(boxes, outs or [None] * len(boxes))]
    with array._chunks_required():
        array._core.read_boxes(boxes, blocks, fill)
    return blocks


def unset_block(array: Array, shape: tuple[int, ...]) -> np.ndarray:
    """A block of the array's type for the elements a write's mask leaves
    out: zeros, or empty strings or bytes for variable-length types."""
    if not array._variable:
        return np.zeros(shape, dtype=array._native)
    empty = b"" if array._core.dtype_name == "bytes" else ""
    return np.full(shape, empty, dtype=object)


def _batches(boxes: list[list[Range]], itemsize: int) -> list[slice]:
    """Consecutive groups of `boxes` of at most _BATCH_BYTES each."""
    out, start, total = [], 0, 0
    for i, b in enumerate(boxes):
        size = math.prod(box_shape(b)) * itemsize
        if total and total + size > _BATCH_BYTES:
            out.append(slice(start, i))
            start, total = i, 0
        total += size
    out.append(slice(start, len(boxes)))
    return out


# -- out= -----------------------------------------------------------------------------


def check_out(array: Array, out: Any, shape: tuple[int, ...]) -> None:
    """ValueError unless `out` is a writable numpy array of `shape` and the
    array's dtype."""
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be a numpy array, got {type(out).__name__}")
    if out.shape != shape or out.dtype != array.dtype:
        raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}; the selection "
                         f"of {array._core.describe()} needs {shape} and {array.dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def fills_directly(array: Array, out: np.ndarray | None) -> bool:
    """Whether the engine can decode into `out` itself (C-contiguous, native
    order, fixed-size elements)."""
    return (out is not None and not array._variable and out.dtype == array._native
            and out.flags.c_contiguous and out.flags.writeable)


def _new_block(array: Array, shape: tuple[int, ...]) -> np.ndarray:
    if array._variable:
        return np.empty(shape, dtype=array._dtype)
    return np.empty(shape, dtype=array._native)


def _deliver(array: Array, result: np.ndarray, out: np.ndarray | None,
             filled: bool) -> Any:
    """`result` (native order) as the caller gets it: in `out` when given,
    else in the array's dtype (a 0-d result stays an array, as zarr-python's)."""
    if out is not None:
        if not filled:
            out[...] = result
        return out
    if result.dtype != array._dtype and not array._variable:
        result = result.astype(array._dtype)  # v2 big-endian
    return result


# -- orthogonal reads and writes -------------------------------------------------------


def _fill_compact(array: Array, plans: list[_DimPlan], compact: np.ndarray) -> None:
    """Reads every box of the selection into its place in `compact`."""
    combos = list(itertools.product(*(p.runs for p in plans)))
    boxes = [[r.range for r in combo] for combo in combos]
    places = [tuple(slice(r.at, r.at + r.count) for r in combo) for combo in combos]
    itemsize = 8 if array._variable else array._native.itemsize
    for batch in _batches(boxes, itemsize):
        outs: list[np.ndarray | None] = []
        for combo, place in zip(combos[batch], places[batch]):
            view = compact[place] if all(r.take is None for r in combo) else None
            outs.append(view if fills_directly(array, view) else None)
        blocks = read_blocks(array, boxes[batch], outs)
        for combo, place, block, direct in zip(combos[batch], places[batch], blocks, outs):
            if direct is not None:
                continue
            for axis, r in enumerate(combo):
                if r.take is not None:
                    block = block.take(r.take, axis=axis)
            compact[place] = block


def read_orthogonal(array: Array, indices: list[int | range | np.ndarray],
                    out: np.ndarray | None = None) -> Any:
    """The orthogonal selection `indices` of `array` (in `out`, when given)."""
    plans = [_plan_dim(ix, c) for ix, c in zip(indices, array._read_unit)]
    shape = _result_shape(plans)
    if out is not None:
        check_out(array, out, shape)
    compact_shape = tuple(p.size for p in plans)
    in_order = all(p.post is None or _is(p.post, _DROP) for p in plans)
    filled = in_order and fills_directly(array, out)
    compact = out.reshape(compact_shape) if filled else _new_block(array, compact_shape)
    if compact.size:
        _fill_compact(array, plans, compact)
    result = compact
    for axis, p in enumerate(plans):
        if _is(p.post, _REVERSE):
            result = np.flip(result, axis)
        elif isinstance(p.post, np.ndarray):
            result = result.take(p.post, axis=axis)
    # The Ellipsis keeps a result of integers only a 0-d array.
    drop = tuple(0 if _is(p.post, _DROP) else slice(None) for p in plans) + (Ellipsis,)
    return _deliver(array, result[drop], out, filled)


def values_for(array: Array, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """`value` as the engine writes it: in the array's type (native order),
    broadcast to `shape` (ValueError when it cannot be)."""
    if array._variable:
        src = np.asarray(value, dtype=array._dtype)
    elif isinstance(value, np.ndarray) and value.dtype == array._native:
        src = value
    else:
        src = _dtypes.to_native(value, array._native)
    try:
        return np.broadcast_to(src, shape)
    except ValueError:
        raise ValueError(f"cannot write values of shape {src.shape} into a selection of "
                         f"shape {shape}") from None


def _compact_values(values: np.ndarray, plans: list[_DimPlan]) -> np.ndarray:
    """The values of the result laid out as the compact block: the reverse of
    read_orthogonal's last steps (the last of repeated indices wins, as in
    numpy)."""
    compact = values.reshape(tuple(p.size if not isinstance(p.post, np.ndarray) else
                                   len(p.post) for p in plans))
    for axis, p in enumerate(plans):
        if _is(p.post, _REVERSE):
            compact = np.flip(compact, axis)
        elif isinstance(p.post, np.ndarray):
            shape = compact.shape[:axis] + (p.size,) + compact.shape[axis + 1:]
            scattered = np.empty(shape, dtype=compact.dtype)
            scattered[(slice(None),) * axis + (p.post,)] = compact
            compact = scattered
    return compact


def write_box(array: Array, combo: tuple[_Run, ...], ranges: list[Range],
              block: np.ndarray) -> None:
    """Writes `block`, the values of the picked elements of one box
    (per dimension a run's `take`, or all of it)."""
    takes = [r.take for r in combo]
    if all(t is None for t in takes):
        array._write_block(ranges, block, array.write_empty_chunks)
        return
    shape = box_shape(ranges)
    where = np.ix_(*(t if t is not None else np.arange(n) for t, n in zip(takes, shape)))
    full = unset_block(array, shape)
    full[where] = block
    mask = np.zeros(shape, dtype=np.bool_)
    mask[where] = True
    array._write_block(ranges, full, array.write_empty_chunks, mask)


def write_orthogonal(array: Array, indices: list[int | range | np.ndarray],
                     value: Any) -> None:
    """array.oindex[indices] = value."""
    plans = [_plan_dim(ix, c) for ix, c in zip(indices, array._read_unit)]
    values = values_for(array, value, _result_shape(plans))
    if values.size == 0:
        return
    compact = _compact_values(values, plans)
    for combo in itertools.product(*(p.runs for p in plans)):
        place = tuple(slice(r.at, r.at + r.count) for r in combo)
        write_box(array, combo, [r.range for r in combo], compact[place])


# -- point reads and writes ------------------------------------------------------------


class _PointBoxes(NamedTuple):
    order: np.ndarray | slice  # the points sorted by chunk (a slice: already so)
    starts: list[int]  # where each chunk's points start in that order, and the end
    boxes: list[list[Range]]
    local: tuple[np.ndarray, ...]  # the sorted points' coordinates within their box


def _point_boxes(coords: tuple[np.ndarray, ...], shape: tuple[int, ...],
                 chunks: tuple[int, ...]) -> _PointBoxes:
    grid = tuple(-(-s // c) for s, c in zip(shape, chunks))
    chunk_of = np.ravel_multi_index(tuple(c // ch for c, ch in zip(coords, chunks)), grid)
    if (np.diff(chunk_of) >= 0).all():
        order: np.ndarray | slice = slice(None)
    else:
        order = np.argsort(chunk_of, kind="stable")
        chunk_of = chunk_of[order]
        coords = tuple(c[order] for c in coords)
    cuts = np.flatnonzero(np.diff(chunk_of)) + 1
    starts = np.concatenate(([0], cuts))
    counts = np.diff(np.append(starts, len(chunk_of)))
    lows = [np.minimum.reduceat(c, starts) for c in coords]
    highs = [np.maximum.reduceat(c, starts) + 1 for c in coords]
    boxes = [list(zip(lo, hi, itertools.repeat(1)))
             for lo, hi in zip(zip(*(lo.tolist() for lo in lows)),
                               zip(*(hi.tolist() for hi in highs)))]
    local = tuple(c - np.repeat(lo, counts) for c, lo in zip(coords, lows))
    return _PointBoxes(order, starts.tolist() + [len(chunk_of)], boxes, local)


def read_points(array: Array, points: Points, out: np.ndarray | None = None) -> Any:
    """The values at `points` (in `out`, when given)."""
    if out is not None:
        check_out(array, out, points.shape)
    filled = fills_directly(array, out)
    flat = out.reshape(-1) if filled else _new_block(array, (len(points.coords[0]),))
    if flat.size:
        plan = _point_boxes(points.coords, array.shape, array._read_unit)
        in_order = np.empty_like(flat) if isinstance(plan.order, np.ndarray) else flat
        for batch in _batches(plan.boxes, 8 if array._variable else array._native.itemsize):
            blocks = read_blocks(array, plan.boxes[batch])
            for i, block in zip(range(batch.start, batch.stop), blocks):
                a, b = plan.starts[i], plan.starts[i + 1]
                in_order[a:b] = block[tuple(c[a:b] for c in plan.local)]
        if in_order is not flat:
            flat[plan.order] = in_order
    return _deliver(array, flat.reshape(points.shape), out, filled)


def write_points(array: Array, points: Points, value: Any) -> None:
    """Writes `value` (broadcast to the points' shape) at `points`; of
    repeated points the last value wins, as in numpy."""
    values = values_for(array, value, points.shape).reshape(-1)
    if values.size == 0:
        return
    plan = _point_boxes(points.coords, array.shape, array._read_unit)
    values = values[plan.order]
    for i, ranges in enumerate(plan.boxes):
        a, b = plan.starts[i], plan.starts[i + 1]
        shape = box_shape(ranges)
        where = tuple(c[a:b] for c in plan.local)
        full = unset_block(array, shape)
        full[where] = values[a:b]
        mask = np.zeros(shape, dtype=np.bool_)
        mask[where] = True
        array._write_block(ranges, full, array.write_empty_chunks, mask)
