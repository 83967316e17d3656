"""Sparse single-cell counts: a cells x genes matrix in tiles of CSR rows on
plain Zarr v3, decoded on all cores (docs/sparse.md; the layout is in
docs/format/sparse.md).

A dataset is a group with the matrix ``X`` (tiles of ``tile_cells`` cells,
genes renumbered by decreasing total counts and delta-coded, values in the
narrowest type that holds most of them) and the tables ``obs`` (one row per
cell) and ``var`` (one per gene), stored as anndata stores data frames.

>>> import scipy.sparse, turbozarr.sparse
>>> X = scipy.sparse.random(2500, 300, density=0.05, format="csr", dtype="int32",
...                         random_state=0, data_rvs=lambda n: [1] * n)
>>> ds = turbozarr.sparse.write("memory://", X, tile_cells=1000)
>>> ds.shape, ds.n_tiles
((2500, 300), 3)
>>> (ds.cells([2400, 7, 1001]) != X[[2400, 7, 1001]]).nnz
0
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from turbozarr import _core
from turbozarr._api import group as _create_group
from turbozarr._api import open_group
from turbozarr._array import _aligned_empty
from turbozarr._optional import import_optional
from turbozarr.errors import InvalidArgumentError

__all__ = ["Dataset", "TileDecoder", "Table", "CellLoader", "CellBatch", "open", "write",
           "from_h5ad", "from_mtx", "take_rows", "TILE_CELLS"]


def __getattr__(name: str) -> Any:
    # The loader imports torch: only when asked for.
    if name in ("CellLoader", "CellBatch"):
        from turbozarr import _sparse_loader
        return getattr(_sparse_loader, name)
    raise AttributeError(f"module 'turbozarr.sparse' has no attribute {name!r}")

TILE_CELLS = 10_000
# The layout version new matrices are written in (docs/format/sparse.md);
# matrices of version 1 still open.
LAYOUT_VERSION = 2
_MATRIX = "X"
_FORMATS = ("csr", "dense", "torch")


def _join(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


# -- reading ------------------------------------------------------------------


class TileDecoder:
    """Buffers that tiles decode into, kept between calls: once they are as
    large as the largest tile, decoding costs no allocation and no page
    faults. `decode` returns views of the buffers, valid until the next call;
    copy what must outlive it."""

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        cap = int(dataset._tile_nnz.max()) if dataset.n_tiles else 0
        self._indptr = np.empty(dataset.tile_cells + 1, np.int32)
        self._indices = np.empty(max(cap, 1), np.int32)
        self._values = np.empty(max(cap, 1), dataset.dtype)

    def decode(self, tile: int, *, genes: Any = None, sorted: bool = False,  # noqa: A002
               threads: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tile `tile` as CSR arrays (indptr, indices, values): indptr from 0,
        genes in their original numbering (or columns of `genes`), values in
        the matrix's dtype. Rows list their genes in storage order unless
        `sorted`."""
        return self._decode_map(tile, self._dataset._gene_map(genes), sorted, threads)

    def _decode_map(self, tile: int, gene_map: np.ndarray | None, sorted_: bool,
                    threads: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = self._dataset
        tile = d._check_tile(tile)
        n = d._core.read_tile(tile, self._indptr, self._indices, self._values, gene_map,
                              bool(sorted_), int(threads))
        cells = d._tile_cells(tile)
        return self._indptr[:cells + 1], self._indices[:n], self._values[:n]


class Table:
    """A table of one row per cell (obs) or per gene (var), stored as anndata
    stores a data frame. Columns are read on first use and kept."""

    def __init__(self, group: Any) -> None:
        self._group = group
        attrs = group.attrs.asdict() if hasattr(group.attrs, "asdict") else dict(group.attrs)
        self._index_name = attrs.get("_index", "_index")
        self.columns: list[str] = list(attrs.get("column-order", []))
        self._cache: dict[str, Any] = {}

    def __len__(self) -> int:
        return int(self._group[self._index_name].shape[0])

    def __contains__(self, name: object) -> bool:
        return name in self.columns

    @property
    def index(self) -> np.ndarray:
        """The row names."""
        return self._read(self._index_name)

    def __getitem__(self, name: str) -> Any:
        if name not in self.columns:
            raise KeyError(f"no column '{name}' (columns: {', '.join(self.columns)})")
        return self._read(name)

    def _read(self, name: str) -> Any:
        if name not in self._cache:
            self._cache[name] = _read_column(self._group[name], f"{self._group.path}/{name}")
        return self._cache[name]

    def to_pandas(self, columns: Sequence[str] | None = None) -> Any:
        """The table (or the named columns) as a pandas DataFrame."""
        pd = import_optional("pandas", "sparse", "turbozarr.sparse.Table.to_pandas")
        names = list(self.columns if columns is None else columns)
        index = pd.Index(self.index, name=None if self._index_name == "_index"
                         else self._index_name)
        if index.dtype == object:
            index = pd.Index(list(index), name=index.name)
        return pd.DataFrame({n: self[n] for n in names}, index=index)


def _read_column(node: Any, where: str) -> Any:
    attrs = dict(node.attrs)
    kind = attrs.get("encoding-type")
    if kind == "categorical":
        pd = import_optional("pandas", "sparse", "a categorical column of turbozarr.sparse.Table")
        codes = node["codes"][...]
        categories = _read_column(node["categories"], where + "/categories")
        return pd.Categorical.from_codes(codes, categories,
                                         ordered=bool(attrs.get("ordered", False)))
    if kind in ("nullable-integer", "nullable-boolean"):
        pd = import_optional("pandas", "sparse", "a nullable column of turbozarr.sparse.Table")
        values, mask = node["values"][...], node["mask"][...]
        return pd.array(np.ma.masked_array(values, mask).tolist(),
                        dtype="Int64" if kind == "nullable-integer" else "boolean")
    if kind == "string-array" or (kind is None and node.dtype.kind in "OTU"):
        # As Python strings, which pandas types as its default string dtype.
        return np.asarray(node[...], dtype=object)
    if kind in ("array", None):
        return node[...]
    raise InvalidArgumentError(f"{where}: column encoding '{kind}' is not one this reader knows")


class Dataset:
    """A sparse counts dataset, opened once (its layout, gene order and tile
    index are read when opened)."""

    def __init__(self, store: Any, *, path: str = "") -> None:
        root = open_group(store, mode="r", path=path)
        self._root = root
        self._core = _core.sparse_open(root.store, _join(root.path, _MATRIX))
        self._layout = json.loads(self._core.layout)
        self._gene_order = np.frombuffer(self._core.gene_order(), np.int32)
        sizes = np.frombuffer(self._core.tile_sizes(), np.int64).reshape(-1, 2)
        self._tile_nnz = sizes[:, 0].copy()
        self._offsets = np.concatenate([[0], np.cumsum(self._tile_nnz)]).astype(np.int64)
        self._dtype = np.dtype(self._layout["counts"])
        self._decoder: TileDecoder | None = None
        self.obs = Table(root["obs"]) if "obs" in root else None
        self.var = Table(root["var"]) if "var" in root else None

    # -- facts ------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        cells, genes = self._layout["shape"]
        return int(cells), int(genes)

    @property
    def n_cells(self) -> int:
        return self.shape[0]

    @property
    def n_genes(self) -> int:
        return self.shape[1]

    @property
    def tile_cells(self) -> int:
        return int(self._layout["tile_cells"])

    @property
    def n_tiles(self) -> int:
        return len(self._tile_nnz)

    @property
    def dtype(self) -> np.dtype:
        """The counts' dtype, as the source had it."""
        return self._dtype

    @property
    def nnz(self) -> int:
        return int(self._offsets[-1])

    @property
    def layout(self) -> dict[str, Any]:
        """The matrix's stored layout (docs/format/sparse.md)."""
        return dict(self._layout)

    @property
    def gene_order(self) -> np.ndarray:
        """gene_order[rank] = the gene stored at that rank (genes by
        decreasing total counts)."""
        return self._gene_order.copy()

    @property
    def group(self) -> Any:
        """The dataset's root group (read-only)."""
        return self._root

    def tile_nnz(self, tile: int) -> int:
        return int(self._tile_nnz[self._check_tile(tile)])

    def __repr__(self) -> str:
        return (f"<turbozarr.sparse.Dataset {self.n_cells} cells x {self.n_genes} genes, "
                f"{self.n_tiles} tiles, {self.nnz} nonzeros, {self._dtype}>")

    # -- reading ----------------------------------------------------------------

    def decoder(self) -> TileDecoder:
        """Reusable decode buffers (see TileDecoder)."""
        return TileDecoder(self)

    def tile(self, tile: int, *, genes: Any = None, sorted: bool | None = None,  # noqa: A002
             format: str = "csr", threads: int = 0) -> Any:  # noqa: A002
        """Tile `tile` as a scipy CSR matrix (``format="csr"``), dense numpy
        (``"dense"``) or ``torch.sparse_csr_tensor`` (``"torch"``), in memory
        of its own (not views of reused buffers, as TileDecoder gives).
        `genes` selects and orders columns by original gene index. Rows keep
        storage order unless `sorted` (default: sorted for torch,
        whose CSR tensors expect it; not for scipy, which accepts either)."""
        _check_format(format)
        tile = self._check_tile(tile)
        cells = self._tile_cells(tile)
        cap = max(int(self._tile_nnz[tile]), 1)
        indptr = np.empty(cells + 1, np.int32)
        # Results in the memory of a dropped result of about the same size
        # (_aligned_empty): a fresh tile's pages cost the kernel a zeroing
        # that was a quarter of the decode.
        indices = _aligned_empty((cap,), np.int32)
        values = _aligned_empty((cap,), self._dtype)
        n = self._core.read_tile(tile, indptr, indices, values, self._gene_map(genes),
                                 _sorted(sorted, format), int(threads))
        return self._as(format, indptr, indices[:n], values[:n], cells, genes)

    def cells(self, cells: Any, *, genes: Any = None, sorted: bool | None = None,  # noqa: A002
              format: str = "csr", threads: int = 0) -> Any:
        """The rows of `cells` (any order, repeats allowed), in that order,
        as `tile` returns them. Each tile they touch is decoded once."""
        _check_format(format)
        cells = np.asarray(cells, dtype=np.int64).reshape(-1)
        if cells.size and (cells.min() < 0 or cells.max() >= self.n_cells):
            raise InvalidArgumentError(f"cells must be in [0, {self.n_cells})")
        indptr, indices, values = self._gather(cells, genes, _sorted(sorted, format), threads)
        return self._as(format, indptr, indices, values, len(cells), genes)

    def __getitem__(self, key: Any) -> Any:
        """Rows by integer, slice or integer array, as scipy CSR."""
        if isinstance(key, (int, np.integer)):
            key = [int(key) + (self.n_cells if key < 0 else 0)]
        elif isinstance(key, slice):
            key = np.arange(*key.indices(self.n_cells))
        return self.cells(key)

    def to_scipy(self, *, sorted: bool = True, threads: int = 0) -> Any:  # noqa: A002
        """The whole matrix as scipy CSR: with `sorted`, the canonical CSR of
        the source (genes ascending in each row), exactly as written."""
        scipy_sparse = import_optional("scipy.sparse", "sparse",
                                       "turbozarr.sparse.Dataset.to_scipy")
        indptr, indices, values = self._whole(sorted, threads)
        return scipy_sparse.csr_matrix((values, indices, indptr), shape=self.shape, copy=False)

    def to_anndata(self) -> Any:
        """An in-memory anndata.AnnData: X (sorted CSR), obs and var."""
        anndata = import_optional("anndata", "sparse", "turbozarr.sparse.Dataset.to_anndata")
        obs = self.obs.to_pandas() if self.obs is not None else None
        var = self.var.to_pandas() if self.var is not None else None
        return anndata.AnnData(X=self.to_scipy(), obs=obs, var=var)

    def to_h5ad(self, path: str | os.PathLike, *, compression: str | None = "gzip") -> None:
        """Writes the dataset as an .h5ad file (anndata)."""
        self.to_anndata().write_h5ad(path, compression=compression)

    # -- internals --------------------------------------------------------------

    def _check_tile(self, tile: int) -> int:
        t = int(tile)
        if not 0 <= t < self.n_tiles:
            raise InvalidArgumentError(f"tile {tile} is outside [0, {self.n_tiles})")
        return t

    def _tile_cells(self, tile: int) -> int:
        return min(self.tile_cells, self.n_cells - tile * self.tile_cells)

    def _gene_map(self, genes: Any) -> np.ndarray | None:
        if genes is None:
            return None
        genes = np.asarray(genes, dtype=np.int64).reshape(-1)
        if genes.size and (genes.min() < 0 or genes.max() >= self.n_genes):
            raise InvalidArgumentError(f"genes must be in [0, {self.n_genes})")
        if len(np.unique(genes)) != len(genes):
            raise InvalidArgumentError("genes lists a gene more than once")
        gene_map = np.full(self.n_genes, -1, np.int32)
        gene_map[genes] = np.arange(len(genes), dtype=np.int32)
        return gene_map

    def _columns(self, genes: Any) -> int:
        return self.n_genes if genes is None else len(np.asarray(genes).reshape(-1))

    def _whole(self, sorted_: bool, threads: int) -> tuple[np.ndarray, ...]:
        nnz = self.nnz
        wide = nnz > np.iinfo(np.int32).max
        indptr = np.empty(self.n_cells + 1, np.int64 if wide else np.int32)
        indptr[0] = 0
        indices = np.empty(nnz, np.int32)
        values = np.empty(nnz, self._dtype)
        tile_ptr = np.empty(self.tile_cells + 1, np.int32)
        for t in range(self.n_tiles):
            a, b = int(self._offsets[t]), int(self._offsets[t + 1])
            c0 = t * self.tile_cells
            cells = self._tile_cells(t)
            self._core.read_tile(t, tile_ptr, indices[a:b], values[a:b], None, bool(sorted_),
                                 int(threads))
            indptr[c0 + 1:c0 + cells + 1] = tile_ptr[1:cells + 1] + a
        return indptr, indices, values

    def _gather(self, cells: np.ndarray, genes: Any, sorted_: bool,
                threads: int) -> tuple[np.ndarray, ...]:
        """The rows of `cells` in their order: rows gathered tile by tile
        into one block (in tile order), then put in the asked order."""
        if self._decoder is None:
            self._decoder = TileDecoder(self)
        tiles = cells // self.tile_cells
        order = np.argsort(tiles, kind="stable")
        by_tile = cells[order]
        bounds = np.flatnonzero(np.diff(tiles[order])) + 1
        parts = []
        for run in np.split(np.arange(len(cells)), bounds) if len(cells) else []:
            t = int(by_tile[run[0]] // self.tile_cells)
            ptr, idx, val = self._decoder.decode(t, genes=genes, sorted=sorted_, threads=threads)
            parts.append(_gather_rows(ptr, idx, val, by_tile[run] - t * self.tile_cells))
        block_ptr = np.zeros(len(cells) + 1, np.int64)
        if parts:
            lengths = np.concatenate([np.diff(p[0]) for p in parts])
            np.cumsum(lengths, out=block_ptr[1:])
            block_idx = np.concatenate([p[1] for p in parts])
            block_val = np.concatenate([p[2] for p in parts])
        else:
            block_idx = np.empty(0, np.int32)
            block_val = np.empty(0, self._dtype)
        if np.array_equal(order, np.arange(len(cells))):
            return self._narrow_indptr(block_ptr), block_idx, block_val
        # Row i of the block is asked-for row order[i]: gather by the inverse.
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        n = len(block_idx)
        out_ptr = np.zeros(len(cells) + 1, np.int64)
        out_idx = _aligned_empty((max(n, 1),), np.int32)
        out_val = _aligned_empty((max(n, 1),), self._dtype)
        _core.sparse_gather_rows(block_ptr, True, block_idx if n else out_idx,
                                 block_val if n else out_val, self._dtype.itemsize,
                                 np.ascontiguousarray(inverse, np.int64), out_ptr, out_idx, out_val)
        return self._narrow_indptr(out_ptr), out_idx[:n], out_val[:n]

    @staticmethod
    def _narrow_indptr(ptr: np.ndarray) -> np.ndarray:
        return ptr.astype(np.int32) if ptr[-1] <= np.iinfo(np.int32).max else ptr

    def _as(self, format: str, indptr: np.ndarray, indices: np.ndarray,  # noqa: A002
            values: np.ndarray, rows: int, genes: Any) -> Any:
        shape = (rows, self._columns(genes))
        if format == "csr":
            scipy_sparse = import_optional("scipy.sparse", "sparse",
                                           'CSR results of turbozarr.sparse (format="csr")')
            return scipy_sparse.csr_matrix((values, indices, indptr), shape=shape, copy=False)
        if format == "dense":
            out = np.zeros(shape, self._dtype)
            row_of = np.repeat(np.arange(rows), np.diff(indptr))
            out[row_of, indices] = values
            return out
        torch = import_optional("torch", "torch",
                                'torch results of turbozarr.sparse (format="torch")')
        index_type = np.int64 if indptr.dtype == np.int64 else np.int32
        return torch.sparse_csr_tensor(torch.from_numpy(np.ascontiguousarray(indptr)),
                                       torch.from_numpy(indices.astype(index_type, copy=False)),
                                       torch.from_numpy(values), size=shape,
                                       check_invariants=False)


def _gather_rows(ptr: np.ndarray, idx: np.ndarray, val: np.ndarray,
                 rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows `rows` of a CSR block (indptr int32, or int64), copied out in
    that order by the engine (indptr int64)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    n = int((ptr[rows + 1].astype(np.int64) - ptr[rows]).sum())
    out_ptr = np.zeros(len(rows) + 1, np.int64)
    out_idx = _aligned_empty((max(n, 1),), np.int32)
    out_val = _aligned_empty((max(n, 1),), val.dtype)
    if idx.size == 0:  # the engine wants a non-empty source
        idx, val = out_idx, out_val
    _core.sparse_gather_rows(ptr, ptr.dtype == np.int64, idx, val, val.dtype.itemsize, rows,
                             out_ptr, out_idx, out_val)
    return out_ptr, out_idx[:n], out_val[:n]


def take_rows(matrix: Any, rows: Any) -> Any:
    """Rows `rows` (any order, repeats allowed) of a scipy CSR matrix, in
    that order, as a new CSR matrix: ``matrix[rows]`` in one pass of the
    engine's row copy (no per-row Python, no index sort), for minibatches
    cut from a decoded tile."""
    scipy_sparse = import_optional("scipy.sparse", "sparse", "turbozarr.sparse.take_rows")
    if not scipy_sparse.issparse(matrix) or matrix.format != "csr":
        raise InvalidArgumentError(f"take_rows needs a scipy CSR matrix, not {type(matrix)!r}")
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    n_rows = matrix.shape[0]
    if rows.size and (rows.min() < -n_rows or rows.max() >= n_rows):
        raise InvalidArgumentError(f"rows must be in [-{n_rows}, {n_rows})")
    rows = np.where(rows < 0, rows + n_rows, rows)
    val = np.ascontiguousarray(matrix.data)
    if val.dtype.itemsize not in (1, 2, 4, 8):
        raise InvalidArgumentError(f"take_rows cannot copy values of dtype {val.dtype}")
    ptr = matrix.indptr
    ptr = np.ascontiguousarray(ptr, np.int32 if ptr.dtype == np.int32 else np.int64)
    out_ptr, out_idx, out_val = _gather_rows(ptr, np.ascontiguousarray(matrix.indices, np.int32),
                                             val, rows)
    if out_ptr[-1] <= np.iinfo(np.int32).max:
        out_ptr = out_ptr.astype(np.int32)
    return scipy_sparse.csr_matrix((out_val, out_idx, out_ptr),
                                   shape=(len(rows), matrix.shape[1]), copy=False)


def _check_format(format: str) -> None:  # noqa: A002
    if format not in _FORMATS:
        raise InvalidArgumentError(f"format '{format}' is not one of {', '.join(_FORMATS)}")


def _sorted(sorted_: bool | None, format: str) -> bool:  # noqa: A002
    return format == "torch" if sorted_ is None else bool(sorted_)


def open(store: Any, *, path: str = "") -> Dataset:  # noqa: A001 (as turbozarr.open)
    """Opens the sparse dataset at `store` (any store URL turbozarr opens)."""
    return Dataset(store, path=path)


# -- writing ------------------------------------------------------------------


class _Source:
    """A CSR source read block by block: rows [a, b) as (indptr, indices,
    values) with indptr absolute into indices/values."""

    n_cells: int
    n_genes: int
    dtype: np.dtype

    def rows(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError


class _InMemory(_Source):
    def __init__(self, X: Any) -> None:
        scipy_sparse = import_optional("scipy.sparse", "sparse", "turbozarr.sparse.write")
        if isinstance(X, np.ndarray):
            if X.ndim != 2:
                raise InvalidArgumentError(f"a counts matrix has 2 dimensions, not {X.ndim}")
            X = scipy_sparse.csr_matrix(X)
        elif scipy_sparse.issparse(X):
            X = X.tocsr()
        else:
            raise InvalidArgumentError(
                f"a counts matrix must be a scipy.sparse matrix or a 2-D numpy array, "
                f"not {type(X).__name__}")
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        self.X = X
        self.n_cells, self.n_genes = X.shape
        self.dtype = X.dtype

    def rows(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.X.indptr[a:b + 1], self.X.indices, self.X.data


class _H5adSource(_Source):
    """The CSR matrix at `key` of an .h5ad file, read through h5py a block
    of rows at a time."""

    def __init__(self, path: str | os.PathLike, key: str) -> None:
        h5py = import_optional("h5py", "sparse", "turbozarr.sparse.from_h5ad")
        self._file = h5py.File(path, "r")
        if key not in self._file:
            raise InvalidArgumentError(f"{path}: no '{key}' in the file")
        node = self._file[key]
        attrs = dict(node.attrs)
        kind = attrs.get("encoding-type", "")
        if isinstance(kind, bytes):
            kind = kind.decode()
        if not isinstance(node, h5py.Group) or kind != "csr_matrix":
            raise InvalidArgumentError(
                f"{path}: '{key}' is {kind or type(node).__name__}, not a CSR matrix "
                "(convert it with anndata first, e.g. adata.X = scipy.sparse.csr_matrix(...))")
        self.n_cells, self.n_genes = (int(x) for x in attrs["shape"])
        self._indptr = node["indptr"][...]
        self._indices = node["indices"]
        self._data = node["data"]
        self.dtype = self._data.dtype

    def rows(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lo, hi = int(self._indptr[a]), int(self._indptr[b])
        return (self._indptr[a:b + 1] - lo, self._indices[lo:hi], self._data[lo:hi])

    def close(self) -> None:
        self._file.close()


def _type(a: np.ndarray) -> str:
    return a.dtype.newbyteorder("=").name


def _native(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))


def _write_matrix(root: Any, source: _Source, *, tile_cells: int, chunks_per_tile: int,
                  zstd_level: int, progress: Callable[[str, int, int], None] | None) -> None:
    if tile_cells < 1:
        raise InvalidArgumentError(f"tile_cells must be at least 1, not {tile_cells}")
    dtype = np.dtype(source.dtype)
    if not (dtype.kind in "iu" or dtype in (np.float32, np.float64)):
        raise InvalidArgumentError(f"counts of dtype {source.dtype} cannot be stored "
                                   "(integers, float32 or float64)")
    stats = _core.SparseCountStats(source.n_genes)
    tiles = (source.n_cells + tile_cells - 1) // tile_cells
    for t in range(tiles):
        a, b = t * tile_cells, min(source.n_cells, (t + 1) * tile_cells)
        indptr, indices, values = source.rows(a, b)
        stats.add(_native(indptr), _type(indptr), _native(indices), _type(indices),
                  _native(values), _type(values), a)
        if progress:
            progress("scan", t + 1, tiles)
    layout = {"version": LAYOUT_VERSION, "shape": [source.n_cells, source.n_genes], "tile_cells": tile_cells,
              "chunks_per_tile": chunks_per_tile, "zstd_level": zstd_level,
              "checksum": "crc32c",
              "counts": np.dtype(source.dtype).name, "stored_values": "uint8",
              "exception_values": "uint32"}
    layout = stats.choose_layout(json.dumps(layout))
    order = np.frombuffer(_core.sparse_gene_order(stats), np.int32)
    writer = _core.sparse_create(root.store, _join(root.path, _MATRIX), layout, order, True)
    for t in range(tiles):
        a, b = t * tile_cells, min(source.n_cells, (t + 1) * tile_cells)
        indptr, indices, values = source.rows(a, b)
        writer.write_tile(t, _native(indptr), _type(indptr), _native(indices), _type(indices),
                          _native(values), _type(values))
        if progress:
            progress("write", t + 1, tiles)
    writer.finish()


def _pandas() -> Any:
    """pandas, or None where it is not installed (obs and var tables given
    as data frames need it; a matrix without them does not)."""
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def _write_table(root: Any, name: str, frame: Any, rows: int, what: str) -> None:
    """A data frame as anndata's "dataframe" encoding (0.2.0): readable by
    anndata.io.read_elem and by any Zarr reader. None: the row numbers as
    the index and no columns."""
    if frame is None:
        index, items = np.arange(rows).astype(str), []
    else:
        pd = _pandas()
        if pd is None or not isinstance(frame, pd.DataFrame):
            raise InvalidArgumentError(
                f"{name} must be a pandas DataFrame, not {type(frame).__name__}")
        if len(frame) != rows:
            raise InvalidArgumentError(
                f"{name} has {len(frame)} rows; the matrix has {rows} {what}")
        index, items = frame.index.astype(str).to_numpy(), list(frame.items())
    columns = [str(c) for c, _ in items]
    if "_index" in columns:
        raise InvalidArgumentError(f"{name}: a column may not be named '_index'")
    group = root.create_group(name, overwrite=True, attributes={
        "encoding-type": "dataframe", "encoding-version": "0.2.0", "_index": "_index",
        "column-order": columns})
    _write_column(group, "_index", index, f"{name}.index")
    for key, (_, values) in zip(columns, items):
        _write_column(group, key, values, f"{name}['{key}']")


def _write_column(group: Any, key: str, values: Any, where: str) -> None:
    pd = _pandas()
    chunk = 1 << 16
    if pd is not None and isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        cat = pd.Categorical(values)
        sub = group.create_group(key, attributes={"encoding-type": "categorical",
                                                  "encoding-version": "0.2.0",
                                                  "ordered": bool(cat.ordered)})
        codes = cat.codes
        _write_array(sub, "codes", np.asarray(codes), chunk)
        _write_column(sub, "categories", cat.categories.to_numpy(), where + ".categories")
        return
    if pd is not None and isinstance(values, pd.Series):
        dtype = values.dtype
        if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "iub":
            mask = values.isna().to_numpy()
            filled = values.to_numpy(dtype=dtype.numpy_dtype, na_value=0)
            kind = "nullable-boolean" if dtype.kind == "b" else "nullable-integer"
            sub = group.create_group(key, attributes={"encoding-type": kind,
                                                      "encoding-version": "0.1.0"})
            _write_array(sub, "values", filled, chunk)
            _write_array(sub, "mask", mask, chunk)
            return
        values = values.to_numpy()
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        _write_array(group, key, values, chunk)
        return
    if values.dtype.kind in "OUS":
        strings = values.astype(str) if values.dtype.kind != "O" else values
        if values.dtype.kind == "O" and not all(isinstance(v, str) for v in strings):
            raise InvalidArgumentError(f"{where}: a column of objects must hold only strings")
        arr = group.create_array(key, shape=strings.shape, dtype=str, chunks=(chunk,),
                                 checksum=True,
                                 attributes={"encoding-type": "string-array",
                                             "encoding-version": "0.2.0"})
        arr[...] = np.asarray(strings, dtype=object)
        return
    raise InvalidArgumentError(f"{where}: columns of dtype {values.dtype} cannot be stored")


def _write_array(group: Any, key: str, values: np.ndarray, chunk: int) -> None:
    arr = group.create_array(key, shape=values.shape, dtype=values.dtype,
                             chunks=(max(1, min(chunk, len(values))),),
                             compressors=[{"name": "zstd", "configuration": {"level": 3}}],
                             checksum=True,
                             attributes={"encoding-type": "array",
                                         "encoding-version": "0.2.0"})
    if len(values):
        arr[...] = values


def _prepare_root(store: Any, overwrite: bool) -> Any:
    root = _create_group(store, overwrite=overwrite)
    if not overwrite and (_MATRIX in root or "obs" in root or "var" in root):
        raise InvalidArgumentError(f"{root.store.describe()} already holds a dataset "
                                   "(pass overwrite=True to replace it)")
    return root


def _write_dataset(store: Any, source: _Source, obs: Any, var: Any, *, overwrite: bool,
                   **options: Any) -> Dataset:
    root = _prepare_root(store, overwrite)
    _write_table(root, "obs", obs, source.n_cells, "cells")
    _write_table(root, "var", var, source.n_genes, "genes")
    _write_matrix(root, source, **options)
    return Dataset(root.store, path=root.path)


def write(store: Any, X: Any, *, obs: Any = None, var: Any = None,
          tile_cells: int = TILE_CELLS, chunks_per_tile: int = 8, zstd_level: int = 9,
          overwrite: bool = False,
          progress: Callable[[str, int, int], None] | None = None) -> Dataset:
    """Writes counts `X` (scipy.sparse in any format, or dense numpy; cells
    as rows) with its `obs` and `var` tables (pandas DataFrames) to `store`,
    and returns the dataset opened. Counts must be integers (non-negative)
    or floats; whole-number floats are stored narrow and come back as the
    same floats."""
    source = _InMemory(X)
    return _write_dataset(store, source, obs, var, overwrite=overwrite, tile_cells=tile_cells,
                          chunks_per_tile=chunks_per_tile, zstd_level=zstd_level,
                          progress=progress)


def _read_frame(file: Any, key: str) -> Any:
    if key not in file:
        return None
    import_optional("anndata", "sparse", "turbozarr.sparse.from_h5ad")
    try:
        from anndata.io import read_elem
    except ImportError:  # anndata before 0.11
        from anndata.experimental import read_elem
    return read_elem(file[key])


def from_h5ad(path: str | os.PathLike, store: Any, *, key: str = "X",
              tile_cells: int = TILE_CELLS, chunks_per_tile: int = 8, zstd_level: int = 9,
              overwrite: bool = False,
              progress: Callable[[str, int, int], None] | None = None) -> Dataset:
    """Converts the CSR matrix `key` ("X", "raw/X" or "layers/<name>") of an
    .h5ad file, with its obs and var, streaming a tile at a time (memory
    bounded by a few tiles, never the matrix)."""
    source = _H5adSource(path, key)
    try:
        var_key = "raw/var" if key.startswith("raw/") else "var"
        return _write_dataset(store, source, _read_frame(source._file, "obs"),
                              _read_frame(source._file, var_key), overwrite=overwrite,
                              tile_cells=tile_cells, chunks_per_tile=chunks_per_tile,
                              zstd_level=zstd_level, progress=progress)
    finally:
        source.close()


def _open_text(path: Path) -> Any:
    import gzip
    if path.suffix == ".gz":
        return gzip.open(path, "rt")
    return path.open("r")


def _find(directory: Path, names: Iterable[str]) -> Path | None:
    for name in names:
        for candidate in (directory / name, directory / (name + ".gz")):
            if candidate.exists():
                return candidate
    return None


class _MtxSource(_Source):
    """A 10x directory's matrix.mtx (genes x cells, coordinate format),
    streamed: a MatrixMarket file has no index by cell and may list entries
    in any order, so one pass reads it in blocks and appends each entry to
    the scratch file of its tile (cell, gene, value as raw binary, in a
    temporary directory); a tile is then read back, sorted into CSR rows and
    handed on. Memory holds one block and one tile, whatever the matrix's
    size; the scratch files hold the matrix once and go when it is written.
    Repeated (gene, cell) entries are summed, as scipy does."""

    BLOCK_ENTRIES = 1 << 22

    def __init__(self, path: Path, tile_cells: int) -> None:
        import tempfile
        self._path = path
        self._tile_cells = max(int(tile_cells), 1)
        with _open_text(path) as f:
            header = f.readline()
            if not header.startswith("%%MatrixMarket matrix coordinate"):
                raise InvalidArgumentError(f"{path}: not a MatrixMarket coordinate matrix")
            field = header.split()[3] if len(header.split()) > 3 else "integer"
            if field not in ("integer", "real"):
                raise InvalidArgumentError(f"{path}: a {field} matrix holds no counts")
            line = f.readline()
            skip = 2
            while line.startswith("%"):
                line = f.readline()
                skip += 1
            try:
                genes, cells, entries = (int(x) for x in line.split())
            except ValueError:
                raise InvalidArgumentError(f"{path}: line {skip} is not 'genes cells entries'"
                                           ) from None
        self._skip = skip  # the header, comments and the size line
        self.n_genes, self.n_cells, self._entries = genes, cells, entries
        self.dtype = np.dtype(np.int32 if field == "integer" else np.float32)
        self._entry = np.dtype([("cell", "<i4"), ("gene", "<i4"), ("value", self.dtype)])
        self._scratch = tempfile.TemporaryDirectory(prefix="turbozarr-mtx-")
        self._held: tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
        try:
            self._spill()
        except BaseException:
            self.close()
            raise

    def _tile_file(self, t: int) -> Path:
        return Path(self._scratch.name) / f"tile-{t}.bin"

    def _chunks(self) -> Iterable[Any]:
        pd = import_optional("pandas", "sparse", "turbozarr.sparse.from_mtx")
        try:
            yield from pd.read_csv(self._path, sep=r"\s+", header=None, skiprows=self._skip,
                                   names=["gene", "cell", "value"],
                                   chunksize=self.BLOCK_ENTRIES,
                                   dtype={"gene": np.int64, "cell": np.int64,
                                          "value": self.dtype})
        except ValueError as e:  # a field that is not a number
            raise InvalidArgumentError(f"{self._path}: an entry is not 'gene cell value': "
                                       f"{e}") from None

    def _spill(self) -> None:
        seen = 0
        for frame in self._chunks():
            cell = frame["cell"].to_numpy() - 1
            gene = frame["gene"].to_numpy() - 1
            if cell.size and (cell.min() < 0 or cell.max() >= self.n_cells or gene.min() < 0
                              or gene.max() >= self.n_genes):
                raise InvalidArgumentError(f"{self._path}: an entry lies outside the "
                                           f"{self.n_genes} x {self.n_cells} matrix")
            seen += len(cell)
            if seen > self._entries:
                break
            block = np.empty(len(cell), self._entry)
            block["cell"], block["gene"] = cell, gene
            block["value"] = frame["value"].to_numpy()
            tile = cell // self._tile_cells
            order = np.argsort(tile, kind="stable")
            block, tile = block[order], tile[order]
            starts = np.flatnonzero(np.diff(tile)) + 1
            for lo, hi in zip(np.r_[0, starts], np.r_[starts, len(tile)]):
                if hi > lo:
                    with self._tile_file(int(tile[lo])).open("ab") as f:
                        block[lo:hi].tofile(f)
        if seen != self._entries:
            raise InvalidArgumentError(f"{self._path}: the header promises {self._entries} "
                                       f"entries; the file holds {seen}"
                                       + (" or more" if seen > self._entries else ""))

    def rows(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = a // self._tile_cells
        if a != t * self._tile_cells or b > min(a + self._tile_cells, self.n_cells):
            raise InvalidArgumentError(f"rows [{a}, {b}) are not a tile of {self._tile_cells}")
        if self._held is None or self._held[0] != t:
            self._held = (t, self._load_tile(t, a, b))
        return self._held[1]

    def _load_tile(self, t: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        path = self._tile_file(t)
        entries = np.fromfile(path, self._entry) if path.exists() else np.empty(0, self._entry)
        key = (entries["cell"].astype(np.int64) - a) * self.n_genes + entries["gene"]
        order = np.argsort(key, kind="stable")
        key, values = key[order], entries["value"][order]
        if key.size and np.any(key[1:] == key[:-1]):  # repeated entries: summed
            first = np.concatenate([[True], key[1:] != key[:-1]])
            starts = np.flatnonzero(first)
            values = np.add.reduceat(values, starts).astype(self.dtype)
            key = key[starts]
        rows = key // self.n_genes
        indptr = np.zeros(b - a + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=b - a), out=indptr[1:])
        return indptr, (key % self.n_genes).astype(np.int32), values

    def close(self) -> None:
        self._held = None
        self._scratch.cleanup()


def _read_tsv(path: Path | None) -> list[list[str]] | None:
    if path is None:
        return None
    with _open_text(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def from_mtx(directory: str | os.PathLike, store: Any, *, tile_cells: int = TILE_CELLS,
             chunks_per_tile: int = 8, zstd_level: int = 9, overwrite: bool = False,
             progress: Callable[[str, int, int], None] | None = None) -> Dataset:
    """Converts a 10x directory (matrix.mtx, barcodes.tsv, features.tsv or
    genes.tsv, each optionally gzipped): cells become rows, barcodes the obs
    index, features the var table (gene_ids, gene_symbols, feature_types).
    The matrix streams through scratch files in the temporary directory
    (about 12 bytes per entry), a tile in memory at a time."""
    pd = import_optional("pandas", "sparse", "turbozarr.sparse.from_mtx")
    directory = Path(directory)
    matrix = _find(directory, ["matrix.mtx"])
    if matrix is None:
        raise InvalidArgumentError(f"{directory}: no matrix.mtx or matrix.mtx.gz")
    barcodes = _read_tsv(_find(directory, ["barcodes.tsv"]))
    features = _read_tsv(_find(directory, ["features.tsv", "genes.tsv"]))
    obs = pd.DataFrame(index=[row[0] for row in barcodes]) if barcodes else None
    var = None
    if features:
        names = ["gene_ids", "gene_symbols", "feature_types"]
        width = min(len(features[0]), 3)
        var = pd.DataFrame({names[i]: [row[i] for row in features] for i in range(1, width)},
                           index=[row[0] for row in features])
        var.index.name = None
    source = _MtxSource(matrix, tile_cells)
    try:
        return _write_dataset(store, source, obs, var, overwrite=overwrite,
                              tile_cells=tile_cells, chunks_per_tile=chunks_per_tile,
                              zstd_level=zstd_level, progress=progress)
    finally:
        source.close()
