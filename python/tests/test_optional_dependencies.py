"""The optional dependencies: each extra in pyproject.toml holds what its
layer imports, and a layer whose library is missing says which extra to
install (turbozarr/_optional.py).

Each missing library is simulated in a child process, so that this
process's modules stay as they are: a finder placed first on sys.meta_path
reports the library (and its submodules) as not found, as an interpreter
without it would, before turbozarr is imported.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import turbozarr
from turbozarr._optional import import_optional

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(turbozarr.__file__).resolve().parent
OPTIONAL = ["anndata", "dask", "distributed", "h5py", "pandas", "scipy", "torch", "xarray",
            "zarr"]
# test and bench are the project's own tools, not a layer's; `all` is every
# layer's extra but torch's (a plain torch install is a CUDA build of GBs).
TOOL_EXTRAS = {"test", "bench"}
OUTSIDE_ALL = {"torch"} | TOOL_EXTRAS

# A child's prologue: `MISSING` cannot be imported. The code that follows is
# the body of `_run`, whose outcome is printed as JSON: the ImportError it
# raised, or what it returned.
PROLOGUE = """
import importlib.abc, json, sys

MISSING = {missing!r}


class _Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in MISSING:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Missing())
"""
EPILOGUE = """
try:
    print(json.dumps({"returned": _run()}))
except ImportError as err:
    cause = err.__cause__
    print(json.dumps({"raised": {
        "type": type(err).__name__, "name": err.name, "message": str(err),
        "cause": type(cause).__name__ if cause is not None else None,
        "cause_name": getattr(cause, "name", None)}}))
"""


def run_without(missing: list[str], body: str, cwd: Path | None = None) -> dict[str, Any]:
    """Runs `body` (the statements of a function `_run`) in a child whose
    interpreter cannot import `missing`: {"raised": the ImportError's type,
    name, message and cause} or {"returned": what `_run` returned}."""
    code = (PROLOGUE.format(missing=list(missing))
            + "\ndef _run():\n" + textwrap.indent(textwrap.dedent(body), "    ")
            + EPILOGUE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_names_extra(outcome: dict[str, Any], module: str, extra: str) -> None:
    assert "raised" in outcome, f"expected an ImportError, the code ran: {outcome}"
    outcome = outcome["raised"]
    assert outcome["type"] == "ModuleNotFoundError", outcome
    assert outcome["name"] == module, outcome
    assert f'pip install "turbozarr[{extra}]"' in outcome["message"], outcome
    assert f"needs {module}," in outcome["message"], outcome
    # Chained from the import that failed (`raise ... from err`).
    assert outcome["cause"] == "ModuleNotFoundError", outcome
    assert outcome["cause_name"] == module, outcome


SPARSE_DATASET = """
import numpy as np, turbozarr.sparse
ds = turbozarr.sparse.write("memory://", np.array([[1, 0], [0, 2], [3, 4]], "i4"))
"""

# (the library made missing, the code that needs it, the extra the error names)
ENTRY_POINTS = {
    "dask: to_dask": ("dask", """
        import turbozarr
        turbozarr.to_dask(turbozarr.create("memory://", shape=(4,), dtype="i4", chunks=(2,)))
        """, "dask"),
    "dask: store": ("dask", """
        import numpy as np, turbozarr
        turbozarr.store(np.zeros(4, "i4"),
                        turbozarr.create("memory://", shape=(4,), dtype="i4", chunks=(2,)))
        """, "dask"),
    "xarray: the backend module": ("xarray", """
        import turbozarr.xarray_backend
        """, "xarray"),
    "zarr: ZarrCodecPipeline": ("zarr", """
        import turbozarr
        turbozarr.ZarrCodecPipeline
        """, "zarr"),
    "zarr: the pipeline module": ("zarr", """
        import turbozarr.zarr_pipeline
        """, "zarr"),
    "scipy: sparse.write": ("scipy", """
        import numpy as np, turbozarr.sparse
        turbozarr.sparse.write("memory://", np.ones((3, 2), "i4"))
        """, "sparse"),
    "scipy: take_rows": ("scipy", """
        import turbozarr.sparse
        turbozarr.sparse.take_rows(None, [0])
        """, "sparse"),
    "pandas: sparse.from_mtx": ("pandas", """
        import turbozarr.sparse
        turbozarr.sparse.from_mtx("10x", "memory://")
        """, "sparse"),
    "h5py: sparse.from_h5ad": ("h5py", """
        import turbozarr.sparse
        turbozarr.sparse.from_h5ad("counts.h5ad", "memory://")
        """, "sparse"),
    "torch: sparse.CellLoader": ("torch", """
        import turbozarr.sparse
        turbozarr.sparse.CellLoader
        """, "torch"),
}

# Entry points reached from a dataset, which writing needs scipy for.
DATASET_ENTRY_POINTS = {
    "pandas: Table.to_pandas": ("pandas", "ds.obs.to_pandas()", "sparse"),
    "anndata: Dataset.to_anndata": ("anndata", "ds.to_anndata()", "sparse"),
    "torch: format='torch'": ("torch", "ds.cells([0, 2], format='torch')", "torch"),
}


@pytest.mark.parametrize("case", sorted(ENTRY_POINTS))
def test_a_missing_library_names_its_extra(case, tmp_path):
    module, body, extra = ENTRY_POINTS[case]
    assert_names_extra(run_without([module], body, cwd=tmp_path), module, extra)


@pytest.mark.parametrize("case", sorted(DATASET_ENTRY_POINTS))
def test_a_missing_library_of_a_dataset_names_its_extra(case):
    pytest.importorskip("scipy")
    module, call, extra = DATASET_ENTRY_POINTS[case]
    outcome = run_without([module], SPARSE_DATASET + call + "\n")
    assert_names_extra(outcome, module, extra)


def test_the_sparse_command_says_which_extra_to_install(tmp_path):
    body = """
        import contextlib, io
        from turbozarr import _sparse_cli
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = _sparse_cli.main(["convert", "counts.npz", "memory://"])
        return [code, err.getvalue()]
        """
    code, stderr = run_without(["scipy"], body, cwd=tmp_path)["returned"]
    assert code == 1
    assert stderr.startswith("turbozarr sparse convert: reading an .npz file needs scipy,")
    assert 'pip install "turbozarr[sparse]"' in stderr


def test_an_old_zarr_python_names_the_release_and_the_extra():
    # A stand-in zarr-python 3.4.1: found, but older than the pipeline needs.
    body = """
        import types
        old = types.ModuleType("zarr")
        old.__version__ = "3.4.1"
        sys.modules["zarr"] = old
        import turbozarr
        turbozarr.ZarrCodecPipeline
        """
    outcome = run_without([], body)["raised"]
    assert outcome["type"] == "ImportError" and outcome["name"] == "zarr"
    message = outcome["message"]
    assert "needs zarr-python 3.4.2 or later" in message
    assert "zarr-python 3.4.1 is installed" in message
    assert 'pip install "turbozarr[zarr]"' in message
    assert ("Python 3.12 or later" in message) == (sys.version_info < (3, 12))


def test_importing_turbozarr_imports_no_optional_library():
    # The layers import their libraries when first used; with every one of
    # them missing, the package and its numpy-only layers still import.
    body = """
        import turbozarr, turbozarr.ome, turbozarr.sparse, turbozarr.vcz
        from turbozarr import _dask, _sparse_cli
        return sorted(m for m in sys.modules if m.partition(".")[0] in MISSING)
        """
    assert run_without(OPTIONAL, body) == {"returned": []}


def test_import_optional_returns_the_module():
    assert import_optional("json.decoder", "none", "a test") is sys.modules["json.decoder"]


def test_a_missing_submodule_of_a_present_package_names_the_extra():
    with pytest.raises(ModuleNotFoundError, match=r'pip install "turbozarr\[x\]"') as info:
        import_optional("json.no_such_module", "x", "a test")
    assert info.value.name == "json.no_such_module"
    assert str(info.value).startswith("a test needs json.no_such_module,")


def test_a_module_missing_below_the_one_asked_for_propagates(tmp_path, monkeypatch):
    # The package is there but one of its own imports is not: a broken
    # installation, which the extra would not mend; its error is kept.
    package = tmp_path / "tz_broken_peer"
    package.mkdir()
    (package / "__init__.py").write_text("import tz_absent_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        import_optional("tz_broken_peer", "x", "a test")
    assert info.value.name == "tz_absent_dependency"
    assert "turbozarr[" not in str(info.value)


# -- pyproject.toml against the package's imports -----------------------------------


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def optional_imports() -> list[tuple[str, str, str]]:
    """(file, module, extra) of each import_optional call in the package."""
    calls = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "import_optional"):
                module, extra = (ast.literal_eval(a) for a in node.args[:2])
                calls.append((path.name, module, extra))
    return calls


def imported_modules() -> dict[str, set[str]]:
    """The top-level modules each file of the package imports (at the top,
    inside functions and under TYPE_CHECKING alike, and through
    import_optional), by file name."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.glob("*.py")):
        names = found.setdefault(path.name, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.partition(".")[0])
    for file, module, _ in optional_imports():
        found[file].add(module.partition(".")[0])
    return found


def third_party(names: set[str]) -> set[str]:
    ours = {"turbozarr", "_turbozarr_cli"}  # the wheel's own modules
    return {n for n in names
            if n not in sys.stdlib_module_names and n not in ours | {"numpy", "ml_dtypes"}}


@functools.cache
def module_names(distribution: str) -> frozenset[str]:
    """The top-level modules a distribution provides: its name as an import
    name, and, where it is installed, what it says it provides (so that a
    distribution named unlike its module, as scikit-image's skimage, maps)."""
    name = canonicalize_name(distribution)
    modules = {name.replace("-", "_")}
    for module, dists in importlib.metadata.packages_distributions().items():
        if name in {canonicalize_name(d) for d in dists}:
            modules.add(module)
    return frozenset(modules)


def extras_of(requirements: list[str]) -> tuple[set[str], set[str]]:
    """(the distributions, the extras of this package) that `requirements`
    name; a requirement "turbozarr[a,b]" brings the extras a and b."""
    distributions, extras = set(), set()
    for text in requirements:
        req = Requirement(text)
        if canonicalize_name(req.name) == "turbozarr":
            extras |= req.extras
        else:
            distributions.add(req.name)
    return distributions, extras


def covered_modules(requirements: list[str]) -> set[str]:
    distributions, _ = extras_of(requirements)
    return set().union(*(module_names(d) for d in distributions)) if distributions else set()


def test_every_third_party_import_is_a_dependency_or_in_an_extra():
    meta = project()
    extras = meta["optional-dependencies"]
    covered = covered_modules(meta["dependencies"])
    for name, requirements in extras.items():
        if name not in TOOL_EXTRAS:
            covered |= covered_modules(requirements)
    imported = set().union(*(third_party(names) for names in imported_modules().values()))
    # What the package is known to import beyond numpy and ml_dtypes: a
    # check that the scan above sees the lazy imports too.
    assert {"dask", "xarray", "zarr", "scipy", "pandas", "h5py", "anndata", "torch"} <= imported
    assert imported - covered == set(), (
        f"imported by the package but in no extra of pyproject.toml: {imported - covered}")
    assert {"numpy", "ml_dtypes"} <= covered_modules(meta["dependencies"])


def test_each_import_optional_call_names_an_extra_that_holds_the_module():
    extras = project()["optional-dependencies"]
    calls = optional_imports()
    assert len(calls) >= 10  # the scan finds them
    modules = {(f, m.partition(".")[0]) for f, m, _ in calls}
    # One call per library and file at least, where each file imports it.
    for file, names in imported_modules().items():
        for name in third_party(names):
            assert (file, name) in modules, f"{file} imports {name} without import_optional"
    for file, module, extra in calls:
        assert extra in extras and extra not in TOOL_EXTRAS, (file, module, extra)
        assert module.partition(".")[0] in covered_modules(extras[extra]), (file, module, extra)


def test_all_is_every_extra_but_torch_and_the_tools():
    extras = project()["optional-dependencies"]
    distributions, named = extras_of(extras["all"])
    assert named == set(extras) - OUTSIDE_ALL - {"all"}
    # Brought only through the extras it names, so it cannot drift from them.
    assert distributions == set()
    assert "torch" in extras["torch"]
    assert all(not any(canonicalize_name(Requirement(r).name) == "torch" for r in extras[e])
               for e in named)


def test_the_layers_extras():
    extras = {name: {canonicalize_name(Requirement(r).name) for r in reqs}
              for name, reqs in project()["optional-dependencies"].items()}
    assert extras["dask"] == {"dask", "distributed"}
    assert extras["xarray"] == {"xarray"}
    assert extras["sparse"] == {"scipy", "pandas", "h5py", "anndata"}
    assert extras["torch"] == {"torch"}
    assert extras["ome"] == extras["vcz"] == set()
    # ome.py and vcz.py import nothing beyond numpy, which is why those
    # extras are empty.
    found = imported_modules()
    assert third_party(found["ome.py"]) == third_party(found["vcz.py"]) == set()


def test_the_zarr_extra_asks_for_3_4_2_on_python_3_12_and_later():
    (text,) = project()["optional-dependencies"]["zarr"]
    req = Requirement(text)
    assert req.name == "zarr" and str(req.specifier) == ">=3.4.2"
    assert not req.marker.evaluate({"python_version": "3.11"})
    assert req.marker.evaluate({"python_version": "3.12"})
    assert req.marker.evaluate({"python_version": "3.13"})
    # The pipeline's own floor is the same release.
    source = (PACKAGE / "zarr_pipeline.py").read_text()
    assert re.search(r"_ZARR_MINIMUM = \(3, 4, 2\)", source)


def test_zarr_python_keeps_working_beside_turbozarr_whatever_its_release():
    # zarr-python loads every `zarr.codec_pipeline` entry point whenever it
    # looks up a pipeline. Registered as an installed turbozarr registers it,
    # the entry point must leave zarr-python's default pipeline working with
    # any release, and choosing turbozarr's must work (3.4.2 and later) or
    # raise the ImportError naming what to install (older ones).
    pytest.importorskip("zarr")
    code = textwrap.dedent("""
        import importlib.metadata, json
        import numpy as np
        import zarr, zarr.registry, zarr.storage
        entry = importlib.metadata.EntryPoint(
            name="turbozarr", value="turbozarr._zarr_entry_point:ZarrCodecPipeline",
            group="zarr.codec_pipeline")
        registry = (getattr(zarr.registry, "_pipeline_registry", None)  # 3.4
                    or getattr(zarr.registry, "__pipeline_registry"))  # 3.1
        registry.lazy_load_list.append(entry)

        def round_trip():
            z = zarr.create_array(zarr.storage.MemoryStore(), shape=(6,), dtype="i4",
                                  chunks=(4,))
            z[:] = np.arange(6, dtype="i4") * 3
            return z[:].tolist(), type(z._async_array.codec_pipeline).__name__

        out = {"default": round_trip()}
        with zarr.config.set({"codec_pipeline.path": "turbozarr.ZarrCodecPipeline"}):
            try:
                out["chosen"] = round_trip()
            except ImportError as e:
                out["chosen"] = ["ImportError", str(e)]
        print(json.dumps(out))
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(PACKAGE.parent)), timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["default"] == [[0, 3, 6, 9, 12, 15], "BatchedCodecPipeline"]
    import zarr

    release = tuple(int(p) for p in re.findall(r"\d+", zarr.__version__)[:3])
    if release >= (3, 4, 2):
        assert out["chosen"] == [[0, 3, 6, 9, 12, 15], "ZarrCodecPipeline"]
    else:
        kind, message = out["chosen"]
        assert kind == "ImportError" and "zarr-python 3.4.2 or later" in message, message
        assert 'pip install "turbozarr[zarr]"' in message, message
