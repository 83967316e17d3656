"""Workload F: synthetic single-cell counts, written as zarr-python CSR tiles.

Shaped like real snRNA-seq: each cell has U(nnz_min, nnz_max) expressed genes,
drawn from a power-law gene popularity; counts are mostly 1-3 with a long tail
(a few above 65,535, so a uint16 codec cannot cheat). Every tile of
`tile_cells` cells is drawn from its own seeded stream, so a tile does not
depend on the others.

Layout (zarr v3, zstd): one group per tile, `tiles/<t>/` holding `data`
(uint32 counts), `indices` (int32 gene ids, sorted per cell) and `indptr`
(int64, tile-local), with the anndata-style attributes encoding-type =
"csr_matrix" and shape. The experiments of workload F arrive with its issue;
this is the fixture they read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from turbozarr_bench.checksum import array_digest
from turbozarr_bench.datasets.spec import DatasetSpec

POWER = 1.1  # gene popularity ~ 1 / (rank + 10) ** POWER
ELEMENT_CHUNK = 1 << 20


def gene_cdf(genes: int) -> np.ndarray:
    w = 1.0 / (np.arange(genes) + 10.0) ** POWER
    return np.cumsum(w) / w.sum()


def tile(spec: DatasetSpec, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data, indices, indptr) of tile t."""
    v = spec.values
    first = t * v["tile_cells"]
    cells = min(v["tile_cells"], v["cells"] - first)
    rng = np.random.default_rng([v["seed"], t])
    cdf = gene_cdf(v["genes"])
    # Gene ranks are shuffled once per dataset so popular genes are not all low ids.
    order = np.random.default_rng([v["seed"], 1 << 30]).permutation(v["genes"])
    rows_idx, rows_cnt = [], []
    indptr = np.zeros(cells + 1, dtype=np.int64)
    for c in range(cells):
        want = int(rng.integers(v["nnz_min"], v["nnz_max"] + 1))
        picked = np.unique(np.searchsorted(cdf, rng.random(int(want * 1.6) + 16)))
        if picked.size > want:
            picked = np.sort(rng.choice(picked, want, replace=False))
        genes = np.sort(order[np.minimum(picked, v["genes"] - 1)]).astype(np.int32)
        counts = rng.geometric(0.55, genes.size).astype(np.uint32)
        tail = rng.random(genes.size) < 2e-5
        counts[tail] = rng.integers(1000, v["max_count"], int(tail.sum()), dtype=np.uint32)
        rows_idx.append(genes)
        rows_cnt.append(counts)
        indptr[c + 1] = indptr[c] + genes.size
    return np.concatenate(rows_cnt), np.concatenate(rows_idx), indptr


def write_csr(spec: DatasetSpec, target: Path, tiles=None) -> str:
    """Writes the matrix; `tiles(t)` (a scipy CSR of tile t) stands in for
    the generator when given, e.g. to read tiles kept on disk."""
    import zarr

    v = spec.values
    root = zarr.open_group(zarr.storage.LocalStore(str(target)), mode="w", zarr_format=3)
    root.attrs.update({"shape": [v["cells"], v["genes"]], "tile_cells": v["tile_cells"]})
    n_tiles = -(-v["cells"] // v["tile_cells"])
    digest = hashlib.sha256()
    for t in range(n_tiles):
        if tiles is None:
            data, indices, indptr = tile(spec, t)
        else:
            m = tiles(t)
            data, indices, indptr = m.data, m.indices, m.indptr.astype(np.int64)
        g = root.create_group(f"tiles/{t}")
        g.attrs.update({"encoding-type": "csr_matrix", "encoding-version": "0.1.0",
                        "shape": [len(indptr) - 1, v["genes"]]})
        for name, arr in (("data", data), ("indices", indices), ("indptr", indptr)):
            a = g.create_array(name, shape=arr.shape, dtype=arr.dtype,
                               chunks=(min(ELEMENT_CHUNK, max(arr.size, 1)),),
                               compressors=zarr.codecs.ZstdCodec(level=3))
            a[...] = arr
            digest.update(f"{t}/{name}:{array_digest(arr)};".encode())
    return digest.hexdigest()[:16]
