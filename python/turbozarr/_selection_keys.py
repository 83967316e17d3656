"""Turning the keys of ``a.oindex[...]``, ``a.vindex[...]``, ``a.blocks[...]``
and fancy ``a[...]`` into indices per dimension, with zarr-python 3.4's rules.

``array[key]`` is dispatched as zarr-python's ``Array.__getitem__`` does: a
key of integers and integer arrays or lists only (at least one of them), or a
single Boolean array, is vectorized (coordinate or mask selection); a key with
at most one integer or Boolean array among integers and slices, or an array
in every dimension, is orthogonal; anything else is basic. Where zarr-python
would send a key to basic indexing only to refuse it (``a[..., [1, 2]]``, a
numpy integer beside an array), the orthogonal reading, which numpy's agrees
with for a single array, is taken instead.

Orthogonal keys take, per dimension, an integer, a slice of any non-zero
step, an integer array or list (any order, repeats, negatives from the end)
or a Boolean array as long as the dimension. Errors are IndexError naming
the dimension and the index at fault.
"""

from __future__ import annotations

import itertools
import numbers
import operator
from typing import Any, NamedTuple

import numpy as np

from turbozarr import _indexing


def _is_integer(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and type(x) not in (bool, np.bool_)


def _is_bool(x: Any) -> bool:
    return type(x) in (bool, np.bool_)


def _is_integer_list(x: Any) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(_is_integer(i) for i in x)


def _is_bool_list(x: Any) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(_is_bool(i) for i in x)


def _is_integer_array(x: Any) -> bool:
    return (not np.isscalar(x) and hasattr(x, "shape") and hasattr(x, "dtype")
            and x.dtype.kind in "ui")


def _is_bool_array(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and x.dtype == bool


def _is_index_array(x: Any) -> bool:
    """An integer or Boolean array or list (zarr-python's
    is_int_or_bool_iterable; an empty list too, as numpy takes it)."""
    return (_is_integer_list(x) or _is_bool_list(x) or _is_integer_array(x)
            or _is_bool_array(x) or (isinstance(x, list) and not x))


def _as_tuple(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


def is_vectorized(key: Any, ndim: int) -> bool:
    """Whether ``array[key]`` is a coordinate or mask selection (zarr-python's
    is_pure_fancy_indexing)."""
    if _is_bool_array(key):
        return True
    if ndim == 1 and (_is_integer_list(key) or _is_integer_array(key) or _is_bool_list(key)):
        return True
    if not isinstance(key, tuple) or len(key) != ndim:
        return False
    if any(isinstance(k, slice) or k is Ellipsis for k in key):
        return False
    # An empty list too: numpy reads a[[], []] as zero points.
    arrays = [_is_integer_list(k) or _is_integer_array(k) or (isinstance(k, list) and not k)
              for k in key]
    return any(arrays) and all(a or _is_integer(k) for a, k in zip(arrays, key))


def has_index_array(key: Any) -> bool:
    """Whether the key holds an integer or Boolean array or list anywhere
    (else it is basic: integers, slices and Ellipsis)."""
    return any(_is_index_array(k) or isinstance(k, list) for k in _as_tuple(key))


def is_orthogonal(key: Any, ndim: int) -> bool:
    """Whether ``array[key]`` is an orthogonal selection (zarr-python's
    is_pure_orthogonal_indexing, also taking numpy integers and Ellipsis)."""
    if not ndim:
        return False
    keys = _as_tuple(key)
    if len(keys) == ndim and all(_is_index_array(k) for k in keys):
        return True
    return (sum(_is_index_array(k) for k in keys) <= 1
            and all(_is_index_array(k) or _is_integer(k) or isinstance(k, slice)
                    or k is Ellipsis for k in keys))


# -- orthogonal selections --------------------------------------------------------


def _dim_indices(k: Any, extent: int, dim: int) -> int | range | np.ndarray:
    """One dimension of an orthogonal selection: an int (the dimension is
    dropped), a range (a slice) or an intp array of in-bounds indices."""
    if isinstance(k, slice):
        if k.step == 0:
            raise ValueError("slice step cannot be zero")
        return range(*k.indices(extent))
    if _is_integer(k):
        i = operator.index(k)
        if not -extent <= i < extent:
            raise IndexError(f"index {i} is out of bounds for axis {dim} with size {extent}")
        return i + extent if i < 0 else i
    if not hasattr(k, "dtype") or k.dtype.kind not in "uib":
        raise IndexError(
            "orthogonal selections take integers, slices, integer arrays and Boolean "
            f"arrays per dimension; got {type(k).__name__} for axis {dim}")
    k = np.asarray(k)
    if k.ndim != 1:
        raise IndexError(f"index arrays in an orthogonal selection must be 1-dimensional; "
                         f"axis {dim} got one of shape {k.shape}")
    if k.dtype == bool:
        if k.shape[0] != extent:
            raise IndexError(f"boolean index did not match axis {dim}: its size is "
                             f"{extent} but the boolean index has {k.shape[0]} elements")
        return np.flatnonzero(k)
    return check_bounds(k, extent, dim)


def check_bounds(k: np.ndarray, extent: int, dim: int) -> np.ndarray:
    """`k` (integers) as intp indices in [0, extent), negatives counted from
    the end; IndexError naming the first index out of bounds."""
    if k.dtype.kind == "u" and k.size and int(k.max()) >= extent:
        bad = int(k[np.argmax(k >= extent)])
        raise IndexError(f"index {bad} is out of bounds for axis {dim} with size {extent}")
    k = k.astype(np.intp, copy=False)
    outside = (k < -extent) | (k >= extent)
    if outside.any():
        bad = int(k[np.argmax(outside)])
        raise IndexError(f"index {bad} is out of bounds for axis {dim} with size {extent}")
    return np.where(k < 0, k + extent, k) if (k < 0).any() else k


def _list_array(k: list[Any]) -> np.ndarray:
    """A list index as numpy takes it (an empty one selects nothing)."""
    return np.asarray(k) if k else np.zeros(0, dtype=np.intp)


def orthogonal(key: Any, shape: tuple[int, ...]) -> list[int | range | np.ndarray]:
    """The per-dimension indices of the orthogonal selection `key`."""
    # Lists become arrays before expand, which would take a list for a key.
    if isinstance(key, tuple):
        key = tuple(_list_array(k) if isinstance(k, list) else k for k in key)
    elif isinstance(key, list):
        key = _list_array(key)
    dims = _indexing.expand(key, len(shape))
    return [_dim_indices(k, extent, d) for d, (k, extent) in enumerate(zip(dims, shape))]


# -- coordinate and mask selections -----------------------------------------------


class Points(NamedTuple):
    # One flat intp array of in-bounds coordinates per dimension.
    coords: tuple[np.ndarray, ...]
    # The shape of the result (the coordinate arrays broadcast together).
    shape: tuple[int, ...]


def coordinates(key: Any, shape: tuple[int, ...]) -> Points:
    """The points of the coordinate selection `key`: one integer (array) per
    dimension, broadcast together."""
    keys = _as_tuple(key)
    if len(keys) != len(shape) or not all(
            _is_integer(k) or _is_integer_list(k) or _is_integer_array(k)
            or (isinstance(k, list) and not k) for k in keys):
        raise IndexError(
            "invalid coordinate selection: expected one integer (coordinate) array per "
            f"dimension of the {len(shape)}-dimensional array, got {key!r}")
    arrays = [np.asarray([k] if _is_integer(k) else k) for k in keys]
    arrays = [a.astype(np.intp) if a.size == 0 else a for a in arrays]
    try:
        broadcast = np.broadcast_arrays(*arrays)
    except ValueError:
        raise IndexError("shape mismatch: coordinate arrays could not be broadcast together "
                         f"with shapes {' '.join(str(a.shape) for a in arrays)}") from None
    out_shape = broadcast[0].shape or (1,)
    coords = tuple(check_bounds(b.reshape(-1), extent, d)
                   for d, (b, extent) in enumerate(zip(broadcast, shape)))
    return Points(coords, out_shape)


def mask_points(mask: Any, shape: tuple[int, ...]) -> Points:
    """The points of the mask selection `mask` (a Boolean array of the array's
    shape), in C order."""
    keys = _as_tuple(mask)
    m = np.asarray(keys[0]) if len(keys) == 1 else None
    if m is None or m.dtype != bool or m.shape != tuple(shape):
        got = f"a {m.dtype} array of shape {m.shape}" if m is not None else repr(mask)
        raise IndexError("invalid mask selection: expected one Boolean array of the "
                         f"array's shape {tuple(shape)}, got {got}")
    coords = tuple(c.astype(np.intp, copy=False) for c in np.nonzero(m))
    return Points(coords, (int(np.count_nonzero(m)),))


def vectorized(key: Any, shape: tuple[int, ...]) -> Points:
    """The points of ``array.vindex[key]``: a mask or a coordinate selection."""
    keys = _as_tuple(key)
    if len(keys) == 1 and (_is_bool_array(keys[0]) or _is_bool_list(keys[0])):
        return mask_points(keys, shape)
    if not (len(keys) == len(shape) and all(
            _is_integer(k) or isinstance(k, (list, np.ndarray)) for k in keys)):
        raise IndexError(
            "unsupported selection for vectorized indexing: only a coordinate selection "
            "(one integer array per dimension) or a mask selection (one Boolean array of "
            f"the array's shape) is supported; got {key!r}")
    return coordinates(keys, shape)


# -- block selections --------------------------------------------------------------


def blocks(key: Any, shape: tuple[int, ...], chunks: tuple[Any, ...]) -> tuple[slice, ...]:
    """The array slices of the block selection `key`: integers and slices
    (step 1) of chunk (shard, when sharded) indices, as zarr-python's
    ``Array.blocks``. Per dimension `chunks` holds the chunk length, or, on
    a rectilinear grid, the sizes of the chunks along it."""
    out = []
    for d, (k, extent, chunk) in enumerate(zip(_indexing.expand(key, len(shape)), shape,
                                               chunks)):
        if isinstance(chunk, int):
            nblocks = -(-extent // chunk)

            def begin(i: int, chunk: int = chunk, extent: int = extent) -> int:
                return min(i * chunk, extent)
        else:
            offsets = [0, *itertools.accumulate(chunk)]
            nblocks = len(chunk)

            def begin(i: int, offsets: list = offsets, nblocks: int = nblocks) -> int:
                return offsets[min(i, nblocks)]
        if _is_integer(k):
            i = operator.index(k)
            if not -nblocks <= i < nblocks:
                raise IndexError(f"block index {i} is out of bounds for axis {d} with "
                                 f"{nblocks} block(s)")
            i %= nblocks
            out.append(slice(begin(i), begin(i + 1)))
        elif isinstance(k, slice):
            if k.step not in (None, 1):
                raise IndexError(f"block selections take slices with step 1; axis {d} "
                                 f"got step {k.step}")
            start, stop, _ = k.indices(nblocks)
            out.append(slice(begin(start), begin(max(start, stop))))
        else:
            raise IndexError("block selections take integers and slices, got "
                             f"{type(k).__name__} for axis {d}")
    return tuple(out)
