"""Rectilinear chunk grids (zarr-extensions' "rectilinear"): every chunk along
a dimension may have its own length, and is encoded at that length.

Checked against zarr-python 3.4 (Python 3.12, with its
`array.rectilinear_chunks` switch on): the same metadata document and the
same chunk bytes, both ways, unsharded and sharded; resize grows the grid as
zarr-python grows it; reads and writes of random selections match numpy.
And against zarrs (the Rust library inside the zarrs package), both ways."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz
from support_records import peer

zarr = pytest.importorskip("zarr")
if not hasattr(zarr.Array, "write_chunk_sizes"):
    pytest.skip("zarr-python before 3.2 has no rectilinear grids", allow_module_level=True)
ZARR = peer("zarr")


@pytest.fixture(autouse=True)
def _rectilinear_on():
    with zarr.config.set({"array.rectilinear_chunks": True}):
        yield


def stored(path: Path) -> dict[str, bytes]:
    """Every chunk (shard) file under `path`, by key."""
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file() and p.name != "zarr.json"}


def document(path: Path) -> dict:
    return json.loads((path / "zarr.json").read_text())


LAYOUTS = {
    "unsharded": dict(chunks=[[5, 10, 15], [4, 4, 4, 5]]),
    "mixed": dict(chunks=[[1, 2, 27], 6]),
    "sharded": dict(shards=[[10, 20], [8, 9]], chunks=(5, 1)),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_same_document_and_chunks_as_zarr_python_both_ways(tmp_path, layout, supports):
    shape = (30, 17)
    data = np.arange(np.prod(shape), dtype="i4").reshape(shape)
    theirs, ours = tmp_path / "zp.zarr", tmp_path / "tz.zarr"
    z = zarr.create_array(str(theirs), shape=shape, dtype="i4", **LAYOUTS[layout])
    a = tz.create(str(ours), shape=shape, dtype="i4", **LAYOUTS[layout])
    assert document(ours) == document(theirs)
    assert (ours / "zarr.json").read_text() == (theirs / "zarr.json").read_text()
    assert document(ours)["chunk_grid"]["name"] == "rectilinear"
    z[...] = data
    a[...] = data
    assert stored(ours) == stored(theirs)
    # A partial write: the chunks (shards) it touches are read, merged and
    # stored again, at their own shapes.
    z[12:14, 3:10] = -7
    a[12:14, 3:10] = -7
    assert stored(ours) == stored(theirs)
    expected = data.copy()
    expected[12:14, 3:10] = -7
    read = tz.open_array(str(theirs))
    np.testing.assert_array_equal(read[...], expected)
    np.testing.assert_array_equal(zarr.open_array(str(ours))[...], expected)
    supports.array(read, "read", peer=ZARR)
    supports.array(a, "write", peer=ZARR)


def test_sizes_properties_and_layout_match_zarr_python(tmp_path):
    for name, layout in LAYOUTS.items():
        z = zarr.create_array(str(tmp_path / f"{name}-zp"), shape=(30, 17), dtype="u1",
                              **layout)
        a = tz.open_array(str(tmp_path / f"{name}-zp"))
        assert a.write_chunk_sizes == z.write_chunk_sizes, name
        assert a.read_chunk_sizes == z.read_chunk_sizes, name
        assert a.cdata_shape == tuple(len(s) for s in z.write_chunk_sizes), name
        assert not a.regular_chunks
    a = tz.open_array(str(tmp_path / "unsharded-zp"))
    with pytest.raises(NotImplementedError, match="read_chunk_sizes"):
        a.chunks  # noqa: B018
    assert tz.open_array(str(tmp_path / "sharded-zp")).chunks == (5, 1)
    with pytest.raises(NotImplementedError, match="write_chunk_sizes"):
        tz.open_array(str(tmp_path / "sharded-zp")).shards  # noqa: B018
    assert "rectilinear" in a.info


def test_lists_of_equal_sizes_stay_rectilinear_as_in_zarr_python(tmp_path):
    # The caller's syntax says the grid's kind: a list stays a list (it
    # grows by whole new edges on resize), an integer stays a step.
    a = tz.create(str(tmp_path / "a"), shape=(25, 4), dtype="i2", chunks=[[10, 10, 5], 4])
    z = zarr.create_array(str(tmp_path / "z"), shape=(25, 4), dtype="i2",
                          chunks=[[10, 10, 5], 4])
    assert document(tmp_path / "a")["chunk_grid"] == document(tmp_path / "z")["chunk_grid"]
    assert document(tmp_path / "a")["chunk_grid"]["configuration"]["chunk_shapes"] == [
        [[10, 2], 5], 4]
    assert a.write_chunk_sizes == z.write_chunk_sizes == ((10, 10, 5), (4,))


def test_a_grid_regular_within_the_array_reads_as_the_regular_grid(tmp_path, supports):
    # Written as rectilinear runs, but every chunk touching the array is 10
    # long (the 40 lies past the extent): chunks are encoded at 10 x 6.
    path = tmp_path / "a.zarr"
    z = zarr.create_array(str(path), shape=(30, 6), dtype="f8", chunks=[[7, 23], [6]])
    meta = document(path)
    meta["chunk_grid"]["configuration"]["chunk_shapes"] = [[[10, 3], 40], 6]
    (path / "zarr.json").write_text(json.dumps(meta))
    data = np.random.default_rng(1).random((30, 6))
    a = tz.open_array(str(path), mode="r+")
    assert a.regular_chunks and a.chunks == (10, 6)
    a[...] = data
    z = zarr.open_array(str(path))
    np.testing.assert_array_equal(z[...], data)
    assert z.write_chunk_sizes == a.write_chunk_sizes == ((10, 10, 10), (6,))
    assert document(path)["chunk_grid"] == meta["chunk_grid"], "written back as read"
    supports.array(a, "write", peer=ZARR)


@pytest.mark.parametrize("layout", ["unsharded", "sharded"])
def test_resize_and_append_grow_the_grid_as_zarr_python_does(tmp_path, layout):
    data = np.arange(30 * 17, dtype="i4").reshape(30, 17)
    theirs, ours = tmp_path / "zp.zarr", tmp_path / "tz.zarr"
    z = zarr.create_array(str(theirs), shape=data.shape, dtype="i4", **LAYOUTS[layout])
    a = tz.create(str(ours), shape=data.shape, dtype="i4", **LAYOUTS[layout])
    z[...] = data
    a[...] = data
    z.resize((40, 17))
    a.resize((40, 17))
    assert document(ours)["chunk_grid"] == document(theirs)["chunk_grid"]
    assert a.write_chunk_sizes == z.write_chunk_sizes
    more = -np.arange(10 * 17, dtype="i4").reshape(10, 17)
    z.append(more)
    a.append(more)
    assert document(ours)["chunk_grid"] == document(theirs)["chunk_grid"]
    assert stored(ours) == stored(theirs)
    np.testing.assert_array_equal(a[...], np.concatenate([data, np.zeros_like(more), more]))
    # Shrinking keeps the edges (they may overflow the extent) and erases
    # the chunks wholly outside (those from 15 on), as zarr-python does, so
    # growing again shows the fill value there.
    grid = document(ours)["chunk_grid"]
    a.resize((12, 17))
    z.resize((12, 17))
    assert document(ours)["chunk_grid"] == grid == document(theirs)["chunk_grid"]
    assert stored(ours) == stored(theirs)
    a.resize((50, 17))
    np.testing.assert_array_equal(a[:12], data[:12])
    np.testing.assert_array_equal(a[15 if layout == "unsharded" else 30:], 0)


def test_missing_chunks_and_fill_values(tmp_path, supports):
    path = tmp_path / "a.zarr"
    a = tz.create(str(path), shape=(12, 9), dtype="f4", chunks=[[2, 10], [3, 6]],
                  fill_value=-1.5)
    a[0:2, 0:3] = 4.0
    assert sorted(stored(path)) == ["c/0/0"]
    expected = np.full((12, 9), -1.5, dtype="f4")
    expected[0:2, 0:3] = 4.0
    np.testing.assert_array_equal(a[...], expected)
    np.testing.assert_array_equal(zarr.open_array(str(path))[...], expected)
    supports.array(a, "write", peer=ZARR)
    strict = a.with_config({"read_missing_chunks": False})
    with pytest.raises(tz.ChunkNotFoundError, match="c/1/1"):
        strict[5, 5]
    a[2:12, 3:9] = -1.5  # all fill: nothing stored
    assert sorted(stored(path)) == ["c/0/0"]


def test_variable_length_strings(tmp_path, supports):
    data = np.array([f"s{i}" * (i % 4) for i in range(23)], dtype=object)
    theirs, ours = tmp_path / "zp.zarr", tmp_path / "tz.zarr"
    z = zarr.create_array(str(theirs), shape=(23,), dtype=str, chunks=[[3, 15, 5]])
    a = tz.create(str(ours), shape=(23,), dtype=str, chunks=[[3, 15, 5]])
    z[...] = data
    a[...] = data
    assert stored(ours) == stored(theirs)  # zarr-python's bytes
    read = tz.open_array(str(theirs))
    assert list(read[2:20]) == list(data[2:20])
    supports.array(read, "read", peer=ZARR)
    supports.array(a, "write", peer=ZARR)


def test_random_selections_match_numpy(tmp_path, supports):
    rng = np.random.default_rng(7)
    for trial in range(25):
        rank = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 20)) for _ in range(rank))
        chunks = []
        for extent in shape:
            if rng.random() < 0.3:
                chunks.append(int(rng.integers(1, extent + 1)))
                continue
            cuts = sorted(set(rng.integers(1, extent, size=int(rng.integers(0, 4))).tolist())
                          ) if extent > 1 else []
            bounds = [0, *cuts, extent]
            chunks.append([b - a for a, b in zip(bounds, bounds[1:])])
        path = tmp_path / f"t{trial}.zarr"
        a = tz.create(str(path), shape=shape, dtype="i8", chunks=chunks, fill_value=-1)
        expected = np.full(shape, -1, dtype="i8")
        for _ in range(6):
            key = tuple(slice(int(lo), int(hi), int(step)) for lo, hi, step in (
                sorted(rng.integers(0, e + 1, size=2)) + [rng.integers(1, 4)]
                for e in shape))
            values = rng.integers(0, 1000, size=expected[key].shape)
            a[key] = values
            expected[key] = values
            probe = tuple(slice(int(lo), int(hi), int(step)) for lo, hi, step in (
                sorted(rng.integers(0, e + 1, size=2)) + [rng.integers(1, 4)]
                for e in shape))
            np.testing.assert_array_equal(a[probe], expected[probe], err_msg=f"{chunks}")
        np.testing.assert_array_equal(zarr.open_array(str(path))[...], expected)
        supports.array(a, "write", peer=ZARR)
        rows = np.sort(rng.choice(shape[0], size=min(3, shape[0]), replace=False))
        np.testing.assert_array_equal(a.oindex[(rows,)], expected[rows])
        points = tuple(rng.integers(0, e, size=5) for e in shape)
        np.testing.assert_array_equal(a.vindex[points], expected[points])


def test_blocks_follow_the_chunks(tmp_path):
    a = tz.create(str(tmp_path / "a"), shape=(30, 17), dtype="i4",
                  chunks=[[5, 10, 15], [4, 4, 4, 5]])
    data = np.arange(30 * 17, dtype="i4").reshape(30, 17)
    a[...] = data
    np.testing.assert_array_equal(a.blocks[1, 3], data[5:15, 12:17])
    np.testing.assert_array_equal(a.blocks[1:, -1], data[5:30, 12:17])
    a.blocks[2, 0] = 0
    assert (a[15:30, 0:4] == 0).all() and (a[15:30, 4:] == data[15:30, 4:]).all()


def test_dask_blocks_are_the_stored_chunks(tmp_path):
    da = pytest.importorskip("dask.array")
    a = tz.create(str(tmp_path / "a"), shape=(30, 17), dtype="i4",
                  chunks=[[5, 10, 15], [4, 4, 4, 5]])
    data = np.arange(30 * 17, dtype="i4").reshape(30, 17)
    a[...] = data
    d = tz.to_dask(a)
    assert d.chunks == ((5, 10, 15), (4, 4, 4, 5))
    np.testing.assert_array_equal(d.compute(), data)
    target = tz.create(str(tmp_path / "b"), shape=(30, 17), dtype="i4",
                       chunks=[[5, 10, 15], [4, 4, 4, 5]])
    tz.store(da.from_array(data, chunks=(7, 7)), target, scheduler="threads")
    np.testing.assert_array_equal(target[...], data)


@pytest.mark.parametrize("store", ["local", "memory"])
@pytest.mark.parametrize("sharded", [False, True])
def test_the_zarr_python_pipeline_runs_rectilinear_arrays_on_the_engine(tmp_path, supports,
                                                                          sharded, store):
    pytest.importorskip("turbozarr.zarr_pipeline")
    # A local directory the engine reads and writes itself; a MemoryStore
    # whose chunks are staged through zarr-python's store methods.
    path = str(tmp_path / "a.zarr") if store == "local" else zarr.storage.MemoryStore()
    rng = np.random.default_rng(5)
    data = rng.integers(0, 1000, (30, 17)).astype("i4")
    grid = ([[6, 10, 14], [4, 4, 4, 5]] if sharded else [[5, 10, 15], [4, 4, 4, 5]])
    kwargs = dict(shards=grid, chunks=(2, 1)) if sharded else dict(chunks=grid)
    strict = {"codec_pipeline.path": "turbozarr.ZarrCodecPipeline",
              "codec_pipeline.strict": True}
    with zarr.config.set(strict):  # a fallback to zarr-python's pipeline would raise
        z = zarr.create_array(path, shape=data.shape, dtype="i4", fill_value=-1, **kwargs)
        z[...] = data
        z[3:21, 2:9] = 7          # partial writes across chunk edges
        z[29, :] = 8              # the last row, in the last chunk row
        expected = data.copy()
        expected[3:21, 2:9] = 7
        expected[29, :] = 8
        z = zarr.open_array(path)
        np.testing.assert_array_equal(z[...], expected)
        np.testing.assert_array_equal(z[4:28:3, 1:16:2], expected[4:28:3, 1:16:2])
        rows, cols = [0, 4, 5, 14, 15, 29], [3, 4, 12, 16]
        np.testing.assert_array_equal(z.oindex[rows, cols], expected[np.ix_(rows, cols)])
        np.testing.assert_array_equal(z.vindex[rows, [0, 1, 2, 3, 4, 5]],
                                      expected[rows, [0, 1, 2, 3, 4, 5]])
        z.oindex[[1, 16], [0, 13]] = 9
        expected[np.ix_([1, 16], [0, 13])] = 9
    # The same bytes as zarr-python's own pipeline reads them, and turbozarr.
    np.testing.assert_array_equal(zarr.open_array(path)[...], expected)
    if store == "memory":
        return
    read = tz.open_array(path)
    np.testing.assert_array_equal(read[...], expected)
    # Written by the engine through zarr-python's own API, read back by
    # zarr-python's default pipeline.
    supports.array(read, "write", peer=f"{ZARR} (codec pipeline)", kinds=("layout",))


def test_bad_grids_are_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="do not sum to the extent 30"):
        tz.create(str(tmp_path / "a"), shape=(30,), dtype="i4", chunks=[[10, 10]])
    with pytest.raises(ValueError, match="format 2"):
        tz.create(str(tmp_path / "b"), shape=(30,), dtype="i4", chunks=[[10, 20]],
                  zarr_format=2)
    with pytest.raises(ValueError, match="not divisible by the inner chunk size 4"):
        tz.create(str(tmp_path / "c"), shape=(30,), dtype="i4", shards=[[8, 22]], chunks=(4,))
    # A stored document whose sharded grid is not a whole number of inner
    # chunks, or whose edges do not cover the shape, is refused naming it.
    path = tmp_path / "d.zarr"
    zarr.create_array(str(path), shape=(30,), dtype="i4", shards=[[8, 22]], chunks=(2,))
    meta = document(path)
    meta["codecs"][0]["configuration"]["chunk_shape"] = [4]
    (path / "zarr.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="22 in dimension 0 is not divisible"):
        tz.open_array(str(path))
    meta["codecs"][0]["configuration"]["chunk_shape"] = [2]
    meta["chunk_grid"]["configuration"]["chunk_shapes"] = [[8, 20]]
    (path / "zarr.json").write_text(json.dumps(meta))
    with pytest.raises(tz.CorruptionError, match="sum to 28, less than the extent 30"):
        tz.open_array(str(path))


def _zarrs_items(rows: list[int], cols: list[int]):
    """zarrs' chunk items for a grid of these edges over the whole array,
    each chunk at its own shape."""
    internal = pytest.importorskip("zarrs._internal")
    row_bounds = np.cumsum([0, *rows])
    col_bounds = np.cumsum([0, *cols])
    shape = [int(row_bounds[-1]), int(col_bounds[-1])]
    return [internal.ChunkItem(f"c/{i}/{j}", [slice(0, r1 - r0), slice(0, c1 - c0)],
                               [int(r1 - r0), int(c1 - c0)], [slice(r0, r1), slice(c0, c1)],
                               shape)
            for i, (r0, r1) in enumerate(zip(row_bounds, row_bounds[1:]))
            for j, (c0, c1) in enumerate(zip(col_bounds, col_bounds[1:]))]


def _zarrs_pipeline(path: Path):
    internal = pytest.importorskip("zarrs._internal")
    return internal.CodecPipelineImpl((path / "zarr.json").read_text(),
                                      store_config=zarr.storage.LocalStore(str(path)))


ROWS, COLS = [5, 10, 15], [4, 4, 4, 5]


def test_zarrs_reads_what_turbozarr_writes(tmp_path, supports):
    path = tmp_path / "tz.zarr"
    data = np.random.default_rng(3).integers(-99, 99, size=(30, 17)).astype("i4")
    a = tz.create(str(path), shape=data.shape, dtype="i4", chunks=[ROWS, COLS],
                  compressors=[{"name": "zstd", "configuration": {"level": 3}}])
    a[...] = data
    got = np.zeros_like(data)
    _zarrs_pipeline(path).retrieve_chunks_and_apply_index(_zarrs_items(ROWS, COLS), got)
    np.testing.assert_array_equal(got, data)
    supports.array(a, "write", peer=peer("zarrs"))


def test_turbozarr_reads_what_zarrs_writes(tmp_path, supports):
    path = tmp_path / "zarrs.zarr"
    path.mkdir()
    meta = {"zarr_format": 3, "node_type": "array", "shape": [30, 17], "data_type": "int32",
            "chunk_grid": {"name": "rectilinear",
                           "configuration": {"kind": "inline",
                                             "chunk_shapes": [ROWS, [[4, 3], 5]]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "gzip", "configuration": {"level": 1}}]}
    (path / "zarr.json").write_text(json.dumps(meta))
    data = np.random.default_rng(4).integers(-99, 99, size=(30, 17)).astype("i4")
    _zarrs_pipeline(path).store_chunks_with_indices(_zarrs_items(ROWS, COLS), data, True)
    assert len(stored(path)) == 12
    np.testing.assert_array_equal(tz.open_array(str(path))[...], data)
    # zarrs stored each chunk at its own shape: c/2/3 holds 15 x 5 elements.
    assert len(gzip.decompress(stored(path)["c/2/3"])) == 15 * 5 * 4
    read = tz.open_array(str(path))
    assert read.write_chunk_sizes == (tuple(ROWS), tuple(COLS))
    supports.array(read, "read", peer=peer("zarrs"))


def test_xarray_opens_a_rectilinear_variable_with_a_dask_chunk_per_stored_chunk(tmp_path):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("dask")
    from turbozarr.xarray_backend import TurbozarrBackendEntrypoint
    data = np.arange(30 * 17, dtype="f4").reshape(30, 17)
    g = tz.group(str(tmp_path / "ds.zarr"))
    v = g.create_array("v", shape=data.shape, dtype="f4", chunks=[ROWS, COLS],
                       dimension_names=["y", "x"])
    v[...] = data
    ds = xr.open_dataset(str(tmp_path / "ds.zarr"), engine=TurbozarrBackendEntrypoint,
                         chunks={})
    assert ds.v.chunks == (tuple(ROWS), tuple(COLS))
    np.testing.assert_array_equal(ds.v.values, data)
    np.testing.assert_array_equal(ds.v[3:20].values, data[3:20])
