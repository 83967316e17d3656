"""Node: what arrays and groups share: where they live and their attributes."""

from __future__ import annotations

from turbozarr import _core
from turbozarr._attributes import Attributes


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
