"""Store arguments: a path (str or os.PathLike) or URL, or a Store object.

Paths and URLs: a directory ("data.zarr", "file:///data.zarr"), a zip archive
("data.zip", "zip:///data.zip"), or "memory://" (a new, empty in-memory store
each time). A zip archive is written once: an existing one opens read-only,
unless it is being replaced (mode "w", or overwrite=True, at its root); a new
one is complete on disk after ``store.flush()`` (or ``close()``, or when the
last reference to it goes).
"""

from __future__ import annotations

import os
from typing import Any

from turbozarr import _core
from turbozarr.errors import AlreadyExistsError

Store = _core.Store


def open_store(url: str | os.PathLike, *, read_only: bool = False,
               truncate: bool = False) -> Store:
    """The store a path or URL names (see the module docstring); `read_only`
    refuses writes, `truncate` writes a new zip archive in place of an
    existing one (directory stores ignore it)."""
    return _core.open_store(os.fspath(url), read_only=read_only, truncate=truncate)


def MemoryStore() -> Store:  # noqa: N802 (reads like a class, as in zarr-python)
    """A new, empty store held in memory."""
    return _core.memory_store()


def LocalStore(root: str | os.PathLike, *, read_only: bool = False) -> Store:  # noqa: N802
    """A store over a local directory, created on first write."""
    if read_only:
        return _core.open_store("file://" + os.path.abspath(os.fspath(root)), read_only=True)
    return _core.local_store(os.fspath(root))


def ZipStore(path: str | os.PathLike, mode: str = "r") -> Store:  # noqa: N802
    """A zip archive, as zarr-python's ZipStore: mode "r" reads an existing
    archive, "w" writes a new one (replacing the file on the first write), "x"
    writes a new one and fails if the file exists. Entries are stored (not
    compressed). Call flush() or close() (or use ``with``) to finish a new
    archive; it is also finished when the store is released."""
    p = os.path.abspath(os.fspath(path))
    url = "zip://" + p
    if mode == "r":
        return _core.open_store(url, read_only=True)
    if mode == "w":
        return _core.open_store(url, truncate=True)
    if mode == "x":
        if os.path.lexists(p):
            raise AlreadyExistsError(f"zip archive '{p}' already exists (mode 'x')")
        return _core.open_store(url)
    raise ValueError(f"ZipStore mode must be 'r', 'w' or 'x', got {mode!r} (an existing "
                     f"archive cannot be appended to)")


def as_store(store: Any, *, read_only: bool = False, truncate: bool = False) -> Store:
    """The Store for a store argument. For paths and URLs, `read_only` refuses
    writes and `truncate` starts a new zip archive in place of an existing one
    (directory stores ignore it)."""
    if isinstance(store, _core.Store):
        return store
    if isinstance(store, (str, os.PathLike)):
        s = os.fspath(store)
        if s.startswith("memory://"):
            return _core.memory_store()
        return _core.open_store(s, read_only=read_only, truncate=truncate)
    # An object of this package that holds a store (Array, Group).
    inner = getattr(store, "store", None)
    if isinstance(inner, _core.Store):
        return inner
    raise TypeError(f"expected a path, a URL or a turbozarr Store, got {type(store).__name__}")


def normalize_path(path: str) -> str:
    return "/".join(p for p in str(path).split("/") if p)
