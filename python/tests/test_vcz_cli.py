"""`turbozarr vcz` against the tools it stands in for: vcztools 0.2.0 on the
same VCZ (converted by bio2zarr 0.2.1 from a VCF that scripts/vcz writes)
and bcftools on the VCF itself. The peers live in .venv-vcz and Debian's
packages (scripts/setup.sh installs both)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("TURBOZARR_CLI", "")
PEERS = ROOT / ".venv-vcz" / "bin"

pytestmark = [
    pytest.mark.skipif(not CLI or not Path(CLI).is_file(),
                       reason="TURBOZARR_CLI does not name the built turbozarr binary"),
    pytest.mark.skipif(not (PEERS / "vcztools").is_file() or not shutil.which("bcftools"),
                       reason="the VCF Zarr peers are not installed (scripts/setup.sh)"),
]


def run(*args: str | Path, expect: int = 0) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    assert done.returncode == expect, (args, done.returncode, done.stderr)
    return done.stdout if expect == 0 else done.stderr


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, Path]:
    """The fixture VCF (bgzipped, indexed) and VCZ copies of it: Zarr v2 and
    v3 with different chunkings, and a zip archive of the v2 one."""
    d = tmp_path_factory.mktemp("vcz")
    vcf = d / "fx.vcf"
    run(sys.executable, ROOT / "scripts" / "vcz" / "make_fixture_vcf.py", vcf)
    gz = d / "fx.vcf.gz"
    run("bcftools", "view", "-Oz", "-o", gz, vcf)
    run("bcftools", "index", "-t", gz)
    out = {"vcf": gz}
    for name, fmt, variants, samples in [("v2", "2", "100", "5"), ("v3", "3", "128", "4")]:
        out[name] = d / f"fx{name}.vcz"
        run(PEERS / "vcf2zarr", "convert", "-Q", "--zarr-format", fmt, "-l", variants,
            "-w", samples, gz, out[name])
    shutil.make_archive(str(d / "fxv2"), "zip", out["v2"])
    out["zip"] = d / "fxv2.zip"
    return out


@pytest.mark.parametrize("dataset", ["v2", "v3", "zip"])
def test_index_n_matches_vcztools_and_bcftools(data, dataset):
    ours = run(CLI, "vcz", "index", "-n", data[dataset])
    assert ours == "1500\n"
    assert ours == run(PEERS / "vcztools", "index", "-n", data[dataset])
    assert ours == run("bcftools", "index", "-n", data["vcf"])


@pytest.mark.parametrize("dataset", ["v2", "v3", "zip"])
def test_index_s_matches_bcftools(data, dataset):
    ours = run(CLI, "vcz", "index", "-s", data[dataset])
    assert ours == run("bcftools", "index", "-s", data["vcf"])
    # chrUn declares no length: bcftools prints ".", vcztools 0.2.0 the -1
    # that bio2zarr stores for it; every other line is the same.
    theirs = run(PEERS / "vcztools", "index", "-s", data[dataset])
    assert theirs.replace("chrUn\t-1\t", "chrUn\t.\t") == ours
    assert ours.splitlines()[-1] == "chrUn\t.\t30"
    assert "chrM" not in ours  # declared, no records


def test_index_refuses_what_vcztools_refuses(data):
    err = run(CLI, "vcz", "index", data["v2"], expect=2)
    assert "Building region indexes is not supported" in err
    err = run(CLI, "vcz", "index", "-n", "-s", data["v2"], expect=2)
    assert "Expected only one of --stats or --nrecords options" in err


def test_index_on_broken_datasets_names_what_is_missing(data, tmp_path):
    no_index = tmp_path / "no_index.vcz"
    shutil.copytree(data["v3"], no_index)
    shutil.rmtree(no_index / "region_index")
    err = run(CLI, "vcz", "index", "-s", no_index, expect=1)
    assert "Could not load 'region_index' variable" in err and str(no_index) in err
    # Counting records needs no region index.
    assert run(CLI, "vcz", "index", "-n", no_index) == "1500\n"

    no_samples = tmp_path / "no_samples.vcz"
    shutil.copytree(data["v2"], no_samples)
    shutil.rmtree(no_samples / "sample_id")
    err = run(CLI, "vcz", "index", "-n", no_samples, expect=1)
    assert "no array 'sample_id'" in err and str(no_samples) in err

    err = run(CLI, "vcz", "index", "-n", tmp_path / "nothing_here", expect=1)
    assert "nothing_here" in err
