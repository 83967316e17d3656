"""--list and a real (tiny) run with fake adapters: the audit catches a wrong one."""

from __future__ import annotations

import csv
import json
import sys

import numpy as np
import pytest

from turbozarr_bench import cli

from .tiny_dataset import TINY_DATASET, TINY_RUN

TINY = TINY_RUN + """impl = {impls}
baseline = "fake-a"
op = {ops}
ceiling = {ceilings}
""" + TINY_DATASET


def _toml(tmp_path, impls, ops, ceilings='[]', codec="none"):
    return TINY.format(data=tmp_path / "data", envs=tmp_path / "envs", impls=impls, ops=ops,
                       ceilings=ceilings, codec=codec)


def test_list_prints_the_plan_and_installs_nothing(tmp_path, write_toml, capsys):
    text = _toml(tmp_path, '["zarr-python", "tensorstore", "numpy", "turbozarr-cli"]',
                 '["read_full", "read_inner_chunks", "round_trip"]',
                 '["memcpy", "decode-1"]', codec="blosc-lz4").replace('baseline = "fake-a"', "")
    text += '\n[options.zarr-python]\npipeline = ["batched", "fused"]\n'
    assert cli.main(["run", str(write_toml(text)), "--list"]) == 0
    out = capsys.readouterr().out
    assert "datasets:" in out and "tiny" in out and "(to generate)" in out
    assert "implementations:" in out and "pipeline=batched | pipeline=fused" in out
    assert "environments:" in out and "(to install)" in out and "tensorstore==" in out
    assert "cases that will run (" in out and "runs/case 3 + 1 checksum run" in out
    assert "runs/case 3 + 1 read-back by zarr-python" in out
    assert "cases that cannot run" in out
    assert "numpy does not read zarr2 datasets" in out
    assert "the CLI prints values as text" in out
    assert "not sharded" in out  # read_inner_chunks dropped as not applicable
    assert "ceiling tiny ceiling[decode-1]" in out
    assert not (tmp_path / "data").exists() and not (tmp_path / "envs").exists()


def test_bad_config_exits_2_naming_the_key(tmp_path, write_toml, capsys):
    assert cli.main(["run", str(write_toml("repeatz = 1\n")), "--list"]) == 2
    assert "'repeatz'" in capsys.readouterr().err


def test_run_audits_reads_and_writes(tmp_path, write_toml, fakes, capsys):
    exp = write_toml(_toml(tmp_path, '["fake-a", "fake-b", "fake-wrong", "fake-unsupported", '
                                     '"fake-failing"]', '["read_full", "write_full"]',
                           '["memcpy"]'))
    code = cli.main(["run", str(exp)])
    out = capsys.readouterr().out
    assert code == 1  # a checksum mismatch fails the command
    rows = list(csv.DictReader(open(tmp_path / "results" / "exp.csv")))
    by = {(r["op"], r["impl"]): r for r in rows}
    ref = by[("read_full", "fake-a")]["reference_checksum"]
    assert ref and by[("read_full", "fake-a")]["checksum"] == ref
    assert by[("read_full", "fake-b")]["checksum"] == ref
    assert by[("read_full", "fake-wrong")]["checksum"] not in ("", ref)
    assert by[("write_full", "fake-a")]["checksum"] == ref
    assert by[("write_full", "fake-wrong")]["checksum"] not in ("", ref)
    assert "read back by zarr-python" in by[("write_full", "fake-a")]["note"]
    assert by[("write_full", "fake-failing")]["status"] == "unsupported"  # declared
    assert by[("read_full", "fake-unsupported")]["status"] == "unsupported"
    assert "found at run time" in by[("read_full", "fake-unsupported")]["reason"]
    assert by[("read_full", "fake-failing")]["status"] == "failed"
    assert "RuntimeError: boom" in by[("read_full", "fake-failing")]["reason"]
    ok = by[("read_full", "fake-a")]
    assert len(ok["samples"].split(";")) == 2
    assert float(ok["seconds_min"]) <= float(ok["seconds"]) <= float(ok["seconds_max"])
    assert float(ok["rss_peak_mb"]) >= float(ok["rss_base_mb"]) > 0
    assert float(ok["cpu_seconds"]) > 0 and ok["loadavg"] and ok["cpu_model"] is not None
    assert "numpy" in ok["versions"] and ok["resident_before"] == "1"
    assert by[("ceiling", "ceiling")]["status"] == "ok"
    # the table marks exactly the wrong adapter's rows
    lines = [ln for ln in out.splitlines() if "MISMATCH" in ln]
    assert len(lines) == 2 and all("fake-wrong" in ln for ln in lines)
    assert "speedup vs fake-a" in out

    # appending a second run keeps one header; a foreign header is refused
    (tmp_path / "results" / "exp.csv").write_text("a,b\n1,2\n")
    assert cli.main(["run", str(exp)]) == 2
    assert "different header" in capsys.readouterr().err


def test_an_environment_that_cannot_install_reads_unavailable(tmp_path, write_toml, fakes,
                                                               capsys):
    text = _toml(tmp_path, '["fake-a", "zarr-python"]', '["read_full"]')
    text += '\n[env.zarr-python]\npython = "/nonexistent/python3"\n'
    assert cli.main(["run", str(write_toml(text))]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "results" / "exp.csv")))
    by = {r["impl"]: r for r in rows}
    assert by["zarr-python"]["status"] == "unavailable"
    assert "install failed" in by["zarr-python"]["reason"]
    assert by["fake-a"]["status"] == "ok"
    assert "UNAVAILABLE" in out


def test_a_missing_python_version_reads_unavailable_with_where_it_looked(tmp_path,
                                                                           monkeypatch):
    import types

    from turbozarr_bench import adapters, envs

    module = types.ModuleType("needs_python")
    module.ENV, module.PYTHON, module.REQUIRES = "venv", "2.1", ("zarr==3.4.2",)
    module.PROJECT_PATH = True
    monkeypatch.setitem(adapters.EXTRA, "needs-python", module)
    e = envs.plan("needs-python", {}, tmp_path)
    assert not e.ready and e.path is None
    assert "no Python 2.1 interpreter found" in e.reason and "[env.needs-python]" in e.reason
    assert e.pythonpath == [str(envs.REPO_ROOT / "python")]
    envs.prepare([e], log=lambda line: None)  # nothing to install: stays unavailable
    assert not e.ready and not tmp_path.joinpath("needs-python").exists()
    # a named interpreter is used as given (and its venv keyed by it)
    e = envs.plan("needs-python", {"python": sys.executable}, tmp_path)
    assert e.base_python == sys.executable and e.path is not None


def test_find_python_checks_the_version_it_finds():
    from turbozarr_bench import envs

    here = "%d.%d" % sys.version_info[:2]
    found = envs.find_python(here)
    assert found and envs._version_of(found) == here


def test_turbozarr_out_reads_every_run_into_one_buffer(tmp_path):
    pytest.importorskip("turbozarr")
    from turbozarr_bench.adapters import turbozarr_out

    from .test_bench_http_store import _v3_fixture

    data = _v3_fixture(tmp_path / "a.zarr")
    meta = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    driver = turbozarr_out.Driver({"impl": "turbozarr-out", "nthreads": 1, "options": {},
                                   "fixture": {"meta": meta}, "env": {}})
    driver.configure()
    source = driver.local_source(str(tmp_path / "a.zarr"))
    first = driver.read_all(driver.open(source))
    first[...] = 0
    second = driver.read_all(driver.open(source))
    assert second is first, "the second read reuses the first one's buffer"
    np.testing.assert_array_equal(second, data)
