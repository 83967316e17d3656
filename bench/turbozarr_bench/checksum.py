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


def csr_digest(matrix) -> str:
    """The digest of a sparse matrix as the matrix it is, not as it was
    stored: its shape and, in CSR with the columns of each row ascending, its
    row pointers (int64), column indices (int32) and values (as uint32 when
    they are whole numbers that fit, so that uint16, uint32, int64 and float32
    copies of the same counts agree). Explicit zeros are kept: a reader that
    drops or adds stored entries does not match."""
    import scipy.sparse

    m = scipy.sparse.csr_matrix(matrix, copy=True)
    m.sort_indices()
    data = m.data
    if data.size and np.all(data >= 0) and np.all(data <= np.iinfo(np.uint32).max) \
            and np.array_equal(data, np.floor(data)):
        data = data.astype(np.uint32)
    h = hashlib.sha256(f"csr|{m.shape[0]},{m.shape[1]}|{data.dtype.str}|".encode())
    for part in (m.indptr.astype(np.int64), m.indices.astype(np.int32), data):
        h.update(memoryview(np.ascontiguousarray(part)).cast("B"))
    return h.hexdigest()[:DIGEST_CHARS]
