"""`turbozarr sparse convert | info` (python -m turbozarr, as the installed
`turbozarr` entry point runs it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

scipy_sparse = pytest.importorskip("scipy.sparse")

from turbozarr import sparse  # noqa: E402

PYTHON_DIR = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    return subprocess.run([sys.executable, "-m", "turbozarr", "sparse", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_convert_an_npz_and_an_h5ad_then_describe_them(tmp_path):
    rng = np.random.default_rng(0)
    X = scipy_sparse.random(900, 50, density=0.1, format="csr", dtype=np.int32,
                            random_state=1, data_rvs=lambda n: rng.integers(1, 300, n))
    scipy_sparse.save_npz(tmp_path / "x.npz", X)
    done = run("convert", str(tmp_path / "x.npz"), str(tmp_path / "a.zarr"),
               "--tile-cells", "400", "--progress")
    assert done.returncode == 0, done.stderr
    assert f"900 cells x 50 genes, {X.nnz} nonzeros in 3 tiles" in done.stdout
    assert "writing   [##############################] 3/3 tiles" in done.stderr
    assert (sparse.open(str(tmp_path / "a.zarr")).to_scipy() != X).nnz == 0

    info = run("info", str(tmp_path / "a.zarr"), "--json")
    facts = json.loads(info.stdout)
    assert facts["shape"] == [900, 50] and facts["tiles"] == 3 and facts["nonzeros"] == X.nnz
    # Counts 1-299: 15% above 255 costs more as exceptions than as uint16.
    assert facts["stored_values"] == "uint16"
    text = run("info", str(tmp_path / "a.zarr")).stdout
    assert "900 cells x 50 genes" in text and "3 tiles of 400 cells" in text

    anndata = pytest.importorskip("anndata")
    anndata.AnnData(X=X).write_h5ad(tmp_path / "x.h5ad")
    done = run("convert", str(tmp_path / "x.h5ad"), str(tmp_path / "b.zarr"), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert (sparse.open(str(tmp_path / "b.zarr")).to_scipy() != X).nnz == 0


def test_errors_name_the_problem_and_exit_1(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    done = run("convert", str(tmp_path / "notes.txt"), str(tmp_path / "c.zarr"))
    assert done.returncode == 1
    assert "not an .h5ad file, a 10x directory" in done.stderr
    done = run("info", str(tmp_path / "missing.zarr"))
    assert done.returncode == 1 and "turbozarr sparse info:" in done.stderr


@pytest.mark.skipif(not os.access(os.environ.get("TURBOZARR_CLI", ""), os.X_OK),
                    reason="TURBOZARR_CLI does not name the built turbozarr binary")
def test_the_bare_cpp_tool_points_to_the_python_command():
    done = subprocess.run([os.environ["TURBOZARR_CLI"], "sparse", "info", "x.zarr"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "'sparse' runs in Python" in done.stderr
    assert "python -m turbozarr sparse" in done.stderr
