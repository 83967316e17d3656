"""`turbozarr vcz` against the tools it stands in for: vcztools 0.2.0 on the
same VCZ (converted by bio2zarr 0.2.1 from a VCF that scripts/vcz writes)
and bcftools on the VCF itself. The peers live in .venv-vcz and Debian's
packages (scripts/setup.sh installs both)."""

from __future__ import annotations

import atexit
import functools
import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz

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


def region_index(root, unit: int) -> np.ndarray:
    """The region index bio2zarr writes, per chunk of `unit` variants: a row
    per chunk and contig (chunk, contig, first and last position, last base
    covered, records)."""
    position = root["variant_position"][...].astype(np.int64)
    contig = root["variant_contig"][...].astype(np.int64)
    end = position + root["variant_length"][...].astype(np.int64) - 1
    rows = []
    for chunk in range(-(-len(position) // unit)):
        part = slice(chunk * unit, (chunk + 1) * unit)
        for k in np.unique(contig[part]):
            mine = contig[part] == k
            rows.append([chunk, k, position[part][mine].min(), position[part][mine].max(),
                         end[part][mine].max(), mine.sum()])
    return np.array(rows, dtype=np.int32)


def mixed_chunk_copy(src: Path, dst: Path, factor: int, index_per_call_chunk=False) -> None:
    """A copy of the VCZ at `src` whose variant-only arrays are chunked
    `factor` times as long as the call arrays' (as bio2zarr may write them:
    the spec allows it), its region index rebuilt per chunk of
    variant_position, the unit in which bio2zarr writes it, or per chunk of
    the call arrays, the unit in which vcztools reads it."""
    shutil.copytree(src, dst)
    call_chunk = tz.open_group(str(src))["call_genotype"].chunks[0]
    unit = call_chunk * factor
    for name in sorted(p.name for p in src.iterdir() if p.name.startswith("variant_")):
        chunks = ",".join(map(str, (unit,) + tz.open_group(str(src))[name].chunks[1:]))
        shutil.rmtree(dst / name)
        run(CLI, "cp", "--no-progress", "--src-path", name, "--dst-path", name,
            "--chunks", chunks, src, dst)
    root = tz.open_group(str(dst), mode="r+")
    index = region_index(root, call_chunk if index_per_call_chunk else unit)
    attributes = dict(root["region_index"].attrs)  # its dimension names
    root.create_array("region_index", shape=index.shape, dtype=index.dtype,
                      chunks=index.shape, attributes=attributes, overwrite=True)[...] = index


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, Path]:
    """The fixture VCF (bgzipped, indexed) and VCZ copies of it: Zarr v2 and
    v3 with different chunkings, a zip archive of the v2 one, and a copy of
    the v2 one whose variant arrays are chunked three times as long as its
    call arrays ("mixed")."""
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
    out["mixed"] = d / "fxmixed.vcz"
    mixed_chunk_copy(out["v2"], out["mixed"], 3)
    out["mixed-call-index"] = d / "fxmixedcall.vcz"
    mixed_chunk_copy(out["v2"], out["mixed-call-index"], 3, index_per_call_chunk=True)
    # A region index that fits no chunking (a record too many per chunk):
    # it cannot be trusted to prune, so nothing is pruned.
    out["stale-index"] = d / "fxstale.vcz"
    shutil.copytree(out["v2"], out["stale-index"])
    stale = tz.open_group(str(out["stale-index"]), mode="r+")["region_index"]
    rows = stale[...]
    rows[:, 5] += 1
    stale[...] = rows
    return out


def test_the_mixed_copy_is_mixed_and_its_index_is_as_bio2zarr_builds_it(data):
    # The index builder gives bio2zarr's own index on the copy it wrote.
    v2 = tz.open_group(str(data["v2"]))
    np.testing.assert_array_equal(region_index(v2, v2["variant_position"].chunks[0]),
                                  v2["region_index"][...])
    mixed = tz.open_group(str(data["mixed"]))
    assert mixed["call_genotype"].chunks[0] == 100
    assert mixed["variant_position"].chunks[0] == mixed["variant_allele"].chunks[0] == 300
    assert mixed["region_index"].shape[0] < v2["region_index"].shape[0]
    for name in ("variant_position", "variant_allele", "call_genotype"):
        assert np.array_equal(mixed[name][...], v2[name][...]), name


@pytest.mark.parametrize("dataset", ["v2", "v3", "zip", "mixed"])
def test_index_n_matches_vcztools_and_bcftools(data, dataset):
    ours = run(CLI, "vcz", "index", "-n", data[dataset])
    assert ours == "1500\n"
    assert ours == vcztools("index", "-n", data[dataset])
    assert ours == run("bcftools", "index", "-n", data["vcf"])


@pytest.mark.parametrize("dataset", ["v2", "v3", "zip", "mixed"])
def test_index_s_matches_bcftools(data, dataset):
    ours = run(CLI, "vcz", "index", "-s", data[dataset])
    assert ours == run("bcftools", "index", "-s", data["vcf"])
    # chrUn declares no length: bcftools prints ".", vcztools 0.2.0 the -1
    # that bio2zarr stores for it; every other line is the same.
    theirs = vcztools("index", "-s", data[dataset])
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


# Formats whose output must be byte-identical to vcztools': every fixed
# column, INFO fields of every Number and Type (%TAG and %INFO/TAG), sample
# loops over FORMAT fields of every shape, GT (phased, unphased, haploid,
# missing), subfields of vectors, whitespace and escapes, -N.
QUERY_FORMATS = [
    r"%CHROM\t%POS\t%ID\t%REF\t%ALT\t%QUAL\t%FILTER\n",
    r"%CHROM:%POS %REF>%ALT",
    r"%INFO/DP %AF %AC %RC %DB %AA %CH %TAGS %PAIR %SCORES %MQ",
    r"%INFO/DP\t%INFO/AF\t%INFO/TAGS\t%INFO/DB\n",
    r"%POS[\t%SAMPLE=%GT]\n",
    r"%POS[ %DP %GQ %HQ %AD %PL %AB %FT %CF]\n",
    r"%CHROM %POS[ %GT][ %AD]",
    r"[%SAMPLE ]",
    r"[%GT:%POS,]\n",
    r"[[%GT]]",
    r"[%CHROM %REF %ALT %FILTER %QUAL %DB %AC]\n",
    r"[%INFO/DP %DP]",
    r"%AC{0} %AC{1} %ALT{1} %TAGS{2}\n",
    r"%POS\t%REF\t%ALT{0}\t%ALT{5}\n",
    r"%FILTER{0}",
    r"  %POS  \t\t %ID",
    r"%POS%DP\n",
    r"%POS",
    r"[%GQ]",
]


class Vcztools:
    """vcztools, run in one long-lived process (vcztools_server.py) instead of
    a Python start per command line."""

    def __init__(self) -> None:
        self.server: subprocess.Popen | None = None

    def __call__(self, *args: str | Path) -> tuple[int, str, str]:
        if self.server is None:
            self.server = subprocess.Popen(
                [str(PEERS / "python"), str(Path(__file__).with_name("vcztools_server.py"))],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            atexit.register(self.close)
        assert self.server.stdin and self.server.stdout
        self.server.stdin.write(json.dumps([str(a) for a in args]) + "\n")
        self.server.stdin.flush()
        answer = json.loads(self.server.stdout.readline())
        return answer["code"], answer["stdout"], answer["stderr"]

    def close(self) -> None:
        """Ends the server: its input closed, it finishes and exits."""
        if self.server is not None:
            assert self.server.stdin and self.server.stdout
            self.server.stdin.close()
            self.server.wait(timeout=30)
            self.server.stdout.close()
            self.server = None


VCZTOOLS = Vcztools()


@functools.lru_cache(maxsize=None)
def vcztools(*args: str | Path) -> str:
    """vcztools' output, once per command line; it must succeed."""
    code, out, err = VCZTOOLS(*args)
    assert code == 0, (args, code, err)
    return out


@pytest.mark.parametrize("fmt", QUERY_FORMATS)
@pytest.mark.parametrize("no_newline", [False, True])
def test_query_matches_vcztools(data, fmt, no_newline):
    flags = ["-N"] if no_newline else []
    # The three copies hold the same data: vcztools reads the v2 one, and
    # turbozarr's output from each must equal it.
    theirs = vcztools("query", "-f", fmt, *flags, str(data["v2"]))
    for dataset in ("v2", "v3", "zip", "mixed"):
        assert run(CLI, "vcz", "query", "-f", fmt, *flags, data[dataset]) == theirs, dataset
    if fmt == r"%POS" and not no_newline:
        assert theirs.count("\n") == 1500


def test_the_region_index_is_read_in_the_unit_it_was_written_in(data):
    # vcztools reads the index in units of the call arrays' chunk, bio2zarr
    # writes it per chunk of variant_position: on a copy whose variant
    # arrays are chunked three times as long, turbozarr finds each unit from
    # the index itself (vcztools reads only the first copy right).
    fmt = r"%CHROM %POS\n"
    region = ["-r", "chr1:2000-2600"]
    expected = vcztools("query", "-f", fmt, *region, str(data["v2"]))
    assert expected.count("\n") > 1
    assert vcztools("query", "-f", fmt, *region, str(data["mixed-call-index"])) == expected
    for dataset in ("mixed", "mixed-call-index", "stale-index"):
        assert run(CLI, "vcz", "query", "-f", fmt, *region, data[dataset]) == expected, dataset


def test_vcztools_reads_the_copies_alike(data):
    fmt = r"%CHROM %POS %ALT %INFO/AF[ %GT %AD]\n"
    assert (vcztools("query", "-f", fmt, str(data["v3"]))
            == vcztools("query", "-f", fmt, str(data["zip"]))
            == vcztools("query", "-f", fmt, str(data["v2"])))


def test_query_basic_columns_match_bcftools(data):
    # Where vcztools and bcftools agree, so does turbozarr.
    fmt = r"%CHROM\t%POS\t%REF\t%ALT\t%INFO/DP\t%INFO/AA[\t%GT]\n"
    assert (run(CLI, "vcz", "query", "-f", fmt, data["v3"])
            == run("bcftools", "query", "-f", fmt, data["vcf"]))


def test_query_sample_list_and_output_file(data, tmp_path):
    ours = run(CLI, "vcz", "query", "-l", data["v2"])
    assert ours == "".join(f"S{i:02d}\n" for i in range(12))
    assert ours == vcztools("query", "-l", data["v2"])
    out = tmp_path / "q.txt"
    assert run(CLI, "vcz", "query", "-f", r"%POS\n", "-o", out, data["v2"]) == ""
    assert out.read_text() == vcztools("query", "-f", r"%POS\n", data["v2"])


@pytest.mark.parametrize("fmt, message", [
    (r"%POS %GT", "no such tag defined: INFO/GT. FORMAT fields must be enclosed in square "
                  'brackets, e.g. "[ %GT]"'),
    (r"%POS %SAMPLE", "no such tag defined: INFO/SAMPLE"),
    (r"%POS %DP %GQ", "no such tag defined: INFO/GQ. FORMAT fields must be enclosed"),
    (r"%XYZ", "No mapping found for 'XYZ'"),
    (r"%POS [%XYZ]", "No mapping found for 'XYZ'"),
    (r"%POS %FORMAT/DP", "No mapping found for 'FORMAT'"),
    (r"%AF1", "No mapping found for 'AF1'"),
])
def test_query_refuses_tags_as_vcztools_does(data, fmt, message):
    ours = run(CLI, "vcz", "query", "-f", fmt, data["v2"], expect=1)
    assert message in ours
    assert message in vcztools_error("query", "-f", fmt, data["v2"])


@pytest.mark.parametrize("fmt, at", [
    (r"%pos", 1), (r"%POS[%GT", 5), (r"%POS\x", 5), (r"A{1}", 2), ("%POS\u00e9", 5),
])
def test_query_format_that_does_not_parse_points_at_the_character(data, fmt, at):
    # vcztools 0.2.0 ends these in a traceback; turbozarr says where.
    err = run(CLI, "vcz", "query", "-f", fmt, data["v2"], expect=2)
    assert f"could not parse the format at character {at}" in err
    caret_line = err.rstrip("\n").splitlines()[-1]
    assert caret_line.index("^") == 2 + at - 1


def test_query_subfield_of_a_scalar_is_its_value(data):
    # vcztools 0.2.0 fails on these; %TAG{0} of a one-value field is the value.
    ours = run(CLI, "vcz", "query", "-f", r"%ID{0} %POS{0} %POS{1}\n", data["v2"])
    ids = vcztools("query", "-f", r"%ID %POS .\n", str(data["v2"]))
    assert ours == ids


def test_query_needs_a_format(data):
    err = run(CLI, "vcz", "query", data["v2"], expect=2)
    assert "Missing option -f / --format" in err


# Regions (any base of the variant in the region) and targets (its
# position), complemented targets, both together, files; checked against
# vcztools and against bcftools on the VCF.
SELECTIONS = [
    ["-r", "chr1:100-2000"],
    ["-r", "chr1:100-2000,chr1:1500-3000"],  # overlapping: each record once
    ["-r", "chr2"],
    ["-r", "chr1:1451"],
    ["-r", "chr1:199000-"],
    ["-r", "chrUn:100-20000"],
    ["-r", "chrM"],                           # a contig without records
    ["-r", "chr1:5000-1000"],                 # empty
    ["-r", "chr2:2000-3000,chr1:10-700"],     # out of contig order
    ["-t", "chr1:100-2000"],
    ["-t", "^chr1,chr2"],
    ["-t", "^chrX:1-100000"],
    ["-r", "chr1:100-50000", "-t", "chr1:20000-30000"],
    ["-r", "chr1:1-1000", "-t", "^chr1:500-600"],
    ["-R", "REGIONS"],
    ["-T", "TARGETS"],
    ["-T", "^TARGETS"],
]


@pytest.fixture(scope="module")
def selection_files(data) -> dict[str, str]:
    d = data["vcf"].parent
    (d / "regions.tsv").write_text("chr1\t100\t5000\nchr2\t2000\t2600\n")
    (d / "targets.tsv").write_text("chrX\t1\t50000\n")
    return {"REGIONS": str(d / "regions.tsv"), "TARGETS": str(d / "targets.tsv")}


@pytest.mark.parametrize("selection", SELECTIONS, ids=" ".join)
def test_regions_and_targets_match_vcztools_and_bcftools(data, selection_files, selection):
    args = [a.replace("REGIONS", selection_files["REGIONS"])
            .replace("TARGETS", selection_files["TARGETS"]) for a in selection]
    fmt = r"%CHROM %POS %REF %ALT[ %GT]\n"
    theirs = vcztools("query", "-f", fmt, *args, str(data["v2"]))
    for dataset in ("v2", "v3", "zip", "mixed", "mixed-call-index", "stale-index"):
        assert run(CLI, "vcz", "query", "-f", fmt, *args, data[dataset]) == theirs, dataset
    bcftools = run("bcftools", "query", "-f", fmt, *args, data["vcf"])
    if selection == ["-r", "chr2:2000-3000,chr1:10-700"]:
        # bcftools visits regions in the order given; vcztools (and
        # turbozarr) keep the dataset's order. The records are the same.
        assert sorted(theirs.splitlines()) == sorted(bcftools.splitlines())
        assert theirs.startswith("chr1 ") and bcftools.startswith("chr2 ")
    else:
        assert theirs == bcftools


def test_selection_refusals(data, tmp_path):
    err = run(CLI, "vcz", "query", "-f", "%POS", "-r", "chrZ:1-10", data["v2"], expect=1)
    assert "unknown contig 'chrZ'" in err and "chr1, chr2, chrX" in err
    err = run(CLI, "vcz", "query", "-f", "%POS", "-r", "chr1", "-R", "x", data["v2"],
              expect=2)
    assert "Cannot specify both a regions string (-r) and a regions file (-R)" in err
    err = run(CLI, "vcz", "query", "-f", "%POS", "-t", "chr1", "-T", "x", data["v2"],
              expect=2)
    assert "Cannot specify both a target string (-t) and a targets file (-T)" in err
    bad = tmp_path / "bad.tsv"
    bad.write_text("chr1\t100\t200\nchr1\tten\t300\n")
    err = run(CLI, "vcz", "query", "-f", "%POS", "-R", bad, data["v2"], expect=2)
    assert f"non-numeric start position 'ten' at line 2: {bad}" in err
    bad.write_text("chr1 100 200\n")
    err = run(CLI, "vcz", "query", "-f", "%POS", "-R", bad, data["v2"], expect=2)
    assert "expected at least 3 tab-separated columns (chrom, start, end), got 1" in err
    bad.write_text("")
    err = run(CLI, "vcz", "query", "-f", "%POS", "-T", bad, data["v2"], expect=2)
    assert "regions file is empty" in err


SAMPLE_SELECTIONS = [
    ["-s", "S03,S01"],                 # the order given
    ["-s", "^S03,S01"],                # the others, in the dataset's order
    ["-s", "^S03,S03"],                # a complement may name one twice
    ["-S", "SAMPLES"],
    ["-S", "^SAMPLES"],
    ["-s", "S03,S99", "--force-samples"],
    ["-s", "S00", "-r", "chrX"],       # a haploid sample, with a region
    ["-s", "^S00,S01,S02,S03", "-t", "chrX"],
]


@pytest.mark.parametrize("selection", SAMPLE_SELECTIONS, ids=" ".join)
def test_sample_selection_matches_vcztools_and_bcftools(data, selection):
    samples_file = data["vcf"].parent / "samples.txt"
    samples_file.write_text("S03\nS01\n")
    args = [a.replace("SAMPLES", str(samples_file)) for a in selection]
    fmt = r"%POS[ %SAMPLE=%GT:%AD:%DP][ %CHROM]\n"
    theirs = vcztools("query", "-f", fmt, *args, str(data["v2"]))
    for dataset in ("v2", "v3", "zip", "mixed"):
        assert run(CLI, "vcz", "query", "-f", fmt, *args, data[dataset]) == theirs, dataset
    assert theirs == run("bcftools", "query", "-f", fmt, *args, data["vcf"])


def test_samples_file_lines_are_stripped_and_blank_ones_skipped(data, tmp_path):
    # As vcztools reads them (bcftools would take the blank line for a name).
    messy = tmp_path / "messy.txt"
    messy.write_text("S03\n\n  S01 \n")
    fmt = r"%POS[ %SAMPLE=%GT]\n"
    ours = run(CLI, "vcz", "query", "-f", fmt, "-S", messy, data["v2"])
    assert ours == vcztools("query", "-f", fmt, "-S", str(messy), str(data["v2"]))
    assert ours.splitlines()[0] == "14 S03=1/1 S01=0|0"


def test_sample_refusals_in_vcztools_words(data):
    for args, message, code in [
        (["-s", "S03,S99"], 'subset called for sample(s) not in header: S99. '
                            'Use "--force-samples" to ignore this error.', 1),
        (["-s", "S03,S03"], 'Duplicate sample name "S03".', 2),
        (["-s", "S03,,S01"], "The empty string is not a valid sample name", 2),
        (["-s", "S03", "-S", "x"],
         "Cannot specify both a samples string (-s) and a samples file (-S)", 2),
    ]:
        err = run(CLI, "vcz", "query", "-f", "%POS", *args, data["v2"], expect=code)
        assert message in err, args
        assert message in vcztools_error("query", "-f", "%POS", *args, str(data["v2"]))


def test_an_empty_sample_set_prints_as_bcftools_does(data):
    # vcztools 0.2.0 refuses an empty sample set; bcftools prints the
    # variants with no sample columns, and so does turbozarr.
    fmt = r"%POS[ %SAMPLE=%GT]\n"
    done = subprocess.run([CLI, "vcz", "query", "-f", fmt, "-s", "S99", "--force-samples",
                           str(data["v2"])], capture_output=True, text=True)
    assert done.returncode == 0
    assert "subset called for sample(s) not in header: S99." in done.stderr
    assert done.stdout == run("bcftools", "query", "-f", fmt, "-s", "S99", "--force-samples",
                              data["vcf"])


def vcztools_error(*args: str | Path) -> str:
    """vcztools' message for a command line that must fail."""
    code, _, err = VCZTOOLS(*args)
    assert code != 0, args
    return err


# vcztools takes about a second per query, even on this small dataset:
# `make test` runs every third case of the long matrices below, and
# `make test-vcz` (TURBOZARR_VCZ_MATRIX=full) runs them all.
FULL_MATRIX = os.environ.get("TURBOZARR_VCZ_MATRIX") == "full"


def matrix(cases: list) -> list:
    return cases if FULL_MATRIX else cases[::3]


# Filter expressions vcztools 0.2.0 evaluates: turbozarr's -i and -e output
# must equal its own, byte for byte (per-sample filters print only the
# samples that pass in the sample loops). Most also equal bcftools'; where
# the two differ (the per-allele and -e rules, REF/ALT, the computed
# fields), turbozarr follows vcztools, as docs/vcz.md says.
FILTERS_AS_VCZTOOLS = [
    "INFO/DP>50", "INFO/DP<=20", "INFO/DP=37", "INFO/DP!=37",
    "QUAL>30", "QUAL<1e1", "QUAL>=20.5", "POS>=.5e5", "-POS<-100000",
    "INFO/AF>0.5", "INFO/AF=0.5", "INFO/AF>=0.25 & INFO/AF<=0.75",
    "INFO/AC>1", "INFO/AC>=2 & INFO/AC<3", "INFO/RC>10", "INFO/PAIR>5", "INFO/SCORES<0.5",
    "INFO/MQ>40", "INFO/DB=1", "DB", "INFO/AA=\"A\"", "INFO/TAGS=\"t1\"", "INFO/CH=\"a\"",
    "ID=\"rs1\"", "REF=\"A\"", "ALT=\"T\"",
    "INFO/DP/2>20", "INFO/DP*QUAL>1000", "INFO/DP-QUAL>0", "INFO/AC/INFO/DP>0.05",
    "QUAL>30 & INFO/DP>40", "QUAL>30 | INFO/DP<10 | INFO/DB=1", "(QUAL>30 | INFO/DP<10) & DB",
    "TYPE=\"snp\"", "TYPE~\"snp\"", "TYPE!=\"snp\"", "TYPE!~\"snp\"", "TYPE=\"ref\"",
    "FILTER=\"PASS\"", "FILTER~\"q10\"", "FILTER!=\".\"", "FILTER=\".\"",
    "FILTER=\"q10;s50\"", "FILTER!~\"q10;s50\"",
    "CHROM=\"chr2\"", "CHROM!=\"chr1\"", "CHROM==\"chrX\"", "CHROM=\"nochr\"",
    "AN>20", "NS<10", "N_ALT=2", "N_MISSING=0", "F_MISSING>0.1",
    "FMT/DP>30", "FMT/DP>30 & FMT/GQ>40", "FMT/DP>30 | FMT/GQ>40", "FMT/GQ>=FMT/DP",
    "FMT/DP-FMT/GQ>10", "FMT/FT=\"PASS\"", "FMT/DP+INFO/DP>100", "QUAL>30 & FMT/GQ>30",
    "QUAL>30 | FMT/GQ>30",
]
FILTER_FORMAT = r"%CHROM %POS %REF %ALT %QUAL %FILTER %INFO/DP[ %SAMPLE=%GT:%DP:%GQ]\n"


@pytest.mark.parametrize("flag", ["-i", "-e"])
@pytest.mark.parametrize("expression", matrix(FILTERS_AS_VCZTOOLS))
def test_filters_match_vcztools(data, expression, flag):
    theirs = vcztools("query", flag, expression, "-f", FILTER_FORMAT, str(data["v2"]))
    for dataset in ("v2", "v3"):
        ours = run(CLI, "vcz", "query", flag, expression, "-f", FILTER_FORMAT, data[dataset])
        assert ours == theirs, dataset


# Valid bcftools expressions vcztools 0.2.0 ends in a parse error (`&&`,
# `||`, single quotes, FILTER==): turbozarr's output equals bcftools' on
# the VCF, -i and -e, with bcftools' precedence (& and && bind tighter than
# | and ||) and its per-sample rules for && and ||.
FILTERS_AS_BCFTOOLS = [
    "POS>5000 && POS<6000", "INFO/DP<20 || INFO/DP>90", "POS>2500 && INFO/DP!=7",
    "POS>5000 || POS>1000 && POS<1200", "POS>5000 | POS>1000 && POS<1200",
    "POS>5000 && POS<1000 || POS<1200",
    "FMT/DP>30 && FMT/GQ>40", "FMT/DP>30 || FMT/GQ>40", "QUAL>30 || FMT/GQ>30",
    "QUAL>30 && FMT/GQ>30", "FMT/GQ>30 && QUAL>30",
    "INFO/DP>20 && INFO/DP<60 || FMT/GQ<10", "FMT/DP>30 & FMT/GQ>40 || INFO/DP<10",
    "INFO/AA='A'",
]


@pytest.mark.parametrize("flag", ["-i", "-e"])
@pytest.mark.parametrize("expression", FILTERS_AS_BCFTOOLS)
def test_filters_vcztools_cannot_parse_match_bcftools(data, expression, flag):
    fmt = r"%CHROM %POS %QUAL %INFO/DP[ %SAMPLE=%GT:%DP:%GQ]\n"
    ours = run(CLI, "vcz", "query", flag, expression, "-f", fmt, data["v3"])
    assert ours == run("bcftools", "query", flag, expression, "-f", fmt, data["vcf"])
    assert "parse error" in vcztools_error("query", flag, expression, "-f", fmt,
                                           str(data["v2"]))


@pytest.mark.parametrize("flag", ["-i", "-e"])
def test_filter_equals_equals_on_filter_follows_bcftools(data, flag):
    # bcftools takes FILTER=="PASS" as FILTER="PASS"; vcztools 0.2.0 compares
    # the filter flags with the string, so that -i keeps nothing.
    fmt = r"%CHROM %POS %FILTER\n"
    ours = run(CLI, "vcz", "query", flag, 'FILTER=="PASS"', "-f", fmt, data["v2"])
    assert ours == run("bcftools", "query", flag, 'FILTER=="PASS"', "-f", fmt, data["vcf"])
    assert ours == run(CLI, "vcz", "query", flag, 'FILTER="PASS"', "-f", fmt, data["v2"])
    assert ours.count("\n") == (876 if flag == "-i" else 624)


@pytest.mark.parametrize("args", [
    ["-i", "FMT/GQ>40", "-s", "S03,S01"],
    ["-i", "FMT/GQ>40", "-s", "^S03,S01", "-r", "chr1:100-20000"],
    ["-e", "INFO/DP>50", "-t", "chrX"],
    ["-i", "AN<20", "-s", "S00,S05,S07"],
    ["-i", "F_MISSING>0.3", "-s", "S00,S05,S07"],
    ["-i", "INFO/AF>0.3 & CHROM=\"chr2\"", "-r", "chr2:1000-80000"],
])
def test_filters_with_regions_and_samples_match_vcztools(data, args):
    theirs = vcztools("query", *args, "-f", FILTER_FORMAT, str(data["v2"]))
    for dataset in ("zip", "mixed"):
        assert run(CLI, "vcz", "query", *args, "-f", FILTER_FORMAT, data[dataset]) == theirs


# The query matrix: every combination of output (three query formats, one
# of them with a sample loop, and view), regions or targets, samples and
# filter (240 in all), byte for byte as vcztools writes them from the v2
# copy. Each combination reads one of the four copies in turn, so every
# copy meets every axis. `make test` runs every fifth.
MATRIX_OUTPUTS = [
    ["query", "-f", r"%CHROM %POS %REF %ALT %QUAL %FILTER %INFO/DP %INFO/AF\n"],
    ["query", "-f", r"%POS[ %SAMPLE=%GT:%GQ]\n"],
    ["query", "-f", r"%CHROM:%POS[\t%DP]\n"],
    ["view", "--no-version"],
]
MATRIX_REGIONS = [[], ["-r", "chr1:100-5000"], ["-t", "^chrX"],
                  ["-r", "chr2:1000-80000,chr1:10-700"]]
MATRIX_SAMPLES = [[], ["-s", "S03,S01"], ["-s", "^S00,S02"]]
MATRIX_FILTERS = [[], ["-i", "INFO/DP>30"], ["-e", "FMT/GQ>40"],
                  ["-i", "QUAL>20 & INFO/AF<0.6"], ["-i", "FMT/DP>20"]]
QUERY_MATRIX = [[*o, *r, *s, *f] for o, r, s, f in itertools.product(
    MATRIX_OUTPUTS, MATRIX_REGIONS, MATRIX_SAMPLES, MATRIX_FILTERS)]


@pytest.mark.parametrize("number, args", list(enumerate(QUERY_MATRIX))
                         if FULL_MATRIX else list(enumerate(QUERY_MATRIX))[::5],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_query_matrix_matches_vcztools(data, number, args):
    dataset = ("v2", "v3", "zip", "mixed")[number % 4]
    theirs = vcztools(*args, str(data["v2"]))
    assert run(CLI, "vcz", *args, data[dataset]) == theirs, dataset


@pytest.mark.parametrize("expression, message", [
    ("DP>5", 'ambiguous filtering expression: "DP", both INFO/DP and FORMAT/DP are defined'),
    ("XYZ>5", 'the tag "XYZ" is not defined'),
    ("MAF>0.1", "Unsupported filtering feature: Calculated variables"),
    ("GT=\"het\"", "Unsupported filtering feature: Genotype values"),
    ("INFO/AA ~ \"A\"", "Unsupported filtering feature: Regular expressions"),
    ("STRLEN(REF)>1", "Unsupported filtering feature: Function evaluation"),
    ("INFO/AC[0]>1", "Unsupported filtering feature: Array subscripts"),
    ("@names.txt", "Unsupported filtering feature: File references"),
    ("INFO/AA=\".\"", "Unsupported filtering feature: Missing data"),
    ("TYPE=\"indel\"", "Unsupported filtering feature: TYPE field (except 'ref' and 'snp')"),
    ("FMT/AD>5", "Unsupported filtering feature: Higher dimensional FORMAT fields"),
    ("FILTER=\"nope\"", 'The filter "nope" is not present in header'),
    ("INFO/AF>INFO/RC", "cannot compare fields with incompatible dimensions"),
])
def test_filter_refusals_in_vcztools_words(data, expression, message):
    done = subprocess.run([CLI, "vcz", "query", "-i", expression, "-f", "%POS", str(data["v2"])],
                          capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == ""
    assert message in done.stderr
    assert message in vcztools_error("query", "-i", expression, "-f", "%POS", str(data["v2"]))


@pytest.mark.parametrize("expression, at", [
    ("INFO/DP>", 9), ("INFO/DP>5 & (QUAL<3", 20), ("1<2<3", 4), ("INFO/DP>5 &", 12),
    ("INFO/DP >> 5", 10), ("QUAL>\"x", 6),
])
def test_filter_that_does_not_parse_points_at_the_character(data, expression, at):
    err = run(CLI, "vcz", "query", "-i", expression, "-f", "%POS", data["v2"], expect=2)
    assert f"Filter expression parse error: expected" in err
    assert f"at character {at}:" in err
    assert err.rstrip("\n").splitlines()[-1].index("^") == 2 + at - 1


def test_filters_refuse_what_makes_no_decision(data):
    for expression in ["INFO/DP", "5", "INFO/AA>5", "INFO/DP>\"x\""]:
        err = run(CLI, "vcz", "query", "-i", expression, "-f", "%POS", data["v2"], expect=2)
        assert "filter expression:" in err, expression
    err = run(CLI, "vcz", "query", "-i", "QUAL>1", "-e", "QUAL>1", "-f", "%POS", data["v2"],
              expect=2)
    assert "Cannot handle both an include expression and an exclude expression." in err


# `view`: the VCF, byte for byte as vcztools writes it (--no-version: the
# version line names the tool and the time), with every option and the
# selections and filters above, from each copy of the dataset.
VIEW_ARGS = [
    [], ["-s", "S03,S01"], ["-s", "^S03,S01"], ["-s", "S03,S01", "-I"], ["-G"], ["-h"],
    ["-H"], ["-h", "-s", "S02"], ["-r", "chr1:100-5000"], ["-t", "^chrX"],
    ["-R", "REGIONS"], ["-i", "INFO/DP>50"], ["-e", "FMT/DP>30"],
    ["-s", "S00", "-i", "FMT/GQ>50"], ["-i", "AN>20 & QUAL>30"],
    ["--fill-tags", "AC,AN,AF,NS"], ["--fill-tags", "AF"], ["-s", "S01,S02", "--fill-tags", "NS"],
    ["-v", "snps"], ["-V", "snps"], ["-m", "3"], ["-M", "2"],
    ["-s", "^S00,S01,S02,S03", "-t", "chrX"], ["-S", "SAMPLES", "-r", "chr2"],
]


@pytest.mark.parametrize("args", VIEW_ARGS, ids=" ".join)
def test_view_matches_vcztools(data, selection_files, args):
    samples = data["vcf"].parent / "view_samples.txt"
    samples.write_text("S05\nS02\n")
    args = [a.replace("REGIONS", selection_files["REGIONS"]).replace("SAMPLES", str(samples))
            for a in args]
    theirs = vcztools("view", "--no-version", *args, str(data["v2"]))
    for dataset in ("v2", "v3", "zip", "mixed"):
        assert run(CLI, "vcz", "view", "--no-version", *args, data[dataset]) == theirs, dataset


def test_view_without_options_has_every_record_and_stamps_its_header(data, tmp_path):
    out = tmp_path / "all.vcf"
    assert run(CLI, "vcz", "view", "-o", out, data["v3"]) == ""
    text = out.read_text()
    lines = text.splitlines()
    stamp = [line for line in lines if line.startswith("##turbozarr_vcz_viewCommand=")]
    assert len(stamp) == 1 and "; Date=" in stamp[0] and "view -o" in stamp[0]
    assert sum(1 for line in lines if not line.startswith("#")) == 1500
    # Without the stamp, the same bytes as vcztools'.
    assert "\n".join(line for line in lines if line not in stamp) + "\n" == vcztools(
        "view", "--no-version", str(data["v2"]))
    # bcftools reads it back, record for record.
    assert run("bcftools", "view", "-H", out).count("\n") == 1500


@pytest.mark.parametrize("args", [["-m", "2", "-M", "2"], ["-v", "snps", "-m", "3"]],
                         ids=" ".join)
def test_view_type_and_allele_options_together_follow_bcftools(data, args):
    # vcztools 0.2.0 joins them with && and then fails to parse its own
    # expression; bcftools keeps the same records as turbozarr.
    ours = run(CLI, "vcz", "view", "-H", *args, data["v3"])
    bcftools = run("bcftools", "view", "-H", *[a for a in args], data["vcf"])
    columns = lambda text: [line.split("\t")[:5] for line in text.splitlines()]  # noqa: E731
    assert columns(ours) == columns(bcftools) and len(columns(ours)) > 100
    assert "parse error" in vcztools_error("view", *args, str(data["v2"]))


@pytest.mark.parametrize("args, message", [
    (["-v", "indels"], "Unsupported filtering feature: TYPE field (except 'ref' and 'snp')"),
    (["-v", "bad"], "Invalid type(s) ['bad'] in --types; valid types are: snps, indels, mnps, "
                    "other."),
    (["--fill-tags", "MAF"], "--fill-tags tag(s) ['MAF'] not yet implemented"),
    (["--fill-tags", "XX"], "--fill-tags: unsupported tag(s) ['XX']. Supported: AC, AF, AN, NS."),
    (["-G", "-s", "S01"], "Cannot select samples and drop genotypes."),
    (["-I", "--fill-tags", "AC"], "Cannot combine --no-update and --fill-tags."),
    (["-G", "--fill-tags", "AC"], "Cannot combine -G/--drop-genotypes and --fill-tags"),
    (["-v", "snps", "-V", "snps"], "Cannot use --types and --exclude-types together."),
    (["-m", "0"], "--min-alleles must be >= 1, got 0"),
    (["-o", "out.vcf.gz"], "Only uncompressed VCF output supported, suffix .gz not allowed"),
])
def test_view_refusals_in_vcztools_words(data, args, message):
    done = subprocess.run([CLI, "vcz", "view", *args, str(data["v2"])], capture_output=True,
                          text=True)
    assert done.returncode == 2 and message in done.stderr
    assert message in vcztools_error("view", *args, str(data["v2"]))


# `view-plink`: .bed, .bim and .fam byte for byte as vcztools writes them,
# and the .bed as plink2 --make-bed writes it for the biallelic sites.
PLINK_ARGS = [
    ["-M", "2"], ["-M", "2", "-s", "S03,S01"], ["-M", "2", "-r", "chr1:1-50000"],
    ["-M", "2", "-i", "INFO/DP>50"], ["-M", "2", "-s", "S00,S01", "-i", "AC>1"],
    ["-M", "2", "-s", "S00,S01", "-i", "AN>3"], ["-M", "2", "-t", "chrX", "-s", "^S00"],
]


def plink_files(stem: Path) -> dict[str, bytes]:
    return {ext: Path(f"{stem}.{ext}").read_bytes() for ext in ("bed", "bim", "fam")
            if Path(f"{stem}.{ext}").exists()}


@pytest.mark.parametrize("args", PLINK_ARGS, ids=" ".join)
def test_view_plink_matches_vcztools(data, tmp_path, args):
    vcztools("view-plink", *args, "-o", str(tmp_path / "theirs"), str(data["v2"]))
    theirs = plink_files(tmp_path / "theirs")
    assert len(theirs) == 3
    for dataset in ("v3", "zip", "mixed"):
        run(CLI, "vcz", "view-plink", *args, "-o", tmp_path / dataset, data[dataset])
        assert plink_files(tmp_path / dataset) == theirs, dataset


def test_view_plink_bed_matches_plink2(data, tmp_path):
    run(CLI, "vcz", "view-plink", "-M", "2", "-o", tmp_path / "ours", data["v3"])
    run("plink2", "--vcf", data["vcf"], "--max-alleles", "2", "--make-bed", "--allow-extra-chr",
        "--vcf-half-call", "missing", "--out", tmp_path / "plink2")
    ours, theirs = plink_files(tmp_path / "ours"), plink_files(tmp_path / "plink2")
    assert ours["bed"] == theirs["bed"]
    # The same variants and alleles; plink2 names families 0, vcztools (and
    # turbozarr) repeat the sample ID.
    cut = lambda text: [line.split("\t")[:2] + line.split("\t")[3:]  # noqa: E731
                        for line in text.decode().splitlines()]
    assert cut(ours["bim"]) == cut(theirs["bim"]) and len(cut(ours["bim"])) == 1100


def test_view_plink_sidecars_and_refusals(data, tmp_path):
    run(CLI, "vcz", "view-plink", "-M", "2", "--no-bim", "--no-fam", "-o", tmp_path / "bare",
        data["v3"])
    assert set(plink_files(tmp_path / "bare")) == {"bed"}
    # A multi-allelic site kept is refused in vcztools' words, and nothing
    # half-written stays behind.
    err = run(CLI, "vcz", "view-plink", "-o", tmp_path / "multi", data["v3"], expect=2)
    message = "Multi-allelic variants are not supported in PLINK 1 binary output"
    assert message in err and plink_files(tmp_path / "multi") == {}
    assert message in vcztools_error("view-plink", "-o", str(tmp_path / "v"), str(data["v2"]))
    err = run(CLI, "vcz", "view-plink", "-M", "2", "-i", "FMT/DP>3", "-o", tmp_path / "s",
              data["v3"], expect=2)
    assert "Sample-scope variant filters are not supported" in err
    # -v with -M: vcztools fails to parse its own "&&"; turbozarr keeps the
    # biallelic SNPs.
    run(CLI, "vcz", "view-plink", "-M", "2", "-v", "snps", "-o", tmp_path / "snps", data["v3"])
    bim = plink_files(tmp_path / "snps")["bim"].decode().splitlines()
    assert len(bim) > 500 and all(len(f[4]) == 1 and len(f[5]) == 1
                                  for f in (line.split("\t") for line in bim))


# `view-bgen`: the .bgen and .sample byte for byte as vcztools writes them,
# and the .bgen.bgi (an SQLite database) with the same schema and rows.
BGEN_ARGS = [
    ["-M", "2"], ["-M", "2", "-s", "S03,S01"], ["-M", "2", "-r", "chr1:1-50000"],
    ["-M", "2", "-i", "INFO/DP>50"], ["-M", "2", "-s", "S00,S01", "-i", "AC>1"],
    ["-M", "2", "--compression-level", "0"], ["-M", "2", "--compression-level", "6"],
    ["-M", "2", "--compression-level", "-1", "-t", "chrX"], ["-M", "2", "--unphased"],
    ["-M", "2", "--variant-id-field", "varid"], ["-M", "2", "--no-header-samples"],
    ["-M", "2", "-t", "chr1,chr2", "--fixed-variant-size"],
    ["-M", "2", "-t", "chr2", "--fixed-variant-size", "--total-string-length", "30",
     "--pad-byte", "x", "--variant-id-field", "varid"],
]


def bgen_files(stem: Path) -> dict[str, object]:
    """The .bgen and .sample bytes, and the .bgen.bgi's schema and rows."""
    out: dict[str, object] = {}
    for ext in ("bgen", "sample"):
        if Path(f"{stem}.{ext}").exists():
            out[ext] = Path(f"{stem}.{ext}").read_bytes()
    bgi = Path(f"{stem}.bgen.bgi")
    if bgi.exists():
        with sqlite3.connect(bgi) as db:
            out["bgi"] = (db.execute("SELECT type, name, sql FROM sqlite_master").fetchall(),
                          db.execute("SELECT * FROM Variant").fetchall())
    return out


@pytest.mark.parametrize("args", BGEN_ARGS, ids=" ".join)
def test_view_bgen_matches_vcztools(data, tmp_path, args):
    vcztools("view-bgen", *args, "-o", str(tmp_path / "theirs"), str(data["v2"]))
    theirs = bgen_files(tmp_path / "theirs")
    assert set(theirs) == {"bgen", "sample", "bgi"} and len(theirs["bgi"][1]) > 10
    for dataset in ("v3", "zip"):
        run(CLI, "vcz", "view-bgen", *args, "-o", tmp_path / dataset, data[dataset])
        assert bgen_files(tmp_path / dataset) == theirs, dataset
    # Without -o the .bgen alone goes to stdout.
    done = subprocess.run([CLI, "vcz", "view-bgen", *args, str(data["v3"])],
                          capture_output=True, check=True)
    assert done.stdout == theirs["bgen"]


def test_view_bgen_sidecars_and_refusals(data, tmp_path):
    run(CLI, "vcz", "view-bgen", "-M", "2", "--no-bgi", "--no-sample-file", "-o",
        tmp_path / "bare", data["v3"])
    assert set(bgen_files(tmp_path / "bare")) == {"bgen"}
    # A multi-allelic site kept is refused in vcztools' words, and nothing
    # half-written stays behind.
    err = run(CLI, "vcz", "view-bgen", "-o", tmp_path / "multi", data["v3"], expect=2)
    message = "Multi-allelic variants are not supported in BGEN output"
    assert message in err and bgen_files(tmp_path / "multi") == {}
    assert message in vcztools_error("view-bgen", "-o", str(tmp_path / "v"), str(data["v2"]))
    err = run(CLI, "vcz", "view-bgen", "-M", "2", "-i", "FMT/DP>3", "-o", tmp_path / "s",
              data["v3"], expect=2)
    assert "Sample-scope variant filters are not supported" in err
    for args, message in [
        (["--total-string-length", "40"], "total_string_length / pad_byte require "
                                           "fixed_variant_size=True"),
        (["--fixed-variant-size", "--compression-level", "3"],
         "fixed_variant_size=True requires compression_level=0"),
        (["--fixed-variant-size", "--total-string-length", "4"],
         "total_string_length must be >= 5 (got 4)"),
        (["--fixed-variant-size", "--total-string-length", "8"],
         "leaving no room for the padding field's leading '.' under total_string_length=8"),
    ]:
        err = run(CLI, "vcz", "view-bgen", "-M", "2", "-t", "chr2", *args, "-o",
                  tmp_path / "bad", data["v3"], expect=2)
        assert message in err, (args, err)
        # The whole message as vcztools words it (the variant it names too).
        theirs = vcztools_error("view-bgen", "-M", "2", "-t", "chr2", *args, "-o",
                                str(tmp_path / "v"), str(data["v2"]))
        assert "Error: " + err.removeprefix("turbozarr: ") in theirs, (err, theirs)
        assert bgen_files(tmp_path / "bad") == {}
    for args in (["--pad-byte", "xy"], ["--compression-level", "10"],
                 ["--variant-id-field", "name"]):
        run(CLI, "vcz", "view-bgen", "-M", "2", *args, data["v3"], expect=2)


def test_view_bgen_of_many_samples_matches_vcztools(tmp_path):
    """Genotype blocks larger than Python's first zlib output buffer (32 KiB):
    level 0 cuts its stored blocks where the output buffers end."""
    vcf = tmp_path / "wide.vcf"
    run(sys.executable, ROOT / "scripts" / "vcz" / "make_fixture_vcf.py", vcf,
        "--samples", "12000", "--records", "40")
    run("bcftools", "view", "-Oz", "-o", tmp_path / "wide.vcf.gz", vcf)
    run("bcftools", "index", "-t", tmp_path / "wide.vcf.gz")
    vcz = tmp_path / "wide.vcz"
    run(PEERS / "vcf2zarr", "convert", "-Q", "-l", "16", "-w", "5000",
        tmp_path / "wide.vcf.gz", vcz)
    for level in ("0", "1"):
        args = ["-M", "2", "--compression-level", level, "--no-bgi"]
        vcztools("view-bgen", *args, "-o", str(tmp_path / "theirs"), str(vcz))
        run(CLI, "vcz", "view-bgen", *args, "-o", tmp_path / "ours", vcz)
        ours, theirs = bgen_files(tmp_path / "ours"), bgen_files(tmp_path / "theirs")
        assert len(theirs["bgen"]) > 12000 * 3 and ours == theirs, level


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> dict[str, Path]:
    """An msprime simulation converted by bio2zarr's tskit route (no FILTER,
    QUAL or ID arrays, no INFO but AA), and its VCF from tskit."""
    d = tmp_path_factory.mktemp("sim")
    script = (
        "import msprime, sys\n"
        "ts = msprime.sim_ancestry(samples=20, sequence_length=200_000, "
        "recombination_rate=1e-8, population_size=10_000, random_seed=7)\n"
        "ts = msprime.sim_mutations(ts, rate=1e-8, random_seed=9)\n"
        "ts.dump(sys.argv[1])\n"
        "ts.write_vcf(open(sys.argv[2], 'w'))\n")
    run(PEERS / "python", "-c", script, d / "sim.trees", d / "sim.vcf")
    run("bcftools", "view", "-Oz", "-o", d / "sim.vcf.gz", d / "sim.vcf")
    run("bcftools", "index", "-t", d / "sim.vcf.gz")
    run(PEERS / "tskit2zarr", "convert", d / "sim.trees", d / "sim.vcz")
    return {"vcf": d / "sim.vcf.gz", "vcz": d / "sim.vcz"}


def test_a_tskit_dataset_answers_as_the_peers_do(simulated, tmp_path):
    vcz, vcf = simulated["vcz"], simulated["vcf"]
    # vcztools 0.2.0 ends every query of a dataset without filter_id in a
    # KeyError; bcftools on the VCF is the reference, and records without
    # filter arrays pass (as `view` writes them), with no quality.
    fmt = r"%CHROM\t%POS\t%REF\t%ALT\t%FILTER\t%QUAL[\t%GT]\n"
    assert "KeyError" in vcztools_error("query", "-f", fmt, str(vcz))
    ours = run(CLI, "vcz", "query", "-f", fmt, vcz)
    assert ours == run("bcftools", "query", "-f", fmt, vcf) and ours.count("\n") > 200
    for flag, expression in [("-i", 'FILTER="PASS"'), ("-e", 'FILTER="PASS"'),
                             ("-i", "AN>30 & AC<5"), ("-i", "AC>5 || POS<1000")]:
        assert (run(CLI, "vcz", "query", flag, expression, "-f", fmt, vcz)
                == run("bcftools", "query", flag, expression, "-f", fmt, vcf)), expression
    # view and view-plink run in vcztools: byte for byte.
    for args in ([], ["-s", "tsk_3,tsk_1"], ["-i", "AC>10"], ["-r", "1:1000-100000"]):
        assert (run(CLI, "vcz", "view", "--no-version", *args, vcz)
                == vcztools("view", "--no-version", *args, str(vcz))), args
    vcztools("view-plink", "-M", "2", "-o", str(tmp_path / "theirs"), str(vcz))
    run(CLI, "vcz", "view-plink", "-M", "2", "-o", tmp_path / "ours", vcz)
    assert plink_files(tmp_path / "ours") == plink_files(tmp_path / "theirs")
    # Every call phased: the phased BGEN layout, in both sizes.
    for args in (["-M", "2"], ["-M", "2", "--fixed-variant-size", "-s", "tsk_0,tsk_5"]):
        vcztools("view-bgen", *args, "-o", str(tmp_path / "theirs"), str(vcz))
        run(CLI, "vcz", "view-bgen", *args, "-o", tmp_path / "ours", vcz)
        assert bgen_files(tmp_path / "ours") == bgen_files(tmp_path / "theirs"), args
