"""Workload E's runner end to end on a tiny image: every side installed in
this interpreter reads, writes and creates, returns the same pixels, and
the rows say so; a side that is not installed reads `unavailable` with the
reason. Peers missing here (ngio and ome-zarr-py in the 3.11 environment)
are rows that say so, not failures."""

from __future__ import annotations

import csv
import importlib.util

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("zarr") is None,
                                reason="zarr-python writes the fixtures")

TINY = """
[images.tiny]
base = "small"
shape = [1, 4, 128, 128]
chunks = [1, 1, 64, 64]
roi_size = 64
"""


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _run_tiny(write_toml, tmp_path, operations: list[str], methods: list[str],
              impls: list[str]) -> tuple[int, list[str], list[dict]]:
    """Workload E on the tiny image, one run per side: the exit code, the
    log and the CSV rows."""
    from turbozarr_bench import ome_runner

    exp = write_toml(f"""
suite = "ome"
repeats = 1
warmup = 0
image = ["tiny"]
operation = {operations!r}
method = {methods!r}
impl = {impls!r}
data_dir = "{tmp_path / 'data'}"
output = "out.csv"
{TINY}""")
    lines: list[str] = []
    code = ome_runner.run(exp, log=lines.append)
    with (tmp_path / "out.csv").open() as f:
        return code, lines, list(csv.DictReader(f))


def test_every_side_agrees_and_a_missing_peer_says_why(write_toml, tmp_path, monkeypatch):
    from turbozarr_bench import ome_runner

    # A peer no environment has: its rows must say why, whatever is installed.
    monkeypatch.setitem(ome_runner.IMPLS, "absent-peer",
                        ("turbozarr_bench_absent_peer", "absent-peer"))
    code, lines, rows = _run_tiny(
        write_toml, tmp_path, ["read_roi_straddling", "write_roi_straddling", "create"],
        ["mean"], ["turbozarr", "ngio", "ome-zarr-py", "zarr-python", "absent-peer"])
    assert code == 0, lines
    by = {(r["operation"], r["impl"]): r for r in rows}
    assert len(rows) == 3 * 5
    for op in ("read_roi_straddling", "write_roi_straddling", "create"):
        ok = [r for r in rows if r["operation"] == op and r["status"] == "ok"]
        assert by[(op, "turbozarr")]["status"] == "ok"
        assert by[(op, "zarr-python")]["status"] == "ok"
        for r in ok:
            assert r["agrees"] == "True", r
            assert r["digest"] == r["expected"], r
        # Every side that ran returned (or wrote) the same pixels.
        assert len({r["digest"] for r in ok}) == 1
        absent = by[(op, "absent-peer")]
        assert absent["status"] == "unavailable"
        assert "absent-peer is not installed" in absent["reason"]
        for impl, module in (("ngio", "ngio"), ("ome-zarr-py", "ome_zarr")):
            if not _installed(module):
                assert by[(op, impl)]["status"] == "unavailable"
                assert "not installed" in by[(op, impl)]["reason"]
    # The straddling region: 64 x 64 from chunk // 2 + 1, over 4 planes.
    assert by[("read_roi_straddling", "turbozarr")]["bytes"] == str(4 * 64 * 64 * 2)
    create = by[("create", "turbozarr")]
    assert create["levels"] == "3" and create["level_shapes"] == "128x128 64x64 32x32"
    assert create["method"] == "mean" and create["method_native"] == "method='mean'"
    # turbozarr and the numpy reference both round the mean half to even.
    assert create["pyramid_digest"] == by[("create", "zarr-python")]["pyramid_digest"]
    if _installed("ome_zarr"):
        assert by[("write_roi_straddling", "ome-zarr-py")]["status"] == "unsupported"
        assert by[("create", "ome-zarr-py")]["method_native"] == "Methods.LOCAL_MEAN"
    if _installed("ngio"):
        assert "coarsen" in by[("create", "ngio")]["method_native"]
    table = ome_runner.markdown(rows)
    assert "| tiny | write_roi_straddling |  |" in table
    assert "absent-peer (absent-peer is not installed" in table


def test_unknown_keys_and_names_are_refused(write_toml):
    from turbozarr_bench import ome_runner

    assert ome_runner.run(write_toml('suite = "ome"\nbogus = 1\n')) == 2
    assert ome_runner.run(write_toml('suite = "ome"\noperation = ["read_all"]\n')) == 2
    assert ome_runner.run(write_toml('suite = "ome"\nimage = ["huge"]\n')) == 2
    assert ome_runner.run(write_toml('suite = "ome"\nimpl = ["turbozarr", "napari"]\n')) == 2
    assert ome_runner.run(write_toml('suite = "ome"\nmethod = ["cubic"]\n')) == 2
    assert ome_runner.run(write_toml('suite = "ome"\nimpl = ["ngio"]\n')) == 2
    bad_image = 'suite = "ome"\nimage = ["t"]\n[images.t]\nbase = "small"\nlevls = 2\n'
    assert ome_runner.run(write_toml(bad_image)) == 2


def test_the_workload_files_load_and_list(tmp_path):
    from pathlib import Path

    from turbozarr_bench import ome_runner

    experiments = Path(__file__).resolve().parents[1] / "experiments"
    full = ome_runner.load(experiments / "workload-e.toml")
    assert [s.name for s in full["images"]] == ["small", "medium", "large", "chunks64",
                                                 "chunks512", "sharded", "uncompressed", "v2"]
    assert full["images"][5].values["shards"] == [1, 4, 1024, 1024]
    assert full["images"][7].zarr_format == 2
    smoke = ome_runner.load(experiments / "workload-e-smoke.toml")
    assert [s.name for s in smoke["images"]] == ["small"] and smoke["repeats"] == 1
    lines: list[str] = []
    assert ome_runner.run(experiments / "workload-e-smoke.toml", list_only=True,
                          log=lines.append) == 0
    assert any(line.startswith("small: (1, 16, 512, 512) uint16 v3") for line in lines)


OTHER_PEERS = {"tensorstore": "tensorstore", "ngff-zarr": "ngff_zarr", "bioio": "bioio_ome_zarr",
               "iohub": "iohub", "acquire-zarr": "acquire_zarr"}


@pytest.mark.skipif(not any(_installed(m) for m in OTHER_PEERS.values()),
                    reason="none of the other OME-Zarr peers is installed (make bench-ome-env)")
def test_the_other_peers_where_installed(write_toml, tmp_path):
    """tensorstore, ngff-zarr, bioio, iohub and acquire-zarr, where this
    interpreter has them (.venv-ome): what each can do agrees with the
    generator's pixels; what it cannot reads `unsupported` with the reason."""
    impls = ["turbozarr"] + [i for i, m in OTHER_PEERS.items() if _installed(m)]
    _, _, rows = _run_tiny(write_toml, tmp_path,
                           ["read_roi_straddling", "write_roi_aligned", "create"],
                           ["mean", "nearest"], impls)
    by = {(r["operation"], r["method"], r["impl"]): r for r in rows}
    ours = {k: r for k, r in by.items() if k[2] == "turbozarr"}
    assert all(r["status"] == "ok" and r["agrees"] == "True" for r in ours.values()), ours

    def row(op, impl, method=""):
        return by[(op, method, impl)]

    if "tensorstore" in impls:
        for op in ("read_roi_straddling", "write_roi_aligned"):
            assert row(op, "tensorstore")["agrees"] == "True"
        assert row("create", "tensorstore", "mean")["status"] == "unsupported"
    if "ngff-zarr" in impls:
        assert row("read_roi_straddling", "ngff-zarr")["agrees"] == "True"
        assert "no call that writes into an existing" in row("write_roi_aligned",
                                                             "ngff-zarr")["reason"]
        for method, native in (("mean", "ITKWASM_BIN_SHRINK"), ("nearest", "DASK_IMAGE_NEAREST")):
            r = row("create", "ngff-zarr", method)
            assert r["agrees"] == "True" and native in r["method_native"], r
            assert r["level_shapes"] == "128x128 64x64 32x32"
    if "bioio" in impls:
        assert row("read_roi_straddling", "bioio")["agrees"] == "True"
        assert "every level" in row("write_roi_aligned", "bioio")["reason"]
        assert "nearest-neighbour" in row("create", "bioio", "mean")["reason"]
        nearest = row("create", "bioio", "nearest")
        # resize(order=0) picks the pixel turbozarr's nearest picks.
        assert nearest["agrees"] == "True"
        assert nearest["pyramid_digest"] == row("create", "turbozarr", "nearest")["pyramid_digest"]
    if "iohub" in impls:
        for op in ("read_roi_straddling", "write_roi_aligned"):
            assert row(op, "iohub")["agrees"] == "True"
        # iohub writes blosc only: its create is timed but differs in codec.
        r = row("create", "iohub", "mean")
        assert r["status"] == "ok" and "blosc(zstd" in r["method_native"]
        assert r["level_shapes"] == "128x128 64x64 32x32"
    if "acquire-zarr" in impls:
        for op, method in (("read_roi_straddling", ""), ("write_roi_aligned", ""),
                           ("create", "mean")):
            r = row(op, "acquire-zarr", method)
            assert r["status"] == "unsupported" and r["reason"], r


@pytest.mark.parametrize("layout", ["chunks", "shards", "v2"])
def test_the_codec_ceiling_works_on_the_chunks_the_operation_touches(tmp_path, layout):
    """The payloads a read's ceiling decodes are the stored chunks the region
    overlaps (inner chunks of a shard), decoding to the image's pixels; the
    chunks a write's ceiling encodes are what a write stores."""
    import numcodecs
    import numpy as np

    from turbozarr_bench import ome_ceiling, ome_fixture, ome_tasks
    from turbozarr_bench.datasets.pixels import make_generator

    extra = {"chunks": {}, "shards": {"chunks": [1, 1, 32, 32], "shards": [1, 2, 64, 64]},
             "v2": {"zarr_format": 2}}[layout]
    tables = {"tiny": {"base": "small", "shape": [1, 4, 128, 128], "chunks": [1, 1, 64, 64],
                       "roi_size": 64, **extra}}
    spec = ome_tasks.resolve_image("tiny", tables, "test")
    fixture = ome_fixture.ensure(spec, tmp_path, log=lambda *_: None)
    pixels = make_generator("ome", spec.shape, spec.dtype, spec.seed)
    index = ome_tasks.region(ome_tasks.BY_NAME["read_roi_straddling"], spec)
    coords = ome_ceiling.chunk_grid(spec, index)
    # 64 x 64 from chunk // 2 + 1 over 4 planes: 2 x 2 chunks a plane (3 x 3 of 32).
    assert len(coords) == 4 * (9 if layout == "shards" else 4)
    stored = ome_ceiling.payloads(fixture / "0", spec, coords)
    assert len(stored) == len(coords)
    codec = numcodecs.Zstd()
    for c, payload in zip(coords, stored):
        box = tuple(slice(i * n, (i + 1) * n) for i, n in zip(c, spec.chunks))
        got = np.frombuffer(codec.decode(payload), dtype=spec.dtype).reshape(spec.chunks)
        np.testing.assert_array_equal(got, pixels(box))
    assert ome_ceiling.read_seconds(fixture, spec, index) > 0

    write = ome_tasks.region(ome_tasks.BY_NAME["write_roi_straddling"], spec)
    data = pixels(write)
    chunks = ome_ceiling.write_chunks(spec, write, data)
    assert len(chunks) == len(coords)
    whole = np.full(spec.shape, spec.fill_value, dtype=spec.dtype)
    whole[write] = data
    for c, chunk in zip(coords, chunks):
        box = tuple(slice(i * n, (i + 1) * n) for i, n in zip(c, spec.chunks))
        np.testing.assert_array_equal(chunk, whole[box])
    keys = ome_ceiling.stored_keys(spec, write, chunks)
    # The keys the write stores: every chunk, or the shards that hold them
    # (2 x 2 x 2 of (2, 64, 64): [17, 81) in y and x crosses 64).
    assert sum(len(k[1]) for k in keys) == len(chunks)
    assert len(keys) == (8 if layout == "shards" else len(chunks))
    out = tmp_path / "ceiling"
    assert ome_ceiling.write_seconds(spec, write, data, out) > 0
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert len(files) == ome_ceiling.ROUNDS * len(keys)
    # Each file is its key's chunks encoded one after another, then the index.
    for name, group, index_bytes in keys:
        blob = next(p for p in files if p.name == name and "ceiling-0" in str(p)).read_bytes()
        at = 0
        for chunk in group:
            frame = codec.encode(chunk)
            assert blob[at:at + len(frame)] == frame
            got = np.frombuffer(codec.decode(frame), dtype=spec.dtype)
            np.testing.assert_array_equal(got, chunk.ravel())
            at += len(frame)
        assert len(blob) == at + index_bytes
