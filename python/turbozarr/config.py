"""Process-wide settings."""

from __future__ import annotations

from turbozarr import _core

__all__ = ["get_threads", "set_threads"]


def set_threads(n: int) -> None:
    """Sets how many threads (the calling one included) work on one read or
    write. The default is the number of cores, or TURBOZARR_NUM_THREADS.
    Raises RuntimeError while an Array.iter_blocks iteration is open (it
    reads on the pool in the background)."""
    _core.set_threads(int(n))


def get_threads() -> int:
    """How many threads (the calling one included) work on one read or write."""
    return _core.get_threads()
