"""The http store axis: the server's lifecycle (against fake_http_serve.py, a
stand-in with tz_http_serve's contract), the plan, a run over HTTP with the
fake adapters, the link columns, and the real adapters' http_source."""

from __future__ import annotations

import csv
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from turbozarr_bench import cli, http_server, runner
from turbozarr_bench.config import load
from turbozarr_bench.results_csv import COLUMNS, EARLIER, read_rows
from turbozarr_bench.table import render, render_markdown

from .tiny_dataset import TINY_DATASET, TINY_RUN

FAKE = Path(__file__).resolve().parent / "fake_http_serve.py"


def _serve(root, *extra, **kw) -> http_server.HttpServer:
    argv = [sys.executable, str(FAKE), "--root", str(root), "--latency-ms", "0",
            "--megabytes-per-second", "0", "--port", "0", *extra]
    return http_server.HttpServer(argv, root.parent / "server-logs", **kw)


def _get(url: str, method: str = "GET", range_: str | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, method=method,
                                 headers={"Range": range_} if range_ else {})
    with urllib.request.urlopen(req) as answer:
        return answer.status, answer.read()


# -- the server ----------------------------------------------------------------------------


def test_server_starts_serves_and_reports_its_counts(tmp_path):
    root = tmp_path / "data.zarr"
    root.mkdir()
    (root / "c").mkdir()
    (root / "c" / "0").write_bytes(bytes(range(200)))
    server = _serve(root)
    url = server.start()
    assert url.startswith("http://127.0.0.1:") and int(url.rsplit(":", 1)[1]) > 0
    assert _get(f"{url}/c/0") == (200, bytes(range(200)))
    assert _get(f"{url}/c/0", range_="bytes=10-19") == (206, bytes(range(10, 20)))
    assert _get(f"{url}/c/0", range_="bytes=-5") == (206, bytes(range(195, 200)))
    assert _get(f"{url}/c/0", method="HEAD") == (200, b"")
    with pytest.raises(urllib.error.HTTPError) as e:
        _get(f"{url}/c/1")
    assert e.value.code == 404
    stats = server.stop()
    assert server.proc.returncode == 0
    assert stats.requests == 5 and stats.peak_connections >= 1
    # 200 + 10 + 5 body bytes, plus five sets of headers
    assert 215 + 5 * 40 < stats.bytes_sent < 215 + 5 * 400


def test_context_manager_stops_the_server(tmp_path):
    (tmp_path / "d").mkdir()
    with _serve(tmp_path / "d") as server:
        pid = server.proc.pid
    assert server.proc.returncode == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_eof_on_stdin_alone_stops_the_stand_in(tmp_path):
    (tmp_path / "d").mkdir()
    server = _serve(tmp_path / "d")
    server.start()
    server.proc.stdin.close()
    assert server.proc.wait(10) == 0
    assert http_server.parse_exit_line(server._stderr()).requests == 0


def _script(tmp_path, body: str) -> list[str]:
    p = tmp_path / "server.py"
    p.write_text(body)
    return [sys.executable, str(p)]


@pytest.mark.parametrize("body, message", [
    ("import sys; print('boom', file=sys.stderr); sys.exit(3)", "exited 3 before listening: boom"),
    ("print('listening on 8080', flush=True)\nimport time; time.sleep(60)", "is not a URL"),
    ("import time; time.sleep(60)", "printed no URL within 0.5 s"),
])
def test_start_failures_are_clean_errors(tmp_path, body, message):
    server = http_server.HttpServer(_script(tmp_path, body), tmp_path / "logs",
                                    start_timeout=0.5)
    with pytest.raises(http_server.ServerError, match=message):
        server.start()
    assert server.proc.poll() is not None, "a server that failed to start is not left running"


def test_a_missing_binary_is_a_clean_error(tmp_path):
    server = http_server.HttpServer([str(tmp_path / "nope")], tmp_path / "logs")
    with pytest.raises(http_server.ServerError, match="cannot start"):
        server.start()


@pytest.mark.parametrize("on_term, message", [
    ("signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))", "no exit line"),
    ("", "killed by signal 15 and printed no exit line"),
])
def test_stop_without_an_exit_line_is_an_error(tmp_path, on_term, message):
    # After the end of stdin it waits, so that SIGTERM (sent just after) and
    # not the end of stdin decides how it ends.
    argv = _script(tmp_path, f"import signal, sys, time\n{on_term}\n"
                             "print('http://127.0.0.1:1', flush=True)\nsys.stdin.read()\n"
                             "time.sleep(60)\n")
    server = http_server.HttpServer(argv, tmp_path / "logs")
    assert server.start() == "http://127.0.0.1:1"
    with pytest.raises(http_server.ServerError, match=message):
        server.stop()


def test_exit_line_is_the_last_json_line():
    text = ('log: listening\n{"requests": 1, "bytes_sent": 2, "peak_connections": 3}\n'
            'log: {not json\n{"requests": 7, "bytes_sent": 8, "peak_connections": 9}\n')
    assert http_server.parse_exit_line(text) == http_server.ServerStats(7, 8, 9)
    with pytest.raises(http_server.ServerError):
        http_server.parse_exit_line('{"requests": 1}\n')


def test_command_and_binary_path():
    assert http_server.command("/s", "/d", 50, 150.0) == [
        "/s", "--root", "/d", "--latency-ms", "50", "--megabytes-per-second", "150",
        "--port", "0", "--backlog", "1024"]
    assert http_server.command("/s", "/d", 30, 0, backlog=5)[-2:] == ["--backlog", "5"]
    assert http_server.command("/s", "/d", 0.5, 12.5)[4:7] == ["0.5", "--megabytes-per-second",
                                                              "12.5"]
    rel = http_server.resolve_binary("build/bench/serve/tz_http_serve")
    assert os.path.isabs(rel) and rel.endswith("build/bench/serve/tz_http_serve")
    assert http_server.resolve_binary("/opt/x") == "/opt/x"


# -- the plan ------------------------------------------------------------------------------


def test_plan_scopes_remote_to_http_and_drops_what_cannot_apply(write_toml):
    exp = load(write_toml(
        'dataset = ["b-raw"]\nimpl = ["zarr-python", "zarrs", "tensorstore", "numpy"]\n'
        'op = ["read_full", "write_full"]\nstore = ["local", "http"]\n'
        'cache = ["warm", "cold"]\nceiling = []\n'
        '[options.zarr-python]\npipeline = ["batched"]\nremote = ["fsspec", "obstore"]\n'
        '[options.zarrs]\nremote = ["fsspec", "obstore"]\n'))
    cases = [c for c in runner.plan(exp) if c.kind == "impl"]

    def variants(impl, store, op="read_full", cache="warm"):
        return sorted(c.variant for c in cases if c.impl == impl and c.store == store
                      and c.op == op and c.cache == cache)

    assert variants("zarr-python", "local") == ["pipeline=batched"]
    assert variants("zarr-python", "http") == ["pipeline=batched,remote=fsspec",
                                               "pipeline=batched,remote=obstore"]
    assert variants("zarrs", "local") == [""]
    assert variants("zarrs", "http") == ["remote=fsspec", "remote=obstore"]
    by = {(c.impl, c.variant, c.store, c.op, c.cache): c for c in cases}
    cold = by[("tensorstore", "", "http", "read_full", "cold")]
    assert cold.state == "na" and "page cache is the server's" in cold.reason
    write = by[("tensorstore", "", "http", "write_full", "warm")]
    assert write.state == "unsupported" and "read-only" in write.reason
    assert by[("tensorstore", "", "http", "read_full", "warm")].state == "run"
    assert by[("zarrs", "remote=obstore", "http", "read_full", "warm")].state == "run"
    numpy = by[("numpy", "", "http", "read_full", "warm")]
    assert numpy.state == "unsupported"


def test_list_names_the_server_and_its_link(write_toml, tmp_path, capsys):
    text = (f'data_dir = "{tmp_path / "data"}"\nenv_dir = "{tmp_path / "envs"}"\n'
            'impl = ["turbozarr", "zarr-python"]\nstore = ["http"]\nceiling = []\n'
            f'[http]\nserver = "{tmp_path / "missing"}"\nlatency_ms = 20\n'
            'megabytes_per_second = 75\n'
            '[options.zarr-python]\nremote = ["fsspec", "obstore"]\n')
    assert cli.main(["run", str(write_toml(text)), "--list"]) == 0
    out = capsys.readouterr().out
    assert f"http server {tmp_path / 'missing'} (MISSING" in out
    assert "20 ms, 75 MB/s per connection" in out
    assert "(remote: store http only)" in out
    assert "zarr-python[pipeline=batched,remote=obstore] store=http" in out


# -- a run over HTTP -----------------------------------------------------------------------

TINY = TINY_RUN + """impl = ["fake-a", "fake-b"]
baseline = "fake-a"
op = ["read_full", "write_full"]
store = ["http"]
cache = ["warm", "cold"]
ceiling = []

[http]
server = "{server}"
latency_ms = 0
megabytes_per_second = 150
""" + TINY_DATASET.replace("{codec}", "none")


def _stand_in_binary(tmp_path) -> Path:
    p = tmp_path / "tz_http_serve"
    p.write_text(f"#!{sys.executable}\nimport runpy\n"
                 f"runpy.run_path({str(FAKE)!r}, run_name='__main__')\n")
    p.chmod(0o755)
    return p


def test_run_over_http_records_the_link_columns(tmp_path, write_toml, fakes, capsys):
    text = TINY.format(data=tmp_path / "data", envs=tmp_path / "envs",
                       server=_stand_in_binary(tmp_path))
    assert cli.main(["run", str(write_toml(text))]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "results" / "exp.csv")))
    assert len(rows) == 4  # 2 impls x (read_full, write_full); cold dropped
    by = {(r["op"], r["impl"]): r for r in rows}
    w = by[("write_full", "fake-a")]
    assert w["status"] == "unsupported" and "read-only" in w["reason"]
    for impl in ("fake-a", "fake-b"):
        r = by[("read_full", impl)]
        assert r["status"] == "ok" and r["store"] == "http"
        assert r["checksum"] == r["reference_checksum"] != ""
        # 4 x 3 chunks of 256 bytes, one GET each, on every read
        assert float(r["requests"]) == 12
        assert 12 * 256 < float(r["wire_bytes"]) < 12 * (256 + 400)
        assert int(r["peak_connections"]) >= 1
        assert float(r["latency_ms"]) == 0 and float(r["link_mbps"]) == 150
        wire = float(r["wire_bytes"]) / float(r["seconds"]) / 1e6
        assert float(r["wire_mbps"]) == pytest.approx(wire, rel=1e-4)
        assert float(r["link_pct"]) == pytest.approx(100 * wire / 150, rel=1e-4)
        assert "server: 48 requests" in r["note"] and "over 4 reads" in r["note"]
        assert r["resident_before"] == "1", "the server's files are kept warm"
    assert "store=http(0 ms, 150 MB/s per connection)" in out
    header = next(ln for ln in out.splitlines() if ln.strip().startswith("impl"))
    assert header.split()[-6:] == ["MB/s", "link", "%", "requests", "peak", "conns"]


def test_a_missing_server_reads_unavailable(tmp_path, write_toml, fakes, capsys):
    text = TINY.format(data=tmp_path / "data", envs=tmp_path / "envs",
                       server=tmp_path / "nope")
    assert cli.main(["run", str(write_toml(text))]) == 0
    rows = list(csv.DictReader(open(tmp_path / "results" / "exp.csv")))
    reads = [r for r in rows if r["op"] == "read_full"]
    assert {r["status"] for r in reads} == {"unavailable"}
    assert all(f"no HTTP server at {tmp_path / 'nope'}" in r["reason"] for r in reads)
    assert "http server: UNAVAILABLE" in capsys.readouterr().out


# -- the columns ---------------------------------------------------------------------------


def _row(impl, store, seconds, **kw):
    return {"kind": "impl", "status": "ok", "op": "read_full", "dataset": "d", "impl": impl,
            "variant": "", "store": store, "threads": "all", "nthreads": "2", "cache": "warm",
            "checksum": "x", "reference_checksum": "x", "seconds": seconds, **kw}


def test_table_and_markdown_show_the_link_only_for_http():
    link = {"latency_ms": "50", "link_mbps": "150"}
    rows = [_row("zarr-python", "http", "2", wire_mbps="100", link_pct="66.67", requests="201",
                 peak_connections="10", **link),
            _row("turbozarr", "http", "1", wire_mbps="200", link_pct="133.3", requests="60",
                 peak_connections="16", **link),
            _row("zarr-python", "local", "1"), _row("turbozarr", "local", "0.5")]
    text = render(rows, "zarr-python")
    blocks = text.split("\n\n")
    http_block = next(b for b in blocks if "store=http" in b)
    local_block = next(b for b in blocks if "store=local" in b)
    assert "store=http(50 ms, 150 MB/s per connection)" in http_block
    assert "link %" in http_block and "peak conns" in http_block
    turbo = next(ln for ln in http_block.splitlines() if ln.strip().startswith("turbozarr"))
    assert turbo.split()[-4:] == ["200", "133%", "60", "16"]
    assert "link %" not in local_block
    md = render_markdown(rows, "zarr-python")
    assert "**read_full over HTTP** (50 ms, 150 MB/s per connection)" in md
    assert "| d | all | warm | 100 MB/s, 67%, 201 req, 10 conn | 200 MB/s, 133%, 60 req, " \
           "16 conn |" in md
    assert md.count("| d | all | warm |") == 1, "local rows get no link table"


def test_reports_read_csvs_written_before_the_link_columns(tmp_path):
    old = tmp_path / "old.csv"
    with open(old, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=EARLIER[0])
        w.writeheader()
        w.writerow({"run_id": "r", "status": "ok", "seconds": "1.5"})
    rows = read_rows(old)
    assert list(rows[0]) == COLUMNS
    assert rows[0]["seconds"] == "1.5" and rows[0]["link_pct"] == ""
    assert cli.main(["report", str(old), "-o", str(tmp_path / "r.html")]) == 0


# -- the real adapters over the stand-in ---------------------------------------------------


def _v3_fixture(root: Path) -> np.ndarray:
    """A (40, 30) int32 array, chunks (16, 16), uncompressed, written by hand."""
    data = np.arange(1200, dtype="<i4").reshape(40, 30)
    meta = {"zarr_format": 3, "node_type": "array", "shape": [40, 30], "data_type": "int32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": [{"name": "bytes",
                                         "configuration": {"endian": "little"}}],
            "attributes": {}}
    root.mkdir(parents=True)
    (root / "zarr.json").write_text(json.dumps(meta))
    for i in range(3):
        for j in range(2):
            chunk = np.zeros((16, 16), "<i4")
            part = data[i * 16:(i + 1) * 16, j * 16:(j + 1) * 16]
            chunk[:part.shape[0], :part.shape[1]] = part
            (root / "c" / str(i)).mkdir(parents=True, exist_ok=True)
            (root / "c" / str(i) / str(j)).write_bytes(chunk.tobytes())
    return data


@pytest.mark.parametrize("module, libraries, options", [
    ("turbozarr_api", ["turbozarr"], {}),
    ("zarr_python", ["zarr", "obstore"], {"remote": "obstore"}),
    ("zarr_python", ["zarr", "fsspec", "aiohttp"], {"remote": "fsspec"}),
    ("tensorstore_api", ["tensorstore"], {}),
])
def test_adapters_read_over_http(tmp_path, module, libraries, options):
    """Each adapter's http_source opens an array the stand-in serves (the
    libraries a machine lacks are skipped: the peers live in their own venvs)."""
    for library in libraries:
        pytest.importorskip(library)
    import importlib

    mod = importlib.import_module(f"turbozarr_bench.adapters.{module}")
    data = _v3_fixture(tmp_path / "data.zarr")
    meta = json.loads((tmp_path / "data.zarr" / "zarr.json").read_text())
    driver = mod.Driver({"impl": mod.NAME, "nthreads": 1, "options": options,
                         "fixture": {"meta": meta}, "env": {}})
    with _serve(tmp_path / "data.zarr") as server:
        out = driver.read_all(driver.open(driver.http_source(server.url)))
    np.testing.assert_array_equal(np.asarray(out), data)
    assert server.proc.returncode == 0
