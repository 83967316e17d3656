"""The records behind docs/support.md: what an array's metadata names, and
that only tests which pass write theirs (conftest.py's plugin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import support_records as sr

TESTS = Path(__file__).resolve().parent


def test_features_of_a_v3_document_with_nested_shards():
    meta = {"zarr_format": 3, "data_type": {"name": "numpy.datetime64",
                                            "configuration": {"unit": "s"}},
            "chunk_grid": {"name": "regular"},
            "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
            "codecs": [{"name": "transpose"}, {"name": "sharding_indexed", "configuration": {
                "index_location": "start",
                "codecs": [{"name": "sharding_indexed", "configuration": {
                    "codecs": ["bytes", {"name": "zstd"}],
                    "index_codecs": [{"name": "bytes"}, {"name": "crc32c"}]}}],
                "index_codecs": [{"name": "bytes"}]}}]}
    assert sr.data_type_of(meta) == "numpy.datetime64"
    assert sr.codecs_of(meta) == ["transpose", "sharding_indexed", "bytes", "zstd", "crc32c"]
    assert sr.layouts_of(meta) == ["regular chunk grid", "sharding, index at the start",
                                   "nested sharding", 'chunk key encoding "v2", separator "/"']


@pytest.mark.parametrize("dtype,filters,spelled", [
    ("|S7", None, "|Sn"), (">U5", None, ">Un"), ("<M8[10s]", None, "<M8[unit]"),
    (">m8[ms]", None, ">m8[unit]"), ("<f8", None, "<f8"), ("bfloat16", None, "bfloat16"),
    ("|O", [{"id": "vlen-bytes"}], "|O (vlen-bytes)"),
    ([["a", "<i4"], ["b", "<f8"]], None, "[[name, type], ...]"),
])
def test_v2_type_strings(dtype, filters, spelled):
    meta = {"zarr_format": 2, "dtype": dtype, "filters": filters, "order": "F",
            "compressor": {"id": "blosc", "cname": "lz4"}}
    assert sr.data_type_of(meta) == spelled
    assert sr.codecs_of(meta) == [f["id"] for f in filters or []] + ["blosc"]
    assert sr.layouts_of(meta) == ["regular chunk grid", 'dimension_separator "."',
                                   'order "F"']


def test_bad_records_are_refused():
    with pytest.raises(ValueError, match="kind"):
        sr.record("colour", "red", "read", peer="p")
    with pytest.raises(ValueError, match="ways"):
        sr.record("codec", "zstd", "append", peer="p")
    with pytest.raises(ValueError, match="ways"):
        sr.record("codec", "zstd", [], peer="p")
    with pytest.raises(ValueError, match="peer"):
        sr.record("codec", "zstd", "read", peer="")
    with pytest.raises(ValueError, match="no store kind"):
        sr.store_of("ftp://host/x")
    assert sr.store_of("zip:///tmp/a.zip") == "zip archive"


_CHILD_TESTS = '''
import pytest

def test_passes(supports):
    supports("codec", "zstd", ["read", "write"], peer="peer A", zarr_format=3)

def test_fails(supports):
    supports("codec", "gzip", "read", peer="peer A", zarr_format=3)
    assert False

def test_skips(supports):
    supports("codec", "lz4", "read", peer="peer A", zarr_format=2)
    pytest.skip("not here")

@pytest.mark.xfail(reason="known")
def test_xfails(supports):
    supports("codec", "bz2", "read", peer="peer A", zarr_format=2)
    assert False

@pytest.mark.xfail(reason="known", strict=False)
def test_xpasses(supports):
    supports("codec", "zlib", "read", peer="peer A", zarr_format=2)

@pytest.fixture
def breaks_in_teardown():
    yield
    raise RuntimeError("teardown")

def test_teardown_fails(supports, breaks_in_teardown):
    supports("codec", "blosc", "read", peer="peer A", zarr_format=3)

def test_records_nothing(record_property):
    record_property("wrong_elements", 0)
'''


def test_only_passing_tests_write_their_records(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(textwrap.dedent(f'''
        import importlib.util, sys
        sys.path.insert(0, {str(TESTS)!r})
        spec = importlib.util.spec_from_file_location("shared_conftest",
                                                      {str(TESTS / "conftest.py")!r})
        shared = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(shared)
        supports = shared.supports
        pytest_runtest_logreport = shared.pytest_runtest_logreport
    '''))
    (tests / "test_child.py").write_text(_CHILD_TESTS)
    out = tmp_path / "records.jsonl"
    out.write_text('{"kept": "a line from an earlier run"}\n')
    env = {**os.environ, "TURBOZARR_SUPPORT_RECORD": str(out)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tests)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    # (a test whose teardown fails is counted as passed and as an error)
    assert "1 failed, 3 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error" in proc.stdout, \
        proc.stdout + proc.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0] == {"kept": "a line from an earlier run"}  # appended to
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert lines[1:] == [
        {"python": python, "test": "tests/test_child.py::test_passes", "kind": "codec",
         "feature": "zstd", "zarr_format": 3, "way": way, "peer": "peer A"}
        for way in ("read", "write")]
