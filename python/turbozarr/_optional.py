"""The optional dependencies: the libraries that one layer of the package
needs (dask, xarray, zarr-python, scipy, pandas, h5py, anndata, torch) and
the rest does not. Each is imported where its layer is first used, through
`import_optional`, so that importing turbozarr stays cheap and a missing one
says which extra of the package brings it (pyproject.toml's
[project.optional-dependencies]) rather than only "No module named ...".
"""

from __future__ import annotations

import importlib
from types import ModuleType


def import_optional(module: str, extra: str, feature: str) -> ModuleType:
    """`module` (e.g. "dask.array"), imported.

    Where it, or a package it lies in, is not installed, raises
    ModuleNotFoundError (an ImportError) that names `feature`, the missing
    module and ``pip install "turbozarr[<extra>]"``, with ``.name`` the
    missing module and the original error as its cause. ModuleNotFoundError
    rather than a plain ImportError, so that code which tells a missing
    module from a broken one (``except ModuleNotFoundError``,
    ``pytest.importorskip``) still does. A module missing further down (one
    that `module` itself imports) propagates unchanged: that is a broken
    installation of `module`, which the extra would not mend.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        parts = module.split(".")
        if err.name not in {".".join(parts[:i]) for i in range(1, len(parts) + 1)}:
            raise
        raise ModuleNotFoundError(
            f"{feature} needs {err.name}, which is not installed; "
            f'install it with: pip install "turbozarr[{extra}]"',
            name=err.name,
        ) from err
