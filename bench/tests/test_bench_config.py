"""Experiment files: defaults, unknown keys, dataset spec validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from turbozarr_bench import adapters
from turbozarr_bench.config import ConfigError, load, reference_toml

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def test_empty_file_runs_the_defaults(write_toml):
    exp = load(write_toml(""))
    assert [d.name for d in exp.datasets] == ["b-raw"]
    assert exp.ops == ["read_full"]
    assert exp.impls == adapters.names()
    assert exp.threads == ["all"] and exp.stores == ["local"] and exp.caches == ["warm"]
    assert exp.repeats == 3 and exp.warmup == 1
    assert exp.baseline == "zarr-python"
    assert exp.output == write_toml("").parent / "results" / "exp.csv"


def test_reference_file_equals_the_defaults(write_toml):
    ref = load(write_toml(reference_toml(), "reference.toml"))
    default = load(write_toml("", "reference.toml"))
    assert ref == default
    shipped = (EXPERIMENTS / "reference.toml").read_text()
    assert shipped == reference_toml(), "regenerate experiments/reference.toml"


def test_unknown_top_level_key_names_key_and_file(write_toml):
    p = write_toml('repeat = 3\n')
    with pytest.raises(ConfigError) as e:
        load(p)
    assert "'repeat'" in str(e.value) and str(p) in str(e.value)


@pytest.mark.parametrize("text, key", [
    ('[datasets.x]\nshape = [10]\ndtype = "uint8"\nchunks = [5]\nshuffel = "byte"\n', "shuffel"),
    ('[env.zarr-python]\nrequire = ["zarr"]\n', "require"),
    ('[options.zarr-python]\npipelines = ["fused"]\n', "pipelines"),
])
def test_unknown_nested_keys_are_errors(write_toml, text, key):
    p = write_toml(text)
    with pytest.raises(ConfigError) as e:
        load(p)
    assert key in str(e.value) and str(p) in str(e.value)


@pytest.mark.parametrize("table, message", [
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10, 10]\nshards = [25, 20]', "whole number"),
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10, 10]\nshards = [20, 20]\n'
     'zarr_format = 2', "zarr_format = 3"),
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10]', "2 entries"),
    ('shape = [100, 100]\ndtype = "uint8"', "'chunks'"),
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10, 10]\ncodec = "lzma"', "codec"),
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10, 10]\ncodec = "gzip"\nlevel = 12',
     "level"),
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10, 10]\ncodec = "zstd"\nshuffle = "bit"',
     "shuffle"),
    ('shape = [100, 100]\ndtype = "uint8"\nchunks = [10, 10]\ncodec = "none"\nlevel = 1',
     "level"),
    ('shape = [100, 100]\ndtype = "complex64"\nchunks = [10, 10]', "dtype"),
    ('shape = [100, 100, 100]\ndtype = "uint8"\nchunks = [10, 10, 10]\npixels = "photo"',
     "pixels"),
    ('base = "nope"', "unknown dataset 'nope'"),
    ('base = "x"', "its own base"),
    ('base = "y"\n[datasets.y]\nbase = "x"', "its own base"),
])
def test_bad_dataset_specs_fail_when_read(write_toml, table, message):
    p = write_toml(f'dataset = ["x"]\n[datasets.x]\n{table}\n')
    with pytest.raises(ConfigError) as e:
        load(p)
    assert message in str(e.value)
    assert "datasets.x" in str(e.value) or "'x'" in str(e.value) or "nope" in str(e.value)


def test_an_unselected_spec_is_validated_too(write_toml):
    p = write_toml('[datasets.unused]\nshape = [4]\ndtype = "uint8"\nchunks = [3]\n'
                   'shards = [4]\n')
    with pytest.raises(ConfigError, match="whole number"):
        load(p)


def test_base_derives_from_the_registry(write_toml):
    exp = load(write_toml('dataset = ["small"]\n[datasets.small]\nbase = "a-lz4-20000"\n'
                          'shape = [1000, 400]\n'))
    v = exp.datasets[0].values
    assert v["shape"] == [1000, 400] and v["chunks"] == [500, 100]
    assert v["codec"] == "blosc-lz4" and v["level"] == 5 and v["shuffle"] == "byte"
    assert v["zarr_format"] == 2


def test_base_switching_codec_drops_the_old_level(write_toml):
    exp = load(write_toml('dataset = ["y"]\n[datasets.y]\nbase = "b-gzip"\ncodec = "zstd"\n'
                          'shards = []\n'))
    v = exp.datasets[0].values
    assert v["codec"] == "zstd" and v["level"] == 0 and "shards" not in v


@pytest.mark.parametrize("text, key", [
    ('threads = [0]', "threads"),
    ('threads = ["many"]', "threads"),
    ('op = ["read_everything"]', "op"),
    ('store = ["gcs"]', "store"),
    ('impl = ["zarr-python"]\nbaseline = "tensorstore"', "baseline"),
    ('impl = ["zarr-python", "zarr-python"]', "impl"),
    ('repeats = 0', "repeats"),
    ('impl = ["tensorstore"]\nbaseline = "tensorstore"\n[options.zarr-python]\n'
     'pipeline = ["batched"]', "options.zarr-python"),
    ('[options.zarr-python]\npipeline = ["turbo"]', "pipeline"),
    ('[env.turbozarr]\nrequires = ["turbozarr"]', "env.turbozarr.requires"),
    ('[env.nope]\nrequires = []', "env.nope"),
])
def test_bad_axis_values(write_toml, text, key):
    with pytest.raises(ConfigError) as e:
        load(write_toml(text + "\n"))
    assert key in str(e.value)


def test_options_sweep_declared_values(write_toml):
    exp = load(write_toml('[options.zarr-python]\npipeline = ["batched", "fused"]\n'))
    assert exp.options == {"zarr-python": {"pipeline": ["batched", "fused"]}}


def test_shipped_experiments_are_valid():
    files = sorted(EXPERIMENTS.glob("*.toml"))
    assert {"smoke.toml", "workload-a.toml", "workload-b.toml", "workload-c.toml"} <= {
        f.name for f in files}
    from turbozarr_bench import ome_runner, sparse_runner, vcz_runner
    from turbozarr_bench.config import suite_of

    own = {"vcz": vcz_runner, "ome": ome_runner, "sparse": sparse_runner}
    for f in files:
        # Workloads D, E and F have runners, and loaders, of their own.
        if suite_of(f) in own:
            own[suite_of(f)].load(f)
        else:
            load(f)


def test_http_table_defaults_and_overrides(write_toml):
    from turbozarr_bench.config import HttpConfig

    exp = load(write_toml('store = ["http"]\n'))
    assert exp.stores == ["http"]
    assert exp.http == HttpConfig(50, 150, "build/bench/serve/tz_http_serve")
    exp = load(write_toml('store = ["local", "http"]\n[http]\nlatency_ms = 0\n'
                          'megabytes_per_second = 12.5\nserver = "/opt/serve"\n'))
    assert exp.http == HttpConfig(0, 12.5, "/opt/serve")
    assert exp.http.backlog == 1024
    exp = load(write_toml('store = ["http"]\n[http]\nbacklog = 5\n'))
    assert exp.http.backlog == 5


@pytest.mark.parametrize("table, key, message", [
    ("latency_ms = -1", "http.latency_ms", ">= 0"),
    ('latency_ms = "50"', "http.latency_ms", ">= 0"),
    ("megabytes_per_second = true", "http.megabytes_per_second", ">= 0"),
    ("megabytes_per_second = -150", "http.megabytes_per_second", ">= 0"),
    ("server = 3", "http.server", "non-empty string"),
    ('server = ""', "http.server", "non-empty string"),
    ("latency = 50", "http.latency", "unknown key"),
    ("backlog = 0", "http.backlog", "integer in 1..65535"),
    ("backlog = 5.5", "http.backlog", "integer in 1..65535"),
])
def test_bad_http_values_name_the_key(write_toml, table, key, message):
    p = write_toml(f'store = ["http"]\n[http]\n{table}\n')
    with pytest.raises(ConfigError) as e:
        load(p)
    assert f"'{key}'" in str(e.value) and message in str(e.value) and str(p) in str(e.value)


def test_http_table_needs_the_http_store(write_toml):
    with pytest.raises(ConfigError, match="applies only to store"):
        load(write_toml('[http]\nlatency_ms = 10\n'))
    with pytest.raises(ConfigError, match="must be a table"):
        load(write_toml('store = ["http"]\nhttp = 5\n'))


def test_remote_is_a_declared_option_of_zarr_python_and_zarrs(write_toml):
    exp = load(write_toml('store = ["http"]\n[options.zarr-python]\nremote = ["obstore", '
                          '"fsspec"]\n[options.zarrs]\nremote = ["obstore"]\n'))
    assert exp.options == {"zarr-python": {"remote": ["obstore", "fsspec"]},
                           "zarrs": {"remote": ["obstore"]}}
    with pytest.raises(ConfigError, match="curl"):
        load(write_toml('[options.zarr-python]\nremote = ["curl"]\n'))
