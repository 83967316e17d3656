"""turbozarr through its Python API (the in-place build of this repository).

Its environment is the harness's own interpreter with the repository's
python/ directory on PYTHONPATH, so the row measures the working tree as
built by `make build`, not a released wheel. Over HTTP the source is the
server's URL itself: open_array opens an http:// URL with the library's HTTP
store. Over S3 it is open_store("s3://bucket/prefix", endpoint_url=...,
credentials), the library's S3 store with its defaults.
"""

from __future__ import annotations

import os
import time
from typing import Any

from turbozarr_bench.adapters.base import (ALL_OPS, Driver as _Base, build_optimization,
                                           stored_items, write_items)

NAME = "turbozarr"
ENV = "project"
REQUIRES: tuple[str, ...] = ()
SUPPORTS = frozenset(ALL_OPS)
FORMATS = frozenset({"zarr2", "zarr3"})
STORES = frozenset({"local", "memory", "zip", "http", "s3"})
OPTIONS: dict[str, list] = {}
NOTE = ("turbozarr Python API, threads from turbozarr.config.set_threads; "
        "round trips stream with Array.iter_blocks")


def turbozarr_versions(tz) -> dict[str, str]:
    """turbozarr's version and which build ran: the extension module and when
    and how it was built."""
    v = {"turbozarr": tz.__version__}
    core = getattr(tz._core, "__file__", "")
    if core:
        stamp = time.strftime("%Y-%m-%dT%H:%M", time.localtime(os.path.getmtime(core)))
        v["turbozarr_core"] = f"{core} (built {stamp}, {build_optimization(core)})"
    return v


class Driver(_Base):
    def __init__(self, case):
        super().__init__(case)
        import turbozarr

        self.tz = turbozarr

    def configure(self) -> None:
        self.tz.config.set_threads(self.threads)
        self.notes.append(f"set_threads({self.threads})")

    def versions(self) -> dict[str, str]:
        v = super().versions()
        v.update(turbozarr_versions(self.tz))
        return v

    def memory_source(self, path: str) -> Any:
        store = self.tz.MemoryStore()
        for key, value in stored_items(path):
            store.set(key, value)
        return store

    def zip_source(self, path: str) -> Any:
        return path  # a path ending in .zip opens the archive

    def http_source(self, url: str) -> Any:
        return url  # an http:// URL opens the HTTP store

    def s3_source(self, s3: dict[str, Any]) -> Any:
        return self.tz.open_store(
            f"s3://{s3['bucket']}/{s3['prefix']}", endpoint_url=s3["endpoint"],
            region=s3["region"], access_key_id=s3["access_key_id"],
            secret_access_key=s3["secret_access_key"], addressing="path")

    def open(self, source: Any) -> Any:
        return self.tz.open_array(source, mode="r")

    def read_all(self, handle: Any):
        return handle[...]

    def read_region(self, handle: Any, region):
        return handle[region]

    def memory_target(self) -> Any:
        return self.tz.MemoryStore()

    def zip_target(self, path: str) -> Any:
        return path

    def create(self, target: Any) -> Any:
        m = self.meta
        if m["zarr_format"] == 3:
            return self.tz.create(
                target, shape=m["shape"], dtype=m["data_type"],
                chunks=m["chunk_grid"]["configuration"]["chunk_shape"], codecs=m["codecs"],
                fill_value=m["fill_value"], zarr_format=3,
                chunk_key_encoding=m.get("chunk_key_encoding"), overwrite=True)
        return self.tz.create(
            target, shape=m["shape"], dtype=m["dtype"], chunks=m["chunks"],
            compressor=m["compressor"], filters=m["filters"], fill_value=m["fill_value"],
            zarr_format=2, order=m["order"],
            dimension_separator=m.get("dimension_separator", "."), overwrite=True)

    def write_all(self, handle: Any, data) -> None:
        handle[...] = data
        handle.store.flush()  # a zip archive's directory; a no-op otherwise

    def copy(self, source: Any, target: Any) -> None:
        # The library's array-to-array copy (as TensorStore's dst.write(src)):
        # unit by unit where the layouts allow, else streamed blocks; never
        # the whole array in memory.
        src = self.open(source)
        out = self.create(target)
        out[...] = src

    def dump_target(self, target: Any, directory: str) -> None:
        write_items(((k, target.get(k)) for k in target.list()), directory)
