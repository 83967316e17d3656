"""Exceptions raised by turbozarr.

Every failure reported by the engine becomes one of these classes; each also
derives from the closest built-in exception, so that code written against
zarr-python or plain Python (``except FileNotFoundError``) keeps working.
"""

from __future__ import annotations

__all__ = [
    "TurbozarrError",
    "NotFoundError",
    "ChunkNotFoundError",
    "CorruptionError",
    "InvalidArgumentError",
    "StoreIOError",
    "UnsupportedError",
    "CancelledError",
    "AlreadyExistsError",
    "ReadOnlyError",
]


class TurbozarrError(Exception):
    """Base class of every error raised by turbozarr."""


class NotFoundError(TurbozarrError, FileNotFoundError):
    """A required key, array or group does not exist."""


class ChunkNotFoundError(NotFoundError):
    """A read met a chunk that is not stored, on an array whose
    ``read_missing_chunks`` is False (zarr-python's error of that name).

    The message names the array and the chunk's key.
    """


class CorruptionError(TurbozarrError):
    """Stored bytes are malformed: bad checksum, wrong size, bad JSON.

    The message names the store key that holds the bad bytes.
    """


class InvalidArgumentError(TurbozarrError, ValueError):
    """The caller asked for something that makes no sense."""


class StoreIOError(TurbozarrError, OSError):
    """The operating system or the network failed."""


class UnsupportedError(TurbozarrError, NotImplementedError):
    """Well-formed input that uses a feature turbozarr does not implement."""


class CancelledError(TurbozarrError):
    """The operation was cancelled."""


class AlreadyExistsError(TurbozarrError, FileExistsError):
    """Creation without overwrite found an array or group already there."""


class ReadOnlyError(TurbozarrError, PermissionError):
    """A write to an array or group opened read-only (mode "r")."""
