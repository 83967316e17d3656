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


def test_both_sides_agree_on_every_kind_of_task(write_toml, tmp_path):
    from turbozarr_bench import vcz_runner

    exp = write_toml(f"""
suite = "vcz"
repeats = 1
warmup = 0
dataset = ["tiny"]
task = ["iter_no_fields", "region_info_and_format", "first_variant_chunks",
        "fmt_fields_filtered", "region_and_sample_subset", "output_vcf", "output_plink",
        "output_bgen_l1"]
data_dir = "{tmp_path / 'data'}"
turbozarr_cli = "{CLI}"
output = "out.csv"

[datasets.tiny]
base = "d-vcz-wide"
samples = 40
variants = 2500
variant_chunk = 500
sample_chunk = 16
""")
    lines: list[str] = []
    assert vcz_runner.run(exp, log=lines.append) == 0, lines
    with (tmp_path / "out.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 16
    for r in rows:
        assert r["agrees"] == "True", r
    by = {(r["task"], r["impl"]): r for r in rows}
    assert by[("iter_no_fields", "turbozarr")]["records"] == "2500"
    assert by[("first_variant_chunks", "vcztools")]["bytes"] == str(2500 * 40 * 2)
    assert float(by[("first_variant_chunks", "turbozarr")]["ceiling_mib_s"]) > 0
    assert int(by[("output_bgen_l1", "turbozarr")]["bytes"]) > 0
    assert "| tiny | output_vcf |" in vcz_runner.markdown(rows)
    # The region task reads a central slice, not everything.
    assert 0 < int(by[("region_info_and_format", "turbozarr")]["records"]) < 100


def test_unknown_keys_and_tasks_are_refused(write_toml):
    from turbozarr_bench import vcz_runner

    assert vcz_runner.run(write_toml('suite = "vcz"\nbogus = 1\n')) == 2
    assert vcz_runner.run(write_toml('suite = "vcz"\ntask = ["nope"]\n')) == 2
