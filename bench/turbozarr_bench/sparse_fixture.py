"""Workload F's fixtures: one synthetic counts matrix (datasets/sparse.py),
stored once in each side's own format, under `data_dir/<dataset>-<stamp>/`:

- `matrix.h5ad`: anndata, X a CSR of uint32 counts, gzip (as the study's
  h5ad files are), obs and var indexed by cell and gene names;
- `zarr-csr/`: plain zarr-python, one group of data/indices/indptr per tile
  of `tile_cells` cells (datasets/sparse.py says how);
- `turbozarr/`: turbozarr.sparse's layout, converted from matrix.h5ad by
  turbozarr.sparse.from_h5ad (the converter users run);
- `soma/`: a TileDB-SOMA experiment, from matrix.h5ad by
  tiledbsoma.io.from_h5ad (measurement "RNA", X layer "data");
- `bpcells/`: a BPCells matrix directory, row-major (cells as rows), by
  bpcells.experimental.DirMatrix.from_scipy_sparse.

Each is written into a temporary directory and renamed into place when
whole, so an interrupted run leaves nothing a later run would take for a
fixture. A side whose library is not installed in this interpreter is not
written (and reads `unavailable`); a later run in an interpreter that has
it adds it. The generator's tiles are kept in `generated/` (uncompressed
.npz), since every writer and the gather read them. `stamp.json` records the digest of every tile's CSR
(checksum.csr_digest of what the generator made), which every read is
checked against.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from turbozarr_bench.checksum import csr_digest
from turbozarr_bench.datasets import sparse as generator
from turbozarr_bench.datasets.spec import DatasetSpec

FORMATS = ("h5ad", "zarr-csr", "turbozarr", "soma", "bpcells")
PATHS = {"h5ad": "matrix.h5ad", "zarr-csr": "zarr-csr", "turbozarr": "turbozarr",
         "soma": "soma", "bpcells": "bpcells"}
# The module each format's writer needs.
WRITER_MODULES = {"h5ad": "anndata", "zarr-csr": "zarr", "turbozarr": "turbozarr",
                  "soma": "tiledbsoma", "bpcells": "bpcells"}
GENERATOR_VERSION = 1  # bump when the generator's output changes


def fixture_dir(spec: DatasetSpec, data_dir: Path) -> Path:
    key = json.dumps({"spec": spec.values, "generator": GENERATOR_VERSION}, sort_keys=True)
    return Path(data_dir) / f"{spec.name}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def n_tiles(spec: DatasetSpec) -> int:
    v = spec.values
    return -(-v["cells"] // v["tile_cells"])


def tile_csr(spec: DatasetSpec, t: int, cache: Path | None = None):
    """Tile t of the generator's matrix as scipy CSR (tile-local rows); kept
    in `cache` (a directory) once made, since every writer and the gather
    need it and the generator takes seconds per tile."""
    import scipy.sparse

    kept = Path(cache) / f"tile-{t}.npz" if cache is not None else None
    if kept is not None and kept.exists():
        with np.load(kept) as z:
            data, indices, indptr = z["data"], z["indices"], z["indptr"]
    else:
        data, indices, indptr = generator.tile(spec, t)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            tmp = kept.with_suffix(".tmp.npz")
            np.savez(tmp, data=data, indices=indices, indptr=indptr)
            os.replace(tmp, kept)
    return scipy.sparse.csr_matrix((data, indices, indptr),
                                   shape=(len(indptr) - 1, spec.values["genes"]))


def whole_csr(spec: DatasetSpec, cache: Path | None = None):
    import scipy.sparse

    return scipy.sparse.vstack([tile_csr(spec, t, cache) for t in range(n_tiles(spec))],
                               format="csr")


def installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def disk_bytes(path: Path) -> int:
    """The bytes a file or a directory tree holds (files' sizes)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _older_layout(fmt: str, target: Path) -> bool:
    """Whether `target` is a turbozarr matrix in a layout older than the one
    turbozarr writes now (its figures would be the old layout's): another
    layout version, or chunks written before they carried a checksum."""
    if fmt != "turbozarr" or not target.exists():
        return False
    import turbozarr.sparse

    try:
        doc = json.loads((target / "X" / "zarr.json").read_text())
        version = doc["attributes"]["sparse_matrix"]["version"]
        index = json.loads((target / "X" / "tile_index" / "zarr.json").read_text())
    except (OSError, KeyError, ValueError):
        return True
    checked = any(c.get("name") == "crc32c" for c in index.get("codecs", []))
    return version != turbozarr.sparse.LAYOUT_VERSION or not checked


def _place(target: Path, write: Callable[[Path], None]) -> None:
    """Runs write(tmp) into a temporary path beside target, then renames."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        inner = tmp / target.name
        write(inner)
        os.replace(inner, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write_h5ad(spec: DatasetSpec, path: Path, cache: Path) -> None:
    import anndata
    import pandas as pd

    X = whole_csr(spec, cache)
    obs = pd.DataFrame(index=[f"cell{i}" for i in range(X.shape[0])])
    var = pd.DataFrame(index=[f"gene{j}" for j in range(X.shape[1])])
    anndata.AnnData(X=X, obs=obs, var=var).write_h5ad(path, compression="gzip")


def _write_soma(h5ad: Path, path: Path) -> None:
    import tiledbsoma.io

    tiledbsoma.io.from_h5ad(str(path), str(h5ad), measurement_name="RNA")


def _write_bpcells(spec: DatasetSpec, path: Path, cache: Path) -> None:
    from bpcells.experimental import DirMatrix

    DirMatrix.from_scipy_sparse(whole_csr(spec, cache), str(path))


def ensure(spec: DatasetSpec, data_dir: Path, formats=FORMATS, log=print) -> dict:
    """The fixture of `spec` (written where missing) as its stamp: "dir",
    "tiles" (each tile's digest), "formats" (format -> path, for those
    written) and "bytes" (format -> bytes on disk)."""
    root = fixture_dir(spec, data_dir)
    root.mkdir(parents=True, exist_ok=True)
    stamp_path = root / "stamp.json"
    cache = root / "generated"
    stamp = json.loads(stamp_path.read_text()) if stamp_path.exists() else {}
    if "tiles" not in stamp:
        log(f"  {spec.name}: generating and digesting {n_tiles(spec)} tiles")
        stamp = {"spec": spec.values, "tiles": [csr_digest(tile_csr(spec, t, cache))
                                                for t in range(n_tiles(spec))]}
    h5ad = root / PATHS["h5ad"]
    wanted = list(formats)
    if any(f in wanted for f in ("turbozarr", "soma")) and "h5ad" not in wanted:
        wanted.insert(0, "h5ad")  # the converters read it
    for fmt in FORMATS:
        target = root / PATHS[fmt]
        if fmt in wanted and _older_layout(fmt, target):
            log(f"  {spec.name}: {target} holds an older turbozarr layout; rewriting it")
            shutil.rmtree(target)
        if fmt not in wanted or target.exists() or not installed(WRITER_MODULES[fmt]):
            continue
        log(f"  {spec.name}: writing {fmt} into {target}")
        if fmt == "h5ad":
            _place(target, lambda p: _write_h5ad(spec, p, cache))
        elif fmt == "zarr-csr":
            _place(target, lambda p: generator.write_csr(
                spec, p, lambda t: tile_csr(spec, t, cache)))
        elif fmt == "turbozarr":
            import turbozarr.sparse

            _place(target, lambda p: turbozarr.sparse.from_h5ad(
                h5ad, str(p), tile_cells=spec.values["tile_cells"]))
        elif fmt == "soma":
            _place(target, lambda p: _write_soma(h5ad, p))
        elif fmt == "bpcells":
            _place(target, lambda p: _write_bpcells(spec, p, cache))
    stamp["dir"] = str(root)
    stamp["cache"] = str(cache)
    stamp["formats"] = {f: str(root / PATHS[f]) for f in FORMATS if (root / PATHS[f]).exists()}
    stamp["bytes"] = {f: disk_bytes(Path(p)) for f, p in stamp["formats"].items()}
    stamp_path.write_text(json.dumps(stamp, indent=1))
    return stamp
