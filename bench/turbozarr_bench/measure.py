"""What a case measures besides wall time: statistics, CPU, RSS, page cache.

Standard library only (plus ctypes for mincore): this runs in every child.

- Statistics: median and MAD (median absolute deviation) of the timed runs,
  with min and max. At three repeats one interrupted run moves a mean by more
  than most differences worth looking for; it barely moves a median.
- CPU: user + system seconds of the process and of its waited-for children
  (getrusage), so a CLI in a subprocess is counted too.
- RSS: VmRSS now and VmHWM (the high-water mark) from /proc/self/status. The
  mark is reset to the current RSS (clear_refs 5) just before the timed runs,
  so the peak belongs to this case, not to imports or setup.
- Page cache: evict() drops a fixture's pages (posix_fadvise DONTNEED, per
  file, so nothing else on the machine loses its cache); resident_fraction()
  says how much of it is cached (mincore), recorded before each timed run.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import resource
import statistics
from pathlib import Path
from typing import Iterable


def summarize(samples: list[float]) -> dict[str, float]:
    """median, mad, min, max of `samples` (seconds)."""
    if not samples:
        raise ValueError("no samples")
    med = statistics.median(samples)
    mad = statistics.median([abs(s - med) for s in samples])
    return {"median": med, "mad": mad, "min": min(samples), "max": max(samples)}


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_mb() -> float | None:
    kib = _status_kib("VmRSS")
    return None if kib is None else kib / 1024


def peak_rss_mb() -> float | None:
    kib = _status_kib("VmHWM")
    if kib is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return kib / 1024


def reset_peak_rss() -> bool:
    """Resets VmHWM to the current RSS; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def files_under(path: Path) -> list[Path]:
    path = Path(path)
    if path.is_file():
        return [path]
    return [p for p in path.rglob("*") if p.is_file()]


def evict(files: Iterable[Path]) -> None:
    """Drops the page-cache pages of `files`. Only clean pages can be dropped,
    so each file is flushed first (a fresh fixture's pages are still dirty)."""
    for p in files:
        try:
            fd = os.open(p, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


_libc = None


def _mincore():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        _libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
        _libc.mincore.restype = ctypes.c_int
    return _libc.mincore


def resident_fraction(files: Iterable[Path]) -> float | None:
    """Fraction of the files' pages in the page cache, or None if unknown."""
    import numpy as np  # for the address of a read-only mapping

    try:
        mincore = _mincore()
    except (OSError, AttributeError):
        return None
    page = mmap.PAGESIZE
    total = resident = 0
    for p in files:
        try:
            size = os.path.getsize(p)
        except OSError:
            continue
        if size == 0:
            continue
        pages = (size + page - 1) // page
        total += pages
        with open(p, "rb") as f:
            m = mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ)
        try:
            view = np.frombuffer(m, dtype=np.uint8)
            vec = ctypes.create_string_buffer(pages)
            rc = mincore(view.ctypes.data, size, vec)
            del view
            if rc != 0:
                return None
            resident += np.count_nonzero(np.frombuffer(vec.raw, dtype=np.uint8) & 1)
        finally:
            m.close()
    return 1.0 if total == 0 else resident / total


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return ""
