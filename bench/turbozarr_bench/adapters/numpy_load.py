"""numpy itself: np.load of a .npy file, the floor of workload A."""

from __future__ import annotations

from typing import Any

from turbozarr_bench.adapters.base import Driver as _Base

NAME = "numpy"
ENV = "venv"
REQUIRES = ("numpy==2.4.6",)
SUPPORTS = frozenset({"read_full"})
FORMATS = frozenset({"npy"})
STORES = frozenset({"local"})
OPTIONS: dict[str, list] = {}
NOTE = "np.load of the .npy file (single-threaded)"
REASONS = {"store:http": "np.load reads a local .npy file"}


class Driver(_Base):
    def open(self, source: Any) -> Any:
        return source

    def read_all(self, handle: Any):
        import numpy as np

        return np.load(handle)
