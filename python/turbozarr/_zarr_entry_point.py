"""What zarr-python's entry point `zarr.codec_pipeline` loads: turbozarr's
codec pipeline, or, where this zarr-python cannot run it, a stand-in of the
same name.

zarr-python loads every registered pipeline each time it looks one up, to
create or open any array, and an entry point that fails to load fails that
look-up. turbozarr installed beside an older zarr-python (3.1, the last for
Python 3.11) would then break zarr-python for everything, pipeline chosen or
not. The stand-in registers under the pipeline's name, so zarr-python's own
pipeline goes on working, and choosing turbozarr's raises the ImportError
that says what to install."""

from __future__ import annotations

try:
    from turbozarr.zarr_pipeline import ZarrCodecPipeline
except ImportError as error:  # zarr-python missing, or older than 3.4.2
    _reason = error

    class _Unavailable(type):
        # Any use of the class (zarr-python calls from_codecs or
        # from_array_metadata_and_store on it) is the import error.
        def __getattr__(cls, name: str):
            raise ImportError(str(_reason), name=_reason.name) from _reason

        def __call__(cls, *args, **kwargs):
            raise ImportError(str(_reason), name=_reason.name) from _reason

    class ZarrCodecPipeline(metaclass=_Unavailable):  # type: ignore[no-redef]
        """Stands in for turbozarr.ZarrCodecPipeline where zarr-python cannot
        run it; any use raises the ImportError that explains why."""

    # The name zarr-python's registry files it under, as the real class's.
    ZarrCodecPipeline.__module__ = "turbozarr"
