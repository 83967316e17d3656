"""turbozarr: fast Zarr (v3 and v2) arrays for numpy.

    import turbozarr as tz
    a = tz.create("data.zarr", shape=(1000, 1000), dtype="f4", chunks=(100, 100))
    a[:10] = 1.0
    b = tz.open("data.zarr")[::2, 5]

Arrays written here are byte-compatible with zarr-python, TensorStore and
zarrs. Reads decode straight into the numpy result on a pool of threads
(see turbozarr.config.set_threads).

Arrays larger than memory stream in chunk-aligned blocks, read ahead in the
background within a budget of bytes:

    for key, block in tz.open("big.zarr").iter_blocks(readahead_bytes=256 << 20):
        total += block.sum()          # block == array[key]
"""

from __future__ import annotations

from turbozarr import errors  # first: the engine raises these classes
from turbozarr import _core, config
from turbozarr._api import (
    array,
    consolidate_metadata,
    create,
    create_array,
    create_async,
    create_group,
    group,
    open,
    open_array,
    open_array_async,
    open_async,
    open_group,
    open_group_async,
)
from turbozarr._array import Array
from turbozarr._dask import store, to_dask  # import dask when first called
from turbozarr._group import Group
from turbozarr._store import (
    CachingStore,
    FaultStore,
    LocalStore,
    MemoryStore,
    MetricsStore,
    Store,
    ThrottledStore,
    ZipStore,
    fault_count,
    open_store,
)
from turbozarr._verify import verify
from turbozarr.errors import (
    AlreadyExistsError,
    CancelledError,
    ChunkNotFoundError,
    CorruptionError,
    InvalidArgumentError,
    NotFoundError,
    ReadOnlyError,
    StoreIOError,
    TurbozarrError,
    UnsupportedError,
)

# The version the engine was built with (the file VERSION in the source tree).
from turbozarr._core import __version__


def __getattr__(name: str):
    # zarr-python's codec pipeline (turbozarr.ZarrCodecPipeline) needs
    # zarr-python 3.4; importing turbozarr alone does not import zarr.
    if name == "ZarrCodecPipeline":
        from turbozarr.zarr_pipeline import ZarrCodecPipeline

        return ZarrCodecPipeline
    raise AttributeError(f"module 'turbozarr' has no attribute {name!r}")


__all__ = [
    "AlreadyExistsError",
    "Array",
    "CachingStore",
    "FaultStore",
    "CancelledError",
    "ChunkNotFoundError",
    "CorruptionError",
    "Group",
    "InvalidArgumentError",
    "LocalStore",
    "MemoryStore",
    "MetricsStore",
    "NotFoundError",
    "ReadOnlyError",
    "Store",
    "StoreIOError",
    "ThrottledStore",
    "TurbozarrError",
    "UnsupportedError",
    "ZarrCodecPipeline",
    "ZipStore",
    "array",
    "config",
    "consolidate_metadata",
    "create",
    "create_array",
    "create_async",
    "create_group",
    "errors",
    "group",
    "open",
    "open_array",
    "open_array_async",
    "open_async",
    "open_group",
    "open_group_async",
    "open_store",
    "store",
    "to_dask",
    "verify",
]
