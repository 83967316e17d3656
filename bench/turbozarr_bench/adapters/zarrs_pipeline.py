"""zarr-python with the zarrs (Rust) codec pipeline installed through zarr.config.

zarrs replaces zarr-python's pipeline only for stores it recognises and
otherwise falls back to BatchedCodecPipeline without a word; `strict` is set
and every opened array is checked, so a row labelled zarrs that did not run
zarrs reads `unsupported` instead of measuring zarr-python twice.
Threads: `threading.max_workers`, which zarrs reads as the number of chunks
it works on at once, and RAYON_NUM_THREADS, set before zarrs first runs: its
codecs run on rayon's global pool, which otherwise takes every core, so that
a "1 thread" row would measure zarrs on all of them.

Over HTTP the `remote` axis is zarr-python's: zarrs recognises an FsspecStore
on fsspec's HTTPFileSystem (and reads chunks with its own HTTP client, OpenDAL)
and an ObjectStore (it reads through the same Rust object_store as obstore).
"""

from __future__ import annotations

import os
from typing import Any

from turbozarr_bench.adapters import zarr_python
from turbozarr_bench.adapters.base import ALL_OPS, Unsupported

NAME = "zarrs"
ENV = "venv"
# zarrs 0.2.3 asks zarr>=3.1: it runs on the same zarr 3.4.2 and Python 3.12.
PYTHON = zarr_python.PYTHON
REQUIRES = (zarr_python.ZARR, "numcodecs==0.16.6", "zarrs==0.2.3", "numpy==2.4.6",
            *zarr_python.REMOTE_REQUIRES)
SUPPORTS = frozenset(ALL_OPS)
FORMATS = frozenset({"zarr2", "zarr3"})
STORES = frozenset({"local", "http"})
OPTIONS: dict[str, list] = {"remote": ["fsspec", "obstore"]}
OPTION_STORES = {"remote": ("http",)}
NOTE = ("zarr-python + ZarrsCodecPipeline (strict; fallback detected); over HTTP, "
        "remote = fsspec (default) or obstore")


class Driver(zarr_python.Driver):
    def pipeline_settings(self) -> dict[str, Any]:
        # Read once, when rayon's global pool starts (at zarrs' first decode).
        os.environ["RAYON_NUM_THREADS"] = str(self.threads)
        import zarrs  # noqa: F401  (registers the pipeline)

        return {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                "codec_pipeline.strict": True,
                "threading.max_workers": self.threads}

    def versions(self) -> dict[str, str]:
        from importlib.metadata import version

        v = super().versions()
        v["zarrs"] = version("zarrs")
        return v

    def open(self, source: Any) -> Any:
        try:
            return super().open(source)
        except NotImplementedError as e:  # zarrs-python: "does not support ... stores"
            raise Unsupported(f"zarrs: {e}") from None

    def check_pipeline(self, array: Any) -> None:
        pipeline = array._async_array.codec_pipeline
        if type(pipeline).__name__ != "ZarrsCodecPipeline" or getattr(
                pipeline, "impl", None) is None:
            raise Unsupported(f"zarrs did not engage for this array/store "
                              f"(zarr-python used {type(pipeline).__name__})")

REASONS = {
    "store:memory": "zarrs engages only for stores it recognises (LocalStore, ObjectStore, "
                    "FsspecStore); on a MemoryStore zarr-python silently keeps its own pipeline",
}
