"""pytest plugin: zarr-python's own test suite with turbozarr's codec pipeline
switched on (``-p turbozarr_pipeline_plugin``).

The environment variable is what a user would set; zarr-python reads it
whenever its configuration is reset, so the tests that reset the
configuration keep the pipeline too. Importing the pipeline registers it
(an installed turbozarr registers it through its entry point instead).
"""

import os

os.environ["ZARR_CODEC_PIPELINE__PATH"] = "turbozarr.ZarrCodecPipeline"

import turbozarr.zarr_pipeline  # noqa: E402,F401
import zarr  # noqa: E402


def pytest_report_header(config):
    return f"codec pipeline: {zarr.config.get('codec_pipeline.path')}"
