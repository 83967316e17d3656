"""Process-wide settings."""

from __future__ import annotations

from turbozarr import _core

__all__ = ["get_threads", "set_threads"]


def set_threads(n: int) -> None:
    """Sets how many threads (the calling one included) work on each read or
    write started from now on; 1 to 1024 (else InvalidArgumentError, a
    ValueError). The default is TURBOZARR_NUM_THREADS, or the number of
    cores when that is unset or not a whole number from 1 to 1024 (a
    warning on stderr then says so).

    Safe to call at any time from any thread: reads and writes already
    running finish with the count they started with, and an open
    Array.iter_blocks iteration uses the new count from its next block on."""
    _core.set_threads(int(n))


def get_threads() -> int:
    """How many threads (the calling one included) work on one read or write."""
    return _core.get_threads()
