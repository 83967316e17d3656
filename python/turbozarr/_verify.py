"""turbozarr.verify: every stored byte of an array or hierarchy read and
checked (the engine's Verify; `turbozarr verify` on the command line)."""

from __future__ import annotations

import json
from typing import Any, Callable

from turbozarr import _core
from turbozarr._array import Array
from turbozarr._group import Group
from turbozarr._store import as_store, normalize_path

# progress(chunks_done, chunks_total, bytes_done); returning False stops.
Progress = Callable[[int, int, int], Any]


def verify(store_or_path: Any, path: str = "", *, jobs: int | None = None,
           progress: Progress | None = None) -> dict[str, Any]:
    """Reads and decodes every stored chunk of the array or group at `path`
    (and below it), checking checksums, shard indexes, sizes and metadata,
    and the layouts of OME-Zarr images, sparse matrices and VCF Zarr
    datasets in it. Nothing is changed.

    `store_or_path` is a store, a path or URL, or an Array or Group (whose
    own path is used when `path` is empty). `jobs` threads decode (None: the
    engine's, see turbozarr.config). `progress(chunks_done, chunks_total,
    bytes_done)` is called about ten times a second; returning False stops
    the walk (CancelledError), as does an exception it raises.

    Returns the report (docs/cli.md, "verify"): "damaged" says whether
    anything was found, "arrays" lists each array with its "status"
    ("verified", "decoded, unchecked" when its codecs carry no checksum, or
    "damaged") and its "findings" ({"key", "message"}). Raises NotFoundError
    when nothing is at the path.
    """
    if not path and isinstance(store_or_path, (Array, Group)):
        path = store_or_path.path
    store = as_store(store_or_path, read_only=True)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be a positive whole number or None, not {jobs!r}")
    text = _core.verify(store, normalize_path(path), jobs or 0, progress)
    return json.loads(text)
