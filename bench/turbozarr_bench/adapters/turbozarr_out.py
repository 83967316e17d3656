"""turbozarr reading into the caller's memory: every read of the case goes
into one result buffer, allocated by the first (untimed) read and reused by
the timed ones through Array.get_basic_selection(out=...), as a loader or a
tile viewer reuses its buffers. Beside the plain "turbozarr" row it shows
what a fresh result costs: the kernel mapping and zeroing its pages.

Writes, round trips and chunk-by-chunk reads are the plain adapter's (their
results are the caller's own arrays either way).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from turbozarr_bench.adapters import turbozarr_api

NAME = "turbozarr-out"
ENV = turbozarr_api.ENV
REQUIRES = turbozarr_api.REQUIRES
SUPPORTS = frozenset({"read_full"})
FORMATS = turbozarr_api.FORMATS
STORES = turbozarr_api.STORES
OPTIONS: dict[str, list] = {}
NOTE = "turbozarr Python API, read_full into one reused buffer (get_basic_selection(out=))"


class Driver(turbozarr_api.Driver):
    def __init__(self, case):
        super().__init__(case)
        self._out: np.ndarray | None = None

    def read_all(self, handle: Any):
        if self._out is None or self._out.shape != handle.shape or \
                self._out.dtype != handle.dtype:
            self._out = np.empty(handle.shape, handle.dtype)
        return handle.get_basic_selection(out=self._out)
