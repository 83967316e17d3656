"""The s3 store axis: the throttle's exit line and command, the plan, a run of
turbozarr over moto behind tz_tcp_throttle, and the real adapters' s3_source
against moto."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest

from turbozarr_bench import cli, http_server, runner, s3_server
from turbozarr_bench.config import ConfigError, load

from .test_bench_http_store import _v3_fixture
from .tiny_dataset import TINY_DATASET, TINY_RUN

THROTTLE = http_server.resolve_binary("build/bench/serve/tz_tcp_throttle")


def _need_moto_and_throttle() -> None:
    pytest.importorskip("moto")
    pytest.importorskip("boto3")
    if not http_server.usable(THROTTLE):
        pytest.skip(f"{THROTTLE} is not built (make build)")


def test_the_throttles_exit_line_has_bytes_and_no_requests():
    line = '{"connections":5,"peak_connections":3,"bytes_up":900,"bytes_down":12345}\n'
    assert http_server.parse_exit_line("log\n" + line) == http_server.ServerStats(None, 12345, 3)
    with pytest.raises(http_server.ServerError, match="bytes_down"):
        http_server.parse_exit_line('{"connections": 1}\n')


def test_throttle_command():
    assert s3_server.throttle_command("/t", "http://127.0.0.1:9000", 50, 150.0) == [
        "/t", "--upstream", "127.0.0.1:9000", "--latency-ms", "50",
        "--megabytes-per-second", "150", "--port", "0"]


def test_plan_reads_s3_and_leaves_out_writes_and_cold(write_toml):
    exp = load(write_toml(
        'dataset = ["b-raw"]\nimpl = ["zarr-python", "tensorstore", "turbozarr", "numpy"]\n'
        'op = ["read_full", "write_full"]\nstore = ["s3"]\ncache = ["warm", "cold"]\n'
        'ceiling = []\n[options.zarr-python]\npipeline = ["batched"]\n'
        'remote = ["fsspec", "obstore"]\n[http]\nlatency_ms = 20\n'))
    assert exp.http.latency_ms == 20
    cases = {(c.impl, c.variant, c.op, c.cache): c for c in runner.plan(exp)
             if c.kind == "impl"}
    # the remote axis is HTTP's: over S3 zarr-python has one store, obstore's
    assert ("zarr-python", "pipeline=batched", "read_full", "warm") in cases
    assert not any("remote=" in v for (_, v, _, _) in cases)
    for impl in ("turbozarr", "tensorstore"):
        assert cases[(impl, "", "read_full", "warm")].state == "run"
        write = cases[(impl, "", "write_full", "warm")]
        assert write.state == "unsupported" and "uploaded to moto" in write.reason
        cold = cases[(impl, "", "read_full", "cold")]
        assert cold.state == "na" and "page cache is the server's" in cold.reason
    assert cases[("numpy", "", "read_full", "warm")].state == "unsupported"


def test_the_http_table_needs_a_remote_store(write_toml):
    with pytest.raises(ConfigError, match='"http" or "s3"'):
        load(write_toml('store = ["local"]\n[http]\nlatency_ms = 5\n'))


TINY_S3 = TINY_RUN + """impl = ["turbozarr", "turbozarr-out"]
baseline = "turbozarr"
op = ["read_full", "write_full"]
store = ["s3"]
ceiling = []

[http]
throttle = "{throttle}"
latency_ms = 10
megabytes_per_second = 50
""" + TINY_DATASET.replace("{codec}", "zstd")


def test_run_over_s3_reads_through_the_throttle(tmp_path, write_toml, capsys):
    _need_moto_and_throttle()
    text = TINY_S3.format(data=tmp_path / "data", envs=tmp_path / "envs", throttle=THROTTLE)
    assert cli.main(["run", str(write_toml(text))]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "results" / "exp.csv")))
    by = {(r["op"], r["impl"]): r for r in rows}
    assert by[("write_full", "turbozarr")]["status"] == "unsupported"
    # reading into one reused buffer gives the same array
    reused = by[("read_full", "turbozarr-out")]
    assert reused["status"] == "ok", reused["reason"]
    assert reused["checksum"] == reused["reference_checksum"] != ""
    r = by[("read_full", "turbozarr")]
    assert r["status"] == "ok", r["reason"]
    assert r["store"] == "s3" and r["checksum"] == r["reference_checksum"] != ""
    # 12 chunks and the metadata per read, at 10 ms a request at least once
    assert float(r["seconds"]) >= 0.010
    assert float(r["wire_bytes"]) > 0 and r["requests"] == ""
    assert int(r["peak_connections"]) >= 1
    assert float(r["latency_ms"]) == 10 and float(r["link_mbps"]) == 50
    assert "throttle:" in r["note"] and "over 4 reads" in r["note"]
    assert "s3: moto at http://127.0.0.1:" in out
    assert "store=s3(10 ms, 50 MB/s per connection)" in out
    assert not list((tmp_path / "data" / "_scratch").glob("*-moto")), "moto's logs are removed"


def test_a_missing_throttle_reads_unavailable(tmp_path, write_toml, fakes, capsys):
    text = TINY_S3.format(data=tmp_path / "data", envs=tmp_path / "envs",
                          throttle=tmp_path / "nope").replace(
        'impl = ["turbozarr", "turbozarr-out"]\nbaseline = "turbozarr"',
        'impl = ["fake-a"]\nbaseline = "fake-a"')
    assert cli.main(["run", str(write_toml(text))]) == 0
    rows = list(csv.DictReader(open(tmp_path / "results" / "exp.csv")))
    read = next(r for r in rows if r["op"] == "read_full")
    assert read["status"] == "unavailable"
    assert f"no throttle at {tmp_path / 'nope'}" in read["reason"]
    assert "s3: UNAVAILABLE" in capsys.readouterr().out


@pytest.fixture(scope="module")
def moto(tmp_path_factory):
    _need_moto_and_throttle()
    m = s3_server.Moto(tmp_path_factory.mktemp("moto"))
    m.start()
    yield m
    m.stop()


@pytest.mark.parametrize("module, libraries", [
    ("turbozarr_api", ["turbozarr"]),
    ("zarr_python", ["zarr", "obstore"]),
    ("tensorstore_api", ["tensorstore"]),
])
def test_adapters_read_over_s3(tmp_path, moto, module, libraries):
    """Each adapter's s3_source opens an array uploaded to moto, through a
    throttle (the libraries a machine lacks are skipped: the peers live in
    their own venvs)."""
    for library in libraries:
        pytest.importorskip(library)
    import importlib

    mod = importlib.import_module(f"turbozarr_bench.adapters.{module}")
    data = _v3_fixture(tmp_path / "data.zarr")
    prefix = moto.upload(f"adapter-{module}", tmp_path / "data.zarr")
    meta = json.loads((tmp_path / "data.zarr" / "zarr.json").read_text())
    driver = mod.Driver({"impl": mod.NAME, "nthreads": 1, "options": {},
                         "fixture": {"meta": meta}, "env": {}})
    argv = s3_server.throttle_command(THROTTLE, moto.endpoint, 1, 0)
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    try:
        with http_server.HttpServer(argv, tmp_path / "throttle") as throttle:
            source = driver.s3_source(moto.source(throttle.url, prefix))
            out = driver.read_all(driver.open(source))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    np.testing.assert_array_equal(np.asarray(out), data)
    assert throttle.proc.returncode == 0
