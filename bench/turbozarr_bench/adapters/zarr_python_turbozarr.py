"""zarr-python's own API with turbozarr's codec pipeline (turbozarr.ZarrCodecPipeline).

The same sync API calls as the zarr-python adapter, with
`codec_pipeline.path = "turbozarr.ZarrCodecPipeline"` and
`codec_pipeline.strict = True`: every read and write of the array is run by
the engine, or raises turbozarr.UnsupportedError, which makes the case
`unsupported` instead of measuring zarr-python's own pipeline under this
label. Every opened or created array is checked too: its pipeline must be a
ZarrCodecPipeline the engine accepted.

A separate implementation rather than a `pipeline` value of zarr-python,
because its environment differs: zarr-python 3.4.2 on Python 3.12 plus the
repository's python/ directory on PYTHONPATH (PROJECT_PATH), so the row
measures the working tree's build (its cpython-312 extension module), as the
turbozarr row does.

Threads: turbozarr.config.set_threads(threads) (the engine's workers for each
read or write) and zarr-python's `threading.max_workers`. On a MemoryStore
the engine cannot reach zarr-python's dict, so the pipeline stages the
batch's chunks through zarr-python's store methods and the engine decodes and
encodes; the case's notes say so.
"""

from __future__ import annotations

from typing import Any

from turbozarr_bench.adapters import zarr_python
from turbozarr_bench.adapters.base import Unsupported
from turbozarr_bench.adapters.turbozarr_api import turbozarr_versions

NAME = "zarr-python-turbozarr"
ENV = "venv"
PYTHON = zarr_python.PYTHON
PROJECT_PATH = True
REQUIRES = (zarr_python.ZARR, "numcodecs==0.16.6", "numpy==2.4.6")
SUPPORTS = zarr_python.SUPPORTS
FORMATS = zarr_python.FORMATS
STORES = frozenset({"local", "memory", "zip"})
OPTIONS: dict[str, list] = {}
NOTE = ("zarr-python 3.4 sync API + turbozarr.ZarrCodecPipeline (strict; checked per "
        "array); threads from set_threads and threading.max_workers")
REASONS = {
    "store:http": "not pinned here: the zarr-python adapter's remote axis (fsspec, obstore) "
                  "is not installed in this environment",
}


class Driver(zarr_python.Driver):
    def __init__(self, case):
        super().__init__(case)
        import turbozarr

        self.tz = turbozarr

    def pipeline_settings(self) -> dict[str, Any]:
        # zarr-python finds a pipeline class in its registry, which the module
        # defining it joins when imported (turbozarr imports it on first use).
        self.tz.ZarrCodecPipeline  # noqa: B018
        self.tz.config.set_threads(self.threads)
        self.notes.append(f"set_threads({self.threads})")
        return {"codec_pipeline.path": "turbozarr.ZarrCodecPipeline",
                "codec_pipeline.strict": True,
                "threading.max_workers": self.threads}

    def versions(self) -> dict[str, str]:
        v = super().versions()
        v.update(turbozarr_versions(self.tz))
        return v

    def check_pipeline(self, array: Any) -> None:
        pipeline = array._async_array.codec_pipeline
        name = type(pipeline).__name__
        if name != "ZarrCodecPipeline":
            raise Unsupported(f"zarr-python used {name}, not turbozarr.ZarrCodecPipeline")
        reason = getattr(pipeline, "_unsupported", None)
        if reason is not None:
            raise Unsupported(f"turbozarr.ZarrCodecPipeline refused the array: {reason}")
        if pipeline._core_store is None and pipeline.store is not None:
            note = f"staged through zarr-python's {type(pipeline.store).__name__}"
            if note not in self.notes:
                self.notes.append(note)

    def read_all(self, handle: Any):
        try:
            return super().read_all(handle)
        except self.tz.UnsupportedError as e:
            raise Unsupported(str(e)) from None

    def write_all(self, handle: Any, data) -> None:
        try:
            super().write_all(handle, data)
        except self.tz.UnsupportedError as e:
            raise Unsupported(str(e)) from None
