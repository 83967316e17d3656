"""turbozarr.vcz: the `turbozarr vcz` commands from Python, on a dataset
written here with turbozarr itself (the command line's own comparisons with
vcztools and bcftools are in test_vcz_cli.py)."""

from __future__ import annotations

import os
import sqlite3
import struct
import subprocess
import warnings
import zlib
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


def test_view_bgen_returns_or_writes_the_bgen(dataset, tmp_path):
    def block(chrom: bytes, pos: int, ref: bytes, alt: bytes, genotypes: bytes) -> bytes:
        packed = zlib.compress(genotypes, 1)
        return (b"\x01\x00." * 2 + struct.pack("<H", len(chrom)) + chrom
                + struct.pack("<IHI", pos, 2, len(ref)) + ref + struct.pack("<I", len(alt)) + alt
                + struct.pack("<II", 4 + len(packed), len(genotypes)) + packed)

    samples = b"\x0e\x00\x00\x00\x02\x00\x00\x00\x01\x00A\x01\x00B"
    header = struct.pack("<IIII", 34, 20, 2, 2) + b"bgen" + struct.pack("<I", 0x80000009)
    # c1:5: A 0|1 and B 1/1, phase mixed, so unphased: P(0/0), P(0/1) per
    # sample. c2:20: A 0|0 and B haploid 0, both phased: P(allele 0) per
    # haplotype; Pmin 1, Pmax 2.
    first = bytes([2, 0, 0, 0, 2, 0, 2, 2, 2, 2, 0, 8, 0, 0xFF, 0, 0])
    second = bytes([2, 0, 0, 0, 2, 0, 1, 2, 2, 1, 1, 8, 0xFF, 0xFF, 0xFF])
    expected = (header + samples + block(b"c1", 5, b"A", b"T", first)
                + block(b"c2", 20, b"T", b".", second))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert vcz.view_bgen(dataset, max_alleles=2) == expected
    assert any("1 variant(s) had mixed phase" in str(w.message) for w in caught)
    with pytest.warns(UserWarning, match="mixed phase"):
        assert vcz.view_bgen(dataset, tmp_path / "b", max_alleles=2) is None
    assert (tmp_path / "b.bgen").read_bytes() == expected
    assert (tmp_path / "b.sample").read_text() == "ID_1 ID_2 missing\n0 0 0\nA A 0\nB B 0\n"
    with sqlite3.connect(tmp_path / "b.bgen.bgi") as db:
        rows = db.execute("SELECT * FROM Variant").fetchall()
    first_size = len(block(b"c1", 5, b"A", b"T", first))
    assert rows == [("c1", 5, ".", 2, "A", "T", 38, first_size),
                    ("c2", 20, ".", 2, "T", ".", 38 + first_size, len(expected) - 38 - first_size)]
    with pytest.raises(InvalidArgumentError, match="Multi-allelic variants are not supported"):
        vcz.view_bgen(dataset, tmp_path / "multi")
    assert not list(tmp_path.glob("multi.*"))


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


@pytest.fixture(scope="module")
def chunked(tmp_path_factory) -> Path:
    """1,000 variants in chunks of 100 on two contigs, 6 samples in chunks
    of 4, random calls: blocks to iterate over."""
    path = tmp_path_factory.mktemp("vcz") / "chunked.vcz"
    root = tz.group(str(path))
    rng = np.random.default_rng(3)

    def put(name: str, data: np.ndarray, chunks: tuple[int, ...]) -> None:
        root.create_array(name, shape=data.shape, dtype=data.dtype, chunks=chunks)[...] = data

    contig = np.repeat(np.array([0, 1], dtype=np.int8), 500)
    position = np.concatenate([np.arange(1, 501), np.arange(1, 501)]).astype(np.int32) * 10
    put("variant_position", position, (100,))
    put("variant_contig", contig, (100,))
    put("variant_length", np.ones(1000, dtype=np.int32), (100,))
    put("variant_DP", rng.integers(0, 100, 1000).astype(np.int16), (100,))
    put("variant_allele", np.array([["A", "T"]] * 1000, dtype=object).astype("T"), (100, 2))
    put("contig_id", np.array(["c1", "c2"], dtype="T"), (2,))
    put("sample_id", np.array([f"S{i}" for i in range(6)], dtype="T"), (4,))
    put("call_genotype", rng.integers(-1, 2, (1000, 6, 2)).astype(np.int8), (100, 4, 2))
    index = [[c, c // 5, position[100 * c], position[100 * c + 99], position[100 * c + 99], 100]
             for c in range(10)]
    put("region_index", np.array(index, dtype=np.int32), (10, 6))
    return path


def test_iter_blocks_yields_what_read_gives_a_block_at_a_time(chunked):
    fields = ["variant_index", "variant_position", "variant_allele", "call_genotype"]
    for selection in ({}, {"regions": "c1:2000-3500,c2:4990-"}, {"samples": "S5,S1"},
                      {"include": "INFO/DP>50"}):
        whole = vcz.read(chunked, fields, **selection)
        blocks = list(vcz.iter_blocks(chunked, fields, **selection))
        assert all(b["variant_index"].size for b in blocks)
        for name in fields:
            joined = np.concatenate([b[name] for b in blocks])
            assert joined.dtype == whole[name].dtype
            np.testing.assert_array_equal(joined, whole[name])
        # Each block lies within one chunk of 100 variants.
        assert all(len(set(b["variant_index"] // 100)) == 1 for b in blocks)
    assert len(list(vcz.iter_blocks(chunked, ["variant_position"]))) == 10
    assert len(list(vcz.iter_blocks(chunked, ["variant_position"], regions="c2:4990-"))) == 1
    got = vcz.read(chunked, ["variant_index"], regions="c2:4990-")["variant_index"]
    assert got.dtype == np.int64 and got.tolist() == [998, 999]


def test_variants_keeps_a_range_of_variant_numbers(chunked):
    fields = ["variant_index", "variant_position", "call_genotype"]
    whole = vcz.read(chunked, fields)
    d = vcz.open(chunked)
    # Within one chunk, across chunks (first and last cut), a slice with
    # negative ends, a range, the whole and nothing.
    for variants, rows in [((130, 170), range(130, 170)), ((250, 731), range(250, 731)),
                           (slice(-120, -10), range(880, 990)), (range(0, 300), range(300)),
                           (slice(None), range(1000)), ((500, 500), range(0))]:
        got = vcz.read(d, fields, variants=variants)
        for name in fields:
            np.testing.assert_array_equal(got[name], whole[name][list(rows)], err_msg=name)
        blocks = list(vcz.iter_blocks(d, ["variant_index"], variants=variants))
        joined = np.concatenate([b["variant_index"] for b in blocks]) if blocks else []
        assert list(joined) == list(rows), variants
    # With regions, samples and filters: what those keep, within the range.
    for selection in ({"regions": "c1:2000-3500,c2:4990-"}, {"include": "INFO/DP>50"},
                      {"samples": "S5,S1", "targets": "^c2"}):
        everything = vcz.read(d, fields, **selection)
        got = vcz.read(d, fields, variants=(180, 520), **selection)
        keep = (everything["variant_index"] >= 180) & (everything["variant_index"] < 520)
        assert keep.any() or not everything["variant_index"].size
        for name in fields:
            np.testing.assert_array_equal(got[name], everything[name][keep], err_msg=name)
    # The first two chunks as query renders them.
    text = vcz.query(d, "%POS\n", variants=(0, 200))
    assert text.split() == [str(p) for p in whole["variant_position"][:200]]
    # Not a range of the dataset's variants: the error says so.
    for bad in [(-1, 5), (10, 5), (0, 1001)]:
        with pytest.raises(InvalidArgumentError, match="not a range of its 1000 variants"):
            vcz.read(d, ["variant_position"], variants=bad)
    with pytest.raises(ValueError, match="step"):
        vcz.read(d, ["variant_position"], variants=slice(0, 10, 2))
    with pytest.raises(ValueError, match="pair"):
        vcz.read(d, ["variant_position"], variants=(1, 2, 3))


def test_iter_blocks_reads_ahead_within_its_budget(chunked):
    import time

    from turbozarr import _core

    d = vcz.open(chunked)
    block_bytes = 100 * 6 * 2  # call_genotype, int8
    # Waiting at most: one block whatever the budget; at least: the reader
    # ran ahead of a consumer that takes 20 ms a block.
    for budget, least, most in [(0, 1, 1), (3 * block_bytes, 2, 3), (10**9, 5, 10)]:
        reader = _core.vcz_blocks(d._core, ["call_genotype"], budget, {})
        taken = 0
        while reader.next() is not None:
            taken += 1
            time.sleep(0.02)  # a slow consumer: the reader runs ahead
        assert taken == 10
        peak = reader.peak_waiting_bytes
        assert least * block_bytes <= peak <= most * block_bytes, (budget, peak)
    # Bad options and unknown fields fail the call, not the first block.
    with pytest.raises(FileNotFoundError, match="variant_XYZ"):
        vcz.iter_blocks(chunked, ["variant_XYZ"])
    with pytest.raises(InvalidArgumentError):
        vcz.iter_blocks(chunked, ["variant_position"], readahead_bytes=-1)
    # Leaving early stops the read-ahead thread.
    blocks = vcz.iter_blocks(chunked, ["call_genotype"], readahead_bytes=0)
    assert next(blocks)["call_genotype"].shape == (100, 6, 2)
    del blocks


def _rest_of(blocks, conn) -> None:
    """In a fork child: the blocks left, sent back whole."""
    rest = list(blocks)
    conn.send([{k: v for k, v in b.items()} for b in rest])
    conn.close()


def _drop(blocks, conn) -> None:
    """In a fork child: the parent's reader dropped unread."""
    import gc

    del blocks
    gc.collect()
    conn.send("dropped")
    conn.close()


@pytest.mark.parametrize("selection", [{}, {"include": "INFO/DP>50", "samples": "S4,S0"}])
def test_iter_blocks_carries_on_in_a_fork_child(chunked, selection):
    """A child forked while the reader runs ahead (a DataLoader worker, a
    multiprocessing pool) has none of the parent's threads: it reads on from
    where the parent's reader had got, and the parent's reader carries on
    unchanged; a child that drops the reader does not wait for a thread it
    does not have."""
    import multiprocessing

    fields = ["variant_index", "call_genotype"]
    whole = list(vcz.iter_blocks(chunked, fields, **selection))
    fork = multiprocessing.get_context("fork")
    for taken in (0, 2):
        for target in (_rest_of, _drop):
            blocks = vcz.iter_blocks(chunked, fields, readahead_bytes=2 * 100 * 2 * 2,
                                     **selection)
            head = [next(blocks) for _ in range(taken)]
            mine, theirs = fork.Pipe()
            child = fork.Process(target=target, args=(blocks, theirs))
            child.start()
            got = mine.recv() if mine.poll(60) else None
            child.join(60)
            if child.exitcode is None:
                child.kill()
            assert child.exitcode == 0, (target.__name__, taken)
            if target is _rest_of:
                assert got is not None and len(head) + len(got) == len(whole)
                for a, b in zip(head + got, whole):
                    for name in fields:
                        np.testing.assert_array_equal(a[name], b[name])
            else:
                assert got == "dropped"
            rest = list(blocks)
            assert len(head) + len(rest) == len(whole)
            for a, b in zip(head + rest, whole):
                np.testing.assert_array_equal(a["variant_index"], b["variant_index"])


def test_the_docs_example_runs(tmp_path, monkeypatch):
    """docs/vcz.md's Python example, run as written on a small calls.vcz."""
    root = tz.group(str(tmp_path / "calls.vcz"))

    def put(name: str, values, dtype) -> None:
        data = np.array(values, dtype=dtype)
        root.create_array(name, shape=data.shape, dtype=dtype, chunks=data.shape)[...] = data

    put("variant_position", [100, 500, 50, 80], "int32")
    put("variant_contig", [0, 0, 1, 1], "int8")
    put("variant_length", [1, 1, 1, 1], "int32")
    put("contig_id", ["chr1", "chr2"], "str")
    put("sample_id", ["S1", "S2"], "str")
    put("variant_allele", [["A", "T", ""], ["G", "C", "T"], ["C", "G", ""], ["T", "A", ""]], "str")
    put("variant_DP", [12, 30, 5, 40], "int16")
    put("call_DP", [[11, 3], [20, 25], [8, 9], [15, 2]], "int16")
    put("call_genotype", [[[0, 1], [1, 1]], [[0, 2], [1, 0]], [[0, 0], [0, 1]],
                          [[1, 1], [0, 0]]], "int8")
    put("region_index", [[0, 0, 100, 500, 500, 2], [0, 1, 50, 80, 80, 2]], "int32")
    docs = (Path(__file__).resolve().parents[2] / "docs" / "vcz.md").read_text()
    section = docs[docs.index("## Python: `turbozarr.vcz`"):]
    code = section[section.index("```python\n") + 10:section.index("\n```", section.index("```python"))]
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(code, "docs/vcz.md", "exec"), ns)
    # FMT/DP>10 decides per sample: S2 fails at chr1:100 and is not printed.
    assert ns["text"] == "chr1\t100\t0/1\nchr1\t500\t0/2\t1/0\n"
    assert ns["vcf"].splitlines()[-1].startswith("chr2\t80\t.\tT\tA")
    assert ns["data"][16:20] == b"bgen" and (tmp_path / "out.bgen").is_file()
    assert (tmp_path / "out.bgen.bgi").is_file() and (tmp_path / "out.bed").is_file()
    np.testing.assert_array_equal(ns["arrays"]["variant_position"], [100, 500, 80])
    np.testing.assert_array_equal(ns["arrays"]["call_genotype"][0], [[1, 1], [0, 1]])
    np.testing.assert_array_equal(ns["block"]["variant_index"], [2, 3])
