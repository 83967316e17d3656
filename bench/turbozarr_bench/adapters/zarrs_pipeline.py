"""zarr-python with the zarrs (Rust) codec pipeline installed through zarr.config.

zarrs replaces zarr-python's pipeline only for stores it recognises and
otherwise falls back to BatchedCodecPipeline without a word; `strict` is set
and every opened array is checked, so a row labelled zarrs that did not run
zarrs reads `unsupported` instead of measuring zarr-python twice.
Threads: `threading.max_workers`, which zarrs reads as its thread count.
"""

from __future__ import annotations

from typing import Any

from turbozarr_bench.adapters import zarr_python
from turbozarr_bench.adapters.base import ALL_OPS, Unsupported

NAME = "zarrs"
ENV = "venv"
REQUIRES = ("zarr==3.1.6", "numcodecs==0.16.6", "zarrs==0.2.3", "numpy==2.4.6")
SUPPORTS = frozenset(ALL_OPS)
FORMATS = frozenset({"zarr2", "zarr3"})
STORES = frozenset({"local"})
OPTIONS: dict[str, list] = {}
NOTE = "zarr-python + ZarrsCodecPipeline (strict; fallback detected)"


class Driver(zarr_python.Driver):
    def pipeline_settings(self) -> dict[str, Any]:
        import zarrs  # noqa: F401  (registers the pipeline)

        return {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                "codec_pipeline.strict": True,
                "threading.max_workers": self.threads}

    def versions(self) -> dict[str, str]:
        from importlib.metadata import version

        v = super().versions()
        v["zarrs"] = version("zarrs")
        return v

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
