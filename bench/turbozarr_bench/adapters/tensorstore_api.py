"""TensorStore through its Python API (zarr3 / zarr drivers).

Threads: the context's data_copy_concurrency (decode and copy) is `threads`;
file_io_concurrency is `threads` too at threads = 1, TensorStore's default
otherwise. No cache pool is configured, so nothing is cached between runs.
Chunk-by-chunk reads keep `threads` read futures in flight. Round trip is
`dst.write(src)`, which TensorStore streams chunk by chunk.
Over HTTP the kvstore is the "http" driver on the server's base URL, with
TensorStore's default http_request_concurrency (32 requests in flight); over
S3 it is the "s3" driver with the server as its endpoint, its credentials
from the environment, and its default s3_request_concurrency.
"""

from __future__ import annotations

from typing import Any

from turbozarr_bench.adapters.base import ALL_OPS, Driver as _Base, stored_items, write_items

NAME = "tensorstore"
ENV = "venv"
REQUIRES = ("tensorstore==0.1.86", "numpy==2.4.6")
SUPPORTS = frozenset(ALL_OPS)
FORMATS = frozenset({"zarr2", "zarr3"})
STORES = frozenset({"local", "memory", "http", "s3"})
OPTIONS: dict[str, list] = {}
NOTE = "TensorStore Python API, no cache pool"


class Driver(_Base):
    def __init__(self, case):
        super().__init__(case)
        import tensorstore

        self.ts = tensorstore
        self.ctx = None

    def configure(self) -> None:
        spec: dict[str, Any] = {"data_copy_concurrency": {"limit": self.threads}}
        if self.threads == 1:
            spec["file_io_concurrency"] = {"limit": 1}
        self.ctx = self.ts.Context(spec)
        self.notes.append(str(spec))

    def versions(self) -> dict[str, str]:
        from importlib.metadata import version

        v = super().versions()
        v["tensorstore"] = version("tensorstore")
        return v

    def _driver(self) -> str:
        return "zarr3" if self.meta["zarr_format"] == 3 else "zarr"

    def local_source(self, path: str) -> Any:
        return {"driver": "file", "path": path}

    def memory_source(self, path: str) -> Any:
        kv = self.ts.KvStore.open({"driver": "memory"}, context=self.ctx).result()
        for key, value in stored_items(path):
            kv.write("src/" + key, value).result()
        return {"driver": "memory", "path": "src/"}

    def http_source(self, url: str) -> Any:
        return {"driver": "http", "base_url": url}

    def s3_source(self, s3: dict[str, Any]) -> Any:
        import os

        # TensorStore's S3 driver takes keys from the environment (or a profile).
        os.environ["AWS_ACCESS_KEY_ID"] = s3["access_key_id"]
        os.environ["AWS_SECRET_ACCESS_KEY"] = s3["secret_access_key"]
        return {"driver": "s3", "bucket": s3["bucket"], "path": s3["prefix"] + "/",
                "endpoint": s3["endpoint"], "aws_region": s3["region"]}

    def open(self, source: Any) -> Any:
        return self.ts.open({"driver": self._driver(), "kvstore": source},
                            context=self.ctx, read=True).result()

    def read_all(self, handle: Any):
        return handle.read().result()

    def read_region(self, handle: Any, region):
        return handle[region].read().result()

    def read_regions(self, source, regions, concurrency, sink) -> None:
        handle = self.open(source)
        pending: list[tuple[int, Any]] = []
        for i, region in enumerate(regions):
            pending.append((i, handle[region].read()))
            if len(pending) >= max(concurrency, 1):
                j, fut = pending.pop(0)
                sink(j, fut.result())
        for j, fut in pending:
            sink(j, fut.result())

    def local_target(self, path: str) -> Any:
        return {"driver": "file", "path": path}

    def memory_target(self) -> Any:
        # One memory kvstore per context: the target lives beside the source.
        return {"driver": "memory", "path": "dst/"}

    def _metadata(self) -> dict[str, Any]:
        m = dict(self.meta)
        m.pop("attributes", None)
        if not m.get("storage_transformers"):
            m.pop("storage_transformers", None)
        return m

    def create(self, target: Any) -> Any:
        return self.ts.open({"driver": self._driver(), "kvstore": target,
                             "metadata": self._metadata()},
                            context=self.ctx, create=True, delete_existing=True).result()

    def write_all(self, handle: Any, data) -> None:
        handle.write(data).result()

    def copy(self, source: Any, target: Any) -> None:
        src = self.open(source)
        dst = self.create(target)
        dst.write(src).result()

    def dump_target(self, target: Any, directory: str) -> None:
        kv = self.ts.KvStore.open({"driver": "memory"}, context=self.ctx).result()
        keys = [k for k in kv.list().result() if k.startswith(b"dst/")]
        write_items(((k.decode()[4:], kv.read(k).result().value) for k in keys), directory)
