"""Turning ``array[key]`` into the engine's selection: one strided range per
dimension.

Integers (negative ones count from the end) select one element and drop the
dimension, as numpy does; slices may have any non-zero step (a negative step
reads the same elements in ascending order and the result is reversed as a
view); ``...`` stands for as many full slices as needed.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple


class BasicSelection(NamedTuple):
    # (start, stop, step) per dimension with 0 <= start <= stop <= extent and
    # step >= 1: the elements the engine reads or writes, in ascending order.
    ranges: list[tuple[int, int, int]]
    # Elements per dimension in the engine's block (1 for integer indices).
    block_shape: tuple[int, ...]
    # How to index that block to get numpy's answer: 0 where an integer index
    # drops a dimension, slice(None, None, -1) where a negative step reverses.
    view: tuple[Any, ...]
    # The shape of numpy's answer.
    result_shape: tuple[int, ...]

    @property
    def needs_view(self) -> bool:
        return any(v != slice(None) for v in self.view)


def expand(key: Any, ndim: int) -> list[Any]:
    """`key` as one index per dimension: ``...`` and missing trailing
    dimensions become full slices."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is None for k in key):
        raise IndexError("newaxis (None) is not supported in turbozarr selections")
    ellipses = sum(1 for k in key if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if ellipses == 1:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        fill = ndim - (len(key) - 1)
        if fill < 0:
            raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                             f"but {len(key) - 1} were indexed")
        key = key[:at] + (slice(None),) * fill + key[at + 1:]
    if len(key) > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {len(key)} were indexed")
    return list(key) + [slice(None)] * (ndim - len(key))


def normalize(key: Any, shape: tuple[int, ...]) -> BasicSelection:
    """The selection that ``key`` makes in an array of ``shape``."""
    ranges: list[tuple[int, int, int]] = []
    block: list[int] = []
    view: list[Any] = []
    result: list[int] = []
    for dim, (k, extent) in enumerate(zip(expand(key, len(shape)), shape)):
        if isinstance(k, slice):
            start, stop, step = k.indices(extent)
            r = range(start, stop, step)
            n = len(r)
            if n == 0:
                ranges.append((0, 0, 1))
                view.append(slice(None))
            elif step > 0:
                ranges.append((r[0], r[-1] + 1, step))
                view.append(slice(None))
            else:
                ranges.append((r[-1], r[0] + 1, -step))
                view.append(slice(None, None, -1))
            block.append(n)
            result.append(n)
            continue
        if isinstance(k, bool) or (hasattr(k, "dtype") and getattr(k, "dtype").kind == "b"):
            raise IndexError("boolean indices are not supported in turbozarr selections")
        try:
            i = operator.index(k)
        except TypeError:
            raise IndexError(
                "only integers, slices and Ellipsis are valid turbozarr indices, "
                f"got {type(k).__name__}"
            ) from None
        if i < -extent or i >= extent:
            raise IndexError(f"index {i} is out of bounds for axis {dim} with size {extent}")
        if i < 0:
            i += extent
        ranges.append((i, i + 1, 1))
        block.append(1)
        view.append(0)
    return BasicSelection(ranges, tuple(block), tuple(view), tuple(result))
