"""A codec pipeline for zarr-python 3.4: its reads and writes, run by the engine.

    import zarr
    zarr.config.set({"codec_pipeline.path": "turbozarr.ZarrCodecPipeline"})

(or ZARR_CODEC_PIPELINE__PATH=turbozarr.ZarrCodecPipeline in the environment)
and every read and write of a zarr-python array goes through turbozarr:
fetch, decode, copy into the result and the reverse, on the engine's threads
with the GIL released, off zarr-python's event loop (``asyncio.to_thread``).

zarr-python hands a pipeline one batch per read or write: a (key, chunk
selection, output selection) item per chunk (per shard, when sharded). The
batch of a slice selection tiles one strided box of the array; it is
recognised as such and run as one engine read or write of that box, straight
into zarr-python's output buffer. Other batches (integer-array and mask
selections) run chunk by chunk: the engine reads each chunk's bounding box
and numpy applies the selection; a write hands the engine the box with the
selected elements and a mask of them, merged into the chunk under its lock.

Where the chunks live decides who moves the bytes:

- stores the engine has itself (a LocalStore, a read-only ZipStore, an
  fsspec or obstore store over http(s)://, an fsspec store over s3://)
  are read and written by the engine directly;
- any other store (MemoryStore, a ZipStore open for writing, wrappers) is
  read and written by zarr-python's own store methods, and the engine
  decodes and encodes: the batch's keys are staged in an engine memory
  store, and what the engine wrote is copied back.

Rectilinear chunk grids (zarr-python's `array.rectilinear_chunks`) run on
the engine too: each chunk's place along a dimension comes from the grid's
edges instead of one chunk shape.

Arrays the engine cannot take (a codec or data type it lacks, a chunk grid
it does not know, output that is not numpy) run on zarr-python's default pipeline
(BatchedCodecPipeline); the reason is logged once per array at DEBUG level
on the "turbozarr.zarr_pipeline" logger. With
``zarr.config.set({"codec_pipeline.strict": True})`` a fallback raises
``turbozarr.UnsupportedError`` naming the reason instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import itertools
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from turbozarr import _core, _dtypes, _store
from turbozarr._array import Array
from turbozarr._fancy_indexing import read_blocks, unset_block
from turbozarr._optional import import_optional
from turbozarr.errors import UnsupportedError

# zarr-python is the `zarr` extra's. The pipeline API below (rectilinear chunk
# grids among it) is 3.4.2's, and zarr-python 3.4 needs Python 3.12: an older
# release is named as such here, rather than by the first name it lacks.
_ZARR_MINIMUM = (3, 4, 2)
_FEATURE = "turbozarr.ZarrCodecPipeline (zarr-python 3.4.2 or later, on Python 3.12 or later)"


def _check_zarr_version(version: str) -> None:
    """ImportError naming the release needed and the extra, where zarr-python
    `version` is older than 3.4.2 (a version that starts with no release
    numbers, as a checkout's may, passes)."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    if match is None or tuple(int(p) for p in match.group().split(".")) >= _ZARR_MINIMUM:
        return
    install = 'upgrade it with: pip install "turbozarr[zarr]"'
    if sys.version_info < (3, 12):
        install = ("zarr-python 3.4 needs Python 3.12 or later (this is %d.%d); "
                   'there, pip install "turbozarr[zarr]" installs it' % sys.version_info[:2])
    raise ImportError(f"turbozarr.ZarrCodecPipeline needs zarr-python 3.4.2 or later, and "
                      f"zarr-python {version} is installed; {install}", name="zarr")


_check_zarr_version(import_optional("zarr", "zarr", _FEATURE).__version__)
from zarr.abc.codec import CodecPipeline  # noqa: E402
from zarr.codecs._v2 import V2Codec  # noqa: E402
from zarr.core.array_spec import ArrayConfig, ArraySpec  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.metadata.v3 import (  # noqa: E402
    RectilinearChunkGridMetadata,
    RegularChunkGridMetadata,
)
from zarr.core.codec_pipeline import BatchedCodecPipeline  # noqa: E402
from zarr.core.config import config as zarr_config  # noqa: E402
from zarr.core.metadata import ArrayV2Metadata, ArrayV3Metadata  # noqa: E402
from zarr.registry import register_pipeline  # noqa: E402

if TYPE_CHECKING:
    from typing import Self

    from zarr.abc.codec import Codec, GetResult
    from zarr.abc.store import ByteGetter, ByteSetter, Store
    from zarr.core.buffer import Buffer, NDBuffer
    from zarr.core.metadata import ArrayMetadata

logger = logging.getLogger("turbozarr.zarr_pipeline")

# One item of a zarr-python batch: (store path, chunk spec, selection in the
# chunk, selection in the output, whether the chunk is written whole).
BatchItem = tuple[Any, ArraySpec, Any, Any, bool]


class _Unsupported(Exception):
    """Why one array or one call leaves the engine for zarr-python's pipeline."""


def _default_pipeline(metadata: ArrayMetadata) -> BatchedCodecPipeline:
    """zarr-python's BatchedCodecPipeline for `metadata`, built as zarr-python
    builds it (create_codec_pipeline would ask the configured class: us)."""
    if isinstance(metadata, ArrayV3Metadata):
        pipeline = BatchedCodecPipeline.from_codecs(metadata.codecs)
        grid = metadata.chunk_grid
        chunk_shape = (grid.chunk_shape if isinstance(grid, RegularChunkGridMetadata)
                       else (1,) * len(metadata.shape))
        spec = ArraySpec(shape=chunk_shape, dtype=metadata.data_type,
                         fill_value=metadata.fill_value, config=ArrayConfig.from_dict({}),
                         prototype=default_buffer_prototype())
    else:
        pipeline = BatchedCodecPipeline.from_codecs(
            [V2Codec(filters=metadata.filters, compressor=metadata.compressor)])
        spec = ArraySpec(shape=metadata.chunks, dtype=metadata.dtype,
                         fill_value=metadata.fill_value,
                         config=ArrayConfig.from_dict({"order": metadata.order}),
                         prototype=default_buffer_prototype())
    return pipeline.evolve_from_array_spec(spec)


# -- where the bytes live ------------------------------------------------------


def _s3_options(fs: Any) -> dict[str, Any]:
    """open_store's S3 options from an s3fs filesystem's settings."""
    client = dict(getattr(fs, "client_kwargs", None) or {})
    options = {
        "endpoint_url": getattr(fs, "endpoint_url", None) or client.get("endpoint_url"),
        "region": client.get("region_name"),
        "access_key_id": getattr(fs, "key", None),
        "secret_access_key": getattr(fs, "secret", None),
        "session_token": getattr(fs, "token", None),
    }
    if not (options["access_key_id"] and options["secret_access_key"]):
        options.pop("session_token")
        options.pop("access_key_id")
        options.pop("secret_access_key")
    return {k: v for k, v in options.items() if v is not None}


def _engine_store(store: Store) -> tuple[Any | None, str]:
    """The engine's own store over the same bytes as zarr-python's `store` and
    the key prefix that maps zarr-python's keys onto it, or (None, reason)
    when the engine cannot reach them itself."""
    kind = type(store).__name__
    if kind == "LocalStore":
        root = os.fspath(store.root)
        return _store.open_store(root, read_only=store.read_only), ""
    if kind == "ZipStore":
        # An archive open for writing has no central directory on disk yet.
        if store._zmode != "r":  # noqa: SLF001 (the mode zarr-python opened it with)
            return None, "a ZipStore open for writing is written by zarr-python"
        return _store.open_store(os.fspath(store.path), read_only=True), ""
    if kind == "FsspecStore":
        protocols = store.fs.protocol
        protocols = (protocols,) if isinstance(protocols, str) else tuple(protocols)
        path = store.path.rstrip("/")
        if {"http", "https"} & set(protocols):
            return _store.open_store(path, read_only=True), ""
        if {"s3", "s3a"} & set(protocols):
            url = path if path.startswith("s3://") else "s3://" + path
            return _store.open_store(url, read_only=store.read_only,
                                     **_s3_options(store.fs)), ""
        return None, f"an fsspec store over {protocols[0]}:// is not one of the engine's"
    if kind == "ObjectStore":
        inner = store.store
        url = getattr(inner, "url", None)
        if type(inner).__name__ == "HTTPStore" and isinstance(url, str):
            return _store.open_store(url.rstrip("/"), read_only=True), ""
        return None, f"an obstore {type(inner).__name__} is read by zarr-python"
    return None, f"a {kind} is read and written by zarr-python"


def _location(store: Store) -> Any:
    """Where zarr-python's store keeps its bytes, as far as the engine's
    store over them depends on it."""
    return (getattr(store, "root", None), getattr(store, "path", None),
            getattr(store, "_zmode", None))


# -- chunk keys ----------------------------------------------------------------


@dataclass(frozen=True)
class _KeyScheme:
    """Splits a zarr-python chunk key into the array's path and the chunk's
    grid coordinates, for the two chunk key encodings of the spec."""

    ndim: int
    prefix: str  # "c" + separator (v3 default encoding) or ""
    separator: str

    @classmethod
    def of(cls, metadata: ArrayMetadata) -> _KeyScheme:
        ndim = len(metadata.shape)
        if isinstance(metadata, ArrayV2Metadata):
            return cls(ndim, "", metadata.dimension_separator or ".")
        encoding = metadata.chunk_key_encoding
        name = getattr(encoding, "name", None)
        separator = getattr(encoding, "separator", "/")
        if name == "default":
            return cls(ndim, "c" + separator, separator)
        if name == "v2":
            return cls(ndim, "", separator)
        raise _Unsupported(f"chunk key encoding {name!r} is not one of the spec's")

    def segments(self) -> int:
        """How many '/'-separated segments a chunk key takes."""
        if self.ndim == 0:
            return 1
        if self.separator == "/":
            return self.ndim + (1 if self.prefix else 0)
        return 1

    def split(self, key: str) -> tuple[str, tuple[int, ...]]:
        # rsplit: the path before the chunk key may hold any number of '/'.
        n = self.segments()
        parts = key.rsplit("/", n)
        path = parts[0] if len(parts) > n else ""
        if self.ndim == 0:
            return path, ()
        if self.separator == "/":
            return path, tuple(map(int, parts[-self.ndim:]))
        return path, tuple(map(int, parts[-1][len(self.prefix):].split(self.separator)))


# -- turning a batch into engine selections -----------------------------------


def _dim_range(sel: Any, extent: int) -> tuple[int, int, int] | None:
    """(start, stop, step) of a slice or integer in one dimension of a chunk,
    None for anything else (an integer array)."""
    if isinstance(sel, slice):
        start, stop, step = sel.indices(extent)
        if step < 1:
            return None
        return start, max(start, stop), step
    if _is_integer(sel):
        return int(sel), int(sel) + 1, 1
    return None


@dataclass(slots=True)
class _Item:
    coords: tuple[int, ...]
    spec: ArraySpec
    chunk_selection: tuple[Any, ...]
    out_selection: tuple[Any, ...]
    complete: bool
    key: str
    setter: Any


def _is_integer(sel: Any) -> bool:
    return isinstance(sel, (int, np.integer))


class _Grid:
    """Where the stored chunks (shards, when sharded) lie along each
    dimension: multiples of one chunk shape on a regular grid, the edges of a
    rectilinear one (its chunks within the array, the last clipped at the
    array's edge)."""

    def __init__(self, chunk_shape: tuple[int, ...],
                 sizes: Sequence[Sequence[int]] | None = None) -> None:
        self.regular = sizes is None
        self.chunk_shape = tuple(chunk_shape)
        self.sizes = [tuple(d) for d in sizes or ()]
        self.starts = [[0, *itertools.accumulate(d)] for d in self.sizes]

    @classmethod
    def of(cls, array: Array) -> _Grid:
        core = array._core  # noqa: SLF001
        if core.regular_grid:
            return cls(tuple(core.chunk_shape))
        return cls(tuple(core.chunk_shape), array.write_chunk_sizes)

    def origin(self, d: int, index: int) -> int:
        """Where chunk `index` starts along d (for a chunk just past a
        rectilinear grid's last: where the grid ends)."""
        if self.regular:
            return index * self.chunk_shape[d]
        return self._known(d, index, self.starts[d])

    def length(self, d: int, index: int) -> int:
        """The chunk's length along d (clipped at the array's edge when the
        grid is rectilinear)."""
        if self.regular:
            return self.chunk_shape[d]
        return self._known(d, index, self.sizes[d])

    def end(self, d: int, index: int) -> int:
        return self.origin(d, index) + self.length(d, index)

    @staticmethod
    def _known(d: int, index: int, values: Sequence[int]) -> int:
        if not 0 <= index < len(values):
            raise _Unsupported(f"chunk {index} along dimension {d}, past the rectilinear "
                               f"grid the array was opened with")
        return values[index]


def _one_box(items: list[_Item], grid: _Grid,
             array_shape: tuple[int, ...], out_shape: tuple[int, ...],
             drop_axes: tuple[int, ...]) -> list[tuple[int, int, int]] | None:
    """The strided box of the array whose elements, in C order, are the
    output block of the batch (one (start, stop, step) per array dimension),
    or None when the batch is not such a box.

    It is one when the items are the Cartesian product of one selection per
    chunk row along each dimension (every chunk at grid index i along d
    selects the same slice, or the same integer of a dimension dropped from
    the output), the slices share one step per dimension, each lands where
    the box's start and step put its first element, and together they fill
    the output. A pass over the items only gathers the selection per grid
    index; the checks then run per dimension, not per chunk."""
    ndim = len(array_shape)
    if drop_axes or not items or len(items[0].chunk_selection) != ndim:
        return None
    kept = tuple(d for d in range(ndim) if not _is_integer(items[0].chunk_selection[d]))
    if len(kept) != len(out_shape):
        return None
    out_axis = {d: k for k, d in enumerate(kept)}
    # Per dimension: grid index -> (selection in the chunk, selection in the output).
    rows: list[dict[int, tuple[Any, Any]]] = [{} for _ in range(ndim)]
    seen = set()
    no_output = (None,) * ndim
    for item in items:
        cs, out, coords = item.chunk_selection, item.out_selection, item.coords
        if len(cs) != ndim or len(out) != len(kept):
            return None
        outs = no_output if not kept else [None] * ndim
        for k, d in enumerate(kept):
            outs[d] = out[k]
        for d in range(ndim):
            entry = (cs[d], outs[d])
            if isinstance(entry[0], np.ndarray) or isinstance(entry[1], np.ndarray):
                return None  # integer arrays: not a box
            previous = rows[d].setdefault(coords[d], entry)
            if previous is not entry and previous != entry:
                return None
        seen.add(coords)
    if len(seen) != len(items) or len(items) != math.prod(len(r) for r in rows):
        return None
    box = []
    for d in range(ndim):
        step = None
        starts = set()
        filled = 0
        n = out_shape[out_axis[d]] if d in out_axis else 1
        for index, (sel, out) in rows[d].items():
            if _is_integer(sel) == (d in out_axis):
                return None
            r = _dim_range(sel, grid.length(d, index))
            if r is None:
                return None
            start, stop, s = r
            count = len(range(start, stop, s))
            out_start = 0
            if d in out_axis:
                if not isinstance(out, slice):
                    return None
                out_start, out_stop, out_step = out.indices(n)
                if out_step != 1 or out_stop - out_start != count:
                    return None
            if count > 1:
                if step is None:
                    step = s
                elif step != s:
                    return None
            filled += count
            starts.add((grid.origin(d, index) + start, out_start))
        step = step or 1
        origins = {first - out_start * step for first, out_start in starts}
        if filled != n or len(origins) != 1:
            return None
        origin = origins.pop()
        stop = origin + (n - 1) * step + 1
        if origin < 0 or stop > array_shape[d]:
            return None
        box.append((origin, stop, step))
    return box


def _bounding_box(item: _Item, grid: _Grid,
                  array_shape: tuple[int, ...]) -> tuple[list[tuple[int, int, int]],
                                                         tuple[Any, ...]]:
    """The array box around one chunk's selection and the selection within
    that box that numpy applies (integers stay integers, so that the same
    dimensions drop as in zarr-python's chunk_array[chunk_selection])."""
    ranges = []
    local = []
    for d, sel in enumerate(item.chunk_selection):
        origin = grid.origin(d, item.coords[d])
        extent = min(grid.length(d, item.coords[d]), array_shape[d] - origin)
        r = _dim_range(sel, extent)
        if r is not None:
            start, stop, s = r
            if stop <= start:
                ranges.append((origin, origin, 1))
                local.append(slice(0, 0))
                continue
            ranges.append((origin + start, origin + stop, s))
            local.append(0 if _is_integer(sel) else slice(None))
            continue
        indices = np.asarray(sel)
        if indices.dtype == bool:
            # A mask along one dimension picks the same elements as its
            # positions (zarr-python turns masks into positions as soon as
            # two dimensions carry arrays).
            if indices.ndim != 1:
                raise _Unsupported(f"a {indices.ndim}-dimensional mask within a chunk")
            indices = np.flatnonzero(indices)
        if indices.size == 0:
            ranges.append((origin, origin, 1))
            local.append(indices.astype(np.intp))
            continue
        low, high = int(indices.min()), int(indices.max())
        ranges.append((origin + low, origin + high + 1, 1))
        local.append(indices - low)
    return ranges, tuple(local)


# -- statuses ------------------------------------------------------------------


class _Statuses(Sequence):
    """The per-chunk GetResult statuses of a read, worked out when first
    asked for: zarr-python looks at them only when array.read_missing_chunks
    is False, and the engine's read does not report which chunks it filled."""

    def __init__(self, present: Any) -> None:
        self._present = present
        self._results: tuple[GetResult, ...] | None = None

    def _resolve(self) -> tuple[GetResult, ...]:
        if self._results is None:
            self._results = tuple({"status": "present" if p else "missing"}
                                  for p in self._present())
        return self._results

    def __getitem__(self, i):  # type: ignore[override]
        return self._resolve()[i]

    def __len__(self) -> int:
        return len(self._resolve())

    def __iter__(self) -> Iterator[GetResult]:
        return iter(self._resolve())


# -- the engine side of one array -----------------------------------------------


class _Engine:
    """The engine's Array for one zarr-python array, opened from its metadata
    (nothing is read from the store to open it)."""

    def __init__(self, metadata: ArrayMetadata, core_store: Any, path: str) -> None:
        try:
            documents = metadata.to_buffer_dict(default_buffer_prototype())
        except Exception as e:  # noqa: BLE001 (zarr-python refuses to write it out:
            # a rectilinear grid while array.rectilinear_chunks is off, say)
            raise _Unsupported(f"zarr-python cannot write the metadata out: {e}") from e
        if isinstance(metadata, ArrayV3Metadata):
            self._format, key, self._attributes = 3, "zarr.json", "null"
        else:
            self._format, key = 2, ".zarray"
            attrs = documents.get(".zattrs")
            self._attributes = attrs.to_bytes().decode() if attrs is not None else "null"
        self._document = json.loads(documents[key].to_bytes())
        grid = self._document.get("chunk_grid")
        if isinstance(grid, dict) and grid.get("name", "regular") not in ("regular",
                                                                          "rectilinear"):
            raise _Unsupported(f"the {grid.get('name')!r} chunk grid")
        self.rectilinear = isinstance(grid, dict) and grid.get("name") == "rectilinear"
        self.path = path
        self.staged = core_store is None
        # Staged arrays get a memory store of their own per call (for_call).
        self.store = _core.memory_store() if self.staged else core_store
        self.shape = tuple(metadata.shape)
        try:
            self.array = self._open(self.store, self.shape)
        except Exception as e:  # noqa: BLE001 (any refusal of the metadata is a reason)
            raise _Unsupported(str(e)) from e
        self.grid = _Grid.of(self.array)
        self._by_shape: dict[tuple[int, ...], _Engine] = {}

    def _open(self, store: Any, shape: tuple[int, ...]) -> Array:
        document = dict(self._document, shape=list(shape))
        return Array(_core.array_from_metadata(store, self.path, self._format,
                                               json.dumps(document), self._attributes))

    def for_call(self, shape: tuple[int, ...]) -> _Engine:
        """The array as one call sees it: of `shape` (zarr-python resizes an
        array in place, keeping its pipeline, so the shape a call needs comes
        from the call), over a memory store of its own when staged (calls
        may run at once)."""
        if not self.staged and shape == self.shape:
            return self
        engine = None if self.staged else self._by_shape.get(shape)
        if engine is None:
            engine = object.__new__(_Engine)
            engine.__dict__.update(self.__dict__)
            engine.store = _core.memory_store() if self.staged else self.store
            engine.shape = shape
            engine.array = self._open(engine.store, shape)
            engine.grid = _Grid.of(engine.array)
            if not self.staged:
                self._by_shape = {shape: engine}  # the newest shape only
        return engine


@dataclass
class ZarrCodecPipeline(CodecPipeline):
    """zarr-python's CodecPipeline, run by turbozarr's engine (module docstring)."""

    metadata: ArrayMetadata
    store: Store | None
    fallback: BatchedCodecPipeline
    # What the pipeline works out for itself: not part of its identity (two
    # pipelines of the same array and store are equal, as zarr-python's are).
    _unsupported: str | None = field(default=None, compare=False)
    _engines: dict[str, _Engine] = field(default_factory=dict, repr=False, compare=False)
    _scheme: _KeyScheme | None = field(default=None, repr=False, compare=False)
    _core_store: Any = field(default=None, repr=False, compare=False)
    _logged: bool = field(default=False, repr=False, compare=False)
    _location: Any = field(default=None, repr=False, compare=False)

    # -- construction (zarr-python calls from_array_metadata_and_store) --------

    @classmethod
    def from_array_metadata_and_store(cls, array_metadata: ArrayMetadata,
                                      store: Store) -> Self:
        pipeline = cls(metadata=array_metadata, store=store,
                       fallback=_default_pipeline(array_metadata))
        pipeline._prepare()
        return pipeline

    @classmethod
    def from_codecs(cls, codecs: Iterable[Codec]) -> BatchedCodecPipeline:  # type: ignore[override]
        # Without the array's metadata and store there is nothing for the
        # engine to run: a bare chain of codecs is zarr-python's to apply.
        return BatchedCodecPipeline.from_codecs(codecs)

    def _prepare(self) -> None:
        try:
            self._check_metadata()
            self._scheme = _KeyScheme.of(self.metadata)
            if self.store is not None:
                self._location = _location(self.store)
                self._core_store, reason = _engine_store(self.store)
                if self._core_store is None:
                    logger.debug("%s: staged through zarr-python's store: %s",
                                 self._name(), reason)
        except _Unsupported as e:
            self._unsupported = str(e)
        except Exception as e:  # noqa: BLE001 (a store the engine cannot open)
            self._unsupported = f"the engine cannot open the store: {e}"

    def _check_metadata(self) -> None:
        metadata = self.metadata
        if isinstance(metadata, ArrayV3Metadata):
            if not isinstance(metadata.chunk_grid, (RegularChunkGridMetadata,
                                                    RectilinearChunkGridMetadata)):
                raise _Unsupported(f"chunk grid {type(metadata.chunk_grid).__name__}")
            # scale_offset: the engine refuses overflow and inexact division
            # as zarr-python does, but with its own error types; zarr-python's
            # tests ask for its ValueError, so its pipeline runs it for now.
            for codec in metadata.codecs:
                if codec.to_dict().get("name") == "scale_offset":
                    raise _Unsupported("codec scale_offset (zarr-python's error types)")
        elif not isinstance(metadata, ArrayV2Metadata):
            raise _Unsupported(f"metadata {type(metadata).__name__}")
        dtype = metadata.dtype.to_native_dtype()
        # Raw bytes ("V" without fields) take zarr-python's pipeline for now.
        if dtype.kind == "V" and dtype.fields is None:
            raise _Unsupported(f"data type {metadata.dtype} ({dtype})")

    def __getstate__(self) -> dict[str, Any]:
        return {"metadata": self.metadata, "store": self.store}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(metadata=state["metadata"], store=state["store"],  # type: ignore[misc]
                      fallback=_default_pipeline(state["metadata"]))
        self._prepare()

    def evolve_from_array_spec(self, array_spec: ArraySpec) -> Self:
        return self

    # -- what zarr-python asks of every pipeline --------------------------------

    @property
    def supports_partial_decode(self) -> bool:
        return self.fallback.supports_partial_decode

    @property
    def supports_partial_encode(self) -> bool:
        return self.fallback.supports_partial_encode

    def __iter__(self) -> Iterator[Codec]:
        return iter(self.fallback)

    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        self.fallback.validate(shape=shape, dtype=dtype, chunk_grid=chunk_grid)

    def compute_encoded_size(self, byte_length: int, array_spec: ArraySpec) -> int:
        return self.fallback.compute_encoded_size(byte_length, array_spec)

    async def decode(self, chunk_bytes_and_specs: Iterable[tuple[Buffer | None, ArraySpec]]
                     ) -> Iterable[NDBuffer | None]:
        return await self.fallback.decode(chunk_bytes_and_specs)

    async def encode(self, chunk_arrays_and_specs: Iterable[tuple[NDBuffer | None, ArraySpec]]
                     ) -> Iterable[Buffer | None]:
        return await self.fallback.encode(chunk_arrays_and_specs)

    # -- reads and writes ---------------------------------------------------------

    def _name(self) -> str:
        return f"array of shape {tuple(self.metadata.shape)} in {self.store}"

    def _refuse(self, reason: str) -> None:
        """A fallback: logged once per array, or an error under strict."""
        if zarr_config.get("codec_pipeline.strict", False):
            raise UnsupportedError(f"turbozarr cannot run this call on {self._name()}: "
                                   f"{reason}")
        if not self._logged:
            self._logged = True
            logger.debug("%s: zarr-python's pipeline runs it: %s", self._name(), reason)

    def _items(self, batch: Iterable[BatchItem]) -> tuple[list[_Item], _Engine]:
        if self.store is not None and _location(self.store) != self._location:
            # The store moved (LocalStore.move): the engine follows it.
            self._engines.clear()
            self._unsupported = None
            self._prepare()
        if self._unsupported is not None:
            raise _Unsupported(self._unsupported)
        split = self._scheme.split  # type: ignore[union-attr]
        items: list[_Item] = []
        path = None
        for getter, spec, chunk_sel, out_sel, complete in batch:
            key = getter.path
            item_path, coords = split(key)
            if path is None:
                path = item_path
            elif item_path != path:
                raise _Unsupported("a batch over several arrays")
            items.append(_Item(coords, spec,
                               chunk_sel if type(chunk_sel) is tuple else (chunk_sel,),
                               out_sel if type(out_sel) is tuple else (out_sel,),
                               complete, key, getter))
        return items, self._engine(path or "")

    def _call_shape(self, engine: _Engine, items: list[_Item]) -> tuple[int, ...]:
        """The array's shape as far as this call can tell: the shape the
        pipeline was made with, grown to hold every chunk the call touches
        (reads are exact either way; see the module docstring for writes)."""
        if not items or not engine.shape:
            return engine.shape
        top = list(map(max, zip(*(item.coords for item in items))))
        if engine.rectilinear:
            # A rectilinear grid's edges past the shape the pipeline was made
            # with (zarr-python grew the array since) are not known here:
            # zarr-python's pipeline serves such a call.
            for d, last in enumerate(top):
                if engine.grid.origin(d, last) >= engine.shape[d]:
                    raise _Unsupported("a chunk past the rectilinear grid the array was "
                                       "opened with (it was resized since)")
            return engine.shape
        return tuple(max(extent, engine.grid.end(d, last))
                     for d, (extent, last) in enumerate(zip(engine.shape, top)))

    def _engine(self, path: str) -> _Engine:
        engine = self._engines.get(path)
        if engine is None:
            engine = _Engine(self.metadata, self._core_store, path)
            self._engines[path] = engine
        return engine

    def _for_engine(self, batch: list[BatchItem], buffer: NDBuffer,
                    what: str) -> tuple[list[_Item], _Engine, np.ndarray]:
        """The batch as the engine runs it; _Unsupported if it cannot."""
        items, engine = self._items(batch)
        array = buffer.as_ndarray_like()
        if not isinstance(array, np.ndarray):
            raise _Unsupported(f"{what} of type {type(array).__name__}")
        return items, engine.for_call(self._call_shape(engine, items)), array

    def _one_box_call(self, batch: list[BatchItem], target: Any,
                      drop_axes: tuple[int, ...]) -> tuple[_Engine, _Plan] | None:
        """The common call, a read or write of one box of a regular grid
        (a whole array, a window) into or from `target`, planned by the
        engine's batch_one_box without an _Item per chunk; None leaves the
        batch to the general way, which answers everything this declines."""
        scheme = self._scheme
        if (drop_axes or not batch or scheme is None or scheme.ndim == 0
                or self._unsupported is not None or not isinstance(target, np.ndarray)
                or (self.store is not None and _location(self.store) != self._location)):
            return None
        try:
            path, _ = scheme.split(batch[0][0].path)
            engine = self._engine(path)
        except (_Unsupported, ValueError):
            return None
        if engine.rectilinear or engine.staged:
            return None
        prefix = (path + "/" if path else "") + scheme.prefix
        found = _core.batch_one_box(batch, prefix, scheme.separator, engine.grid.chunk_shape,
                                    engine.shape, target.shape)
        if found is None:
            return None
        box, shape = found
        try:
            return engine.for_call(tuple(shape)), _Plan(box, [])
        except _Unsupported:
            return None

    async def read(self, batch_info: Iterable[BatchItem], out: NDBuffer,
                   drop_axes: tuple[int, ...] = ()) -> Sequence[GetResult]:
        batch = list(batch_info)
        one_box = self._one_box_call(batch, out.as_ndarray_like(), drop_axes)
        if one_box is not None:
            engine, plan = one_box
            await asyncio.to_thread(_read, engine, plan, out.as_ndarray_like(), drop_axes)
            keys = lambda: [item[0].path for item in batch]  # noqa: E731
            if not batch[0][1].config.read_missing_chunks:  # one spec for all (C++ checks)
                present = await asyncio.to_thread(_present, engine, keys())
                return tuple({"status": "present" if p else "missing"} for p in present)
            return _Statuses(lambda: _present(engine, keys()))
        try:
            items, engine, target = self._for_engine(batch, out, "output")
            plan = _plan(engine, items, target.shape, drop_axes)
        except _Unsupported as e:
            self._refuse(str(e))
            return await self.fallback.read(batch, out, drop_axes)
        if engine.staged:
            present = await _stage(engine, items)
            await asyncio.to_thread(_read, engine, plan, target, drop_axes)
            return tuple({"status": "present" if p else "missing"} for p in present)
        await asyncio.to_thread(_read, engine, plan, target, drop_axes)
        if not all(item.spec.config.read_missing_chunks for item in items):
            present = await asyncio.to_thread(_present, engine, [i.key for i in items])
            return tuple({"status": "present" if p else "missing"} for p in present)
        return _Statuses(lambda: _present(engine, [i.key for i in items]))

    async def write(self, batch_info: Iterable[BatchItem], value: NDBuffer,
                    drop_axes: tuple[int, ...] = ()) -> None:
        batch = list(batch_info)
        if not batch:
            return
        source = value.as_ndarray_like()
        one_box = (self._one_box_call(batch, source, drop_axes)
                   if getattr(source, "shape", ()) != () else None)
        if one_box is not None:
            engine, plan = one_box
            await asyncio.to_thread(_write, engine, plan, source, source.shape,
                                    batch[0][1].config.write_empty_chunks, drop_axes)
            return
        try:
            items, engine, source = self._for_engine(batch, value, "values")
            # A scalar value fills the box that the output selections make.
            shape = source.shape if source.shape != () else _output_shape(items)
            plan = _plan(engine, items, shape, drop_axes)
        except _Unsupported as e:
            self._refuse(str(e))
            await self.fallback.write(batch, value, drop_axes)
            return
        if engine.staged:
            # What the engine merges into, as zarr-python reads it: a chunk it
            # does not write whole (an edge chunk written to the edge is whole);
            # a shard it does not write whole to its far side (zarr-python keeps
            # the inner chunks beyond the array's edge).
            sharded = engine.array._core.inner_chunk_shape is not None  # noqa: SLF001
            await _stage(engine, [i for i in items if not i.complete or (
                sharded and not _whole_chunk(i))])
        await asyncio.to_thread(_write, engine, plan, source, shape,
                                items[0].spec.config.write_empty_chunks, drop_axes)
        if engine.staged:
            await _write_back(engine, items)


def _whole_chunk(item: _Item) -> bool:
    """Whether the item writes every element of its chunk, the part beyond
    the array's edge included (zarr-python's "complete" stops at the edge)."""
    return all(
        isinstance(sel, slice) and sel.indices(n) == (0, n, 1)
        for sel, n in zip(item.chunk_selection, item.spec.shape))


# -- staging through zarr-python's store ----------------------------------------


async def _stage(engine: _Engine, items: list[_Item]) -> list[bool]:
    """Copies the chunks of `items` from zarr-python's store into the
    engine's memory store; which were present."""
    limit = zarr_config.get("async.concurrency")
    semaphore = asyncio.Semaphore(limit or 64)

    async def fetch(item: _Item) -> bool:
        async with semaphore:
            buffer = await item.setter.get(prototype=item.spec.prototype)
        if buffer is None:
            return False
        engine.store.set(item.key, buffer.as_numpy_array())  # one copy, into the engine
        return True

    return list(await asyncio.gather(*(fetch(i) for i in items)))


async def _write_back(engine: _Engine, items: list[_Item]) -> None:
    """Copies what the engine wrote for `items` back to zarr-python's store
    (a chunk the engine erased, all fill value, is deleted there too)."""
    async def put(item: _Item) -> None:
        data = engine.store.get_array(item.key)  # the engine's bytes, not a copy
        if data is None:
            await item.setter.delete()
        else:
            await item.setter.set(item.spec.prototype.buffer.from_array_like(data))

    await asyncio.gather(*(put(i) for i in items))


def _present(engine: _Engine, keys: list[str]) -> list[bool]:
    """Whether each chunk is stored: its size, not its bytes (a stat per
    chunk on a local store, a HEAD request over HTTP)."""
    return [size is not None for size in engine.store.sizes(keys)]


# -- the engine's reads and writes (on a worker thread; the GIL is released
#    inside every engine call) ---------------------------------------------------


def _block_shape(ranges: list[tuple[int, int, int]]) -> tuple[int, ...]:
    return tuple(len(range(*r)) for r in ranges)


@dataclass
class _Plan:
    """How the engine runs one call: one box of the array, or a box per
    chunk around its selection (with the selection within that box)."""

    box: list[tuple[int, int, int]] | None
    parts: list[tuple[_Item, list[tuple[int, int, int]], tuple[Any, ...]]]


def _plan(engine: _Engine, items: list[_Item], out_shape: tuple[int, ...] | None,
          drop_axes: tuple[int, ...]) -> _Plan:
    """Made before the call leaves the event loop: a batch the engine cannot
    express raises _Unsupported here, in time for zarr-python's pipeline."""
    if out_shape is not None:
        box = _one_box(items, engine.grid, engine.shape, out_shape, drop_axes)
        if box is not None:
            return _Plan(box, [])
    return _Plan(None, [(item, *_bounding_box(item, engine.grid, engine.shape))
                        for item in items])


def _read(engine: _Engine, plan: _Plan, out: np.ndarray,
          drop_axes: tuple[int, ...]) -> None:
    if out.size == 0:
        return
    array = engine.array
    if plan.box is not None:
        direct = (not array._variable and out.dtype == array._native  # noqa: SLF001
                  and out.flags.c_contiguous and out.flags.writeable)
        if direct:  # decoded straight into zarr-python's buffer
            array._core.read_into(plan.box, out.reshape(_block_shape(plan.box)))  # noqa: SLF001
        else:
            block = array._read_block(plan.box, _block_shape(plan.box))  # noqa: SLF001
            out[...] = _dtypes.in_byte_order_of(block, out.dtype).reshape(out.shape)
        return
    # The chunks' boxes in one engine call, decoded in parallel.
    blocks = read_blocks(array, [ranges for _, ranges, _ in plan.parts])
    for (item, _, local), block in zip(plan.parts, blocks):
        selected = block[local]
        if drop_axes:
            selected = selected.squeeze(axis=drop_axes)
        out[item.out_selection] = _dtypes.in_byte_order_of(selected, out.dtype)


def _write(engine: _Engine, plan: _Plan, value: np.ndarray,
           out_shape: tuple[int, ...] | None, write_empty: bool,
           drop_axes: tuple[int, ...]) -> None:
    array = engine.array
    if plan.box is not None:
        block = np.broadcast_to(value, out_shape).reshape(_block_shape(plan.box))
        array._write_block(plan.box, block, write_empty)  # noqa: SLF001
        return
    # A scattered selection: per chunk, its bounding box with the selected
    # elements set and a mask of them; the engine merges the masked elements
    # into the chunk under its lock, so no other writer's update to an
    # unselected element of the box is undone.
    for item, ranges, local in plan.parts:
        shape = _block_shape(ranges)
        if 0 in shape:
            continue
        if value.shape == ():
            part = value
        else:
            part = value[item.out_selection]
            if drop_axes:
                part = part[tuple(None if d in drop_axes else slice(None)
                                  for d in range(len(ranges)))]
        block = unset_block(array, shape)
        block[local] = _dtypes.in_byte_order_of(np.asarray(part), block.dtype)
        mask = np.zeros(shape, dtype=np.bool_)
        mask[local] = True
        array._write_block(ranges, block, write_empty, mask)  # noqa: SLF001


def _output_shape(items: list[_Item]) -> tuple[int, ...] | None:
    """The shape of the output the items' output selections tile, for a
    scalar write (every output selection a plain slice)."""
    ndim = len(items[0].out_selection)
    stops = [0] * ndim
    for item in items:
        if len(item.out_selection) != ndim:
            return None
        for d, o in enumerate(item.out_selection):
            if not isinstance(o, slice) or o.stop is None:
                return None
            stops[d] = max(stops[d], o.stop)
    return tuple(stops)


# Registered under the name users configure, "turbozarr.ZarrCodecPipeline"
# (the class says it lives in the package, which exports it).
ZarrCodecPipeline.__module__ = "turbozarr"
register_pipeline(ZarrCodecPipeline)
