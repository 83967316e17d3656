"""turbozarr.vcz: the `turbozarr vcz` commands from Python, on a dataset
written here with turbozarr itself (the command line's own comparisons with
vcztools and bcftools are in test_vcz_cli.py)."""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz
from turbozarr import vcz
from turbozarr.errors import InvalidArgumentError

CLI = os.environ.get("TURBOZARR_CLI", "")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """Three variants on two contigs, two samples: a biallelic SNP, a
    multi-allelic site and a site without ALT."""
    path = tmp_path_factory.mktemp("vcz") / "small.vcz"
    root = tz.group(str(path))

    def put(name: str, values, dtype) -> None:
        data = np.array(values, dtype=dtype)
        root.create_array(name, shape=data.shape, dtype=dtype, chunks=data.shape)[...] = data

    put("variant_position", [5, 9, 20], "int32")
    put("variant_contig", [0, 0, 1], "int8")
    put("contig_id", ["c1", "c2"], "str")
    put("sample_id", ["A", "B"], "str")
    put("variant_allele", [["A", "T", ""], ["G", "C", "GT"], ["T", "", ""]], "str")
    put("variant_length", [1, 1, 1], "int32")
    put("variant_DP", [12, -1, 7], "int16")
    put("call_genotype", [[[0, 1], [1, 1]], [[0, 2], [-1, -1]], [[0, 0], [0, -2]]], "int8")
    put("call_genotype_phased", [[True, False], [False, False], [True, True]], "bool")
    # chunk, contig, first and last position, last base covered, records
    put("region_index", [[0, 0, 5, 9, 9, 2], [0, 1, 20, 20, 20, 1]], "int32")
    return path


def test_tables_and_counts(dataset):
    d = vcz.open(dataset)
    assert (d.num_variants, d.num_samples) == (3, 2)
    assert d.sample_ids == ["A", "B"] and d.contig_ids == ["c1", "c2"]
    assert vcz.num_records(d) == 3
    assert vcz.sample_ids(dataset) == ["A", "B"]
    assert vcz.contig_stats(d) == "c1\t.\t2\nc2\t.\t1\n"  # no contig_length stored


def test_query_with_selections_and_filters(dataset):
    fmt = r"%CHROM:%POS %REF>%ALT %INFO/DP[ %SAMPLE=%GT]\n"
    assert vcz.query(dataset, fmt) == (
        "c1:5 A>T 12 A=0|1 B=1/1\n"
        "c1:9 G>C,GT . A=0/2 B=./.\n"
        "c2:20 T>. 7 A=0|0 B=0\n")
    assert vcz.query(dataset, fmt, regions="c1", samples="B") == (
        "c1:5 A>T 12 B=1/1\nc1:9 G>C,GT . B=./.\n")
    # AN counted from the genotypes: 4, 2 and 3 alleles called.
    assert vcz.query(dataset, r"%POS %INFO/DP\n", include="AN>=2 & N_ALT>=1") == "5 12\n9 .\n"
    assert vcz.query(dataset, r"%POS\n", include="AN=3") == "20\n"
    assert vcz.query(dataset, "%POS", exclude="INFO/DP>10") == "9\n20\n"


def test_view_as_the_command_line_writes_it(dataset, tmp_path):
    text = vcz.view(dataset, samples="A")
    lines = text.splitlines()
    assert lines[0] == "##fileformat=VCFv4.3"
    assert lines[-4] == "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA"
    assert lines[-3:] == [
        "c1\t5\t.\tA\tT\t.\tPASS\tAC=1;AN=2;DP=12\tGT\t0|1",
        "c1\t9\t.\tG\tC,GT\t.\tPASS\tAC=0,1;AN=2\tGT\t0/2",
        "c2\t20\t.\tT\t.\t.\tPASS\tAN=2;DP=7\tGT\t0|0"]
    out = tmp_path / "out.vcf"
    assert vcz.view(dataset, out, no_header=True, max_alleles=2) is None
    assert out.read_text().count("\n") == 2
    if CLI:
        done = subprocess.run([CLI, "vcz", "view", "--no-version", "-s", "A", str(dataset)],
                              capture_output=True, text=True, check=True)
        assert done.stdout == text


def test_view_plink_writes_the_fileset(dataset, tmp_path):
    vcz.view_plink(dataset, tmp_path / "p", max_alleles=2)
    assert (tmp_path / "p.fam").read_text() == "A\tA\t0\t0\t0\t-9\nB\tB\t0\t0\t0\t-9\n"
    assert (tmp_path / "p.bim").read_text() == "c1\t.\t0\t5\tT\tA\nc2\t.\t0\t20\t.\tT\n"
    # Magic, then a byte per variant: A het (10), B ALT/ALT (00); A REF/REF
    # (11), B haploid REF (11).
    assert (tmp_path / "p.bed").read_bytes() == bytes([0x6C, 0x1B, 0x01, 0b0010, 0b1111])


def test_refusals_and_warnings(dataset, tmp_path):
    with pytest.raises(TypeError, match="unexpected option 'bogus'"):
        vcz.query(dataset, "%POS", bogus=1)
    with pytest.raises(InvalidArgumentError, match="Unsupported filtering feature: Regular"):
        vcz.query(dataset, "%POS", include='INFO/DP ~ "1"')
    with pytest.raises(InvalidArgumentError, match="Multi-allelic variants are not supported"):
        vcz.view_plink(dataset, tmp_path / "multi")
    assert not list(tmp_path.glob("multi.*"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert vcz.query(dataset, r"[%SAMPLE ]\n", samples="B,Z",
                         force_samples=True) == "B \nB \nB \n"
    assert any("not in header: Z" in str(w.message) for w in caught)


def test_read_gives_the_selected_values_as_numpy_arrays(dataset):
    got = vcz.read(dataset, ["variant_position", "variant_allele", "call_genotype", "variant_DP"])
    assert got["variant_position"].dtype == np.int32
    np.testing.assert_array_equal(got["variant_position"], [5, 9, 20])
    assert got["variant_allele"].tolist() == [["A", "T", ""], ["G", "C", "GT"], ["T", "", ""]]
    assert got["call_genotype"].shape == (3, 2, 2) and got["call_genotype"].dtype == np.int8
    np.testing.assert_array_equal(got["variant_DP"], np.array([12, -1, 7], dtype=np.int16))
    # Selections and filters: the rows kept, the samples chosen, in order.
    got = vcz.read(dataset, ["variant_position", "call_genotype"], samples="B,A",
                   include="N_ALT>=1")
    np.testing.assert_array_equal(got["variant_position"], [5, 9])
    np.testing.assert_array_equal(got["call_genotype"], [[[1, 1], [0, 1]], [[-1, -1], [0, 2]]])
    assert vcz.read(dataset, ["variant_DP"], regions="c2")["variant_DP"].tolist() == [7]
    empty = vcz.read(dataset, ["call_genotype"], regions="c1:1-2")["call_genotype"]
    assert empty.shape == (0, 2, 2)
    with pytest.raises(tz.errors.NotFoundError, match="variant_XX"):
        vcz.read(dataset, ["variant_XX"])
