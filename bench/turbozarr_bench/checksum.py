"""Checksums of what a case read or wrote, computed outside the timing.

An array's digest covers its dtype, its shape and its bytes in C order, so a
result of the right bytes but the wrong shape or dtype does not match. Feeding
the bytes slab by slab along axis 0 gives the same digest as feeding the whole
array, which is how a 2 GiB array is audited without holding it twice.

A chunk-by-chunk read has no single array: its digest is taken over the
sorted (region index, region digest) pairs, so it does not depend on the
order in which concurrent reads completed.
"""

from __future__ import annotations

import hashlib

import numpy as np

DIGEST_CHARS = 16  # a prefix is plenty to tell arrays apart, and fits a table


class ArrayDigest:
    """Incremental digest of an array fed as C-order slabs along axis 0."""

    def __init__(self, shape, dtype):
        self._hash = hashlib.sha256()
        dt = np.dtype(dtype)
        header = f"{dt.str}|{','.join(str(int(s)) for s in shape)}|"
        self._hash.update(header.encode())

    def update(self, slab: np.ndarray) -> None:
        slab = np.ascontiguousarray(slab)
        if slab.nbytes:
            self._hash.update(memoryview(slab.reshape(-1)).cast("B"))

    def hexdigest(self) -> str:
        return self._hash.hexdigest()[:DIGEST_CHARS]


def array_digest(a: np.ndarray) -> str:
    a = np.asarray(a)
    d = ArrayDigest(a.shape, a.dtype)
    d.update(a)
    return d.hexdigest()


class RegionDigests:
    """Digests of many regions, combined independently of arrival order.

    Thread-safe enough for concurrent `add` calls: dict assignment of distinct
    keys is atomic under the GIL.
    """

    def __init__(self):
        self.parts: dict[int, str] = {}

    def add(self, index: int, a: np.ndarray) -> None:
        self.parts[index] = array_digest(a)

    def hexdigest(self) -> str:
        h = hashlib.sha256()
        for index in sorted(self.parts):
            h.update(f"{index}:{self.parts[index]};".encode())
        return h.hexdigest()[:DIGEST_CHARS]
