"""Workload F's runner end to end on a tiny counts matrix: every side
installed in this interpreter reads the middle tile, and all return the
generator's CSR; the gather equals scipy's rows; a loader epoch hands out
every cell once; the memory case samples the process tree; the stored sizes
are reported. Peers missing here (TileDB-SOMA and BPCells outside
.venv-sparse) are rows that say so, not failures."""

from __future__ import annotations

import csv
import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("zarr") is None or importlib.util.find_spec("anndata") is None,
    reason="zarr-python and anndata write the fixtures")

TINY = """
[datasets.tiny]
base = "f-counts"
cells = 2300
genes = 900
tile_cells = 1000
nnz_min = 20
nnz_max = 90
max_count = 70000
"""


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _run(write_toml, tmp_path, operations, impls, extra=""):
    from turbozarr_bench import sparse_runner

    exp = write_toml(f"""
suite = "sparse"
repeats = 1
dataset = "tiny"
operation = {operations!r}
impl = {impls!r}
data_dir = "{tmp_path / 'data'}"
output = "out.csv"
{extra}
{TINY}""")
    lines: list[str] = []
    code = sparse_runner.run(exp, log=lines.append)
    with (tmp_path / "out.csv").open() as f:
        return code, lines, list(csv.DictReader(f))


def test_every_reader_returns_the_generators_tile(write_toml, tmp_path, monkeypatch):
    from turbozarr_bench import sparse_runner

    monkeypatch.setitem(sparse_runner.IMPLS, "absent-peer",
                        ("turbozarr_bench_absent_peer", "absent-peer"))
    impls = ["turbozarr", "turbozarr-sorted", "h5ad", "zarr-python", "tiledbsoma", "bpcells",
             "scipy", "absent-peer"]
    code, lines, rows = _run(write_toml, tmp_path,
                             ["read_tile", "read_tile_threads", "decode_only", "gather"], impls)
    assert code == 0, lines
    by = {(r["operation"], r["impl"]): r for r in rows}
    for op in ("read_tile", "read_tile_threads", "decode_only"):
        ok = [r for r in rows if r["operation"] == op and r["status"] == "ok"]
        names = {r["impl"] for r in ok}
        assert {"turbozarr", "turbozarr-sorted", "h5ad", "zarr-python"} <= names, lines
        for r in ok:
            # Tile 1 (the middle one) holds cells 1000..1999.
            assert r["agrees"] == "True" and r["digest"] == r["expected"], r
            assert r["cells"] == "1000"
        assert len({r["nnz"] for r in ok}) == 1
        assert by[(op, "absent-peer")]["status"] == "unavailable"
        for impl, module in (("tiledbsoma", "tiledbsoma"), ("bpcells", "bpcells")):
            if not _installed(module):
                assert by[(op, impl)]["status"] == "unavailable"
    if _installed("tiledbsoma"):
        assert by[("decode_only", "tiledbsoma")]["status"] == "unsupported"
    gather = [r for r in rows if r["operation"] == "gather"]
    assert {r["impl"] for r in gather} == {"turbozarr", "scipy"}
    assert all(r["agrees"] == "True" and r["cells"] == "1000" for r in gather)
    assert gather[0]["digest"] == gather[1]["digest"]
    sizes = {r["impl"]: r for r in rows if r["operation"] == "stored_size"}
    assert {"turbozarr", "h5ad", "zarr-python"} <= set(sizes)
    assert sizes["h5ad"]["of_h5ad"] == "1.0"
    assert float(sizes["turbozarr"]["kb_per_cell"]) > 0
    table = sparse_runner.markdown(rows)
    assert "| read_tile |  |" in table and "| stored MB |" in table


@pytest.mark.skipif(not _installed("torch"), reason="the loader needs torch")
def test_the_loader_serves_every_cell_and_its_memory_is_sampled(write_toml, tmp_path):
    extra = """
[loader]
workers = [0, 1]
store = ["local", "throttled-60"]
prefetch = [2, 0]
batch_size = 300

[memory]
workers = 1
batches = 24
sample_every = 4
batch_size = 300
"""
    code, lines, rows = _run(write_toml, tmp_path, ["loader", "loader_memory"], ["turbozarr"],
                             extra)
    assert code == 0, lines
    loader = [r for r in rows if r["operation"] == "loader"]
    assert len(loader) == 2 * 2 * 2
    for r in loader:
        assert r["status"] == "ok" and r["agrees"] == "True", r
        assert r["cells"] == "2300" and int(r["cells_per_s"]) > 0
    memory = next(r for r in rows if r["operation"] == "loader_memory")
    samples = [float(s) for s in memory["samples_mb"].split()]
    # Sampled every 4 batches from the end of the first epoch (8 batches).
    assert len(samples) == 5 and min(samples) > 10
    assert float(memory["growth_pct"]) == pytest.approx(
        100 * (samples[-1] - samples[0]) / samples[0], abs=0.2)


def test_bad_experiments_are_refused(write_toml):
    from turbozarr_bench import sparse_runner

    assert sparse_runner.run(write_toml('suite = "sparse"\nbogus = 1\n')) == 2
    assert sparse_runner.run(write_toml('suite = "sparse"\noperation = ["read_all"]\n')) == 2
    assert sparse_runner.run(write_toml('suite = "sparse"\nimpl = ["h5ad"]\n')) == 2
    assert sparse_runner.run(write_toml('suite = "sparse"\ntile = 99\n')) == 2
    assert sparse_runner.run(write_toml('suite = "sparse"\n[loader]\nstore = ["s3"]\n')) == 2
    assert sparse_runner.run(write_toml('suite = "sparse"\ndataset = "e-small"\n')) == 2


def test_the_workload_files_load_and_list():
    from pathlib import Path

    from turbozarr_bench import sparse_runner

    experiments = Path(__file__).resolve().parents[1] / "experiments"
    full = sparse_runner.load(experiments / "workload-f.toml")
    assert full["spec"].values["cells"] == 100000 and full["tile"] == 5
    loader = sparse_runner.load(experiments / "workload-f-loader.toml")
    cases = sparse_runner._cases(loader)
    # local: 3 worker counts x prefetch on/off; each throttled store also
    # with 8 connections and with 1.
    assert len(cases) == 3 * 2 + 2 * 2 * 3 * 2 + 1
    assert {c[1] for c in cases} >= {"local, 2 workers, prefetch 2",
                                     "throttled-60 x1, 2 workers, prefetch 0"}
    assert cases[-1][2]["batches"] == 1000
    lines: list[str] = []
    assert sparse_runner.run(experiments / "workload-f-smoke.toml", list_only=True,
                             log=lines.append) == 0
    assert lines[0].startswith("f-smoke:")


def test_the_csr_digest_is_of_the_matrix_not_its_storage():
    import scipy.sparse

    from turbozarr_bench.checksum import csr_digest

    m = scipy.sparse.csr_matrix(np.array([[0, 3, 1], [70000, 0, 0]], np.uint32))
    shuffled = scipy.sparse.csr_matrix((np.array([1, 3, 70000], np.uint32),
                                        np.array([2, 1, 0], np.int32),
                                        np.array([0, 2, 3], np.int64)), shape=(2, 3))
    assert csr_digest(m) == csr_digest(shuffled)
    assert csr_digest(m) == csr_digest(m.astype(np.float32))
    assert csr_digest(m) == csr_digest(m.astype(np.int64))
    assert csr_digest(m) != csr_digest(m[:, :2])
    changed = m.copy()
    changed.data[0] = 4
    assert csr_digest(m) != csr_digest(changed)


def test_a_turbozarr_fixture_in_an_older_layout_is_rewritten(write_toml, tmp_path):
    import json

    import turbozarr.sparse

    code, lines, _ = _run(write_toml, tmp_path, ["read_tile"], ["turbozarr"])
    assert code == 0, lines
    (doc_path,) = (tmp_path / "data").glob("*/turbozarr/X/zarr.json")
    doc = json.loads(doc_path.read_text())
    assert doc["attributes"]["sparse_matrix"]["version"] == turbozarr.sparse.LAYOUT_VERSION
    doc["attributes"]["sparse_matrix"]["version"] = 1  # as an older turbozarr left it
    doc_path.write_text(json.dumps(doc))
    code, lines, rows = _run(write_toml, tmp_path, ["read_tile"], ["turbozarr"])
    assert code == 0, lines
    assert any("older turbozarr layout; rewriting it" in line for line in lines), lines
    doc = json.loads(doc_path.read_text())
    assert doc["attributes"]["sparse_matrix"]["version"] == turbozarr.sparse.LAYOUT_VERSION
    assert all(r["agrees"] == "True" for r in rows if r["operation"] == "read_tile")
