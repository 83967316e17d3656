"""Array: a Zarr array (v2 or v3) read and written with numpy.

A read allocates the result once (``_aligned_empty``) and the engine decodes
straight into it with the GIL released; a write hands the engine a
C-contiguous block. Only strings and bytes of variable length take a detour
through Python objects.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import math
import uuid
from typing import Any, Iterator

import numpy as np

from turbozarr import _core, _dtypes, _fancy_indexing, _indexing, _selection_keys
from turbozarr._node import Node
from turbozarr._store import store_spec
from turbozarr.errors import ChunkNotFoundError, NotFoundError, ReadOnlyError

# Results start on a 64-byte boundary (numpy only promises 16): on some CPUs
# the kernel's copy of a read into user memory, which fills uncompressed
# chunks straight into the result, runs at a quarter of its speed into
# memory that is 16- but not 32-byte aligned.
_ALIGNMENT = 64


def _aligned_empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """np.empty(shape, dtype), its data starting on a _ALIGNMENT boundary. A
    large one reuses the memory of a dropped result of the same size, whose
    pages the process already has (see result_memory_binding.cc)."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes >= _core.POOLED_RESULT_BYTES:
        return _core.result_bytes(nbytes, dtype.itemsize).view(dtype).reshape(shape)
    raw = np.empty(nbytes + _ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start:start + nbytes].view(dtype).reshape(shape)


class _NoRegularShapeError(NotImplementedError, AttributeError):
    """`chunks` or `shards` of an array whose rectilinear grid has chunks of
    several shapes: NotImplementedError as in zarr-python, and an
    AttributeError too, so that code asking getattr(a, "chunks", None) (dask's
    from_array) goes on without a chunk shape."""


class Array(Node):
    """One Zarr array. Get one from turbozarr.open/open_array/create."""

    def __init__(self, core: _core.Array, read_only: bool = False):
        super().__init__(core, read_only)
        self._dtype = _dtypes.numpy_dtype(core.dtype_name, core.dtype_size, core.zarr_format,
                                          core.v2_byte_order, core.dtype_json)
        self._native = _dtypes.native(self._dtype)
        self._variable = self._dtype.kind in "OT"
        #: Store chunks that hold only the fill value (False erases them instead).
        self.write_empty_chunks = False
        #: Read chunks that are not stored as the fill value; False makes
        #: such a read raise ChunkNotFoundError naming the chunk, for data
        #: that must be there (zarr-python's ``read_missing_chunks``).
        self.read_missing_chunks = True

    _open_core = staticmethod(_core.open_array)

    def _pickled_state(self) -> dict[str, Any]:
        return self.config

    @property
    def config(self) -> dict[str, bool]:
        """This handle's settings, as zarr-python's array config names them."""
        return {"write_empty_chunks": self.write_empty_chunks,
                "read_missing_chunks": self.read_missing_chunks}

    def with_config(self, config: dict[str, Any] | None = None, **settings: Any) -> Array:
        """Another handle on the same array with some settings changed
        (``write_empty_chunks``, ``read_missing_chunks``); this one keeps its
        own."""
        other = copy.copy(self)
        other._configure({**(config or {}), **settings})
        return other

    def _configure(self, config: dict[str, Any] | None) -> Array:
        unknown = sorted(set(config or {}) - set(self.config))
        if unknown:
            raise ValueError(f"array {self.path!r}: unknown config key(s) {unknown}; "
                             f"the settings are {sorted(self.config)}")
        for name, value in (config or {}).items():
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"array {self.path!r}: config {name!r} must be True or "
                                f"False, not {value!r}")
            setattr(self, name, bool(value))
        return self

    @contextlib.contextmanager
    def _chunks_required(self) -> Iterator[None]:
        """Around an engine read: its NotFoundError for a chunk that is not
        stored (only raised when read_missing_chunks is False) becomes
        ChunkNotFoundError."""
        try:
            yield
        except NotFoundError as e:
            if self.read_missing_chunks:
                raise
            raise ChunkNotFoundError(str(e)) from None

    def __dask_tokenize__(self) -> tuple:
        """dask's name for this array: where it lives and its layout (two
        objects opened on the same URL and path get the same name), or, for
        stores that do not pickle (memory://), a name of this object alone."""
        try:
            url, _, s3 = store_spec(self.store)
            where: Any = (url, s3)
        except TypeError:
            where = self.__dict__.setdefault("_unshared_token", uuid.uuid4().hex)
        # A rectilinear grid's edges are in its metadata, read only for it.
        edges = None if self._core.regular_grid else self.metadata["chunk_grid"]
        return ("turbozarr.Array", where, self.path, self.shape, str(self._dtype),
                tuple(self._core.chunk_shape), self._core.inner_chunk_shape, edges)

    # -- description -------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._core.shape)

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._core.shape)

    @property
    def size(self) -> int:
        return math.prod(self._core.shape)

    @property
    def nbytes(self) -> int:
        """Bytes of the whole array in memory (pointer-sized per string)."""
        return self.size * self._dtype.itemsize

    @property
    def chunks(self) -> tuple[int, ...]:
        """The chunk shape: the inner chunks when the array is sharded.
        NotImplementedError for a rectilinear grid whose chunks differ
        (read_chunk_sizes gives them), as in zarr-python."""
        inner = self._core.inner_chunk_shape
        if inner is not None:
            return tuple(inner)
        self._require_regular_grid("chunks")
        return tuple(self._core.chunk_shape)

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shard shape, or None when the array is not sharded.
        NotImplementedError for a rectilinear grid whose shards differ
        (write_chunk_sizes gives them), as in zarr-python."""
        if self._core.inner_chunk_shape is None:
            return None
        self._require_regular_grid("shards")
        return tuple(self._core.chunk_shape)

    @property
    def regular_chunks(self) -> bool:
        """Whether every chunk (shard) within the array has one shape: always
        on a regular grid, and on a rectilinear grid whose chunks that touch
        the array are equal."""
        return bool(self._core.regular_grid)

    @property
    def write_chunk_sizes(self) -> tuple[tuple[int, ...], ...]:
        """Per dimension, the elements of the array in each stored chunk (each
        shard, when sharded), the last clipped at the array's edge: dask's
        chunks convention, and zarr-python's property of that name."""
        return tuple(tuple(d) for d in self._core.chunk_sizes)

    @property
    def read_chunk_sizes(self) -> tuple[tuple[int, ...], ...]:
        """As write_chunk_sizes, for the chunks a read decodes: the inner
        chunks when the array is sharded (their grid is regular, as every
        shard is a whole number of them)."""
        inner = self._core.inner_chunk_shape
        if inner is None:
            return self.write_chunk_sizes
        return tuple(tuple(min(c, s - i) for i in range(0, s, c))
                     for s, c in zip(self.shape, inner))

    @property
    def _read_unit(self) -> tuple[int, ...]:
        """The chunk length per dimension that gathers group indices by: the
        chunks, or on a rectilinear grid its longest (reads of any box are
        exact; the unit only shapes the boxes)."""
        inner = self._core.inner_chunk_shape
        return tuple(inner if inner is not None else self._core.chunk_shape)

    def _require_regular_grid(self, what: str) -> None:
        if not self._core.regular_grid:
            raise _NoRegularShapeError(
                f"{self!r}: {what} is only defined for a regular chunk grid; this array's "
                f"rectilinear grid has chunks of several shapes (see read_chunk_sizes and "
                f"write_chunk_sizes)")

    @property
    def cdata_shape(self) -> tuple[int, ...]:
        """Number of chunks (shards, when sharded) per dimension."""
        return tuple(self._core.grid_shape)

    @property
    def nchunks(self) -> int:
        return math.prod(self.cdata_shape)

    @property
    def fill_value(self) -> Any:
        return _dtypes.decode_fill_value(self._core.fill_value_bytes, self._dtype,
                                         self._core.fill_value_is_null)


    @property
    def order(self) -> str:
        return self._core.v2_order if self.zarr_format == 2 else "C"


    @property
    def dimension_names(self) -> tuple[str | None, ...] | None:
        names = self._core.dimension_names
        return None if names is None else tuple(names)

    @property
    def metadata(self) -> dict[str, Any]:
        """zarr.json (v3) or .zarray (v2) as a dict."""
        return json.loads(self._core.metadata_json())

    @property
    def codecs(self) -> list[dict[str, Any]]:
        """The codec chain in v3 form (v2 arrays: their fields translated)."""
        return json.loads(self._core.codecs_json)

    @property
    def info(self) -> str:
        rows = [
            ("Type", "Array"),
            ("Zarr format", self.zarr_format),
            ("Data type", self._core.dtype_string),
            ("Fill value", self.fill_value),
            ("Shape", self.shape),
        ]
        sharded = self._core.inner_chunk_shape is not None
        if self.regular_chunks or sharded:
            rows.append(("Chunk shape", self.chunks))
        if self.regular_chunks and sharded:
            rows.append(("Shard shape", self.shards))
        if not self.regular_chunks:
            rows.append(("Shard sizes" if sharded else "Chunk sizes",
                         f"rectilinear, {self.cdata_shape} per dimension "
                         f"(write_chunk_sizes)"))
        rows += [
            ("Order", self.order),
            ("Read-only", self.read_only),
            ("Store", self.store.describe()),
            ("Codecs", json.dumps(self.codecs)),
            ("No. bytes", self.nbytes),
        ]
        return "\n".join(f"{k:<19}: {v}" for k, v in rows)

    def chunk_key(self, chunk_coords: tuple[int, ...]) -> str:
        """The store key of the chunk (shard, when sharded) at grid coordinates."""
        return self._core.chunk_key(list(chunk_coords))

    def __repr__(self) -> str:
        return (f"<turbozarr.Array {self._core.describe()} shape={self.shape} "
                f"dtype={self._dtype}>")

    def __len__(self) -> int:
        if not self._core.shape:
            raise TypeError("len() of unsized object")
        return self._core.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    # -- reading -------------------------------------------------------------

    def _read_block(self, ranges: list[tuple[int, int, int]],
                    block_shape: tuple[int, ...]) -> np.ndarray:
        """The engine's block of `ranges` (one (start, stop, step) per
        dimension), of `block_shape`, in the array's data type."""
        fill = self.read_missing_chunks
        if self._variable:
            with self._chunks_required():
                values = (self._core.read_objects(ranges, fill) if math.prod(block_shape)
                          else [])
            return _fancy_indexing.object_block(self, values, block_shape)
        out = _aligned_empty(block_shape, self._native)
        if out.size:
            with self._chunks_required():
                self._core.read_into(ranges, out, fill)
        if out.dtype != self._dtype:  # v2 big-endian: the engine fills native order
            out = out.byteswap(inplace=True).view(self._dtype)
        return out

    def __getitem__(self, key: Any) -> Any:
        """numpy-style reads; integer and Boolean arrays are dispatched as
        zarr-python's Array.__getitem__ does (module _selection_keys):
        coordinate and mask selections go to vindex, others to oindex."""
        if _selection_keys.has_index_array(key):
            if _selection_keys.is_vectorized(key, self.ndim):
                return self.vindex[key]
            if _selection_keys.is_orthogonal(key, self.ndim):
                return self.get_orthogonal_selection(key)
        sel = _indexing.normalize(key, self.shape)
        out = self._read_block(sel.ranges, sel.block_shape)
        if sel.needs_view:
            return out[sel.view]
        if out.ndim == 0 and key is not Ellipsis:
            return out[()]  # a[()] of a 0-d array is a scalar, as in numpy
        return out

    def get_basic_selection(self, selection: Any = Ellipsis, *,
                            out: np.ndarray | None = None) -> Any:
        """array[selection]; with `out`, the result is written into that
        array instead (C-contiguous, writable, of the result's shape and the
        array's dtype), so a loop can reuse one buffer."""
        if out is None:
            return self[selection]
        sel = _indexing.normalize(selection, self.shape)
        _fancy_indexing.check_out(self, out, sel.result_shape)
        if not sel.needs_view and _fancy_indexing.fills_directly(self, out):
            with self._chunks_required():
                self._core.read_into(sel.ranges, out.reshape(sel.block_shape),
                                     self.read_missing_chunks)
        else:
            out[...] = self[selection]
        return out

    def iter_blocks(
        self, selection: Any = Ellipsis, *, readahead_bytes: int = 256 << 20,
        block_shape: tuple[int, ...] | None = None,
    ) -> Iterator[tuple[Any, np.ndarray]]:
        """Streams ``self[selection]`` as ``(key, block)`` pairs in bounded
        memory: ``key`` is a tuple of slices (and integers, where
        ``selection`` has them) in array coordinates with
        ``self[key] == block``, and the blocks cover the selection exactly
        once, in C order of their position.

        Blocks are whole chunks (or shards) clipped to the selection,
        preferably whole rows of chunks so that each block is one contiguous
        piece of the result. Blocks ahead of the loop are read in the
        background, and the blocks read but not yet handed out, plus the one
        handed out last, hold at most ``readahead_bytes`` (a loop that keeps
        a block past the next step keeps it in its own memory). The GIL is
        released while waiting. Each block is a fresh numpy array that owns
        its memory.

        ``block_shape`` (one entry per array dimension, in array elements)
        sets the grid that cuts the selection instead; multiples of the chunk
        shape avoid decoding a chunk more than once. Selections take integers
        and slices with positive steps. Strings and bytes of variable length
        raise UnsupportedError. Breaking out of the loop (or closing the
        generator) stops the background reads.
        """
        sel = _indexing.normalize(selection, self.shape)
        if any(v == slice(None, None, -1) for v in sel.view):
            raise IndexError("iter_blocks takes slices with positive steps")
        dropped = tuple(not isinstance(v, slice) for v in sel.view)
        shape = list(block_shape) if block_shape is not None else []
        it = _core.BlockIterator(self._core, sel.ranges, int(readahead_bytes),
                                 [int(e) for e in shape])
        return self._stream_blocks(it, dropped)

    def _stream_blocks(self, it: _core.BlockIterator,
                       dropped: tuple[bool, ...]) -> Iterator[tuple[Any, np.ndarray]]:
        # Integer-indexed dimensions go; the Ellipsis keeps a 0-d result an array.
        drop = (tuple(0 if d else slice(None) for d in dropped) + (Ellipsis,)
                if any(dropped) else None)
        try:
            for ranges, raw in it:
                block = raw.view(self._native).reshape(
                    tuple((stop - start + step - 1) // step for start, stop, step in ranges))
                if block.dtype != self._dtype:  # v2 big-endian: the engine fills native
                    block = block.byteswap(inplace=True).view(self._dtype)
                key = tuple(start if d else slice(start, stop, None if step == 1 else step)
                            for (start, stop, step), d in zip(ranges, dropped))
                yield key, (block if drop is None else block[drop])
        finally:
            it.close()

    def set_basic_selection(self, selection: Any, value: Any) -> None:
        """array[selection] = value."""
        self[selection] = value

    # -- orthogonal, coordinate, mask and block selections ---------------------------

    @property
    def oindex(self) -> _SelectionIndex:
        """Orthogonal (outer) indexing: ``a.oindex[[0, 5], 2:9:3]`` picks the
        rows and the columns independently, as numpy's ``a[np.ix_(...)]``."""
        return _SelectionIndex(self.get_orthogonal_selection,
                               self.set_orthogonal_selection)

    @property
    def vindex(self) -> _SelectionIndex:
        """Vectorized indexing: ``a.vindex[rows, cols]`` picks the points
        (rows[i], cols[i]); ``a.vindex[mask]`` the elements where a Boolean
        array of the array's shape is set."""
        return _SelectionIndex(functools.partial(self._read_points, _selection_keys.vectorized),
                               functools.partial(self._write_points, _selection_keys.vectorized))

    @property
    def blocks(self) -> _SelectionIndex:
        """Block indexing: ``a.blocks[1, :2]`` is the data of chunk (shard,
        when sharded) row 1 and columns 0 and 1."""
        return _SelectionIndex(self.get_block_selection, self.set_block_selection)

    def get_orthogonal_selection(self, selection: Any, *,
                                 out: np.ndarray | None = None) -> Any:
        """``a.oindex[selection]``: per dimension an integer, a slice (any
        step), an integer array or list (any order, repeats, negatives) or a
        Boolean array of the dimension's length. Only the chunks holding
        selected elements are read, in parallel. With `out` (a writable array
        of the result's shape and the array's dtype) the result goes there."""
        indices = _selection_keys.orthogonal(selection, self.shape)
        return _fancy_indexing.read_orthogonal(self, indices, out)

    def set_orthogonal_selection(self, selection: Any, value: Any) -> None:
        """``a.oindex[selection] = value``; only the selected elements of the
        chunks holding any are rewritten."""
        self._check_writable()
        indices = _selection_keys.orthogonal(selection, self.shape)
        _fancy_indexing.write_orthogonal(self, indices, value)

    def get_coordinate_selection(self, selection: Any, *,
                                 out: np.ndarray | None = None) -> Any:
        """``a.vindex[selection]``: one integer array per dimension, broadcast
        together; the result has their shape."""
        return self._read_points(_selection_keys.coordinates, selection, out)

    def set_coordinate_selection(self, selection: Any, value: Any) -> None:
        self._write_points(_selection_keys.coordinates, selection, value)

    def get_mask_selection(self, mask: Any, *, out: np.ndarray | None = None) -> Any:
        """The elements where `mask` (Boolean, of the array's shape) is set,
        in C order, as a 1-dimensional array."""
        return self._read_points(_selection_keys.mask_points, mask, out)

    def set_mask_selection(self, mask: Any, value: Any) -> None:
        self._write_points(_selection_keys.mask_points, mask, value)

    def _read_points(self, parse: Any, selection: Any, out: np.ndarray | None = None) -> Any:
        """The points that parse(selection, shape) (_selection_keys) names."""
        return _fancy_indexing.read_points(self, parse(selection, self.shape), out)

    def _write_points(self, parse: Any, selection: Any, value: Any) -> None:
        self._check_writable()
        _fancy_indexing.write_points(self, parse(selection, self.shape), value)

    def _block_grid(self) -> tuple[Any, ...]:
        """Per dimension the chunk (shard) length, or the sizes of a
        rectilinear grid's chunks."""
        if self._core.regular_grid:
            return tuple(self._core.chunk_shape)
        return self.write_chunk_sizes

    def get_block_selection(self, selection: Any, *,
                            out: np.ndarray | None = None) -> Any:
        """``a.blocks[selection]``: integers and slices (step 1) of chunk
        (shard, when sharded) indices."""
        key = _selection_keys.blocks(selection, self.shape, self._block_grid())
        return self.get_basic_selection(key, out=out)

    def set_block_selection(self, selection: Any, value: Any) -> None:
        key = _selection_keys.blocks(selection, self.shape, self._block_grid())
        self[key] = value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy is False:
            raise ValueError("reading a turbozarr.Array always makes a new array")
        out = self[...]
        out = np.asarray(out)
        return out if dtype is None else out.astype(dtype, copy=False)

    # -- writing ---------------------------------------------------------------

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlyError(f"{self._core.describe()} was opened read-only (mode 'r')")

    def __setitem__(self, key: Any, value: Any) -> None:
        self._check_writable()
        if isinstance(value, Array) and self._copy_whole(key, value):
            return
        if _selection_keys.has_index_array(key):
            if _selection_keys.is_vectorized(key, self.ndim):
                self.vindex[key] = value
                return
            if _selection_keys.is_orthogonal(key, self.ndim):
                self.set_orthogonal_selection(key, value)
                return
        sel = _indexing.normalize(key, self.shape)
        src = _fancy_indexing.values_for(self, value, sel.result_shape)
        # Back to the engine's block: integer-indexed dimensions return as
        # length 1 and reversed dimensions are put in ascending order.
        src = src.reshape(sel.block_shape)
        if sel.needs_view:
            src = src[tuple(slice(None, None, -1) if v == slice(None, None, -1) else slice(None)
                            for v in sel.view)]
        self._write_block(sel.ranges, src, self.write_empty_chunks)

    def _write_block(self, ranges: list[tuple[int, int, int]], block: np.ndarray,
                     write_empty_chunks: bool, mask: np.ndarray | None = None) -> None:
        """Writes `block`, laid out as _read_block's, into `ranges`; only
        where `mask` (bool, the block's shape) is set, when one is given:
        the engine merges those elements into each chunk under its lock."""
        if mask is not None:
            mask = np.ascontiguousarray(mask, dtype=np.bool_)
        if self._variable:
            self._core.write_objects(ranges, np.asarray(block, dtype=self._dtype).ravel().tolist(),
                                     write_empty_chunks, mask)
        else:
            self._core.write_from(ranges, _dtypes.to_native(block, self._native),
                                  write_empty_chunks, mask)

    def _copy_whole(self, key: Any, source: "Array") -> bool:
        """``self[...] = source`` for a source array of the same shape, done
        by the engine without a whole-array result (unit by unit when this
        array's shards or chunks are made of whole chunks of the source, else
        in streamed blocks); a copy that converts types streams the engine's
        blocks through Python. False when `key` does not select the whole
        array (the caller then writes source's values)."""
        keys = key if isinstance(key, tuple) else (key,)
        whole = all(k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in keys)
        if not whole or len(keys) > len(self.shape) + (Ellipsis in keys):
            return False
        if source.shape != self.shape:
            return False
        if source._core.dtype_name == self._core.dtype_name and source._native == self._native:
            self._core.copy_array(source._core, self.write_empty_chunks)
            return True
        if source._variable:
            return False
        block_shape = tuple(self._core.copy_block_shape(source._core))
        for block_key, block in source.iter_blocks(block_shape=block_shape):
            self[block_key] = block
        return True

    def resize(self, *shape: Any) -> None:
        """Changes the shape; chunks wholly outside the new shape are erased."""
        self._check_writable()
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        self._core.resize([int(s) for s in shape])

    def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """Grows the array along `axis` by ``data.shape[axis]`` and writes
        `data` there; the other dimensions of `data` must be the array's.
        Returns the new shape. If the write fails, the array is shrunk back
        to its old shape (where the store allows) before the error is
        raised."""
        self._check_writable()
        data = np.asanyarray(data)
        if data.ndim != self.ndim:
            raise ValueError(f"array {self.path!r}: cannot append data of {data.ndim} "
                             f"dimensions to an array of {self.ndim}")
        if not -self.ndim <= axis < self.ndim:
            raise ValueError(f"array {self.path!r}: axis {axis} is out of range for "
                             f"{self.ndim} dimensions")
        axis %= self.ndim
        old = self.shape
        others = [d for d in range(self.ndim) if d != axis]
        if any(data.shape[d] != old[d] for d in others):
            raise ValueError(f"array {self.path!r}: data of shape {data.shape} does not fit "
                             f"shape {old} outside axis {axis}")
        new = old[:axis] + (old[axis] + data.shape[axis],) + old[axis + 1:]
        self.resize(new)
        try:
            self[tuple(slice(old[axis], None) if d == axis else slice(None)
                       for d in range(self.ndim))] = data
        except BaseException as error:
            try:
                self.resize(old)
            except Exception as undo:  # the store fails erases too: say so, keep the cause
                error.add_note(f"the array could not be shrunk back to {old}: {undo}")
            raise
        return new

    # -- asyncio -----------------------------------------------------------

    async def get_async(self, selection: Any = Ellipsis, *,
                        out: np.ndarray | None = None) -> Any:
        """``self[selection]`` (``get_basic_selection`` with `out`) for asyncio
        code: the read runs on the engine's threads while the event loop
        goes on."""
        import asyncio  # loaded by then: the caller runs an event loop
        if out is None:
            return await asyncio.to_thread(self.__getitem__, selection)
        return await asyncio.to_thread(self.get_basic_selection, selection, out=out)

    async def set_async(self, selection: Any, value: Any) -> None:
        """``self[selection] = value`` for asyncio code (see get_async)."""
        import asyncio  # loaded by then: the caller runs an event loop
        await asyncio.to_thread(self.__setitem__, selection, value)

    async def append_async(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """append for asyncio code (see get_async)."""
        import asyncio  # loaded by then: the caller runs an event loop
        return await asyncio.to_thread(self.append, data, axis)

    def update_attributes(self, new_attributes: dict[str, Any]) -> Array:
        self.attrs.update(new_attributes)
        return self



class _SelectionIndex:
    """``a.oindex[...]``, ``a.vindex[...]`` and ``a.blocks[...]``: square
    brackets that call one of the array's pairs of get and set methods."""

    def __init__(self, get: Any, set_: Any):
        self._get = get
        self._set = set_

    def __getitem__(self, selection: Any) -> Any:
        return self._get(selection)

    def __setitem__(self, selection: Any, value: Any) -> None:
        self._set(selection, value)
