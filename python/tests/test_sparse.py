"""turbozarr.sparse: tiled CSR counts written from scipy, h5ad and 10x
directories, read back exactly, read by zarr-python with numpy alone, and
refusing bad input with errors that name what is wrong."""
from __future__ import annotations

import gzip
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

scipy_sparse = pytest.importorskip("scipy.sparse")
pd = pytest.importorskip("pandas")

import turbozarr  # noqa: E402
from turbozarr import sparse  # noqa: E402
from turbozarr.errors import CorruptionError, InvalidArgumentError  # noqa: E402


def counts(cells: int, genes: int, seed: int = 0, density: float = 0.08,
           dtype: str = "int32") -> "scipy_sparse.csr_matrix":
    """Counts like single-cell data: mostly 1-3, some above 255 and a few
    above 65,535; every 5th cell empty; popular low genes."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / (np.arange(genes) + 3.0)
    dense = rng.random((cells, genes)) < density * genes * weights / weights.sum() * 3
    dense[::5] = False
    values = rng.integers(1, 4, size=dense.sum())
    tail = rng.random(len(values))
    values[tail < 0.01] = rng.integers(256, 60_000, size=(tail < 0.01).sum())
    values[tail < 0.001] = rng.integers(65_536, 10_000_000, size=(tail < 0.001).sum())
    rows, cols = np.nonzero(dense)
    return scipy_sparse.csr_matrix((values.astype(dtype), (rows, cols)), shape=(cells, genes))


def tables(cells: int, genes: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(1)
    obs = pd.DataFrame({
        "cell_type": pd.Categorical(rng.choice(["T", "B", "NK"], cells), ordered=False),
        "n_counts": rng.integers(0, 10_000, cells).astype(np.int64),
        "fraction": rng.random(cells).astype(np.float32),
        "keep": rng.random(cells) < 0.5,
        "donor": np.array([f"donor-{i % 7}" for i in range(cells)], dtype=object),
    }, index=[f"cell-{i}" for i in range(cells)])
    var = pd.DataFrame({"symbol": [f"G{i}" for i in range(genes)]},
                       index=[f"ENSG{i:05d}" for i in range(genes)])
    return obs, var


def assert_same_csr(got, want) -> None:
    got, want = got.tocsr(), want.tocsr()
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)


def test_scipy_round_trip_is_exact_with_empty_tiles_and_a_partial_last_tile(tmp_path):
    X = counts(2345, 180).tolil()
    X[1000:1500] = 0  # tile 2 (of 500 cells) holds nothing
    X = X.tocsr()
    X.eliminate_zeros()
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=500, zstd_level=3)
    assert ds.shape == (2345, 180)
    assert ds.n_tiles == 5 and ds.tile_nnz(2) == 0
    assert ds.nnz == X.nnz
    assert ds.layout["stored_values"] == "uint8"  # most counts fit a byte
    assert_same_csr(ds.to_scipy(), X)
    reopened = sparse.open(str(tmp_path / "d.zarr"))
    assert_same_csr(reopened.to_scipy(), X)
    # Every tile, in storage order, holds the same rows.
    for t in range(ds.n_tiles):
        assert (ds.tile(t) != X[t * 500:(t + 1) * 500]).nnz == 0


def test_counts_above_65535_survive_in_the_exceptions(tmp_path):
    X = counts(700, 90, seed=3)
    big = X.data > 65_535
    assert big.sum() > 0
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=256)
    np.testing.assert_array_equal(ds.to_scipy().data, X.data)
    idx = np.asarray(turbozarr.open(str(tmp_path / "d.zarr"), path="X/tile_index")[...])
    assert idx[:, 1].sum() == (X.data > 255).sum()


def test_float_counts_stay_float32_and_whole_floats_come_back_as_floats(tmp_path):
    X = counts(300, 40, seed=4).astype(np.float32)
    X.data = X.data / 4 + 0.125  # fractional
    ds = sparse.write(tmp_path / "f.zarr", X, tile_cells=128)
    assert ds.layout["stored_values"] == "float32"
    assert_same_csr(ds.to_scipy(), X)

    W = counts(300, 40, seed=5).astype(np.float32)  # whole counts held as floats
    ds = sparse.write(tmp_path / "w.zarr", W, tile_cells=128)
    assert ds.dtype == np.float32
    assert ds.layout["stored_values"] in ("uint8", "uint16")
    assert_same_csr(ds.to_scipy(), W)

    D = counts(100, 30, seed=6).astype(np.float64)
    D.data = D.data * 0.1  # needs float64
    ds = sparse.write(tmp_path / "d.zarr", D, tile_cells=64)
    assert ds.layout["stored_values"] == "float64"
    assert_same_csr(ds.to_scipy(), D)


@pytest.mark.parametrize("dtype", ["uint16", "int64", "uint32", "int8"])
def test_every_integer_count_type_comes_back_as_itself(tmp_path, dtype):
    X = counts(200, 30, seed=7, dtype="int64")
    X.data = np.minimum(X.data, np.iinfo(dtype).max).astype(dtype)
    X = X.astype(dtype)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=64)
    assert ds.dtype == np.dtype(dtype)
    assert_same_csr(ds.to_scipy(), X)


def test_a_single_gene_and_other_input_formats(tmp_path):
    one = scipy_sparse.csr_matrix(np.array([[0], [3], [0], [70_000]], dtype=np.int32))
    ds = sparse.write(tmp_path / "one.zarr", one, tile_cells=3)
    assert_same_csr(ds.to_scipy(), one)

    X = counts(150, 25, seed=8)
    for i, form in enumerate([X.tocsc(), X.tocoo(), X.toarray()]):
        ds = sparse.write(tmp_path / f"f{i}.zarr", form, tile_cells=64)
        assert_same_csr(ds.to_scipy(), X)
    # Duplicates (not canonical CSR) are summed, as scipy defines them.
    dup = scipy_sparse.csr_matrix((np.array([1, 2, 5], np.int32), np.array([3, 3, 1]),
                                   np.array([0, 2, 3])), shape=(2, 4))
    ds = sparse.write(tmp_path / "dup.zarr", dup, tile_cells=10)
    np.testing.assert_array_equal(ds.to_scipy().toarray(), [[0, 0, 0, 3], [0, 5, 0, 0]])


def test_cells_in_any_order_gene_subsets_and_dense(tmp_path):
    X = counts(1200, 70, seed=9)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=250)
    rng = np.random.default_rng(0)
    pick = rng.permutation(1200)[:333]
    pick[5] = pick[6]  # a repeat
    assert (ds.cells(pick) != X[pick]).nnz == 0
    assert (ds[pick[:10]] != X[pick[:10]]).nnz == 0
    assert (ds[17] != X[17]).nnz == 0
    assert (ds[100:700:3] != X[100:700:3]).nnz == 0
    genes = [69, 0, 33, 5]
    sub = ds.cells(pick, genes=genes, sorted=True)
    assert_same_csr(sub, X[pick][:, genes].tocsr().sorted_indices())
    np.testing.assert_array_equal(ds.cells(pick, format="dense"), X[pick].toarray())
    np.testing.assert_array_equal(ds.tile(3, genes=genes, format="dense"),
                                  X[750:1000][:, genes].toarray())
    assert ds.cells([]).shape == (0, 70)


def test_unsorted_rows_hold_genes_by_decreasing_total_and_sorted_rows_ascend(tmp_path):
    X = counts(300, 50, seed=10)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=300)
    tile = ds.tile(0)
    rank = np.empty(50, np.int64)
    rank[ds.gene_order] = np.arange(50)
    for r in range(0, 300, 7):
        row = tile.indices[tile.indptr[r]:tile.indptr[r + 1]]
        assert np.all(np.diff(rank[row]) > 0)
    totals = np.asarray(X.sum(axis=0)).ravel()
    assert np.all(np.diff(totals[ds.gene_order]) <= 0)
    assert ds.tile(0, sorted=True).has_sorted_indices


@pytest.mark.parametrize("threads", [1, 2])
def test_sorted_rows_of_every_density_come_back_exactly(tmp_path, threads):
    """Sorted decoding walks a bitmap of each row's genes a word at a time:
    rows from empty to every gene (words of 0 to 64 set bits), rows split
    between threads, gene subsets, and the rows at a part's end."""
    rng = np.random.default_rng(13)
    cells, genes = 1200, 3000
    density = np.concatenate([[0.0, 1.0, 1.0 / genes, 0.999, 0.5],
                              rng.choice([0.001, 0.01, 0.05, 0.2, 0.7], cells - 5)])
    rows, cols = np.nonzero(rng.random((cells, genes)) < density[:, None])
    values = rng.integers(1, 300, size=len(rows)).astype(np.int32)
    X = scipy_sparse.csr_matrix((values, (rows, cols)), shape=(cells, genes))
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=400)
    for t in range(3):
        got = ds.tile(t, sorted=True, threads=threads)
        assert got.has_sorted_indices
        assert_same_csr(got, X[400 * t:400 * (t + 1)].sorted_indices())
    subset = rng.permutation(genes)[:700]
    got = ds.tile(1, genes=subset, sorted=True, threads=threads)
    assert_same_csr(got, X[400:800][:, subset].tocsr().sorted_indices())
    picks = rng.permutation(cells)[:500]
    assert_same_csr(ds.cells(picks, sorted=True, threads=threads),
                    X[picks].tocsr().sorted_indices())


def test_the_decoder_reuses_its_buffers(tmp_path):
    X = counts(900, 60, seed=11)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=300)
    dec = ds.decoder()
    ptr, idx, val = dec.decode(1)
    first = (ptr.__array_interface__["data"][0], idx.__array_interface__["data"][0])
    want = X[300:600]
    got = scipy_sparse.csr_matrix((val.copy(), idx.copy(), ptr.copy()), shape=(300, 60))
    assert (got != want).nnz == 0
    ptr, idx, val = dec.decode(2)
    assert (ptr.__array_interface__["data"][0], idx.__array_interface__["data"][0]) == first
    assert (scipy_sparse.csr_matrix((val, idx, ptr), shape=(300, 60)) != X[600:900]).nnz == 0


def test_a_dropped_tile_is_the_next_tiles_memory(tmp_path):
    """tile() hands scipy its own arrays (no copy) in the memory of a
    dropped result of about the same size, whose pages the process already
    has; nothing of the previous tile shows through."""
    from turbozarr import _core

    X = counts(3000, 800, seed=12, density=0.5)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=1000)
    _core.clear_result_cache()
    first = ds.tile(0)
    assert first.indices.nbytes >= _core.POOLED_RESULT_BYTES
    owner = first.indices.base
    assert owner is not None and owner.size == first.indices.size  # not copied by scipy
    addresses = {first.indices.ctypes.data, first.data.ctypes.data}
    first.indices[:] = -1
    first.data[:] = 0
    del first, owner
    second = ds.tile(1)  # a few percent more or fewer values than tile 0
    assert {second.indices.ctypes.data, second.data.ctypes.data} == addresses
    assert second.nnz == X[1000:2000].nnz
    assert (second != X[1000:2000]).nnz == 0
    picks = np.random.default_rng(3).permutation(3000)[:900]
    assert (ds.cells(picks) != X[picks]).nnz == 0


def test_a_matrix_without_tables_is_written_without_pandas(tmp_path, monkeypatch):
    """obs and var default to the row numbers as their index, which needs no
    pandas; tables given as something other than data frames are refused."""
    monkeypatch.setattr(sparse, "_pandas", lambda: None)
    X = counts(700, 40, seed=14)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=300)
    assert (ds.tile(1) != X[300:600]).nnz == 0
    np.testing.assert_array_equal(ds.obs.index, np.arange(700).astype(str))
    np.testing.assert_array_equal(ds.var.index, np.arange(40).astype(str))
    assert list(ds.obs.columns) == []
    with pytest.raises(InvalidArgumentError, match="obs must be a pandas DataFrame"):
        sparse.write(tmp_path / "e.zarr", X, obs=list(range(700)))


def test_torch_csr_tensors_when_torch_is_installed(tmp_path):
    torch = pytest.importorskip("torch")
    X = counts(400, 30, seed=12)
    ds = sparse.write(tmp_path / "d.zarr", X, tile_cells=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = ds.tile(1, format="torch")
        np.testing.assert_array_equal(t.to_dense().numpy(), X[200:400].toarray())
        c = ds.cells([399, 0, 250], format="torch")
    assert c.layout == torch.sparse_csr
    np.testing.assert_array_equal(c.to_dense().numpy(), X[[399, 0, 250]].toarray())


def test_zarr_python_rebuilds_the_matrix_with_numpy_alone(tmp_path):
    zarr = pytest.importorskip("zarr")
    X = counts(777, 300, seed=13).tolil()
    X[0, 299] = 3  # a far gene, so that some steps need wider deltas
    X = X.tocsr()
    path = tmp_path / "d.zarr"
    sparse.write(path, X, tile_cells=200)

    # The reconstruction docs/format/sparse.md describes, in numpy.
    root = zarr.open_group(str(path), mode="r")
    layout = root["X"].attrs["sparse_matrix"]
    cells, genes = layout["shape"]
    order = root["X/gene_order"][...]
    index = root["X/tile_index"][...]
    assert index[:, 3].sum() > 0 and index[:, 4:].min() > 0  # escapes, all three levels
    bands = int(genes).bit_length() + 1
    rows = []
    for t in range(len(index)):
        tile = root[f"X/tiles/{t}"]
        indptr = tile["indptr"][...].astype(np.int64)
        cells_here, nnz = len(indptr) - 1, int(indptr[-1])
        # Steps, band after band, escapes put back; then each row's pieces
        # (its band 0 steps, band 1 steps, ...) put back in row order.
        steps = tile["gene_deltas"][...].astype(np.int64)
        steps[steps == 0] = tile["gene_delta_escapes"][...]
        in_band = tile["gene_bands"][...].astype(np.int64).reshape(bands, cells_here)
        piece_start = np.concatenate([[0], np.cumsum(in_band.ravel())])[:-1].reshape(bands, -1)
        lengths, starts = in_band.T.ravel(), piece_start.T.ravel()  # row by row
        within = np.arange(nnz) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        steps = steps[np.repeat(starts, lengths) + within]
        positions = np.cumsum(steps)
        row_start = np.repeat(indptr[:-1], np.diff(indptr))
        ranks = positions - np.concatenate([[0], positions])[row_start] - 1
        # Values: the 1s, 2s and 3s from the bitmaps, the rest in order.
        values = np.zeros(nnz, layout["counts"])
        left = np.ones(nnz, bool)
        for level in (1, 2, 3):
            bits = np.unpackbits(tile[f"value_bitmap_{level}"][...], count=int(left.sum()),
                                 bitorder="little").astype(bool)
            at = np.flatnonzero(left)[bits]
            values[at] = level
            left[at] = False
        values[left] = tile["values"][...]
        values[tile["exception_positions"][...]] = tile["exception_values"][...]
        row_of = np.repeat(np.arange(cells_here), np.diff(indptr))
        rows.append(scipy_sparse.csr_matrix((values, (row_of, order[ranks])),
                                            shape=(cells_here, genes)))
    rebuilt = scipy_sparse.vstack(rows).tocsr()
    assert rebuilt.shape == (cells, genes)
    assert (rebuilt != X).nnz == 0
    assert rebuilt.dtype == X.dtype


def test_obs_and_var_keep_columns_categories_and_open_in_anndata(tmp_path):
    X = counts(300, 40, seed=14)
    obs, var = tables(300, 40)
    obs["maybe"] = pd.array([None if i % 4 == 0 else i for i in range(300)], dtype="Int64")
    ds = sparse.write(tmp_path / "d.zarr", X, obs=obs, var=var, tile_cells=128)
    assert ds.obs.columns == list(obs.columns)
    cell_type = ds.obs["cell_type"]
    assert list(cell_type.categories) == list(obs["cell_type"].cat.categories)
    np.testing.assert_array_equal(np.asarray(cell_type), np.asarray(obs["cell_type"]))
    back = ds.obs.to_pandas()
    pd.testing.assert_frame_equal(back, obs, check_dtype=True)
    pd.testing.assert_frame_equal(ds.var.to_pandas(), var)
    ad = pytest.importorskip("anndata")
    zarr = pytest.importorskip("zarr")
    try:
        from anndata.io import read_elem
    except ImportError:
        from anndata.experimental import read_elem
    pd.testing.assert_frame_equal(read_elem(zarr.open_group(str(tmp_path / "d.zarr"))["obs"]),
                                  obs, check_dtype=False)
    assert ad is not None


def test_h5ad_round_trip_streams_tiles_and_keeps_obs_and_var(tmp_path):
    anndata = pytest.importorskip("anndata")
    X = counts(1100, 60, seed=15)
    obs, var = tables(1100, 60)
    h5ad = tmp_path / "in.h5ad"
    anndata.AnnData(X=X, obs=obs, var=var).write_h5ad(h5ad, compression="gzip")
    seen = []
    ds = sparse.from_h5ad(h5ad, tmp_path / "d.zarr", tile_cells=400,
                          progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert seen[-1] == ("write", 3, 3) and ("scan", 3, 3) in seen
    assert_same_csr(ds.to_scipy(), X)
    # As anndata reads the file (it stores string columns as categoricals).
    original = anndata.read_h5ad(h5ad)
    pd.testing.assert_frame_equal(ds.obs.to_pandas(), original.obs)
    pd.testing.assert_frame_equal(ds.var.to_pandas(), original.var)
    out = tmp_path / "out.h5ad"
    ds.to_h5ad(out)
    back = anndata.read_h5ad(out)
    assert_same_csr(back.X, X)
    pd.testing.assert_frame_equal(back.obs, original.obs)
    pd.testing.assert_frame_equal(back.var, original.var)


def test_h5ad_whose_matrix_is_not_csr_is_refused_clearly(tmp_path):
    anndata = pytest.importorskip("anndata")
    X = counts(50, 10, seed=16)
    h5ad = tmp_path / "csc.h5ad"
    anndata.AnnData(X=X.tocsc()).write_h5ad(h5ad)
    with pytest.raises(InvalidArgumentError, match="csc_matrix, not a CSR matrix"):
        sparse.from_h5ad(h5ad, tmp_path / "d.zarr")
    with pytest.raises(InvalidArgumentError, match="no 'layers/counts'"):
        sparse.from_h5ad(h5ad, tmp_path / "d.zarr", key="layers/counts")


def test_a_10x_directory_converts_with_barcodes_and_features(tmp_path):
    X = counts(120, 35, seed=17)
    d = tmp_path / "10x"
    d.mkdir()
    coo = X.tocoo()
    # 10x writes genes x cells, 1-based, entries grouped by cell.
    order = np.lexsort((coo.col, coo.row))
    lines = [f"{coo.col[i] + 1} {coo.row[i] + 1} {coo.data[i]}" for i in order]
    with gzip.open(d / "matrix.mtx.gz", "wt") as f:
        f.write("%%MatrixMarket matrix coordinate integer general\n%metadata\n")
        f.write(f"35 120 {X.nnz}\n" + "\n".join(lines) + "\n")
    (d / "barcodes.tsv").write_text("".join(f"AAAC-{i}\n" for i in range(120)))
    (d / "features.tsv").write_text(
        "".join(f"ENSG{i}\tGene{i}\tGene Expression\n" for i in range(35)))
    ds = sparse.from_mtx(d, tmp_path / "d.zarr", tile_cells=50)
    assert_same_csr(ds.to_scipy(), X)
    assert list(ds.obs.index[:2]) == ["AAAC-0", "AAAC-1"]
    assert list(ds.var["gene_symbols"][:2]) == ["Gene0", "Gene1"]
    (d / "matrix.mtx.gz").unlink()
    with pytest.raises(InvalidArgumentError, match="no matrix.mtx"):
        sparse.from_mtx(d, tmp_path / "e.zarr")


def test_a_10x_matrix_in_any_order_streams_through_tile_scratch_files(tmp_path, monkeypatch):
    X = counts(230, 40, seed=23)
    coo = X.tocoo()
    rng = np.random.default_rng(5)
    order = rng.permutation(coo.nnz)
    # Entry 0 is written a second time, split in two: repeated entries add up.
    first = order[0]
    lines = [f"{coo.col[i] + 1} {coo.row[i] + 1} {coo.data[i]}" for i in order[1:]]
    lines += [f"{coo.col[first] + 1} {coo.row[first] + 1} 1",
              f"{coo.col[first] + 1} {coo.row[first] + 1} {coo.data[first] - 1}"]
    d = tmp_path / "10x"
    d.mkdir()
    (d / "matrix.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n"
                                  f"40 230 {coo.nnz + 1}\n" + "\n".join(lines) + "\n")
    # Small blocks, so that every block scatters over every tile's file.
    monkeypatch.setattr(sparse._MtxSource, "BLOCK_ENTRIES", 97)
    seen_tiles = []
    original = sparse._MtxSource._load_tile

    def load_tile(self, t, a, b):
        seen_tiles.append(t)
        return original(self, t, a, b)

    monkeypatch.setattr(sparse._MtxSource, "_load_tile", load_tile)
    scratch = []
    original_spill = sparse._MtxSource._spill

    def spill(self):
        original_spill(self)
        scratch.append(Path(self._scratch.name))
        assert sorted(p.name for p in scratch[0].iterdir()) == [f"tile-{t}.bin"
                                                               for t in range(5)]

    monkeypatch.setattr(sparse._MtxSource, "_spill", spill)
    ds = sparse.from_mtx(d, tmp_path / "d.zarr", tile_cells=50)
    assert_same_csr(ds.to_scipy(), X)
    # Each tile was loaded once for the scan and once for the write, and the
    # scratch files are gone.
    assert seen_tiles == [0, 1, 2, 3, 4] * 2
    assert not scratch[0].exists()
    # A header that promises fewer entries than the file holds.
    (d / "matrix.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n"
                                  "40 230 3\n" + "\n".join(lines[:5]) + "\n")
    with pytest.raises(InvalidArgumentError, match="promises 3 entries; the file holds"):
        sparse.from_mtx(d, tmp_path / "e.zarr", tile_cells=50)
    (d / "matrix.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n"
                                  "40 230 1\n1 x 3\n")
    with pytest.raises(InvalidArgumentError, match="not 'gene cell value'"):
        sparse.from_mtx(d, tmp_path / "f.zarr", tile_cells=50)


def test_bad_input_gets_a_clear_error(tmp_path):
    with pytest.raises(InvalidArgumentError, match="scipy.sparse matrix or a 2-D numpy array"):
        sparse.write(tmp_path / "a.zarr", [[1, 2], [3, 4]])
    neg = scipy_sparse.csr_matrix(np.array([[1, 0], [0, -2]], dtype=np.int32))
    with pytest.raises(InvalidArgumentError, match="cell 1, gene 1: negative count -2"):
        sparse.write(tmp_path / "b.zarr", neg)
    X = counts(20, 5, seed=18)
    obs, _ = tables(19, 5)
    with pytest.raises(InvalidArgumentError, match="obs has 19 rows; the matrix has 20 cells"):
        sparse.write(tmp_path / "c.zarr", X, obs=obs)
    sparse.write(tmp_path / "d.zarr", X)
    with pytest.raises(InvalidArgumentError, match="already holds a dataset"):
        sparse.write(tmp_path / "d.zarr", X)
    ds = sparse.write(tmp_path / "d.zarr", X, overwrite=True)
    with pytest.raises(InvalidArgumentError, match="tile 3 is outside"):
        ds.tile(3)
    with pytest.raises(InvalidArgumentError, match="genes must be in"):
        ds.tile(0, genes=[7])
    with pytest.raises(InvalidArgumentError, match="format 'coo'"):
        ds.tile(0, format="coo")
    with pytest.raises(turbozarr.errors.TurbozarrError, match="not a sparse matrix"):
        turbozarr.group(str(tmp_path / "plain.zarr")).create_group("X")
        sparse.open(str(tmp_path / "plain.zarr"))


def test_a_corrupted_chunk_names_the_tile_and_the_others_still_read(tmp_path):
    X = counts(600, 40, seed=19)
    path = tmp_path / "d.zarr"
    ds = sparse.write(path, X, tile_cells=200)
    chunk = path / "X" / "tiles" / "1" / "values" / "c" / "0"
    chunk.write_bytes(b"\x00garbage" * 10)
    reopened = sparse.open(str(path))
    with pytest.raises(CorruptionError, match="tile 1: chunk 'X/tiles/1/values/c/0'"):
        reopened.tile(1)
    assert (reopened.tile(2) != X[400:600]).nnz == 0
    chunk.unlink()
    with pytest.raises(CorruptionError, match="is missing"):
        reopened.cells([250])
    assert ds.nnz == X.nnz


def test_one_flipped_bit_in_any_stored_chunk_is_an_error(tmp_path):
    # Every chunk of a matrix carries a checksum: no flipped bit, in any of a
    # tile's arrays or in the matrix's own, reads as other counts.
    X = counts(900, 120, seed=23)
    path = tmp_path / "d.zarr"
    sparse.write(path, X, tile_cells=300)
    chunks = sorted(p for p in (path / "X").rglob("*")
                    if p.is_file() and p.name != "zarr.json")
    assert len(chunks) > 20
    for chunk in chunks:
        array = next(p for p in chunk.parents if (p / "zarr.json").exists())
        meta = json.loads((array / "zarr.json").read_text())
        assert meta["codecs"][-1] == {"name": "crc32c"}, chunk
    rng = np.random.default_rng(5)
    for chunk in chunks:
        pristine = chunk.read_bytes()
        for _ in range(3):
            raw = bytearray(pristine)
            at = int(rng.integers(len(raw)))
            raw[at] ^= 1 << int(rng.integers(8))
            chunk.write_bytes(bytes(raw))
            tile = chunk.relative_to(path / "X").parts
            if tile[0] == "tiles":
                ds = sparse.open(str(path))
                with pytest.raises(CorruptionError, match=f"tile {tile[1]}"):
                    ds.tile(int(tile[1]))
                with pytest.raises(CorruptionError):
                    ds.to_scipy()
            else:  # the gene order and the tile index are read on opening
                with pytest.raises(CorruptionError):
                    sparse.open(str(path)).to_scipy()
        chunk.write_bytes(pristine)
    assert_same_csr(sparse.open(str(path)).to_scipy(), X)


def test_the_layout_attribute_is_plain_json(tmp_path):
    sparse.write(tmp_path / "d.zarr", counts(10, 4, seed=20), tile_cells=4)
    doc = json.loads((tmp_path / "d.zarr" / "X" / "zarr.json").read_text())
    layout = doc["attributes"]["sparse_matrix"]
    assert layout["version"] == 2 and layout["shape"] == [10, 4]
    assert layout["checksum"] == "crc32c"
    assert layout["tile_cells"] == 4 and layout["counts"] == "int32"
    assert os.path.exists(tmp_path / "d.zarr" / "X" / "tiles" / "2" / "indptr" / "zarr.json")


def test_take_rows_equals_scipy_row_indexing():
    import scipy.sparse

    rng = np.random.default_rng(4)
    X = scipy.sparse.random(300, 40, density=0.1, format="csr", dtype=np.float32,
                            random_state=5)
    rows = np.concatenate([rng.permutation(300)[:120], [7, 7, -1, -300]])
    got = sparse.take_rows(X, rows)
    want = X[rows]
    assert got.shape == want.shape and (got != want).nnz == 0
    np.testing.assert_array_equal(got.indptr, want.indptr)
    wide = scipy.sparse.csr_matrix((X.data, X.indices, X.indptr.astype(np.int64)), shape=X.shape)
    assert (sparse.take_rows(wide, rows) != want).nnz == 0
    empty = scipy.sparse.csr_matrix((5, 4), dtype=np.uint16)
    out = sparse.take_rows(empty, [4, 0])
    assert out.shape == (2, 4) and out.nnz == 0 and out.dtype == np.uint16
    with pytest.raises(InvalidArgumentError):
        sparse.take_rows(X, [300])
    with pytest.raises(InvalidArgumentError):
        sparse.take_rows(X.tocsc(), [0])
