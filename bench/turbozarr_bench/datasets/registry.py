"""The shipped datasets: workloads A to F of the shared workloads document.

Each entry is a raw spec table, validated like a config's own [datasets.x]
table. A config may add entries, or derive one from a shipped entry with
`base = "<name>"` and override a few keys (a smaller shape, another codec).
"""

from __future__ import annotations

from typing import Any

from turbozarr_bench.datasets.spec import DatasetSpec, SpecError, validate

_A = {"workload": "A", "shape": [50000, 20000], "dtype": "uint8", "zarr_format": 2,
      "pixels": "photo", "seed": 2023}
_A_LZ4 = {"codec": "blosc-lz4", "level": 5, "shuffle": "byte"}
_B = {"workload": "B", "shape": [4096, 4096], "dtype": "int32", "zarr_format": 3,
      "chunks": [64, 64], "shards": [1024, 1024], "fill_value": 0}
_C = {"workload": "C", "shape": [1024, 1024, 1024], "dtype": "uint16", "zarr_format": 3,
      "pixels": "cubic", "chunks": [256, 256, 256]}
_E = {"workload": "E", "dtype": "uint16", "zarr_format": 3, "pixels": "ome",
      "codec": "zstd", "level": 0, "chunks": [1, 1, 256, 256]}
_E_MEDIUM = {**_E, "shape": [1, 64, 1024, 1024], "levels": 4, "roi_size": 512}

BUILTIN: dict[str, dict[str, Any]] = {
    # A. Full-array read of 1 GB (TensorStore vs zarr-python study).
    "a-npy": {"kind": "npy", "workload": "A", "shape": [50000, 20000], "dtype": "uint8",
              "pixels": "photo", "seed": 2023, "description": "np.save of the A image"},
    "a-raw-1": {**_A, "chunks": [50000, 20000], "codec": "none",
                "description": "one 1 GB chunk, uncompressed"},
    "a-lz4-200": {**_A, **_A_LZ4, "chunks": [5000, 1000],
                  "description": "200 chunks, Blosc lz4 clevel 5, byte shuffle"},
    "a-raw-200": {**_A, "chunks": [5000, 1000], "codec": "none",
                  "description": "200 chunks, uncompressed"},
    "a-lz4-20000": {**_A, **_A_LZ4, "chunks": [500, 100],
                    "description": "20,000 chunks, Blosc lz4 clevel 5, byte shuffle"},
    "a-raw-20000": {**_A, "chunks": [500, 100], "codec": "none",
                    "description": "20,000 chunks, uncompressed"},
    # B. Sharded codec pipeline (zarr-python example).
    "b-raw": {**_B, "codec": "none", "pixels": "arange",
              "description": "np.arange, sharded, uncompressed"},
    "b-gzip": {**_B, "codec": "gzip", "level": 6, "pixels": "randint24", "seed": 0,
               "description": "default_rng(0).integers(0, 2**24), sharded, gzip 6"},
    # C. zarr_benchmarks (zarrs project).
    "c-raw": {**_C, "codec": "none", "description": "256^3 chunks, uncompressed"},
    "c-zstd": {**_C, "codec": "zstd", "level": 0, "description": "256^3 chunks, zstd 0"},
    "c-sharded": {**_C, "codec": "zstd", "level": 0, "chunks": [64, 64, 64],
                  "shards": [256, 256, 256],
                  "description": "256^3 shards of 64^3 inner chunks, zstd 0"},
    # D. VCF Zarr (vcztools suite); experiments arrive with their issue.
    "d-vcz-wide": {"kind": "vcz", "workload": "D", "samples": 20000, "variants": 100000,
                   "variant_chunk": 1000, "sample_chunk": 10000,
                   "description": "20,000 diploid samples x 100,000 variants"},
    "d-vcz-long": {"kind": "vcz", "workload": "D", "samples": 10, "variants": 5000000,
                   "variant_chunk": 1000, "sample_chunk": 10,
                   "variant_only_bytes": 10 << 20,
                   "description": "10 samples x 5,000,000 variants, variant-only arrays in "
                                  "~10 MiB chunks"},
    # E. OME-Zarr images (ngio suite); level 0 of each image.
    "e-small": {**_E, "shape": [1, 16, 512, 512], "levels": 3, "roi_size": 256},
    "e-medium": _E_MEDIUM,
    "e-large": {**_E, "shape": [1, 256, 1024, 1024], "levels": 5},
    "e-chunks64": {**_E_MEDIUM, "chunks": [1, 1, 64, 64]},
    "e-chunks512": {**_E_MEDIUM, "chunks": [1, 1, 512, 512]},
    "e-sharded": {**_E_MEDIUM, "chunks": [1, 1, 128, 128], "shards": [1, 4, 1024, 1024]},
    "e-uncompressed": {k: v for k, v in {**_E_MEDIUM, "codec": "none"}.items()
                       if k != "level"},
    "e-v2": {**_E_MEDIUM, "zarr_format": 2},
    # F. Sparse single-cell counts (deltacells study).
    "f-counts": {"kind": "csr", "workload": "F", "cells": 100000, "genes": 38000,
                 "tile_cells": 10000, "nnz_min": 2000, "nnz_max": 5000,
                 "description": "snRNA-seq-like counts, power-law genes, 10,000-cell tiles"},
}


def resolve(name: str, tables: dict[str, dict[str, Any]], where: str,
            _seen: tuple[str, ...] = ()) -> DatasetSpec:
    """The validated spec called `name`, looked up in `tables` (a config's own
    definitions) before the shipped registry, with `base` chains merged."""
    raw = merged_table(name, tables, where, _seen)
    return validate(name, raw, where)


def merged_table(name: str, tables: dict[str, dict[str, Any]], where: str,
                 _seen: tuple[str, ...] = ()) -> dict[str, Any]:
    if name in _seen:
        raise SpecError(f"{where}: dataset '{name}' is its own base "
                        f"({' -> '.join(_seen + (name,))})")
    if name in tables:
        raw = dict(tables[name])
    elif name in BUILTIN:
        raw = dict(BUILTIN[name])
    else:
        known = sorted(set(BUILTIN) | set(tables))
        raise SpecError(f"{where}: unknown dataset '{name}' (known: {', '.join(known)})")
    base = raw.pop("base", None)
    if base is None:
        return raw
    if not isinstance(base, str):
        raise SpecError(f"{where} [datasets.{name}]: key 'base' must be a dataset name, "
                        f"got {base!r}")
    if base == name:  # a table named like a shipped dataset, derived from it
        parent = merged_table(base, {}, where, _seen + (name,)) if name in BUILTIN else None
        if parent is None:
            raise SpecError(f"{where}: dataset '{name}' is its own base")
    else:
        parent = merged_table(base, tables, where, _seen + (name,))
    if raw.get("codec") == "none":
        parent.pop("level", None)
        parent.pop("shuffle", None)
    if "codec" in raw and not str(raw["codec"]).startswith("blosc"):
        parent.pop("shuffle", None)
    if "codec" in raw and raw["codec"] != parent.get("codec") and "level" not in raw:
        parent.pop("level", None)
    parent.update(raw)
    # A shipped description no longer describes a modified copy.
    if "description" not in raw and "description" in parent and len(raw) > 0:
        parent["description"] = f"derived from {base}: " + parent["description"]
    return parent
