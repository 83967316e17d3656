"""Store arguments: a path (str or os.PathLike), a "file://" URL,
"memory://" (a new, empty in-memory store each time) or a Store object."""

from __future__ import annotations

import os
from typing import Any

from turbozarr import _core

Store = _core.Store


def MemoryStore() -> Store:  # noqa: N802 (reads like a class, as in zarr-python)
    """A new, empty store held in memory."""
    return _core.memory_store()


def LocalStore(root: str | os.PathLike) -> Store:  # noqa: N802
    """A store over a local directory, created on first write."""
    return _core.local_store(os.fspath(root))


def as_store(store: Any) -> Store:
    if isinstance(store, _core.Store):
        return store
    if isinstance(store, (str, os.PathLike)):
        s = os.fspath(store)
        if s.startswith("memory://"):
            return _core.memory_store()
        return _core.open_store(s)
    # An object of this package that holds a store (Array, Group).
    inner = getattr(store, "store", None)
    if isinstance(inner, _core.Store):
        return inner
    raise TypeError(f"expected a path, a URL or a turbozarr Store, got {type(store).__name__}")


def normalize_path(path: str) -> str:
    return "/".join(p for p in str(path).split("/") if p)
