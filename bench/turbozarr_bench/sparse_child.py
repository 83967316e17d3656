"""One operation of workload F on one side, in a process of its own:

    python -m turbozarr_bench.sparse_child '{"impl": SIDE, "op": NAME,
        "spec": SPEC (DatasetSpec.to_json), "formats": {format: path}, "tile": T, "params": {...}}'

It prints one JSON line: seconds, cpu (every thread's), peak_rss_mb, cells
(rows returned), nnz, digest (checksum.csr_digest of what came back, taken
after the clock stops) and, for the loader, its own figures; or status
"unsupported" and the reason.

What is timed (each after one untimed pass of the same, so imports, lazy
set-up and the page cache are alike for every side):
- read_tile, read_tile_threads: file to a scipy CSR in RAM of tile T's
  rows (cells T*tile_cells ...), the open included, on one thread or on
  every core;
- decode_only: the same from the side's stored bytes already in memory
  (each side's in-memory form of its own file: turbozarr and zarr-python a
  memory store, h5ad an HDF5 file image, BPCells MemMatrix), one thread;
- gather: 5,000 cells in a seeded shuffled order out of tile T's CSR in
  memory (the generator's, the same for both sides);
- loader: an epoch of turbozarr.sparse.CellLoader (shuffled, batch_size
  cells per batch, params: workers, prefetch tiles, store "local" or
  "throttled" at latency_ms and mb_per_s per connection), after an untimed
  epoch; every cell must come exactly once (the digest is of the sorted
  cell numbers);
- loader_memory: `batches` batches over successive epochs, the resident
  memory of the main process and its workers summed every `sample_every`
  batches; growth is the last sample over the first, after the first epoch.
"""

from __future__ import annotations

import io
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from turbozarr_bench import measure
from turbozarr_bench.checksum import array_digest, csr_digest
from turbozarr_bench.datasets.spec import validate

GATHER_CELLS = 5000


class Unsupported(Exception):
    """The side has no call for this operation; the message says why."""


def _rows(spec: dict, t: int) -> tuple[int, int]:
    a = t * spec["tile_cells"]
    return a, min(a + spec["tile_cells"], spec["cells"])


def _threads(op: str) -> int:
    return 1 if op in ("read_tile", "decode_only") else (os.cpu_count() or 1)


# -- the sides' reads ---------------------------------------------------------------


def _memory_copy_turbozarr(path: str) -> Any:
    import turbozarr

    store = turbozarr.MemoryStore()
    root = Path(path)
    for p in root.rglob("*"):
        if p.is_file():
            store.set(p.relative_to(root).as_posix(), p.read_bytes())
    return store


def _memory_copy_zarr(path: str) -> Any:
    import zarr
    from zarr.core.buffer import cpu

    root = Path(path)
    return zarr.storage.MemoryStore({p.relative_to(root).as_posix(): cpu.Buffer.from_bytes(
        p.read_bytes()) for p in root.rglob("*") if p.is_file()})


def _zarr_tile(store: Any, t: int, threads: int) -> Any:
    import scipy.sparse
    import zarr

    with zarr.config.set({"threading.max_workers": threads}):
        g = zarr.open_group(store, mode="r", path=f"tiles/{t}")
        data, indices, indptr = g["data"][...], g["indices"][...], g["indptr"][...]
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=tuple(g.attrs["shape"]))


def _h5ad_rows(source: Any, a: int, b: int) -> Any:
    import h5py
    try:
        from anndata.io import sparse_dataset
    except ImportError:  # anndata < 0.11
        from anndata.experimental import sparse_dataset

    with h5py.File(source, "r") as f:
        return sparse_dataset(f["X"])[a:b]


def _soma_rows(path: str, a: int, b: int, genes: int, threads: int) -> Any:
    import scipy.sparse
    import tiledbsoma

    config = {"sm.compute_concurrency_level": str(threads),
              "sm.io_concurrency_level": str(threads)}
    context = tiledbsoma.SOMATileDBContext(tiledb_config=config)
    with tiledbsoma.Experiment.open(path, context=context) as exp:
        X = exp.ms["RNA"].X["data"]
        table = X.read(coords=(slice(a, b - 1),)).tables().concat()
    rows = table.column("soma_dim_0").to_numpy() - a
    cols = table.column("soma_dim_1").to_numpy()
    vals = table.column("soma_data").to_numpy()
    return scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(b - a, genes))


def _read(impl: str, op: str, spec: dict, formats: dict, t: int, prepared: Any) -> Any:
    a, b = _rows(spec, t)
    threads = _threads(op)
    if impl in ("turbozarr", "turbozarr-sorted"):
        import turbozarr.sparse

        ds = turbozarr.sparse.open(prepared if prepared is not None else formats["turbozarr"])
        return ds.tile(t, sorted=impl == "turbozarr-sorted", threads=threads)
    if impl == "h5ad":
        return _h5ad_rows(prepared if prepared is not None else formats["h5ad"], a, b)
    if impl == "zarr-python":
        return _zarr_tile(prepared if prepared is not None else formats["zarr-csr"], t, threads)
    if impl == "tiledbsoma":
        if op == "decode_only":
            raise Unsupported("TileDB-SOMA has no in-memory form of an experiment to read from")
        return _soma_rows(formats["soma"], a, b, spec["genes"], threads)
    if impl == "bpcells":
        from bpcells.experimental import DirMatrix

        m = prepared if prepared is not None else DirMatrix(formats["bpcells"])
        # BPCells counts `threads` beyond the calling one (0: the caller alone).
        m.threads = threads - 1
        return m[a:b, :].tocsr()
    raise Unsupported(f"{impl} does not read tiles")


def _prepare_decode(impl: str, formats: dict) -> Any:
    """The side's stored bytes in memory, for decode_only (untimed)."""
    if impl in ("turbozarr", "turbozarr-sorted"):
        return _memory_copy_turbozarr(formats["turbozarr"])
    if impl == "zarr-python":
        return _memory_copy_zarr(formats["zarr-csr"])
    if impl == "h5ad":
        return io.BytesIO(Path(formats["h5ad"]).read_bytes())
    if impl == "bpcells":
        from bpcells.experimental import MemMatrix

        m = MemMatrix(formats["bpcells"])
        # 0.3.0rc2's MemMatrix compares the storage_order file, newline
        # included, with "row", so it takes a row-major matrix as column-major.
        row_major = (Path(formats["bpcells"]) / "storage_order").read_text().strip() == "row"
        if row_major and not m._transpose:
            m._transpose = True
            m.shape = (m.shape[1], m.shape[0])
        return m
    return None


def _format_of(impl: str) -> str:
    return {"turbozarr": "turbozarr", "turbozarr-sorted": "turbozarr", "h5ad": "h5ad",
            "zarr-python": "zarr-csr", "tiledbsoma": "soma", "bpcells": "bpcells"}.get(impl, "")


# -- gather ------------------------------------------------------------------------


def _gather(impl: str, matrix: Any, rows: np.ndarray) -> Any:
    if impl == "turbozarr":
        import turbozarr.sparse

        return turbozarr.sparse.take_rows(matrix, rows)
    if impl == "scipy":
        return matrix[rows]
    raise Unsupported(f"{impl}: the peers hand back scipy matrices; scipy's row indexing "
                      "stands for them all")


# -- the loader --------------------------------------------------------------------


def _loader_dataset(formats: dict, params: dict) -> Any:
    import turbozarr
    import turbozarr.sparse

    path = formats["turbozarr"]
    if params.get("store", "local") == "local":
        return turbozarr.sparse.open(path)
    store = turbozarr.ThrottledStore(turbozarr.LocalStore(path, read_only=True),
                                     latency=params.get("latency_ms", 50.0) / 1000,
                                     bytes_per_second=params.get("mb_per_s", 150.0) * 1e6,
                                     connections=int(params.get("connections", 0)))
    return turbozarr.sparse.open(store)


def _loader(params: dict, ds: Any) -> Any:
    from turbozarr.sparse import CellLoader

    return CellLoader(ds, batch_size=int(params.get("batch_size", 5000)),
                      num_workers=int(params.get("workers", 0)),
                      prefetch_tiles=int(params.get("prefetch", 2)),
                      window_tiles=int(params.get("window_tiles", 2)), seed=1)


def _epoch(loader: Any) -> tuple[np.ndarray, int]:
    cells, nnz = [], 0
    for batch in loader:
        cells.append(batch.cells.numpy())
        nnz += int(batch.X.values().shape[0])
    return np.concatenate(cells), nnz


def _tree_rss_bytes(pid: int) -> int:
    """Resident bytes of a process and of its children (the loader's
    workers), from /proc."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(next(line.split()[1] for line in status.splitlines()
                              if line.startswith("VmRSS:"))) * 1024
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, StopIteration):
            continue
    return total


def _loader_memory(params: dict, ds: Any) -> dict:
    loader = _loader(params, ds)
    per_epoch = len(loader)
    batches, every = int(params.get("batches", 1000)), int(params.get("sample_every", 100))
    samples, seen = [], 0
    t0 = time.perf_counter()
    while seen < batches:
        for _ in loader:
            seen += 1
            if seen >= per_epoch and seen % every == 0:
                samples.append(_tree_rss_bytes(os.getpid()))
            if seen >= batches:
                break
    seconds = time.perf_counter() - t0
    if len(samples) < 2:
        raise RuntimeError(f"{batches} batches of {per_epoch} per epoch leave fewer than two "
                           f"samples every {every} batches after the first epoch")
    return {"seconds": seconds, "batches": seen, "samples_mb": [round(s / 2**20, 1)
                                                               for s in samples],
            "growth_pct": round(100 * (samples[-1] - samples[0]) / samples[0], 2),
            "peak_growth_pct": round(100 * (max(samples) - samples[0]) / samples[0], 2)}


# -- the run -----------------------------------------------------------------------


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def run(doc: dict) -> dict:
    impl, op, t = doc["impl"], doc["op"], int(doc.get("tile", 0))
    raw = dict(doc["spec"])
    spec_obj = validate(raw.pop("name"), raw, "sparse child")
    spec = spec_obj.values
    formats, params = doc["formats"], doc.get("params", {})
    out: dict[str, Any] = {"status": "ok"}
    if op in ("read_tile", "read_tile_threads", "decode_only"):
        fmt = _format_of(impl)
        if not fmt:
            raise Unsupported(f"{impl} does not read tiles")
        if fmt not in formats:
            raise Unsupported(f"no {fmt} fixture (its writer is not installed here)")
        prepared = _prepare_decode(impl, formats) if op == "decode_only" else None
        if op == "decode_only" and prepared is None:
            _read(impl, op, spec, formats, t, None)  # raises its Unsupported
        if isinstance(prepared, io.BytesIO):
            prepared.seek(0)
        _read(impl, op, spec, formats, t, prepared)
        if isinstance(prepared, io.BytesIO):
            prepared.seek(0)
        c0, t0 = _cpu(), time.perf_counter()
        m = _read(impl, op, spec, formats, t, prepared)
        out["seconds"], out["cpu"] = time.perf_counter() - t0, _cpu() - c0
        out.update(cells=m.shape[0], nnz=int(m.nnz), digest=csr_digest(m))
    elif op == "gather":
        from turbozarr_bench.sparse_fixture import tile_csr

        matrix = tile_csr(spec_obj, t, Path(doc["cache"]) if doc.get("cache") else None)
        rows = np.random.default_rng(7).permutation(matrix.shape[0])[:GATHER_CELLS]
        _gather(impl, matrix, rows)
        c0, t0 = _cpu(), time.perf_counter()
        m = _gather(impl, matrix, rows)
        out["seconds"], out["cpu"] = time.perf_counter() - t0, _cpu() - c0
        out.update(cells=m.shape[0], nnz=int(m.nnz), digest=csr_digest(m),
                   expected=csr_digest(matrix[rows]))
    elif op in ("loader", "loader_memory"):
        if impl != "turbozarr":
            raise Unsupported(f"{impl} has no shuffled cell loader in this environment")
        try:
            import torch  # noqa: F401
        except ImportError:
            raise Unsupported(f"torch is not installed in {sys.executable}") from None
        ds = _loader_dataset(formats, params)
        if op == "loader_memory":
            c0 = _cpu()
            out.update(_loader_memory(params, ds))
            out["cpu"] = _cpu() - c0
            out["cells"] = out["batches"] * int(params.get("batch_size", 5000))
            out["digest"] = ""
        else:
            loader = _loader(params, ds)
            _epoch(loader)
            c0, t0 = _cpu(), time.perf_counter()
            cells, nnz = _epoch(loader)
            out["seconds"], out["cpu"] = time.perf_counter() - t0, _cpu() - c0
            out.update(cells=len(cells), nnz=nnz, digest=array_digest(np.sort(cells)),
                       expected=array_digest(np.arange(spec["cells"], dtype=np.int64)))
    else:
        raise Unsupported(f"no operation {op}")
    # VmHWM, not ru_maxrss: the latter keeps the runner's size from before
    # the exec (the fixture writer holds whole matrices).
    out["peak_rss_mb"] = round(measure.peak_rss_mb() or 0.0, 1)
    return out


def main() -> None:
    doc = json.loads(sys.argv[1])
    try:
        result = run(doc)
    except Unsupported as e:
        result = {"status": "unsupported", "reason": str(e)}
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # torch's and TileDB's threads make interpreter shutdown slow or noisy


if __name__ == "__main__":
    main()
