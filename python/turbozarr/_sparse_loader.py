"""turbozarr.sparse.CellLoader: shuffled minibatches of cells for PyTorch.

An epoch visits the tiles in a shuffled order, a window of `window_tiles`
tiles at a time, and deals the window's cells at random into batches, so
that every cell comes exactly once per epoch. Each worker process takes
every k-th tile, in windows of its own; within a process background
threads fetch and decode the next `prefetch_tiles` tiles while the
current window is served, two at once so that one tile's fetch overlaps
another's decode (decoding releases the GIL and runs on the engine's
threads). Batches leave the
workers as plain tensors, which torch's DataLoader moves through shared
memory; the main process wraps them as CSR tensors.

A batch's nonzeros are written into one of a few shared-memory slots that
its worker keeps: fresh shared memory costs a page fault per 4 KiB page
(more than the copy itself), so each slot is reused once the main process
has dropped every tensor of the batch it last carried (a storage weak
reference tells; the main process marks the slot free in a flag array the
workers share). A batch the caller keeps holds its slot; when none is free
the worker falls back to fresh memory, so nothing a caller holds is ever
overwritten.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
import warnings
from typing import Any, Iterator, NamedTuple

import numpy as np

from turbozarr import _core
from turbozarr._optional import import_optional
from turbozarr.errors import CorruptionError, InvalidArgumentError

# torch is the loader's alone, the `torch` extra's (kept out of `all`: a
# plain install of torch brings a CUDA build of several GB).
import_optional("torch", "torch", "turbozarr.sparse.CellLoader")
import torch  # noqa: E402
import torch.utils.data  # noqa: E402
from torch.multiprocessing.reductions import StorageWeakRef  # noqa: E402

__all__ = ["CellLoader", "CellBatch"]


class CellBatch(NamedTuple):
    """One minibatch: `X` (cells x genes, a torch sparse CSR tensor, or a
    dense tensor with ``dense=True``) and `cells`, the row of each cell in
    the dataset (int64 tensor), in X's row order."""

    X: torch.Tensor
    cells: torch.Tensor


def _epoch_windows(n_tiles: int, window_tiles: int, shuffle: bool, seed: int, epoch: int,
                   worker: int = 0, workers: int = 1) -> list[list[int]]:
    """The windows worker `worker` of `workers` serves this epoch: every
    workers-th tile of the epoch's order, in windows of `window_tiles`.
    Dealing tiles rather than whole windows keeps the workers' shares
    within a tile of each other (ten tiles in windows of two over two
    workers: five each, not six and four)."""
    order = np.arange(n_tiles)
    if shuffle:
        order = np.random.default_rng([seed, epoch]).permutation(n_tiles)
    mine = order[worker::workers]
    return [mine[i:i + window_tiles].tolist() for i in range(0, len(mine), window_tiles)]


def _empty(n: int, dtype: np.dtype, shared: bool) -> tuple[torch.Tensor, np.ndarray]:
    """An uninitialised tensor of n elements and its numpy view; in shared
    memory when `shared` (allocated there, not copied there)."""
    torch_dtype = torch.from_numpy(np.empty(0, dtype)).dtype
    if not shared:
        t = torch.empty(n, dtype=torch_dtype)
    elif hasattr(torch.UntypedStorage, "_new_shared"):
        storage = torch.UntypedStorage._new_shared(n * dtype.itemsize)
        t = torch.empty(0, dtype=torch_dtype).set_(storage, 0, (n,), (1,))
    else:
        t = torch.empty(n, dtype=torch_dtype).share_memory_()
    return t, t.numpy()


class _SlotPool:
    """A worker's shared-memory batch buffers (index and value storages),
    reused once the main process has marked them free in `busy` (this
    worker's `slots` flags: 1 while a batch it carried may be alive)."""

    def __init__(self, busy: Any, first: int, slots: int, value_dtype: np.dtype) -> None:
        self._busy, self._first, self._slots = busy, first, slots
        self._dtype = value_dtype
        self._buffers: list[tuple[torch.Tensor, torch.Tensor] | None] = [None] * slots

    def take(self, n: int) -> tuple[int, torch.Tensor, np.ndarray, torch.Tensor, np.ndarray]:
        """(slot or -1, index tensor, its numpy view, value tensor, view) for n
        nonzeros; -1: every slot is in use, fresh shared memory instead."""
        for slot in range(self._slots):
            if self._busy[self._first + slot]:
                continue
            held = self._buffers[slot]
            if held is None or held[0].numel() < n:
                # Room for a little more than this batch, so that batches
                # that vary in size do not reallocate.
                room = max(n + n // 8, 1)
                held = (_empty(room, np.dtype(np.int32), True)[0],
                        _empty(room, self._dtype, True)[0])
                self._buffers[slot] = held
            self._busy[self._first + slot] = 1
            index, value = held[0][:max(n, 1)], held[1][:max(n, 1)]
            return slot, index, index.numpy(), value, value.numpy()
        index, index_view = _empty(max(n, 1), np.dtype(np.int32), True)
        value, value_view = _empty(max(n, 1), self._dtype, True)
        return -1, index, index_view, value, value_view


class _TilePrefetcher:
    """Reads tiles in order on background threads, at most `ahead` tiles
    beyond those the consumer holds. With two or more tiles ahead, two
    threads read at once, so that one tile's fetch (store latency) overlaps
    the other's decode; a thread first takes a free decoder, then the next
    tile in order, so the tile the consumer waits for is never starved of a
    decoder by later ones. The decoders come from `pool` and go back to it
    on close, so a process reuses the same buffers epoch after epoch (no
    allocation, no page faults) and memory stays at (held + ahead) tiles."""

    def __init__(self, dataset: Any, pool: list, tiles: list[int], held: int, ahead: int,
                 gene_map: np.ndarray | None, sorted_: bool) -> None:
        self._dataset = dataset
        self._pool = pool
        self._tiles = tiles
        self._gene_map = gene_map
        self._sorted = sorted_
        self._free: queue.Queue = queue.Queue()
        need = held + max(ahead, 0)
        self._decoders = [pool.pop() if pool else dataset.decoder() for _ in range(need)]
        for decoder in self._decoders:
            self._free.put(decoder)
        self._done: dict[int, tuple] = {}  # position in `tiles` -> result
        self._lock = threading.Condition()
        self._claimed = 0  # positions handed to threads
        self._next = 0  # the position the consumer takes next
        self._stop = False
        self._threads = [threading.Thread(target=self._run, daemon=True)
                         for _ in range(min(max(ahead, 0), 2) if tiles else 0)]
        for thread in self._threads:
            thread.start()

    def _decode(self, tile: int, decoder: Any) -> tuple:
        try:
            ptr, idx, val = decoder._decode_map(tile, self._gene_map, self._sorted)
            return tile, decoder, (ptr, idx, val), None
        except Exception as e:  # handed to the consumer, who decides
            return tile, decoder, None, e

    def _run(self) -> None:
        while True:
            decoder = self._free.get()
            with self._lock:
                if decoder is None or self._stop or self._claimed >= len(self._tiles):
                    if decoder is not None:
                        self._free.put(decoder)
                    return
                position = self._claimed
                self._claimed += 1
            got = self._decode(self._tiles[position], decoder)
            with self._lock:
                self._done[position] = got
                self._lock.notify_all()

    def next(self) -> tuple:
        """(tile, decoder, arrays or None, error or None) of the next tile."""
        position = self._next
        self._next += 1
        if not self._threads:
            return self._decode(self._tiles[position], self._free.get())
        with self._lock:
            while position not in self._done:
                self._lock.wait()
            return self._done.pop(position)

    def release(self, decoder: Any) -> None:
        self._free.put(decoder)

    def close(self) -> None:
        """Stops the threads (after the tiles they are reading) and returns
        every decoder to the pool: the consumer's batches are copies, so
        nothing still points into them."""
        with self._lock:
            self._stop = True
        for _ in self._threads:
            self._free.put(None)  # wakes a thread waiting for a free decoder
        for thread in self._threads:
            thread.join()
        self._pool.extend(self._decoders)
        self._decoders = []


class _CellStream(torch.utils.data.IterableDataset):
    """The batches of one epoch, split over DataLoader's workers by window."""

    def __init__(self, dataset: Any, batch_size: int, window_tiles: int, shuffle: bool,
                 seed: int, prefetch_tiles: int, gene_map: np.ndarray | None, sorted_: bool,
                 skip_damaged_tiles: bool, workers: int = 0, slots: int = 0) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self.window_tiles = window_tiles
        self.shuffle = shuffle
        self.seed = seed
        self.prefetch_tiles = prefetch_tiles
        self.gene_map = gene_map
        self.sorted = sorted_
        self.skip_damaged_tiles = skip_damaged_tiles
        # The epoch, shared with worker processes that outlive an epoch
        # (persistent workers keep their copy of this object).
        self._epoch = multiprocessing.get_context().Value("q", 0, lock=False)
        self._pool: list = []  # this process's decoders, kept between epochs
        # Per worker, `slots` flags: 1 while the main process may still hold
        # the batch that the slot's buffers carried (see _SlotPool).
        self.slots = slots
        self.busy = multiprocessing.get_context().Array("b", max(workers * slots, 1),
                                                        lock=False)
        self._slot_pool: _SlotPool | None = None

    @property
    def epoch(self) -> int:
        return int(self._epoch.value)

    @epoch.setter
    def epoch(self, value: int) -> None:
        self._epoch.value = int(value)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_pool"] = []  # buffers stay in the process that made them
        state["_slot_pool"] = None
        return state

    def __iter__(self) -> Iterator[tuple]:
        info = torch.utils.data.get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        windows = _epoch_windows(self.dataset.n_tiles, self.window_tiles, self.shuffle,
                                 self.seed, self.epoch, worker, workers)
        rng = np.random.default_rng([self.seed, self.epoch, worker, 1])
        tiles = [t for w in windows for t in w]
        fetcher = _TilePrefetcher(self.dataset, self._pool, tiles, self.window_tiles,
                                  self.prefetch_tiles, self.gene_map, self.sorted)
        carry: list[tuple] = []  # rows of the last window not yet in a batch
        try:
            for window in windows:
                decoded = {}
                for _ in window:
                    tile, decoder, arrays, error = fetcher.next()
                    if error is not None:
                        fetcher.release(decoder)
                        if not (self.skip_damaged_tiles and isinstance(error, CorruptionError)):
                            raise error
                        warnings.warn(f"skipping a damaged tile: {error}", stacklevel=2)
                        continue
                    decoded[tile] = (decoder, arrays)
                yield from self._deal(decoded, rng, carry)
                for decoder, _ in decoded.values():
                    fetcher.release(decoder)
            if carry:
                yield self._assemble(carry)
        finally:
            fetcher.close()

    def _deal(self, decoded: dict, rng: np.random.Generator, carry: list) -> Iterator[tuple]:
        """The window's cells dealt at random into batches. A batch's rows
        are copied once, straight from the decoded tiles into its arrays
        (grouped by tile: order within a batch carries no information); the
        window's last cells are kept (copied) for the next batch."""
        ds = self.dataset
        tiles = sorted(decoded)
        cells = np.concatenate([np.arange(t * ds.tile_cells, t * ds.tile_cells
                                          + ds._tile_cells(t)) for t in tiles]) \
            if tiles else np.empty(0, np.int64)
        if self.shuffle:
            cells = rng.permutation(cells)
        start = 0
        need = self.batch_size - sum(len(part[4]) for part in carry)
        while len(cells) - start >= need:
            sources = carry + self._sources(decoded, cells[start:start + need])
            start += need
            yield self._assemble(sources)
            carry.clear()
            need = self.batch_size
        if start < len(cells):
            kept = self._assemble(carry + self._sources(decoded, cells[start:]), tensors=False)
            carry.clear()
            indptr, indices, values, kept_cells = kept
            carry.append((indptr, True, indices, values,
                          np.arange(len(kept_cells), dtype=np.int64), kept_cells))

    def _sources(self, decoded: dict, cells: np.ndarray) -> list[tuple]:
        """Per tile: (indptr, wide, indices, values, rows in the tile, cells)."""
        ds = self.dataset
        out = []
        tiles = cells // ds.tile_cells
        for t in np.unique(tiles):
            mine = np.ascontiguousarray(cells[tiles == t])
            _, (ptr, idx, val) = decoded[int(t)]
            out.append((ptr, False, idx, val, mine - int(t) * ds.tile_cells, mine))
        return out

    def _assemble(self, sources: list[tuple], tensors: bool = True) -> tuple:
        total = sum(int((p[r + 1] - p[r]).sum()) for p, _, _, _, r, _ in sources)
        if total > np.iinfo(np.int32).max:
            raise InvalidArgumentError(f"a batch of {total} nonzeros exceeds int32 indices; "
                                       "lower batch_size")
        rows = sum(len(r) for *_, r, _ in sources)
        indptr = np.zeros(rows + 1, np.int64)
        # In a worker process the batch is built in shared memory (a slot
        # of _SlotPool), so that handing it to the main process copies
        # nothing.
        info = torch.utils.data.get_worker_info() if tensors else None
        flag = -1
        if info is not None and self.slots > 0:
            if self._slot_pool is None:
                self._slot_pool = _SlotPool(self.busy, info.id * self.slots, self.slots,
                                            self.dataset.dtype)
            slot, index_tensor, indices, value_tensor, values = self._slot_pool.take(total)
            flag = info.id * self.slots + slot if slot >= 0 else -1
        else:
            shared = info is not None
            index_tensor, indices = _empty(max(total, 1), np.dtype(np.int32), shared)
            value_tensor, values = _empty(max(total, 1), self.dataset.dtype, shared)
        at_row = at = 0
        for ptr, wide, idx, val, r, _ in sources:
            n = _core.sparse_gather_rows(ptr, wide, idx, val, val.dtype.itemsize,
                                         np.ascontiguousarray(r, np.int64),
                                         indptr[at_row:at_row + len(r) + 1], indices[at:],
                                         values[at:])
            at_row += len(r)
            at += n
        cells = np.concatenate([c for *_, c in sources]) if sources else np.empty(0, np.int64)
        if not tensors:
            return indptr, indices[:total], values[:total], cells
        return (torch.from_numpy(indptr.astype(np.int32)), index_tensor[:total],
                value_tensor[:total], torch.from_numpy(cells.astype(np.int64)), flag)


class CellLoader:
    """Shuffled minibatches of cells from a turbozarr.sparse dataset, for
    training loops: ``for batch in CellLoader(ds, batch_size=5000): ...``
    yields CellBatch(X, cells) with X a torch sparse CSR tensor of
    ``len(cells)`` rows.

    - Every cell comes exactly once per epoch; batches hold `batch_size`
      cells but the epoch's last (per worker), which holds the rest.
    - `shuffle`: tiles in a random order, cells dealt at random within a
      window of `window_tiles` tiles (a wider window mixes more, at a tile's
      memory per tile). Reproducible: the same `seed`, epoch and
      `num_workers` give the same batches. Each pass over the loader is the
      next epoch (or set one with `set_epoch`).
    - `num_workers` processes (torch's DataLoader) each serve every k-th
      tile of the epoch, in windows of their own; batches cross to the
      main process through shared memory. The workers persist from epoch
      to epoch with their decode buffers (pass ``persistent_workers=False``
      to start them afresh each epoch).
    - `prefetch_tiles`: tiles each process reads ahead on background
      threads (two at once from 2 on, so that a tile's fetch overlaps
      another's decode), overlapping a slow store with the work on the
      current window.
    - `genes`: a subset (and order) of genes as columns; `sorted`: genes
      ascending within each row (torch's CSR kernels expect it; default).
    - `dense=True` hands X as a dense tensor instead.
    - A damaged tile raises its CorruptionError (naming the tile) in the
      loop; with `skip_damaged_tiles` it is skipped with a warning.

    Datasets on a ``memory://`` store or a store wrapper serve worker
    processes by fork (Linux's default); open the dataset by URL elsewhere.
    """

    def __init__(self, dataset: Any, *, batch_size: int = 5000, shuffle: bool = True,
                 seed: int = 0, window_tiles: int = 2, num_workers: int = 0,
                 prefetch_tiles: int = 2, genes: Any = None, sorted: bool = True,  # noqa: A002
                 dense: bool = False, skip_damaged_tiles: bool = False,
                 **dataloader_options: Any) -> None:
        from turbozarr.sparse import Dataset, open as open_dataset
        if not isinstance(dataset, Dataset):
            dataset = open_dataset(dataset)
        if batch_size < 1:
            raise InvalidArgumentError(f"batch_size must be at least 1, not {batch_size}")
        if window_tiles < 1:
            raise InvalidArgumentError(f"window_tiles must be at least 1, not {window_tiles}")
        if prefetch_tiles < 0 or num_workers < 0:
            raise InvalidArgumentError("prefetch_tiles and num_workers must be >= 0")
        self.dataset = dataset
        self._columns = dataset.n_genes if genes is None else len(np.asarray(genes).reshape(-1))
        self._dense = dense
        self._num_workers = int(num_workers)
        # Slots per worker: the batches DataLoader queues ahead, the one the
        # caller holds, the one arriving, and one to spare.
        slots = int(dataloader_options.get("prefetch_factor") or 2) + 3
        self._stream = _CellStream(dataset, int(batch_size), int(window_tiles), bool(shuffle),
                                   int(seed), int(prefetch_tiles), dataset._gene_map(genes),
                                   bool(sorted), bool(skip_damaged_tiles),
                                   workers=self._num_workers, slots=slots)
        # Batches whose slot is marked busy: (storage weak references, flag).
        self._held: list[tuple[Any, Any, int]] = []
        if self._num_workers > 0:
            # Workers (and their decode buffers) live from epoch to epoch.
            dataloader_options.setdefault("persistent_workers", True)
        self._options = dataloader_options
        self._loader: torch.utils.data.DataLoader | None = None
        self._next_epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next pass serves (its shuffle)."""
        self._next_epoch = int(epoch)

    def __len__(self) -> int:
        """Batches per epoch (a worker's last batch may be short, so with k
        workers up to k - 1 more than cells / batch_size rounded up)."""
        full, rest = divmod(self.dataset.n_cells, self._stream.batch_size)
        return full + (1 if rest else 0)

    def __iter__(self) -> Iterator[CellBatch]:
        self._stream.epoch = self._next_epoch
        self._next_epoch += 1
        if self._loader is None:
            self._loader = torch.utils.data.DataLoader(self._stream, batch_size=None,
                                                       num_workers=self._num_workers,
                                                       **self._options)
        for indptr, indices, values, cells, flag in self._loader:
            self._free_slots()
            if flag >= 0:
                self._held.append((StorageWeakRef(indices.untyped_storage()),
                                   StorageWeakRef(values.untyped_storage()), flag))
            X = torch.sparse_csr_tensor(indptr, indices, values,
                                        size=(len(cells), self._columns),
                                        check_invariants=False)
            del indptr, indices, values
            if self._dense:
                X = X.to_dense()
            yield CellBatch(X, cells)
            del X
        self._free_slots()

    def _free_slots(self) -> None:
        """Hands back to their workers the slots of batches that nothing in
        this process holds any more."""
        still = []
        for index_ref, value_ref, flag in self._held:
            if index_ref.expired() and value_ref.expired():
                self._stream.busy[flag] = 0
            else:
                still.append((index_ref, value_ref, flag))
        self._held = still
