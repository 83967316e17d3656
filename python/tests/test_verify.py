"""turbozarr.verify() and `turbozarr verify`: hierarchies that zarr-python
and turbozarr write verified clean, then damaged on purpose, each finding
under the key that holds it; the layouts of OME-Zarr images, sparse
matrices and VCF Zarr datasets checked; the command line's exit codes,
table and JSON report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numcodecs
import numpy as np
import pytest
import scipy.sparse
import zarr
from zarr.codecs import BytesCodec, Crc32cCodec, ShardingCodec

import turbozarr as tz
from turbozarr import ome, sparse
from turbozarr.errors import CancelledError, NotFoundError

from test_pickle import http_root  # noqa: F401 (an HTTP server on loopback)
from test_vcz_python import dataset  # noqa: F401 (a small VCF Zarr dataset)

CLI = os.environ.get("TURBOZARR_CLI", "")
needs_cli = pytest.mark.skipif(
    not CLI or not os.access(CLI, os.X_OK),
    reason="TURBOZARR_CLI does not name the built turbozarr binary",
)


def run_cli(*args, expect: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def flip_byte(path: Path, offset: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


@pytest.fixture
def hierarchy(tmp_path) -> Path:
    """A v3 group of three arrays of 4 chunks each: with crc32c, without
    any checksum, and sharded (crc32c in the shards)."""
    path = tmp_path / "h.zarr"
    root = zarr.open_group(path, mode="w")
    data = np.arange(64, dtype="int32").reshape(8, 8)
    root.create_array("checked", shape=(8, 8), chunks=(4, 4), dtype="int32",
                      serializer=BytesCodec(), compressors=[Crc32cCodec()])[:] = data
    root.create_array("plain", shape=(8, 8), chunks=(4, 4), dtype="int32",
                      compressors=None)[:] = data
    root.create_array("sharded", shape=(8, 8), chunks=(2, 2), shards=(4, 4),
                      dtype="int32", compressors=[Crc32cCodec()])[:] = data
    return path


def by_path(report: dict) -> dict[str, dict]:
    return {a["path"]: a for a in report["arrays"]}


def test_clean_hierarchy(hierarchy):
    report = tz.verify(hierarchy)
    assert report["version"] == 1
    assert report["damaged"] is False
    arrays = by_path(report)
    assert sorted(arrays) == ["checked", "plain", "sharded"]
    assert arrays["checked"]["status"] == "verified"
    assert arrays["checked"]["chunks"] == 4
    assert arrays["checked"]["decoded_bytes"] == 64 * 4
    assert arrays["checked"]["stored_bytes"] == 4 * (16 * 4 + 4)
    assert arrays["plain"]["status"] == "decoded, unchecked"
    assert arrays["plain"]["checksum"] is False
    assert arrays["sharded"]["status"] == "verified"
    assert arrays["sharded"]["chunks"] == 4  # shards
    assert report["totals"] == {"arrays": 3, "arrays_unchecked": 1, "chunks": 12,
                                "stored_bytes": sum(a["stored_bytes"] for a in arrays.values()),
                                "decoded_bytes": 3 * 256, "findings": 0}
    assert report["findings"] == [] and report["layouts"] == [] and report["notes"] == []


def test_v2_arrays(tmp_path):
    root = zarr.open_group(tmp_path / "v2.zarr", mode="w", zarr_format=2)
    data = np.arange(64, dtype="int32").reshape(8, 8)
    root.create_array("zlib", shape=(8, 8), chunks=(4, 4), dtype="int32",
                      compressors=numcodecs.Zlib(level=1))[:] = data
    root.create_array("raw", shape=(8, 8), chunks=(4, 4), dtype="int32",
                      compressors=None)[:] = data
    arrays = by_path(tz.verify(tmp_path / "v2.zarr"))
    assert {p: (a["zarr_format"], a["status"], a["chunks"]) for p, a in arrays.items()} == {
        "zlib": (2, "verified", 4), "raw": (2, "decoded, unchecked", 4)}
    flip_byte(tmp_path / "v2.zarr" / "zlib" / "1.0", 8)
    finding, = by_path(tz.verify(tmp_path / "v2.zarr"))["zlib"]["findings"]
    assert finding["key"] == "zlib/1.0"


def test_flipped_byte_is_found_under_its_key(hierarchy):
    flip_byte(hierarchy / "checked" / "c" / "1" / "0", 5)
    report = tz.verify(hierarchy)
    assert report["damaged"] is True
    checked = by_path(report)["checked"]
    assert checked["status"] == "damaged"
    assert len(checked["findings"]) == 1
    finding = checked["findings"][0]
    assert finding["key"] == "checked/c/1/0"
    assert "crc32c: checksum mismatch" in finding["message"]
    assert report["totals"]["findings"] == 1
    # The others are still read and clean.
    assert by_path(report)["sharded"]["findings"] == []


def test_damaged_inner_chunk_of_a_shard(hierarchy):
    shard = hierarchy / "sharded" / "c" / "0" / "1"
    flip_byte(shard, 3)  # inside the first inner chunk laid out (Morton order)
    finding, = by_path(tz.verify(hierarchy))["sharded"]["findings"]
    assert finding["key"] == "sharded/c/0/1"
    assert finding["message"].startswith("shard, inner chunk [0, 0]: codec crc32c")


def test_a_node_verifies_from_its_own_path(hierarchy):
    flip_byte(hierarchy / "checked" / "c" / "0" / "0", 0)
    group = tz.open_group(str(hierarchy))
    report = tz.verify(group["plain"])
    assert report["path"] == "plain"
    assert [a["path"] for a in report["arrays"]] == ["plain"]
    assert report["damaged"] is False
    assert tz.verify(hierarchy, "checked")["damaged"] is True


def test_progress_and_stopping(hierarchy):
    seen = []
    report = tz.verify(hierarchy, jobs=2, progress=lambda *p: seen.append(p))
    assert seen[-1] == (12, 12, report["totals"]["stored_bytes"])
    with pytest.raises(CancelledError):
        tz.verify(hierarchy, progress=lambda *p: False)

    def fails(*p):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        tz.verify(hierarchy, progress=fails)
    with pytest.raises(ValueError):
        tz.verify(hierarchy, jobs=0)


@pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")
def test_over_http_every_chunk_of_the_grid_is_asked_for(hierarchy, http_root):
    directory, url = http_root
    served = directory / "verified.zarr"
    shutil.copytree(hierarchy, served)
    zarr.consolidate_metadata(served)  # an HTTP server lists nothing
    flip_byte(served / "checked" / "c" / "0" / "1", 1)
    report = tz.verify(f"{url}/verified.zarr")
    arrays = by_path(report)
    assert {p: a["chunks"] for p, a in arrays.items()} == {"checked": 4, "plain": 4,
                                                          "sharded": 4}
    assert [f["key"] for f in arrays["checked"]["findings"]] == ["checked/c/0/1"]
    assert len(report["notes"]) == 1
    assert "cannot list its keys" in report["notes"][0]
    if CLI and os.access(CLI, os.X_OK):
        out = run_cli("verify", f"{url}/verified.zarr", expect=1).stdout
        assert "  checked/c/0/1: codec crc32c: checksum mismatch" in out
        assert "note: " in out


def test_nothing_there(tmp_path):
    with pytest.raises(NotFoundError, match="no array or group at 'nowhere'"):
        tz.verify(tmp_path, "nowhere")


def test_bad_metadata_of_one_array(hierarchy):
    (hierarchy / "plain" / "zarr.json").write_text('{"zarr_format": 3, "node_type"')
    report = tz.verify(hierarchy)
    assert sorted(by_path(report)) == ["checked", "sharded"]
    keys = [f["key"] for f in report["findings"]]
    assert keys == ["plain/zarr.json", "plain"]
    assert "4 stored keys below it not checked" in report["findings"][1]["message"]


def test_ome_image_layout(tmp_path):
    path = tmp_path / "img.ome.zarr"
    data = np.arange(64 * 64, dtype="uint16").reshape(64, 64)
    ome.create(data, path, axes="yx", levels=3, chunks=(16, 16))
    report = tz.verify(path)
    assert report["damaged"] is False
    assert report["layouts"] == [{"layout": "ome-zarr", "path": "", "findings": []}]
    # Whether ome.create adds a checksum decides which; either way clean.
    assert [a["status"] for a in report["arrays"]] == [
        "verified" if a["checksum"] else "decoded, unchecked" for a in report["arrays"]]
    assert [a["path"] for a in report["arrays"]] == ["0", "1", "2"]

    # Level 1 claims twice the rows it should have.
    doc = json.loads((path / "1" / "zarr.json").read_text())
    doc["shape"] = [64, 32]
    (path / "1" / "zarr.json").write_text(json.dumps(doc))
    report = tz.verify(path)
    finding, = report["layouts"][0]["findings"]
    assert finding == {"key": "1", "message": "level 1 has shape [64, 32], but level 0's "
                       "[64, 64] and the scales make it [32, 32]"}
    assert report["damaged"] is True


def test_sparse_matrix_layout(tmp_path):
    path = tmp_path / "m.zarr"
    counts = scipy.sparse.random(50, 30, density=0.2, format="csr", random_state=1)
    counts.data = np.ceil(counts.data * 10)
    sparse.write(path, counts, tile_cells=20)
    report = tz.verify(path)
    assert report["damaged"] is False
    layouts = [lay for lay in report["layouts"] if lay["layout"] == "sparse"]
    assert len(layouts) == 1 and layouts[0]["findings"] == []
    matrix = layouts[0]["path"]

    # Tile 1's row pointers rewritten to go backwards: the bytes are sound,
    # the layout is not.
    indptr = tz.open_array(str(path), path=f"{matrix}/tiles/1/indptr".lstrip("/"), mode="r+")
    values = indptr[:]
    values[3] = values[2] - 1 if values[2] > 0 else values[4] + 1
    indptr[:] = values
    report = tz.verify(path)
    finding, = [f for lay in report["layouts"] for f in lay["findings"]]
    assert finding["key"].endswith("tiles/1/indptr")
    assert "the row pointers go backwards at cell 2" in finding["message"]


def test_vcf_zarr_layout(dataset, tmp_path):
    report = tz.verify(dataset)
    assert report["damaged"] is False
    assert report["layouts"] == [{"layout": "vcf-zarr", "path": "", "findings": []}]

    bad = tmp_path / "bad.vcz"
    shutil.copytree(dataset, bad)
    root = tz.open_group(str(bad), mode="r+")
    root.create_array("variant_QUAL", shape=(2,), dtype="float32", chunks=(2,))[...] = 1
    finding, = tz.verify(bad)["layouts"][0]["findings"]
    assert finding["key"] == "variant_QUAL"
    assert finding["message"] == ("has shape [2]; the dataset has 3 variants, 2 samples, "
                                  "2 contigs and 0 filters, so dimension 0 must be 3")


# --- the command line --------------------------------------------------------


@needs_cli
def test_cli_clean_prints_the_table_and_exits_0(hierarchy):
    out = run_cli("verify", hierarchy).stdout
    lines = out.splitlines()
    assert lines[0].split() == ["array", "status", "chunks", "stored", "decoded", "findings"]
    assert lines[1].split()[:3] == ["checked", "verified", "4"]
    assert lines[2].split()[:4] == ["plain", "decoded,", "unchecked", "4"]
    assert "decoded, unchecked (no checksum: damage that still decodes cannot be seen): plain" \
        in out
    assert lines[-1].startswith("3 arrays, 12 chunks, ")
    assert lines[-1].endswith(" decoded: no damage found")


@needs_cli
def test_cli_damage_exits_1_naming_the_key(hierarchy, tmp_path):
    flip_byte(hierarchy / "checked" / "c" / "1" / "1", 2)
    proc = run_cli("verify", hierarchy, "--json", tmp_path / "r.json", expect=1)
    assert "  checked/c/1/1: codec crc32c: checksum mismatch" in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith(": 1 finding")
    assert proc.stderr.strip().endswith(": 1 finding; damaged")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["damaged"] is True
    assert by_path(report)["checked"]["findings"][0]["key"] == "checked/c/1/1"

    quiet = run_cli("verify", hierarchy, "--quiet", expect=1).stdout
    assert not quiet.startswith("array")
    assert "checked/c/1/1" in quiet


@needs_cli
def test_cli_json_on_stdout_is_the_report(hierarchy):
    proc = run_cli("verify", hierarchy, "--json", "-", "--jobs", "2")
    report = json.loads(proc.stdout)
    assert report == tz.verify(hierarchy)
    assert "no damage found" in proc.stderr


@needs_cli
def test_cli_usage_and_missing_paths_exit_2(hierarchy, tmp_path):
    assert "no array or group at 'nowhere'" in run_cli(
        "verify", hierarchy, "--path", "nowhere", expect=2).stderr
    run_cli("verify", hierarchy, "--jobs", "0", expect=2)
    run_cli("verify", tmp_path / "absent.zarr", expect=2)


@needs_cli
def test_cli_reports_layouts(tmp_path):
    path = tmp_path / "img.ome.zarr"
    ome.create(np.zeros((64, 64), dtype="uint8"), path, axes="yx", levels=2, chunks=(32, 32))
    assert "ome-zarr layout at /: consistent\n" in run_cli("verify", path).stdout
    doc = json.loads((path / "1" / "zarr.json").read_text())
    doc["shape"] = [64, 32]
    (path / "1" / "zarr.json").write_text(json.dumps(doc))
    out = run_cli("verify", path, expect=1).stdout
    assert "  1: ome-zarr: level 1 has shape [64, 32], but level 0's [64, 64] and the " \
        "scales make it [32, 32]\n" in out
    assert "ome-zarr layout at /: 1 finding\n" in out


@needs_cli
def test_cli_verifies_a_zip_archive(hierarchy, tmp_path):
    archive = tmp_path / "h.zip"
    run_cli("cp", hierarchy, archive)
    out = run_cli("verify", archive).stdout
    assert out.splitlines()[-1].startswith("3 arrays, 12 chunks, ")
    assert "no damage found" in out
