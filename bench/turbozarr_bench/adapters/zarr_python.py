"""zarr-python, with its default (batched) codec pipeline or the fused one.

Threads: `threading.max_workers` (the pool the batched pipeline decodes on)
and, for the fused pipeline, `codec_pipeline.max_workers`, so threads = 1 is
Fused(1) and threads = "all" is Fused(cpu_count). Chunk-by-chunk reads go
through the async API with a semaphore of `threads` reads in flight, as the
zarr_benchmarks scripts do.

Over HTTP (store = "http") the `remote` axis picks the store: "fsspec" is
FsspecStore.from_url (fsspec's HTTPFileSystem on aiohttp), "obstore" is
ObjectStore over obstore's HTTPStore (Rust object_store). Both keep
zarr-python's default of `async.concurrency` (10) requests in flight. Over S3
(store = "s3") the store is ObjectStore over obstore's S3Store.
"""

from __future__ import annotations

from typing import Any

from turbozarr_bench.adapters.base import ALL_OPS, Driver as _Base, Unsupported, stored_items

NAME = "zarr-python"
ENV = "venv"
# fsspec + aiohttp and obstore are the two HTTP stores of the `remote` axis.
REMOTE_REQUIRES = ("fsspec==2026.9.0", "aiohttp==3.14.5", "obstore==0.12.1")
# zarr-python 3.4 needs Python 3.12: the venv is built from one (envs.find_python).
# numcodecs 0.16.6 meets zarr 3.4.2's numcodecs>=0.16.6,!=0.17.0. The harness's
# own write audit still reads back with the .venv's zarr 3.1.6 (Python 3.11).
ZARR = "zarr==3.4.2"
PYTHON = "3.12"
REQUIRES = (ZARR, "numcodecs==0.16.6", "numpy==2.4.6", *REMOTE_REQUIRES)
SUPPORTS = frozenset(ALL_OPS)
FORMATS = frozenset({"zarr2", "zarr3"})
STORES = frozenset({"local", "memory", "zip", "http", "s3"})
OPTIONS = {"pipeline": ["batched", "fused"], "remote": ["fsspec", "obstore"]}
OPTION_STORES = {"remote": ("http",)}
NOTE = ("zarr-python 3.4 sync API; pipeline = batched (default) or fused (a zarr without "
        "FusedCodecPipeline reads unsupported: checked in the child); over HTTP, "
        "remote = fsspec (default) or obstore")

# remote -> the distributions it needs, for the versions cell
REMOTE_PACKAGES = {"fsspec": ("fsspec", "aiohttp"), "obstore": ("obstore",)}

PIPELINES = {
    "batched": "zarr.core.codec_pipeline.BatchedCodecPipeline",
    "fused": "zarr.core.codec_pipeline.FusedCodecPipeline",
}


class Driver(_Base):
    def __init__(self, case):
        super().__init__(case)
        import zarr

        self.zarr = zarr

    def pipeline_settings(self) -> dict[str, Any]:
        import zarr.core.codec_pipeline as cp

        name = self.options.get("pipeline", "batched")
        cls = PIPELINES[name].rsplit(".", 1)[1]
        if not hasattr(cp, cls):
            raise Unsupported(f"zarr {self.zarr.__version__} has no {cls} "
                              f"(pin a zarr that ships it in [env.{NAME}])")
        settings: dict[str, Any] = {"codec_pipeline.path": PIPELINES[name],
                                    "threading.max_workers": self.threads}
        if name == "fused":
            settings["codec_pipeline.max_workers"] = self.threads
        return settings

    def configure(self) -> None:
        settings = self.pipeline_settings()
        self.zarr.config.set(settings)
        self.notes.append(", ".join(f"{k}={v}" for k, v in settings.items()))

    def versions(self) -> dict[str, str]:
        import numcodecs

        v = super().versions()
        v["zarr"] = self.zarr.__version__
        v["numcodecs"] = numcodecs.__version__
        remote = self.options.get("remote")
        if remote:
            from importlib.metadata import PackageNotFoundError, version

            for dist in REMOTE_PACKAGES[remote]:
                try:
                    v[dist] = version(dist)
                except PackageNotFoundError:
                    v[dist] = "not installed"
        return v

    def check_pipeline(self, array: Any) -> None:
        """Hook for pipelines that can silently fall back."""

    def local_source(self, path: str) -> Any:
        return self.zarr.storage.LocalStore(path, read_only=True)

    def memory_source(self, path: str) -> Any:
        from zarr.core.buffer import default_buffer_prototype

        proto = default_buffer_prototype()
        return self.zarr.storage.MemoryStore(
            store_dict={k: proto.buffer.from_bytes(v) for k, v in stored_items(path)})

    def zip_source(self, path: str) -> Any:
        return self.zarr.storage.ZipStore(path, mode="r")

    def http_source(self, url: str) -> Any:
        remote = self.options.get("remote", OPTIONS["remote"][0])
        try:
            if remote == "obstore":
                from obstore.store import HTTPStore

                # object_store refuses plain-http URLs unless told otherwise.
                inner = HTTPStore.from_url(url, client_options={"allow_http": True})
                return self.zarr.storage.ObjectStore(inner, read_only=True)
            import aiohttp  # noqa: F401  (fsspec's HTTPFileSystem needs it)

            return self.zarr.storage.FsspecStore.from_url(url, read_only=True)
        except ImportError as e:
            raise Unsupported(f"remote = {remote}: {e.name} is not installed in this "
                              f"environment (pin it in [env.{self.case.get('impl', NAME)}] "
                              f"requires)") from None

    def s3_source(self, s3: dict[str, Any]) -> Any:
        try:
            from obstore.store import S3Store
        except ImportError as e:
            raise Unsupported(f"store = s3: {e.name} is not installed in this environment "
                              f"(pin obstore in [env.{self.case.get('impl', NAME)}] requires)"
                              ) from None
        inner = S3Store(s3["bucket"], prefix=s3["prefix"], endpoint=s3["endpoint"],
                        region=s3["region"], access_key_id=s3["access_key_id"],
                        secret_access_key=s3["secret_access_key"],
                        virtual_hosted_style_request=False,
                        client_options={"allow_http": True})
        return self.zarr.storage.ObjectStore(inner, read_only=True)

    def open(self, source: Any) -> Any:
        a = self.zarr.open_array(store=source, mode="r")
        self.check_pipeline(a)
        return a

    def read_all(self, handle: Any):
        return handle[...]

    def read_region(self, handle: Any, region):
        return handle[region]

    def read_regions(self, source, regions, concurrency, sink) -> None:
        if concurrency <= 1:
            super().read_regions(source, regions, 1, sink)
            return
        import asyncio

        from zarr.core.sync import sync

        handle = self.open(source)
        async_array = handle._async_array

        async def main() -> None:
            gate = asyncio.Semaphore(concurrency)

            async def one(i: int) -> None:
                async with gate:
                    sink(i, await async_array.getitem(regions[i]))

            await asyncio.gather(*(one(i) for i in range(len(regions))))

        sync(main())

    def local_target(self, path: str) -> Any:
        return self.zarr.storage.LocalStore(path)

    def memory_target(self) -> Any:
        return self.zarr.storage.MemoryStore()

    def zip_target(self, path: str) -> Any:
        return self.zarr.storage.ZipStore(path, mode="w")

    def create(self, target: Any) -> Any:
        from turbozarr_bench.datasets.generate import zarr_compressors
        from turbozarr_bench.datasets.spec import validate

        spec_doc = dict(self.case["fixture"]["spec"])
        spec = validate(spec_doc.pop("name"), spec_doc, "case")
        v = spec.values
        kwargs: dict[str, Any] = dict(
            shape=tuple(v["shape"]), dtype=v["dtype"], chunks=tuple(v["chunks"]),
            fill_value=v["fill_value"], zarr_format=v["zarr_format"],
            compressors=zarr_compressors(spec), filters=None if v["zarr_format"] == 2 else [],
            overwrite=True)
        if v.get("shards"):
            kwargs["shards"] = tuple(v["shards"])
        a = self.zarr.create_array(store=target, **kwargs)
        self.check_pipeline(a)
        return a

    def write_all(self, handle: Any, data) -> None:
        handle[...] = data
        store = handle.store_path.store
        if isinstance(store, self.zarr.storage.ZipStore):
            store.close()  # writes the archive's central directory

    def dump_target(self, target: Any, directory: str) -> None:
        from turbozarr_bench.adapters.base import write_items

        write_items(((k, b.to_bytes()) for k, b in target._store_dict.items()), directory)
