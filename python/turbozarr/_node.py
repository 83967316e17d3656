"""Node: what arrays and groups share: where they live and their attributes,
and how they pickle (the store's URL and the node's path, never data)."""

from __future__ import annotations

from typing import Any

from turbozarr import _core
from turbozarr._attributes import Attributes
from turbozarr._store import reopen_store, store_spec


def _reopen(cls: type, spec: tuple, path: str, read_only: bool) -> Node:
    """The node `cls` at `path` of the store `spec` names (see __reduce__)."""
    return cls(cls._open_core(reopen_store(spec), path), read_only)


class Node:
    """Base of Array and Group; wraps the engine's node object."""

    def __init__(self, core, read_only: bool = False):
        self._core = core
        self._read_only = read_only

    @property
    def zarr_format(self) -> int:
        return self._core.zarr_format

    @property
    def path(self) -> str:
        return self._core.path

    @property
    def name(self) -> str:
        return "/" + self._core.path

    @property
    def basename(self) -> str:
        return self._core.path.rsplit("/", 1)[-1]

    @property
    def store(self) -> _core.Store:
        return self._core.store

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def attrs(self) -> Attributes:
        return Attributes(self)

    @staticmethod
    def _open_core(store: _core.Store, path: str) -> Any:
        raise NotImplementedError

    def _pickled_state(self) -> dict[str, Any]:
        """Settings of this object that a pickle carries along."""
        return {}

    def __reduce__(self) -> tuple:
        # Where the node lives, not what it holds: unpickling opens it again
        # (metadata read anew). turbozarr._store.store_spec says which stores
        # can be named so, and raises TypeError for the others.
        return (_reopen, (type(self), store_spec(self.store), self.path, self._read_only),
                self._pickled_state())
