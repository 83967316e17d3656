"""Group: a Zarr group (v2 or v3) and its members."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from turbozarr import _codecs, _core, _metadata
from turbozarr._array import Array
from turbozarr._node import Node
from turbozarr._store import normalize_path
from turbozarr.errors import NotFoundError, ReadOnlyError


class Group(Node):
    """A Zarr group. Get one from turbozarr.open/open_group/group."""

    _open_core = staticmethod(_core.open_group)

    @property
    def is_consolidated(self) -> bool:
        return self._core.is_consolidated

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlyError(f"group '{self.path}' in {self.store.describe()} was opened "
                                "read-only (mode 'r')")

    def _wrap(self, core: Any) -> Array | Group:
        if isinstance(core, _core.Array):
            return Array(core, self._read_only)
        return Group(core, self._read_only)

    # -- members ---------------------------------------------------------------

    def _member_info(self) -> list[tuple[str, str, int]]:
        return self._core.members()

    def __getitem__(self, name: str) -> Array | Group:
        name = normalize_path(name)
        try:
            return Array(self._core.open_array(name), self._read_only)
        except NotFoundError:
            pass
        try:
            return Group(self._core.open_group(name), self._read_only)
        except NotFoundError:
            raise KeyError(name) from None

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return self.get(name) is not None

    def keys(self) -> list[str]:
        return [n for n, _, _ in self._member_info()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._member_info())

    def members(self) -> list[tuple[str, Array | Group]]:
        """(name, node) of every direct member, sorted by name."""
        out: list[tuple[str, Array | Group]] = []
        for name, kind, _ in self._member_info():
            core = self._core.open_array(name) if kind == "array" else self._core.open_group(name)
            out.append((name, self._wrap(core)))
        return out

    def array_keys(self) -> list[str]:
        return [n for n, kind, _ in self._member_info() if kind == "array"]

    def group_keys(self) -> list[str]:
        return [n for n, kind, _ in self._member_info() if kind == "group"]

    def arrays(self) -> list[tuple[str, Array]]:
        return [(n, Array(self._core.open_array(n), self._read_only))
                for n in self.array_keys()]

    def groups(self) -> list[tuple[str, Group]]:
        return [(n, Group(self._core.open_group(n), self._read_only))
                for n in self.group_keys()]

    def tree(self) -> str:
        """An indented tree of everything below this group."""
        return self._core.tree()

    # -- creating --------------------------------------------------------------

    def create_group(self, name: str, *, attributes: dict | None = None,
                     overwrite: bool = False) -> Group:
        self._check_writable()
        core = self._core.create_group(normalize_path(name), self.zarr_format,
                                       json.dumps(attributes or {}), overwrite)
        return Group(core)

    def require_group(self, name: str, **kwargs: Any) -> Group:
        """The group `name`, created if absent."""
        node = self.get(name)
        if isinstance(node, Group):
            return node
        return self.create_group(name, **kwargs)

    def create_array(self, name: str, *, shape: Any, dtype: Any = "float64",
                     overwrite: bool = False, zarr_format: int | None = None,
                     compressors: Any = _codecs.AUTO, compressor: Any = _codecs.AUTO,
                     serializer: Any = _codecs.AUTO, config: dict | None = None,
                     checksum: bool = False, **kwargs: Any) -> Array:
        """A new array below this group (groups missing on its path are
        created); arguments as turbozarr.create."""
        self._check_writable()
        zarr_format = self.zarr_format if zarr_format is None else zarr_format
        _, meta, zattrs = _metadata.array_documents(
            shape, dtype, zarr_format=zarr_format, compressors=compressors,
            compressor=compressor, serializer=serializer, **kwargs)
        core = self._core.create_array(normalize_path(name), zarr_format, meta, zattrs,
                                       overwrite, checksum)
        return Array(core)._configure(config)

    # -- changing members --------------------------------------------------------

    def __delitem__(self, name: str) -> None:
        """Erases the member `name` and everything below it (its metadata
        first, so no reader finds half a node); KeyError if there is none. A
        consolidated group's consolidated metadata is rewritten without it."""
        self._check_writable()
        try:
            self._core.delete(normalize_path(name))
        except NotFoundError:
            raise KeyError(name) from None

    def move(self, source: str, dest: str) -> None:
        """Moves the member `source`, with everything below it, to `dest`
        (both relative to this group; groups missing above `dest` are
        created). The node appears at `dest` whole, then leaves `source`.
        KeyError if `source` is not a member; AlreadyExistsError if `dest`
        holds a node."""
        self._check_writable()
        try:
            self._core.move(normalize_path(source), normalize_path(dest))
        except NotFoundError:
            raise KeyError(source) from None

    def rename(self, name: str, new_name: str) -> None:
        """Renames the member `name` (a path relative to this group) to
        `new_name` in the same parent group."""
        if "/" in new_name.strip("/"):
            raise ValueError(f"group {self.path!r}: the new name {new_name!r} must be a "
                             "name, not a path (use move)")
        parent, _, _ = normalize_path(name).rpartition("/")
        self.move(name, f"{parent}/{new_name.strip('/')}" if parent else new_name)

    def consolidate(self) -> Group:
        """Writes consolidated metadata of everything below this group (v2
        .zmetadata, v3 inline in zarr.json) and returns the reopened group."""
        self._check_writable()
        self._core.consolidate()
        return Group(_core.open_group(self.store, self.path), self._read_only)

    def __repr__(self) -> str:
        return f"<turbozarr.Group '{self.name}' in {self.store.describe()}>"
