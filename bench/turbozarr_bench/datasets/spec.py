"""Dataset specs: a validated bundle of settings that names one fixture.

A spec is checked as a whole when it is read (shards imply Zarr v3, a shard is
a whole number of chunks, a codec level is in range...), so a bad spec fails
before anything is installed or generated. Its hash, which also covers the
generator version, names the cached fixture: change the spec and the fixture
is regenerated.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from turbozarr_bench.datasets.pixels import GENERATOR_VERSIONS, GENERATORS, WHOLE_ARRAY_GENERATORS


class SpecError(ValueError):
    """A dataset spec that cannot be generated; the message names the key."""


KINDS = ("array", "npy", "vcz", "csr")
CODECS = ("none", "zstd", "gzip", "blosc-lz4", "blosc-zstd", "blosc-blosclz")
SHUFFLES = ("none", "byte", "bit")
LEVEL_RANGES = {"zstd": (-131072, 22), "gzip": (0, 9), "blosc-lz4": (0, 9),
                "blosc-zstd": (0, 9), "blosc-blosclz": (0, 9)}
DEFAULT_LEVELS = {"zstd": 0, "gzip": 6, "blosc-lz4": 5, "blosc-zstd": 5, "blosc-blosclz": 5}

COMMON_KEYS = {"kind", "base", "workload", "description", "seed"}
ARRAY_KEYS = COMMON_KEYS | {"shape", "dtype", "chunks", "shards", "zarr_format", "codec",
                            "level", "shuffle", "fill_value", "pixels", "levels", "roi_size"}
NPY_KEYS = COMMON_KEYS | {"shape", "dtype", "pixels"}
VCZ_KEYS = COMMON_KEYS | {"samples", "variants", "variant_chunk", "sample_chunk", "zarr_format",
                          "variant_only_bytes"}
CSR_KEYS = COMMON_KEYS | {"cells", "genes", "tile_cells", "nnz_min", "nnz_max", "max_count"}
KEYS_BY_KIND = {"array": ARRAY_KEYS, "npy": NPY_KEYS, "vcz": VCZ_KEYS, "csr": CSR_KEYS}

WHOLE_ARRAY_LIMIT = 1 << 30  # bytes a whole-array generator may hold


@dataclass(frozen=True)
class DatasetSpec:
    """One fixture. `values` holds every key, defaults filled in."""

    name: str
    values: dict[str, Any] = field(hash=False)

    def __getattr__(self, key: str) -> Any:
        try:
            return self.__dict__["values"][key]
        except KeyError:
            raise AttributeError(key) from None

    @property
    def kind(self) -> str:
        return self.values["kind"]

    @property
    def is_zarr(self) -> bool:
        return self.kind == "array"

    @property
    def sharded(self) -> bool:
        return self.kind == "array" and self.values.get("shards") is not None

    @property
    def format_label(self) -> str:
        """'zarr2', 'zarr3', 'npy', 'vcz' or 'csr': what an adapter must read."""
        if self.kind == "array":
            return f"zarr{self.values['zarr_format']}"
        return self.kind

    @property
    def nbytes(self) -> int:
        if self.kind in ("array", "npy"):
            return math.prod(self.values["shape"]) * np.dtype(self.values["dtype"]).itemsize
        return 0

    @property
    def write_unit(self) -> tuple[int, ...]:
        """The shape one store key holds: the shard, else the chunk."""
        return tuple(self.values.get("shards") or self.values["chunks"])

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **self.values}

    def spec_hash(self) -> str:
        generator = self.values.get("pixels", self.kind)
        doc = json.dumps({**self.values, "_generator": GENERATOR_VERSIONS.get(generator, 1)},
                         sort_keys=True)
        return hashlib.sha256(doc.encode()).hexdigest()[:12]

    def describe(self) -> str:
        v = self.values
        if self.kind == "npy":
            return f"{tuple(v['shape'])} {v['dtype']} .npy"
        if self.kind == "array":
            parts = [f"{tuple(v['shape'])} {v['dtype']} v{v['zarr_format']}",
                     f"chunks {tuple(v['chunks'])}"]
            if v.get("shards"):
                parts.append(f"shards {tuple(v['shards'])}")
            codec = v["codec"]
            if codec != "none":
                codec += f"({v['level']}" + (f",{v['shuffle']}" if codec.startswith("blosc")
                                              else "") + ")"
            parts.append(codec)
            return ", ".join(parts)
        if self.kind == "vcz":
            return f"VCF Zarr {v['variants']} variants x {v['samples']} samples"
        return f"CSR counts {v['cells']} cells x {v['genes']} genes"


def _fail(where: str, key: str, message: str) -> SpecError:
    return SpecError(f"{where}: dataset key '{key}': {message}")


def _int_list(where: str, key: str, value: Any, rank: int | None = None) -> list[int]:
    if not isinstance(value, list) or not value or not all(
            isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value):
        raise _fail(where, key, f"must be a non-empty list of positive integers, got {value!r}")
    if rank is not None and len(value) != rank:
        raise _fail(where, key, f"must have {rank} entries like 'shape', got {len(value)}")
    return list(value)


def _pos_int(where: str, key: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise _fail(where, key, f"must be a positive integer, got {value!r}")
    return value


def _check_type(where: str, key: str, value: Any, kind: type | tuple) -> None:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise _fail(where, key, f"must be {getattr(kind, '__name__', kind)}, got {value!r}")


def validate(name: str, raw: dict[str, Any], where: str) -> DatasetSpec:
    """A DatasetSpec from a table whose `base` (if any) is already merged in."""
    where = f"{where} [datasets.{name}]"
    kind = raw.get("kind", "array")
    if kind not in KINDS:
        raise _fail(where, "kind", f"must be one of {list(KINDS)}, got {kind!r}")
    allowed = KEYS_BY_KIND[kind]
    for key in raw:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key '{key}' for a dataset of kind '{kind}' "
                            f"(allowed: {', '.join(sorted(allowed))})")
    v: dict[str, Any] = {k: raw[k] for k in raw if k != "base"}
    v["kind"] = kind
    v.setdefault("seed", 0)
    _check_type(where, "seed", v["seed"], int)
    for key in ("workload", "description"):
        if key in v:
            _check_type(where, key, v[key], str)
    if kind in ("array", "npy"):
        _validate_array(where, v)
    elif kind == "vcz":
        for key, default in (("samples", 20000), ("variants", 100000),
                             ("variant_chunk", 1000), ("sample_chunk", 10000)):
            v[key] = _pos_int(where, key, v.get(key, default))
        if "variant_only_bytes" in v:
            v["variant_only_bytes"] = _pos_int(where, "variant_only_bytes",
                                               v["variant_only_bytes"])
        v.setdefault("zarr_format", 2)
        if v["zarr_format"] not in (2, 3):
            raise _fail(where, "zarr_format", f"must be 2 or 3, got {v['zarr_format']!r}")
    else:
        for key, default in (("cells", 100000), ("genes", 38000), ("tile_cells", 10000),
                             ("nnz_min", 2000), ("nnz_max", 5000), ("max_count", 100000)):
            v[key] = _pos_int(where, key, v.get(key, default))
        if v["nnz_min"] > v["nnz_max"]:
            raise _fail(where, "nnz_min", "must not exceed nnz_max")
        if v["nnz_max"] > v["genes"]:
            raise _fail(where, "nnz_max", "must not exceed genes")
    return DatasetSpec(name, v)


def _validate_array(where: str, v: dict[str, Any]) -> None:
    if "shape" not in v:
        raise _fail(where, "shape", "is required")
    shape = _int_list(where, "shape", v["shape"])
    if "dtype" not in v:
        raise _fail(where, "dtype", "is required")
    try:
        dt = np.dtype(v["dtype"])
    except TypeError as e:
        raise _fail(where, "dtype", f"is not a numpy dtype: {v['dtype']!r}") from e
    if dt.kind not in "iuf" or dt.byteorder == ">":
        raise _fail(where, "dtype", f"must be a native integer or float type, got {v['dtype']!r}")
    v["dtype"] = dt.name
    v.setdefault("pixels", "photo" if dt == np.uint8 and len(shape) == 2 else "arange")
    if v["pixels"] not in GENERATORS:
        raise _fail(where, "pixels", f"must be one of {sorted(GENERATORS)}, got {v['pixels']!r}")
    ranks = {"photo": 2, "cubic": 3, "ome": 4}
    if v["pixels"] in ranks and len(shape) != ranks[v["pixels"]]:
        raise _fail(where, "pixels", f"'{v['pixels']}' needs a {ranks[v['pixels']]}-D shape, "
                    f"got {len(shape)}-D")
    nbytes = math.prod(shape) * dt.itemsize
    if v["pixels"] in WHOLE_ARRAY_GENERATORS and nbytes > WHOLE_ARRAY_LIMIT:
        raise _fail(where, "pixels", f"'{v['pixels']}' draws the whole array at once and is "
                    f"limited to {WHOLE_ARRAY_LIMIT >> 20} MiB; this one is {nbytes >> 20} MiB")
    if v["kind"] == "npy":
        return
    if "chunks" not in v:
        raise _fail(where, "chunks", "is required for a zarr dataset")
    chunks = _int_list(where, "chunks", v["chunks"], len(shape))
    v.setdefault("zarr_format", 3)
    if v["zarr_format"] not in (2, 3):
        raise _fail(where, "zarr_format", f"must be 2 or 3, got {v['zarr_format']!r}")
    shards = v.get("shards")
    if shards == []:  # `shards = []` removes the shards of a base dataset
        v.pop("shards")
        shards = None
    if shards is not None:
        shards = _int_list(where, "shards", shards, len(shape))
        if v["zarr_format"] != 3:
            raise _fail(where, "shards", "sharding needs zarr_format = 3")
        bad = [d for d in range(len(shape)) if shards[d] % chunks[d]]
        if bad:
            raise _fail(where, "shards", f"{shards} is not a whole number of chunks {chunks} "
                        f"along axis {bad[0]}")
    codec = v.setdefault("codec", "zstd")
    if codec not in CODECS:
        raise _fail(where, "codec", f"must be one of {list(CODECS)}, got {codec!r}")
    if codec == "none":
        for key in ("level", "shuffle"):
            if key in v:
                raise _fail(where, key, "has no meaning with codec = 'none'")
    else:
        level = v.setdefault("level", DEFAULT_LEVELS[codec])
        lo, hi = LEVEL_RANGES[codec]
        if not isinstance(level, int) or isinstance(level, bool) or not lo <= level <= hi:
            raise _fail(where, "level", f"must be an integer in [{lo}, {hi}] for {codec}, "
                        f"got {level!r}")
        if codec.startswith("blosc"):
            shuffle = v.setdefault("shuffle", "byte")
            if shuffle not in SHUFFLES:
                raise _fail(where, "shuffle", f"must be one of {list(SHUFFLES)}, got {shuffle!r}")
        elif "shuffle" in v:
            raise _fail(where, "shuffle", f"applies to blosc codecs only, not {codec!r}")
    fill = v.setdefault("fill_value", 0)
    if not isinstance(fill, (int, float)) or isinstance(fill, bool):
        raise _fail(where, "fill_value", f"must be a number, got {fill!r}")
    if "levels" in v:
        _pos_int(where, "levels", v["levels"])
    if "roi_size" in v:
        _pos_int(where, "roi_size", v["roi_size"])
