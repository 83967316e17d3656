"""The implementations a config can name, one module per peer.

Each module is importable with only the standard library and numpy (the
parent reads its declarations without the library installed); see base.py.
"""

from __future__ import annotations

import importlib
from types import ModuleType

MODULES = {
    "turbozarr": "turbozarr_bench.adapters.turbozarr_api",
    "turbozarr-out": "turbozarr_bench.adapters.turbozarr_out",
    "turbozarr-cli": "turbozarr_bench.adapters.turbozarr_cli",
    "zarr-python": "turbozarr_bench.adapters.zarr_python",
    "zarrs": "turbozarr_bench.adapters.zarrs_pipeline",
    "zarr-python-turbozarr": "turbozarr_bench.adapters.zarr_python_turbozarr",
    "tensorstore": "turbozarr_bench.adapters.tensorstore_api",
    "numpy": "turbozarr_bench.adapters.numpy_load",
}

# Test doubles and other extensions register here before a config is read.
EXTRA: dict[str, ModuleType] = {}


def names() -> list[str]:
    return list(MODULES) + [n for n in EXTRA if n not in MODULES]


def load(name: str) -> ModuleType:
    if name in EXTRA:
        return EXTRA[name]
    return importlib.import_module(MODULES[name])


def module_path(name: str) -> str:
    """The import path a child uses to load the adapter."""
    if name in EXTRA:
        return getattr(EXTRA[name], "CHILD_MODULE", EXTRA[name].__name__)
    return MODULES[name]
