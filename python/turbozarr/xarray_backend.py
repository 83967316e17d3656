"""An xarray backend: ``xr.open_dataset(url, engine="turbozarr")``.

Opens the Zarr groups that ``Dataset.to_zarr`` writes (v2 and v3,
consolidated or not, sharded or not) lazily, reading through turbozarr.
Decoding is xarray's own: the store below hands xarray the same raw variables,
attributes and fill values its zarr backend does, and xarray's conventions
layer (``StoreBackendEntrypoint``) applies mask_and_scale, decode_times and
the other CF decoders, so both engines return the same dataset.

Installed, the package declares the entry point
``[project.entry-points."xarray.backends"] turbozarr =
"turbozarr.xarray_backend:TurbozarrBackendEntrypoint"``; without it, pass the
class itself: ``engine=TurbozarrBackendEntrypoint``.

Everything opened from a path or URL pickles (for dask.distributed): the
pickled form is the URL, the group and the array path, and the store is
opened again on first use. Datasets opened from a turbozarr Store object
(MetricsStore, MemoryStore, ...) do not pickle.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from turbozarr import _core
from turbozarr._array import Array
from turbozarr._group import Group
from turbozarr._optional import import_optional
from turbozarr._store import MetricsStore, normalize_path, open_store
from turbozarr.errors import NotFoundError

# xarray finds this module through its entry point only where xarray is
# installed; imported by name without xarray, it says which extra to install.
import_optional("xarray", "xarray", "the xarray backend (turbozarr.xarray_backend)")
from xarray.backends.common import (  # noqa: E402
    AbstractDataStore,
    BackendArray,
    BackendEntrypoint,
    _normalize_path,
    datatree_from_dict_with_io_cleanup,
)
from xarray.backends.store import StoreBackendEntrypoint  # noqa: E402
from xarray.backends.zarr import FillValueCoder  # noqa: E402
from xarray.core import indexing  # noqa: E402
from xarray.core.treenode import NodePath  # noqa: E402
from xarray.core.utils import FrozenDict, close_on_error  # noqa: E402
from xarray.core.variable import Variable  # noqa: E402

__all__ = ["TurbozarrArrayWrapper", "TurbozarrBackendEntrypoint", "TurbozarrStore"]

# The attribute in which xarray keeps a v2 array's dimension names.
DIMENSION_KEY = "_ARRAY_DIMENSIONS"


# -- where a group lives -----------------------------------------------------------


class _Location:
    """Where a group is: the store (a URL, or a Store object that cannot be
    pickled), the group's path and how consolidated metadata is used.
    Opening is lazy and done once per process; pickling keeps the URL and
    drops what was opened."""

    def __init__(self, source: Any, group: str, consolidated: bool | None,
                 storage_options: dict[str, Any] | None, zarr_format: int | None):
        if isinstance(source, MetricsStore):
            source = source.store
        if not isinstance(source, (str, os.PathLike, _core.Store)):
            raise TypeError("engine turbozarr opens a path, a URL or a turbozarr Store, "
                            f"not {type(source).__name__}")
        self.url = None if isinstance(source, _core.Store) else os.fspath(source)
        self._store = source if self.url is None else None
        self.group = normalize_path(group)
        self.consolidated = consolidated
        self.storage_options = dict(storage_options or {})
        self.zarr_format = zarr_format
        self._lock = threading.Lock()
        self._group: Group | None = None

    def describe(self) -> str:
        where = self.url if self.url is not None else self._store.describe()
        return f"'{where}'" + (f" (group '{self.group}')" if self.group else "")

    def __getstate__(self) -> dict[str, Any]:
        if self.url is None:
            raise TypeError(f"a dataset opened from the store object {self.describe()} "
                            "cannot be pickled; open it from a path or URL instead")
        return {"url": self.url, "group": self.group, "consolidated": self.consolidated,
                "storage_options": self.storage_options, "zarr_format": self.zarr_format}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._store = None
        self._lock = threading.Lock()
        self._group = None

    def store(self) -> _core.Store:
        if self._store is None:
            self._store = open_store(self.url, read_only=True, **self.storage_options)
        return self._store

    def open(self) -> Group:
        """The group, opened on first use (consolidated metadata as asked)."""
        with self._lock:
            if self._group is None:
                self._group = self._open()
            return self._group

    def _open(self) -> Group:
        store = self.store()
        try:
            if self.consolidated is False:
                group = Group(_core.open_group(store, self.group), True)
            else:
                group = self._open_through_root(store)
        except NotFoundError as e:
            raise NotFoundError(f"no Zarr group at {self.describe()}: {e}") from None
        if self.zarr_format is not None and group.zarr_format != self.zarr_format:
            raise NotFoundError(f"the Zarr group at {self.describe()} is zarr_format "
                                f"{group.zarr_format}, not {self.zarr_format}")
        if self.consolidated and not group.is_consolidated:
            raise ValueError(f"the Zarr group at {self.describe()} has no consolidated "
                             "metadata (open it with consolidated=None or False)")
        return group

    def _open_through_root(self, store: _core.Store) -> Group:
        # As engine="zarr" does: consolidated metadata is looked for at the
        # root of the store, and the group is taken from the root's view.
        if not self.group:
            return Group(_core.open_group(store, ""), True)
        try:
            root = Group(_core.open_group(store, ""), True)
        except NotFoundError:
            return Group(_core.open_group(store, self.group), True)
        return Group(root._core.open_group(self.group), True)

    def child(self, name: str) -> _Location:
        """The location of the subgroup `name`, sharing this one's store."""
        loc = _Location.__new__(_Location)
        loc.__setstate__({"url": self.url, "group": f"{self.group}/{name}".strip("/"),
                          "consolidated": self.consolidated,
                          "storage_options": self.storage_options,
                          "zarr_format": self.zarr_format})
        loc._store = self._store
        return loc

    def bypass_consolidated(self) -> bool:
        return self.consolidated is False and self.open().is_consolidated

    def members(self) -> list[tuple[str, str]]:
        """(name, "array" | "group") of the group's direct members."""
        group = self.open()
        if not self.bypass_consolidated():
            return [(name, kind) for name, kind, _ in group._member_info()]
        # consolidated=False on a consolidated group: what the store holds.
        prefix = f"{self.group}/" if self.group else ""
        found: dict[str, str] = {}
        for key in self.store().list(prefix):
            parts = key[len(prefix):].split("/")
            if len(parts) == 2 and parts[1] in ("zarr.json", ".zarray", ".zgroup"):
                kind = _core.inspect_node(self.store(), prefix + parts[0])[0]
                found[parts[0]] = kind
        return sorted(found.items())

    def open_array(self, name: str) -> Array:
        if self.bypass_consolidated():
            path = f"{self.group}/{name}".strip("/")
            return Array(_core.open_array(self.store(), path), True)
        return Array(self.open()._core.open_array(name), True)


# -- arrays --------------------------------------------------------------------------


def read_outer(array: Array, key: tuple[Any, ...]) -> np.ndarray:
    """array.oindex[key] for what xarray hands a backend of
    IndexingSupport.OUTER (integers, slices and integer arrays): read by the
    package's orthogonal selections, which read only the chunks holding
    selected elements, in parallel."""
    return np.asarray(array.get_orthogonal_selection(key))


class TurbozarrArrayWrapper(BackendArray):
    """One Zarr array as xarray's lazily indexed backend array (outer
    indexing). Pickles as its location and reopens the array on first use."""

    def __init__(self, location: _Location, name: str, array: Array):
        self._location = location
        self._name = name
        self._array: Array | None = array
        self._lock = threading.Lock()
        self.shape = array.shape
        self.dtype = array.dtype

    def __getstate__(self) -> dict[str, Any]:
        return {"location": self._location, "name": self._name, "shape": self.shape,
                "dtype": self.dtype}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._location = state["location"]
        self._name = state["name"]
        self.shape = state["shape"]
        self.dtype = state["dtype"]
        self._array = None
        self._lock = threading.Lock()

    def get_array(self) -> Array:
        with self._lock:
            if self._array is None:
                self._array = self._location.open_array(self._name)
            return self._array

    def _oindex(self, key: tuple[Any, ...]) -> np.ndarray:
        return read_outer(self.get_array(), key)

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape,
                                                  indexing.IndexingSupport.OUTER,
                                                  self._oindex)

    async def async_getitem(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return await asyncio.to_thread(self.__getitem__, key)


# -- the data store ------------------------------------------------------------------


def _dims_and_attrs(array: Array, name: str, location: _Location,
                    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Dimension names and user attributes, as xarray's zarr backend finds them."""
    attributes = array.attrs.asdict()
    if array.zarr_format == 3:
        dims = array.dimension_names or ()
        if len(dims) != array.ndim:
            raise KeyError(f"array '{name}' of {location.describe()} is missing the "
                           "`dimension_names` metadata which is required for xarray to "
                           "determine variable dimensions.")
        return tuple(dims), attributes
    if DIMENSION_KEY in attributes:
        dims = attributes[DIMENSION_KEY]
    else:  # NCZarr keeps them in .zarray
        dimrefs = array.metadata.get("_NCZARR_ARRAY", {}).get("dimrefs")
        if dimrefs is None:
            raise KeyError(f"array '{name}' of {location.describe()} is missing the "
                           f"attribute `{DIMENSION_KEY}` and the NCZarr metadata, which "
                           "are required for xarray to determine variable dimensions.")
        dims = [os.path.basename(d) for d in dimrefs]
    hidden = {k for k in attributes if k == DIMENSION_KEY or k.lower().startswith("_nc")}
    return tuple(dims), {k: v for k, v in attributes.items() if k not in hidden}


class TurbozarrStore(AbstractDataStore):
    """A Zarr group read by turbozarr, as the variables and attributes that
    xarray's conventions layer decodes (read-only)."""

    def __init__(self, location: _Location, use_zarr_fill_value_as_mask: bool | None = None):
        self._location = location
        self._use_zarr_fill_value_as_mask = use_zarr_fill_value_as_mask

    @classmethod
    def open(cls, filename_or_obj: Any, *, group: str | None = None,
             consolidated: bool | None = None,
             storage_options: dict[str, Any] | None = None,
             zarr_format: int | None = None,
             use_zarr_fill_value_as_mask: bool | None = None) -> TurbozarrStore:
        location = _Location(filename_or_obj, group or "", consolidated, storage_options,
                             zarr_format)
        location.open()  # errors now, not on first read
        return cls(location, use_zarr_fill_value_as_mask)

    @property
    def group(self) -> Group:
        return self._location.open()

    def get_child_store(self, group: str) -> TurbozarrStore:
        return type(self)(self._location.child(normalize_path(group)),
                          self._use_zarr_fill_value_as_mask)

    def child_group_names(self) -> list[str]:
        return [name for name, kind in self._location.members() if kind == "group"]

    def _fill_value_as_mask(self) -> bool:
        if self._use_zarr_fill_value_as_mask is not None:
            return self._use_zarr_fill_value_as_mask
        # xarray's default: v2 data was written with the fill value as its mask
        return self.group.zarr_format == 2

    def open_store_variable(self, name: str) -> Variable:
        array = self._location.open_array(name)
        dims, attributes = _dims_and_attrs(array, name, self._location)
        wrapper = TurbozarrArrayWrapper(self._location, name, array)
        data = indexing.LazilyIndexedArray(wrapper)
        encoding: dict[str, Any]
        if array.regular_chunks:
            chunks = array.chunks
            encoding = {
                "chunks": chunks,
                # a dask chunk per shard: one read of each shard's index
                "preferred_chunks": dict(zip(dims, array.shards or chunks)),
                "shards": array.shards,
            }
        else:
            # A rectilinear grid: a dask chunk per stored chunk (shard).
            encoding = {"preferred_chunks": dict(zip(dims, array.write_chunk_sizes))}
        if array.dtype.kind == "T":
            encoding["dtype"] = array.dtype
        fill_value = array.fill_value
        if self._fill_value_as_mask():
            if fill_value is not None:
                attributes["_FillValue"] = fill_value
        else:
            if self.group.zarr_format == 3:
                encoding["fill_value"] = fill_value
            if "_FillValue" in attributes:
                attributes["_FillValue"] = FillValueCoder.decode(attributes["_FillValue"],
                                                                 array.dtype)
        return Variable(dims, data, attributes, encoding)

    def get_variables(self) -> FrozenDict:
        return FrozenDict((name, self.open_store_variable(name))
                          for name, kind in self._location.members() if kind == "array")

    def get_attrs(self) -> dict[str, Any]:
        return {k: v for k, v in self.group.attrs.asdict().items()
                if not k.lower().startswith("_nc")}

    def get_dimensions(self) -> dict[str, int]:
        dimensions: dict[str, int] = {}
        for name, var in self.get_variables().items():
            for d, s in zip(var.dims, var.shape):
                if dimensions.setdefault(d, s) != s:
                    raise ValueError(f"found conflicting lengths for dimension {d} "
                                     f"({s} != {dimensions[d]}) at variable {name}")
        return dimensions

    def close(self) -> None:
        pass  # stores are released with their last reference


def _iter_groups(store: TurbozarrStore, path: str) -> Iterator[tuple[str, TurbozarrStore]]:
    yield path, store
    for name in store.child_group_names():
        yield from _iter_groups(store.get_child_store(name), str(NodePath(path) / name))


# -- the entry point -----------------------------------------------------------------


class TurbozarrBackendEntrypoint(BackendEntrypoint):
    """Opens Zarr groups (v2 and v3) with turbozarr: ``engine="turbozarr"``.

    Takes the keywords of ``engine="zarr"``'s decoders, and ``group``,
    ``consolidated`` (None: used when present; True: required; False:
    ignored), ``zarr_format`` (required format, when given),
    ``use_zarr_fill_value_as_mask`` (default: True for v2, False for v3, as
    xarray's zarr backend) and ``storage_options`` (the keyword options of
    ``turbozarr.open_store``, such as ``endpoint_url`` or ``region`` for
    ``s3://`` URLs). The path may also be a turbozarr Store.
    """

    description = "Open Zarr groups (v2 and v3) with the turbozarr engine"
    url = "https://github.com/turbozarr/turbozarr/blob/main/docs/xarray.md"
    supports_groups = True
    open_dataset_parameters = (
        "filename_or_obj", "mask_and_scale", "decode_times", "concat_characters",
        "decode_coords", "drop_variables", "use_cftime", "decode_timedelta", "group",
        "mode", "consolidated", "storage_options", "zarr_format",
        "use_zarr_fill_value_as_mask",
    )

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        # ".zarr" paths are zarr-python's by default; this engine claims them
        # only where zarr-python is not installed.
        if isinstance(filename_or_obj, (str, os.PathLike)):
            _, ext = os.path.splitext(str(filename_or_obj).rstrip("/"))
            return ext == ".zarr" and importlib.util.find_spec("zarr") is None
        return False

    @staticmethod
    def _open_store(filename_or_obj: Any, group: str | None, mode: str,
                    consolidated: bool | None, storage_options: dict[str, Any] | None,
                    zarr_format: int | None,
                    use_zarr_fill_value_as_mask: bool | None) -> TurbozarrStore:
        if mode != "r":
            raise ValueError(f"engine turbozarr opens Zarr groups read-only (mode='r'), "
                             f"not mode={mode!r}")
        return TurbozarrStore.open(_normalize_path(filename_or_obj), group=group,
                                   consolidated=consolidated,
                                   storage_options=storage_options, zarr_format=zarr_format,
                                   use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask)

    @staticmethod
    def _decode(store: TurbozarrStore, decoders: dict[str, Any]):
        with close_on_error(store):
            return StoreBackendEntrypoint().open_dataset(store, **decoders)

    def open_dataset(  # type: ignore[override]
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale: bool = True,
        decode_times: Any = True,
        concat_characters: bool = True,
        decode_coords: Any = True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime: bool | None = None,
        decode_timedelta: Any = None,
        group: str | None = None,
        mode: str = "r",
        consolidated: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        zarr_format: int | None = None,
        use_zarr_fill_value_as_mask: bool | None = None,
    ):
        store = self._open_store(filename_or_obj, group, mode, consolidated,
                                 storage_options, zarr_format, use_zarr_fill_value_as_mask)
        return self._decode(store, dict(
            mask_and_scale=mask_and_scale, decode_times=decode_times,
            concat_characters=concat_characters, decode_coords=decode_coords,
            drop_variables=drop_variables, use_cftime=use_cftime,
            decode_timedelta=decode_timedelta))

    def open_datatree(self, filename_or_obj: Any, **kwargs: Any):  # type: ignore[override]
        """Every group below the one opened, as a DataTree; the keywords
        of open_dataset."""
        return datatree_from_dict_with_io_cleanup(
            self.open_groups_as_dict(filename_or_obj, **kwargs))

    def open_groups_as_dict(  # type: ignore[override]
        self,
        filename_or_obj: Any,
        *,
        group: str | None = None,
        mode: str = "r",
        consolidated: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        zarr_format: int | None = None,
        use_zarr_fill_value_as_mask: bool | None = None,
        **decoders: Any,
    ):
        """{group path: Dataset} for the group opened and every group below
        it; the decoders (mask_and_scale, ...) of open_dataset."""
        parent = str(NodePath("/") / NodePath(group)) if group else "/"
        root = self._open_store(filename_or_obj, group, mode, consolidated,
                                storage_options, zarr_format, use_zarr_fill_value_as_mask)
        out = {}
        for path, store in _iter_groups(root, parent):
            name = str(NodePath(path).relative_to(parent)) if group else path
            out[name] = self._decode(store, decoders)
        return out
