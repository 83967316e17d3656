"""turbozarr.sparse.CellLoader: every cell exactly once per epoch, shuffled
reproducibly, with 0, 1 and 2 worker processes, through a slow store, and a
damaged tile reported by name."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
scipy_sparse = pytest.importorskip("scipy.sparse")

import turbozarr  # noqa: E402
from turbozarr import sparse  # noqa: E402
from turbozarr.errors import CorruptionError  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = scipy_sparse.random(2300, 120, density=0.05, format="csr", dtype=np.int32,
                            random_state=2, data_rvs=lambda n: rng.integers(1, 9, n))
    path = tmp_path_factory.mktemp("loader") / "d.zarr"
    sparse.write(path, X, tile_cells=300)
    return str(path), X


def epoch(loader) -> tuple[list[np.ndarray], list]:
    cells, batches = [], []
    for batch in loader:
        cells.append(batch.cells.numpy())
        batches.append(batch)
    return cells, batches


@pytest.mark.parametrize("workers", [0, 1, 2])
def test_every_cell_exactly_once_and_rows_match_their_cells(dataset, workers):
    path, X = dataset
    loader = sparse.CellLoader(path, batch_size=256, num_workers=workers, seed=3)
    cells, batches = epoch(loader)
    every = np.concatenate(cells)
    np.testing.assert_array_equal(np.sort(every), np.arange(2300))
    sizes = [len(c) for c in cells]
    assert sizes.count(256) >= len(sizes) - max(workers, 1)
    for batch in batches[:3]:
        got = batch.X.to_dense().numpy()
        np.testing.assert_array_equal(got, X[batch.cells.numpy()].toarray())
        assert batch.X.layout == torch.sparse_csr


def test_the_shuffle_is_reproducible_and_changes_with_the_epoch(dataset):
    path, _ = dataset
    first = np.concatenate(epoch(sparse.CellLoader(path, batch_size=100, seed=7))[0])
    again = np.concatenate(epoch(sparse.CellLoader(path, batch_size=100, seed=7))[0])
    np.testing.assert_array_equal(first, again)
    loader = sparse.CellLoader(path, batch_size=100, seed=7)
    one = np.concatenate(epoch(loader)[0])
    two = np.concatenate(epoch(loader)[0])  # the next epoch
    assert not np.array_equal(one, two)
    np.testing.assert_array_equal(np.sort(two), np.arange(2300))
    loader.set_epoch(0)
    np.testing.assert_array_equal(np.concatenate(epoch(loader)[0]), first)
    plain = np.concatenate(epoch(sparse.CellLoader(path, batch_size=100, shuffle=False))[0])
    np.testing.assert_array_equal(plain, np.arange(2300))


def test_persistent_workers_follow_the_epoch_and_keep_their_buffers(dataset):
    path, X = dataset
    loader = sparse.CellLoader(path, batch_size=128, num_workers=2, seed=11)
    assert loader._options["persistent_workers"] is True
    runs = [epoch(loader) for _ in range(3)]  # epochs 0, 1, 2 on the same workers
    for cells, batches in runs:
        np.testing.assert_array_equal(np.sort(np.concatenate(cells)), np.arange(2300))
        batch = batches[-1]
        np.testing.assert_array_equal(batch.X.to_dense().numpy(),
                                      X[batch.cells.numpy()].toarray())
    # Each epoch is what a fresh loader set to that epoch serves.
    for k, (cells, _) in enumerate(runs):
        fresh = sparse.CellLoader(path, batch_size=128, num_workers=2, seed=11,
                                  persistent_workers=False)
        fresh.set_epoch(k)
        np.testing.assert_array_equal(np.concatenate(epoch(fresh)[0]), np.concatenate(cells))
    assert not np.array_equal(np.concatenate(runs[0][0]), np.concatenate(runs[1][0]))
    loader.set_epoch(0)
    np.testing.assert_array_equal(np.concatenate(epoch(loader)[0]),
                                  np.concatenate(runs[0][0]))


def test_a_process_decodes_into_the_same_buffers_every_epoch(dataset):
    path, _ = dataset
    loader = sparse.CellLoader(path, batch_size=300, prefetch_tiles=1, window_tiles=2)
    epoch(loader)
    pool = loader._stream._pool
    assert len(pool) == 3  # the window's two tiles and one ahead
    kept = sorted(id(d._indices) for d in pool)
    epoch(loader)
    # A broken-off epoch hands its decoders back too.
    for _ in loader:
        break
    import gc
    gc.collect()
    assert sorted(id(d._indices) for d in loader._stream._pool) == kept


def test_batch_buffers_are_reused_only_once_the_caller_drops_them(dataset):
    path, X = dataset
    loader = sparse.CellLoader(path, batch_size=100, num_workers=1, seed=5)
    busy = loader._stream.busy
    # Kept: every batch of the epoch held at once, more than the worker's
    # slots; none may be overwritten by a later one.
    kept = [batch for batch in loader]
    assert len(kept) > loader._stream.slots
    for batch in kept:
        np.testing.assert_array_equal(batch.X.to_dense().numpy(),
                                      X[batch.cells.numpy()].toarray())
    assert sum(busy[:]) == loader._stream.slots  # held by the kept batches
    del kept, batch
    loader._free_slots()
    assert sum(busy[:]) == 0
    # Dropped as they go: the slots cycle, the rows stay right.
    for batch in loader:
        np.testing.assert_array_equal(batch.X.to_dense().numpy(),
                                      X[batch.cells.numpy()].toarray())
        assert sum(busy[:]) <= loader._stream.slots
    del batch
    loader._free_slots()
    assert sum(busy[:]) == 0


def test_gene_subsets_dense_batches_and_a_slow_store(dataset):
    path, X = dataset
    genes = [119, 3, 50]
    slow = turbozarr.ThrottledStore(path, latency=0.01, bytes_per_second=50e6)
    ds = sparse.open(slow)
    loader = sparse.CellLoader(ds, batch_size=500, genes=genes, dense=True, prefetch_tiles=2)
    cells, batches = epoch(loader)
    np.testing.assert_array_equal(np.sort(np.concatenate(cells)), np.arange(2300))
    for batch in batches:
        np.testing.assert_array_equal(batch.X.numpy(), X[batch.cells.numpy()][:, genes].toarray())


def test_a_damaged_tile_is_named_or_skipped(tmp_path):
    rng = np.random.default_rng(1)
    X = scipy_sparse.random(900, 40, density=0.1, format="csr", dtype=np.int32,
                            random_state=3, data_rvs=lambda n: rng.integers(1, 5, n))
    path = tmp_path / "d.zarr"
    sparse.write(path, X, tile_cells=300)
    (path / "X" / "tiles" / "1" / "values" / "c" / "0").write_bytes(b"damaged")
    for workers in (0, 1):
        with pytest.raises(CorruptionError, match="tile 1: chunk 'X/tiles/1/values/c/0'"):
            epoch(sparse.CellLoader(str(path), batch_size=100, num_workers=workers))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cells, _ = epoch(sparse.CellLoader(str(path), batch_size=100, skip_damaged_tiles=True))
    assert any("skipping a damaged tile" in str(w.message) for w in caught)
    np.testing.assert_array_equal(np.sort(np.concatenate(cells)),
                                  np.r_[np.arange(300), np.arange(600, 900)])


@pytest.mark.parametrize("held,ahead", [(1, 0), (1, 1), (2, 2), (1, 3), (3, 2)])
def test_the_prefetcher_hands_tiles_in_order_whatever_finishes_first(held, ahead):
    import random
    import time

    from turbozarr._sparse_loader import _TilePrefetcher

    class SlowDecoder:
        def _decode_map(self, tile, gene_map, sorted_):
            time.sleep(random.Random(tile).random() * 0.01)  # later tiles may finish first
            return tile, None, None

    class FakeDataset:
        def decoder(self):
            return SlowDecoder()

    tiles = list(range(23))
    pool: list = []
    fetcher = _TilePrefetcher(FakeDataset(), pool, tiles, held, ahead, None, True)
    got = []
    try:
        for start in range(0, len(tiles), held):  # windows of `held` tiles, held together
            window = [fetcher.next() for _ in tiles[start:start + held]]
            for tile, decoder, arrays, error in window:
                assert error is None and arrays[0] == tile
                got.append(tile)
            for _, decoder, _, _ in window:
                fetcher.release(decoder)
    finally:
        fetcher.close()
    assert got == tiles
    assert len(pool) == held + ahead  # every decoder back in the pool


@pytest.mark.parametrize("tiles,window,workers", [(10, 2, 2), (8, 3, 3), (5, 2, 1), (3, 2, 4)])
def test_workers_share_the_tiles_within_one_of_each_other(tiles, window, workers):
    """Tiles, not whole windows, are dealt to workers: ten tiles in windows
    of two over two workers are five each (whole windows were six and
    four, and the epoch waited for the worker with six)."""
    from turbozarr._sparse_loader import _epoch_windows

    shares = [_epoch_windows(tiles, window, True, 7, 3, w, workers) for w in range(workers)]
    counts = [sum(len(win) for win in share) for share in shares]
    assert max(counts) - min(counts) <= 1
    dealt = sorted(t for share in shares for win in share for t in win)
    assert dealt == list(range(tiles))  # every tile once
    for share in shares:
        assert all(0 < len(win) <= window for win in share)
    # One worker serves the epoch's order in windows, as without workers.
    order = np.random.default_rng([7, 3]).permutation(tiles).tolist()
    assert _epoch_windows(tiles, window, True, 7, 3) == [
        order[i:i + window] for i in range(0, tiles, window)]
