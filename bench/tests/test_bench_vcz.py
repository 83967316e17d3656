"""Workload D's runner end to end on a tiny dataset: both sides run every
kind of task, return the same values, and the rows say so."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("TURBOZARR_CLI", str(ROOT / "build" / "cli" / "turbozarr"))
VCZTOOLS_PYTHON = ROOT / ".venv-vcz" / "bin" / "python"

pytestmark = [
    pytest.mark.skipif(not Path(CLI).is_file(), reason="the turbozarr binary is not built"),
    pytest.mark.skipif(not VCZTOOLS_PYTHON.is_file(),
                       reason="vcztools is not installed (scripts/setup.sh)"),
]


def _run_tiny(write_toml, tmp_path, tasks: list[str], samples: int, variants: int,
              variant_chunk: int, extra: str = "", dataset_extra: str = "") -> list[dict]:
    """Runs `tasks` once on each side on a tiny dataset (16 samples a chunk)
    and returns the CSV rows; the run must succeed."""
    from turbozarr_bench import vcz_runner

    exp = write_toml(f"""
suite = "vcz"
repeats = 1
warmup = 0
dataset = ["tiny"]
task = {tasks!r}
data_dir = "{tmp_path / 'data'}"
turbozarr_cli = "{CLI}"
output = "out.csv"
{extra}
[datasets.tiny]
base = "d-vcz-wide"
samples = {samples}
variants = {variants}
variant_chunk = {variant_chunk}
sample_chunk = 16
{dataset_extra}""")
    lines: list[str] = []
    assert vcz_runner.run(exp, log=lines.append) == 0, lines
    with (tmp_path / "out.csv").open() as f:
        return list(csv.DictReader(f))


def test_both_sides_agree_on_every_kind_of_task(write_toml, tmp_path):
    from turbozarr_bench import vcz_runner

    rows = _run_tiny(write_toml, tmp_path, [
        "iter_no_fields", "region_info_and_format", "first_variant_chunks",
        "fmt_fields_filtered", "region_and_sample_subset", "output_vcf", "output_plink",
        "output_bgen_l1"], samples=40, variants=2500, variant_chunk=500)
    assert len(rows) == 16
    for r in rows:
        assert r["agrees"] == "True", r
    by = {(r["task"], r["impl"]): r for r in rows}
    assert by[("iter_no_fields", "turbozarr")]["records"] == "2500"
    assert by[("first_variant_chunks", "vcztools")]["bytes"] == str(2500 * 40 * 2)
    assert float(by[("first_variant_chunks", "turbozarr")]["ceiling_mib_s"]) > 0
    assert int(by[("output_bgen_l1", "turbozarr")]["bytes"]) > 0
    assert "| tiny | local | output_vcf |" in vcz_runner.markdown(rows)
    # The region task reads a central slice, not everything.
    assert 0 < int(by[("region_info_and_format", "turbozarr")]["records"]) < 100


def test_variant_only_arrays_chunked_longer_agree_too(write_toml, tmp_path):
    # vcz-long's layout: variant-only arrays in chunks of about
    # variant_only_bytes (here 4 call chunks for int32 positions), the
    # region index per call chunk, as vcztools reads it.
    import zarr

    rows = _run_tiny(write_toml, tmp_path, [
        "region_variant_position", "region_info_and_format", "first_variant_chunks",
        "filter_info_dp_gt_80", "output_vcf"], samples=16, variants=3000, variant_chunk=250,
        dataset_extra="variant_only_bytes = 4000\n")
    for r in rows:
        assert r["agrees"] == "True", r
    data = next((tmp_path / "data").glob("*/data.zarr"))
    root = zarr.open_group(str(data), mode="r")
    assert root["call_genotype"].chunks[0] == 250
    assert root["variant_position"].chunks[0] == 1000
    assert root["variant_contig"].chunks[0] == 3000
    assert root["region_index"].shape[0] == 12
    by = {(r["task"], r["impl"]): r for r in rows}
    assert 0 < int(by[("region_variant_position", "turbozarr")]["records"]) < 100
    assert by[("first_variant_chunks", "turbozarr")]["bytes"] == str(5 * 250 * 16 * 2)


SERVER = ROOT / "build" / "bench" / "serve" / "tz_http_serve"


@pytest.mark.skipif(not SERVER.is_file(), reason="the benchmark HTTP server is not built")
def test_over_http_both_vcztools_backends_run_and_agree(write_toml, tmp_path):
    """The dataset served (2 ms per answer here), as bio2zarr writes it:
    without consolidated metadata, which the runner adds for both sides."""
    from turbozarr_bench import vcz_runner

    rows = _run_tiny(write_toml, tmp_path,
                     ["region_info_and_format", "first_samples_chunk", "output_vcf"],
                     samples=24, variants=1200, variant_chunk=400,
                     extra='store = "http"\n[http]\nlatency_ms = 2\nmegabytes_per_second = 0\n')
    assert {(r["task"], r["impl"]) for r in rows} == {
        (t, i) for t in ("region_info_and_format", "first_samples_chunk", "output_vcf")
        for i in ("turbozarr", "vcztools-fsspec", "vcztools-obstore")}
    for r in rows:
        assert r["agrees"] == "True", r
        assert r["store"] == "http"
        assert r["ceiling_mib_s"] == ""
    by = {(r["task"], r["impl"]): r for r in rows}
    assert by[("first_samples_chunk", "vcztools-obstore")]["bytes"] == str(1200 * 16 * 2)
    fastest = min(float(by[("output_vcf", i)]["seconds"])
                  for i in ("vcztools-fsspec", "vcztools-obstore"))
    ours = by[("output_vcf", "turbozarr")]
    # Both the ratio (4 significant figures) and the seconds (6 decimals) are rounded.
    assert float(ours["ratio_to_vcztools"]) == pytest.approx(float(ours["seconds"]) / fastest,
                                                              rel=2e-3)
    assert "| tiny | http | output_vcf |" in vcz_runner.markdown(rows)


def test_unknown_keys_and_tasks_are_refused(write_toml):
    from turbozarr_bench import vcz_runner

    assert vcz_runner.run(write_toml('suite = "vcz"\nbogus = 1\n')) == 2
    assert vcz_runner.run(write_toml('suite = "vcz"\ntask = ["nope"]\n')) == 2
    assert vcz_runner.run(write_toml('suite = "vcz"\nstore = "s3"\n')) == 2
    assert vcz_runner.run(write_toml('suite = "vcz"\n[http]\nlag = 1\n')) == 2
