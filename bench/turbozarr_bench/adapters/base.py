"""What an adapter is: declarations the parent reads, a Driver the child runs.

An adapter module declares, at module level and with nothing but the standard
library imported:

    NAME      the implementation label used in configs and CSV rows
    ENV       "venv" (an isolated environment built from REQUIRES) or
              "project" (the harness's own interpreter plus the in-place build)
    REQUIRES  pinned requirements of its environment; [env.<name>] requires
              in a config replaces them
    SUPPORTS  the operations it can express
    FORMATS   the dataset formats it reads: "zarr2", "zarr3", "npy"
    STORES    "local", "memory", "zip" (the fixture packed into a zip archive of
              stored entries at its root, as zarr-python's ZipStore writes),
              "http" (the fixture directory served over HTTP; reads only),
              "s3" (the fixture uploaded to an S3 server; reads only)
    OPTIONS   its own closed axes, {"pipeline": ["batched", "fused"]}; the
              first value is the default
    OPTION_STORES  optional: the stores an axis applies to, {"remote": ("http",)};
              elsewhere the axis is left out of the case's variant
    NOTE      one line for --list saying what the row measures

and may define `excludes(case) -> str | None` for a combination only it can
judge. The parent answers all of these before anything is installed, so every
gap shows up in --list with its reason and no child is started to find it.

The Driver is instantiated in the child, inside the adapter's environment,
where it imports its library. It provides the primitive operations that
turbozarr_bench.ops composes into timed cases; raising Unsupported from any
of them marks the case `unsupported` (with the message as reason) rather than
`failed`, for gaps that can only be seen at run time (a pipeline missing from
the installed version, a silent fallback detected).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import numpy as np

ALL_OPS = ("read_full", "read_chunks", "read_inner_chunks", "write_full", "round_trip")
READ_OPS = frozenset({"read_full", "read_chunks", "read_inner_chunks"})
WRITE_OPS = frozenset({"write_full", "round_trip"})

Region = tuple[slice, ...]
Sink = Callable[[int, np.ndarray], None]


def build_optimization(path: str) -> str:
    """How a native binary was compiled, from the DWARF producer string GCC and
    Clang record with -g: "-O2", "-O3"..., "UNOPTIMIZED (-O0)" for a debug
    build, or "no debug info" (a release build without -g; stripped)."""
    import re

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return "unknown"
    producers = re.findall(rb"(?:GNU C\+\+|clang version)[ -~]{0,2000}", data)
    if not producers:
        return "no debug info"
    levels = set()
    for p in producers:
        found = re.findall(rb" -O([0-3sgz]?)\b", p)
        levels.add(found[-1].decode() if found else "0")
    levels.discard("")
    if levels <= {"0", "g"}:
        return "UNOPTIMIZED (-O0)"
    return " ".join(f"-O{x}" for x in sorted(levels))


class Unsupported(Exception):
    """The adapter cannot express this case; the message says why."""


def stored_items(root: str | os.PathLike) -> list[tuple[str, bytes]]:
    """(key, value) of every file under a fixture directory, keys relative
    to it with '/' separators: the content of a store, for memory stores."""
    root = Path(root)
    items = []
    for p in sorted(root.rglob("*")):
        if p.is_file():
            items.append((p.relative_to(root).as_posix(), p.read_bytes()))
    return items


def write_items(items, directory: str | os.PathLike) -> None:
    """Writes (key, value) pairs as files: a memory store dumped for the audit."""
    directory = Path(directory)
    for key, value in items:
        p = directory / key
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(bytes(value))


class Driver:
    """One library's primitive operations. `case` is the JSON case document;
    `meta` is the fixture's own metadata document (zarr.json for v3, .zarray
    for v2), which is what a write must reproduce."""

    def __init__(self, case: dict[str, Any]):
        self.case = case
        self.threads: int = case["nthreads"]
        self.options: dict[str, Any] = case.get("options", {})
        self.meta: dict[str, Any] | None = case["fixture"].get("meta")
        self.notes: list[str] = []

    # -- set-up ---------------------------------------------------------------
    def configure(self) -> None:
        """Applies the thread count and options, once, after import."""

    def versions(self) -> dict[str, str]:
        return {"numpy": np.__version__}

    # -- sources (read side) --------------------------------------------------
    def local_source(self, path: str) -> Any:
        return path

    def memory_source(self, path: str) -> Any:
        raise Unsupported(f"{type(self).__module__} has no memory store")

    def zip_source(self, path: str) -> Any:
        """`path` is a zip archive holding the fixture's keys at its root."""
        raise Unsupported(f"{type(self).__module__} has no zip store")

    def http_source(self, url: str) -> Any:
        """`url` is the base URL of a server holding the fixture's keys at its root
        (key "a/b" is `url`/a/b); the server answers GET and HEAD with single byte
        ranges, and nothing else (no listing, no writes)."""
        raise Unsupported(f"{type(self).__module__} has no HTTP store")

    def s3_source(self, s3: dict[str, Any]) -> Any:
        """`s3` says where an S3 server holds the fixture's keys: "endpoint"
        (http://127.0.0.1:PORT, path-style addressing), "bucket", "prefix" (key
        "a/b" is object <prefix>/a/b), "region", "access_key_id" and
        "secret_access_key" (requests are signed with SigV4)."""
        raise Unsupported(f"{type(self).__module__} has no S3 store")

    def open(self, source: Any) -> Any:
        raise NotImplementedError

    def read_all(self, handle: Any) -> np.ndarray:
        raise NotImplementedError

    def read_region(self, handle: Any, region: Region) -> np.ndarray:
        raise NotImplementedError

    def read_regions(self, source: Any, regions: list[Region], concurrency: int,
                     sink: Sink) -> None:
        """Reads every region, `concurrency` at a time, handing each to `sink`."""
        handle = self.open(source)
        if concurrency <= 1:
            for i, region in enumerate(regions):
                sink(i, self.read_region(handle, region))
            return

        def one(i: int) -> None:
            sink(i, self.read_region(handle, regions[i]))

        with ThreadPoolExecutor(concurrency) as pool:
            for _ in pool.map(one, range(len(regions))):
                pass

    # -- targets (write side) -------------------------------------------------
    def local_target(self, path: str) -> Any:
        return path

    def memory_target(self) -> Any:
        raise Unsupported(f"{type(self).__module__} has no memory store")

    def zip_target(self, path: str) -> Any:
        """A new zip archive at `path`; the write must leave it complete (its
        central directory written) before it returns."""
        raise Unsupported(f"{type(self).__module__} has no zip store")

    def create(self, target: Any) -> Any:
        """A new, empty array in `target` with the fixture's metadata."""
        raise NotImplementedError

    def write_all(self, handle: Any, data: np.ndarray) -> None:
        raise NotImplementedError

    def copy(self, source: Any, target: Any) -> None:
        """Round trip: read the source, re-encode, write a copy into target."""
        out = self.create(target)
        self.write_all(out, self.read_all(self.open(source)))

    def dump_target(self, target: Any, directory: str) -> None:
        """Writes a memory target's keys as files, for the zarr-python audit."""
        raise Unsupported("no memory store")
