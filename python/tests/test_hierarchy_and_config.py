"""The array and group API beyond reads and writes: parent groups made for
nested paths, deleting / moving / renaming members, read_missing_chunks and
the array config, append, and the asyncio variants. Checked against numpy
and, where zarr-python has the same operation, against what it writes and
raises."""

from __future__ import annotations

import asyncio
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import turbozarr as tz

try:
    import zarr
except ImportError:  # the checks against zarr-python skip
    zarr = None

needs_zarr = pytest.mark.skipif(zarr is None, reason="zarr-python is not installed")
ZARR_34 = zarr is not None and tuple(int(p) for p in zarr.__version__.split(".")[:2]) >= (3, 4)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def stored_keys(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def documents(root: Path) -> dict[str, object]:
    """Every metadata document under `root`, parsed."""
    return {k: json.loads((root / k).read_text()) for k in stored_keys(root)
            if k.rsplit("/", 1)[-1] in ("zarr.json", ".zgroup", ".zattrs", ".zarray")}


# -- parents -------------------------------------------------------------------


@needs_zarr
@pytest.mark.parametrize("fmt", [2, 3])
def test_nested_paths_get_the_parent_groups_zarr_python_writes(tmp_path, fmt):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    tz.create(str(ours), shape=(4,), chunks=(2,), dtype="i4", path="a/b/c", zarr_format=fmt)
    zarr.create_array(str(theirs), name="a/b/c", shape=(4,), chunks=(2,), dtype="i4",
                      zarr_format=fmt)
    assert stored_keys(ours) == stored_keys(theirs)
    ours_docs, theirs_docs = documents(ours), documents(theirs)
    for key in ours_docs:
        if not key.startswith("a/b/c/"):  # the groups: identical documents
            assert ours_docs[key] == theirs_docs[key], key
    # zarr-python opens every level of what turbozarr made.
    assert isinstance(zarr.open_group(str(ours), mode="r")["a/b"], zarr.Group)


@pytest.mark.parametrize("fmt", [2, 3])
def test_group_create_array_makes_the_groups_on_its_path(fmt):
    root = tz.group("memory://", zarr_format=fmt)
    root.attrs["title"] = "kept"
    a = root.create_array("x/y/z", shape=(3,), dtype="u1", fill_value=9)
    assert a.path == "x/y/z"
    assert root.group_keys() == ["x"]
    assert root["x"].group_keys() == ["y"]
    assert root["x/y"].array_keys() == ["z"]
    assert dict(root.attrs) == {"title": "kept"}
    np.testing.assert_array_equal(root["x/y/z"][:], [9, 9, 9])


@pytest.mark.parametrize("fmt", [2, 3])
def test_nothing_is_created_below_an_array(tmp_path, fmt):
    tz.create(str(tmp_path), shape=(2,), dtype="i1", path="arr", zarr_format=fmt)
    before = stored_keys(tmp_path)
    with pytest.raises(tz.AlreadyExistsError, match="'arr' is an array"):
        tz.create(str(tmp_path), shape=(2,), dtype="i1", path="arr/inner/x",
                  zarr_format=fmt)
    with pytest.raises(tz.AlreadyExistsError, match="'arr' is an array"):
        tz.open_group(str(tmp_path), mode="r+").create_group("arr/g")
    assert stored_keys(tmp_path) == before


# -- delete, move, rename ------------------------------------------------------------


def hierarchy(store, fmt: int) -> tz.Group:
    root = tz.group(store, zarr_format=fmt)
    a = root.create_array("grp/a", shape=(6, 4), chunks=(2, 2), dtype="f8")
    a[:] = np.arange(24.0).reshape(6, 4)
    root.create_array("grpb", shape=(2,), dtype="i2")[:] = [1, 2]  # shares grp's prefix
    return root


@pytest.mark.parametrize("fmt", [2, 3])
def test_delete_erases_a_member_and_everything_below_it(tmp_path, fmt):
    root = hierarchy(str(tmp_path), fmt)
    del root["grp"]
    assert root.keys() == ["grpb"]
    assert not any(k.startswith("grp/") for k in stored_keys(tmp_path))
    np.testing.assert_array_equal(root["grpb"][:], [1, 2])
    with pytest.raises(KeyError, match="grp"):
        del root["grp"]
    with pytest.raises(tz.ReadOnlyError):
        del tz.open_group(str(tmp_path), mode="r")["grpb"]


@pytest.mark.parametrize("fmt", [2, 3])
def test_move_and_rename_carry_every_chunk(tmp_path, fmt):
    root = hierarchy(str(tmp_path), fmt)
    root.move("grp", "deep/er/grp2")
    assert "grp" not in root
    assert root.keys() == ["deep", "grpb"]
    np.testing.assert_array_equal(root["deep/er/grp2/a"][:], np.arange(24.0).reshape(6, 4))
    root["deep/er"].rename("grp2/a", "b")
    np.testing.assert_array_equal(root["deep/er/grp2/b"][2:4, 1],
                                  np.arange(24.0).reshape(6, 4)[2:4, 1])
    assert root["deep/er/grp2"].keys() == ["b"]
    with pytest.raises(tz.AlreadyExistsError, match="already there"):
        root.move("deep", "grpb")
    with pytest.raises(tz.InvalidArgumentError, match="outside it"):
        root.move("deep", "deep/inside")
    with pytest.raises(KeyError):
        root.move("absent", "elsewhere")
    with pytest.raises(ValueError, match="must be a name"):
        root.rename("grpb", "x/y")
    if zarr is not None:  # zarr-python reads the moved array
        moved = zarr.open_array(str(tmp_path), path="deep/er/grp2/b", mode="r")
        np.testing.assert_array_equal(moved[:], np.arange(24.0).reshape(6, 4))


@pytest.mark.parametrize("fmt", [2, 3])
def test_delete_and_move_rewrite_consolidated_metadata(tmp_path, fmt):
    root = hierarchy(str(tmp_path), fmt).consolidate()
    root.move("grp", "moved")
    del root["grpb"]
    reopened = tz.open_group(str(tmp_path), mode="r")
    assert reopened.is_consolidated
    assert reopened.keys() == ["moved"]
    np.testing.assert_array_equal(reopened["moved/a"][5], [20.0, 21.0, 22.0, 23.0])
    if zarr is not None:
        theirs = zarr.open_consolidated(str(tmp_path), zarr_format=fmt)
        assert sorted(theirs.keys()) == ["moved"]


# -- read_missing_chunks and the array config ------------------------------------------


@pytest.mark.parametrize("shards", [None, (4, 4)])
def test_missing_chunks_raise_when_asked_to(tmp_path, shards):
    a = tz.create(str(tmp_path), shape=(8, 8), chunks=(2, 2) if shards else (4, 4),
                  shards=shards, dtype="i4", fill_value=-1)
    a[:] = np.arange(64).reshape(8, 8)
    (tmp_path / "c" / "1" / "1").unlink()
    strict = tz.open_array(str(tmp_path), config={"read_missing_chunks": False})
    assert strict.config == {"write_empty_chunks": False, "read_missing_chunks": False}
    with pytest.raises(tz.ChunkNotFoundError, match="c/1/1") as err:
        strict[:]
    assert isinstance(err.value, FileNotFoundError)
    for read in (lambda: strict[7, 7], lambda: strict.oindex[[0, 6], [1, 7]],
                 lambda: strict.vindex[[1, 5], [1, 5]],
                 lambda: strict.get_basic_selection(..., out=np.empty((8, 8), "i4"))):
        with pytest.raises(tz.ChunkNotFoundError):
            read()
    np.testing.assert_array_equal(strict[:4], np.arange(32).reshape(4, 8))
    # The default handle, and one made from the strict one, fill.
    assert a[7, 7] == -1
    assert strict.with_config(read_missing_chunks=True)[7, 7] == -1
    assert pickle.loads(pickle.dumps(strict)).read_missing_chunks is False
    with pytest.raises(ValueError, match="unknown config"):
        a.with_config({"no_such_setting": True})


def test_inner_chunks_missing_from_a_stored_shard_read_as_the_fill_value(tmp_path):
    a = tz.create(str(tmp_path), shape=(8,), chunks=(2,), shards=(8,), dtype="u2",
                  fill_value=7, config={"read_missing_chunks": False})
    a[0:2] = [1, 2]
    np.testing.assert_array_equal(a[:], [1, 2, 7, 7, 7, 7, 7, 7])


@needs_zarr
@pytest.mark.skipif(not ZARR_34, reason="read_missing_chunks is zarr-python 3.4's")
def test_read_missing_chunks_agrees_with_zarr_python(tmp_path):
    z = zarr.create_array(str(tmp_path), shape=(8,), chunks=(2,), dtype="i4")
    z[:] = np.arange(8)
    (tmp_path / "c" / "2").unlink()
    theirs = zarr.open_array(str(tmp_path), mode="r",
                             config={"read_missing_chunks": False})
    ours = tz.open_array(str(tmp_path), config={"read_missing_chunks": False})
    for sel in (slice(None), slice(4, 6), slice(0, 4), 5):
        try:
            expected = theirs[sel]
        except zarr.errors.ChunkNotFoundError:
            with pytest.raises(tz.ChunkNotFoundError):
                ours[sel]
        else:
            np.testing.assert_array_equal(ours[sel], expected)


# -- append ----------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_append_grows_the_array_and_writes_the_data(axis):
    start = np.arange(12, dtype="i8").reshape(3, 4)
    a = tz.array(start, chunks=(2, 3))
    extra = np.full((3, 4), 5) if axis == 0 else np.full((3, 5), 5)
    new_shape = a.append(extra, axis=axis)
    expected = np.concatenate([start, extra], axis=axis)
    assert new_shape == a.shape == expected.shape
    np.testing.assert_array_equal(a[:], expected)
    if zarr is not None and axis >= 0:  # zarr-python takes no negative axis
        z = zarr.create_array({}, shape=start.shape, chunks=(2, 3), dtype="i8")
        z[:] = start
        assert z.append(extra, axis=axis) == new_shape


def test_append_refuses_data_of_the_wrong_shape_and_restores_the_shape_on_failure():
    a = tz.array(np.zeros((2, 3), "f4"), chunks=(2, 3))
    with pytest.raises(ValueError, match="does not fit"):
        a.append(np.zeros((2, 4), "f4"))
    with pytest.raises(ValueError, match="dimensions"):
        a.append(np.zeros(3, "f4"))
    with pytest.raises(ValueError, match="out of range"):
        a.append(np.zeros((2, 3), "f4"), axis=2)
    assert a.shape == (2, 3)
    # Data that cannot be written: the shape goes back.
    store = tz.MemoryStore()
    b = tz.create(store, shape=(2,), chunks=(2,), dtype="i2")
    with pytest.raises(ValueError):
        b.append(np.array(["not", "numbers"]))
    assert b.shape == tz.open_array(store).shape == (2,)
    # Chunk writes and erases fail (a full disk): the write's error is raised,
    # with a note that the shape could not go back.
    faulty = tz.FaultStore(tz.MemoryStore(), "write_error", rate=1.0, key_contains="c/")
    c = tz.create(faulty, shape=(2,), chunks=(2,), dtype="i2")
    with pytest.raises(tz.StoreIOError, match="c/1") as err:
        c.append(np.array([1, 2], "i2"))
    assert any("shrunk back" in note for note in err.value.__notes__)


# -- asyncio -------------------------------------------------------------------------


def test_async_variants_read_and_write_off_the_event_loop(tmp_path):
    async def main():
        a = await tz.create_async(str(tmp_path), (100, 10), "u4", chunks=(10, 10))
        await asyncio.gather(*(a.set_async(slice(i * 10, i * 10 + 10), i)
                               for i in range(10)))
        again = await tz.open_array_async(str(tmp_path), mode="r+")
        parts = await asyncio.gather(*(again.get_async(slice(i * 10, i * 10 + 10))
                                       for i in range(10)))
        out = np.empty((100, 10), "u4")
        await again.get_async(out=out)
        shape = await again.append_async(np.ones((5, 10), "u4"))
        group = await tz.open_group_async(str(tmp_path / "g"), mode="a")
        node = await tz.open_async(str(tmp_path))
        return parts, out, shape, group, node

    parts, out, shape, group, node = asyncio.run(main())
    for i, part in enumerate(parts):
        assert (part == i).all()
    np.testing.assert_array_equal(out, np.repeat(np.arange(10, dtype="u4"), 10)[:, None]
                                  * np.ones(10, "u4"))
    assert shape == (105, 10)
    assert isinstance(group, tz.Group) and isinstance(node, tz.Array)


# -- attribute order -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", [2, 3])
def test_attributes_keep_the_order_they_were_written_in(tmp_path, fmt):
    order = {"zeta": 1, "alpha": {"y": 2, "b": [3, {"q": 0, "a": 1}]}, "mid": "m"}
    a = tz.create(str(tmp_path / "a"), shape=(2,), dtype="u1", zarr_format=fmt,
                  attributes=order)
    g = tz.group(str(tmp_path / "g"), zarr_format=fmt, attributes=order)
    for node in (a, g, tz.open(str(tmp_path / "a")), tz.open(str(tmp_path / "g"))):
        assert json.dumps(dict(node.attrs)) == json.dumps(order)
    a.attrs["first_added"] = True
    assert list(tz.open(str(tmp_path / "a")).attrs) == ["zeta", "alpha", "mid", "first_added"]
    root = tz.group(str(tmp_path / "c"), zarr_format=fmt)
    root.create_array("x", shape=(1,), dtype="i1", attributes=order)
    reopened = tz.open_group(str(tmp_path / "c"), mode="r+").consolidate()
    assert json.dumps(dict(reopened["x"].attrs)) == json.dumps(order)
    if zarr is not None:  # zarr-python sees the same order, and keeps its own
        assert json.dumps(dict(zarr.open(str(tmp_path / "a"), mode="r").attrs)) == \
            json.dumps({**order, "first_added": True})
        zarr.create_array(str(tmp_path / "z"), shape=(1,), dtype="i1", zarr_format=fmt,
                          attributes=order)
        assert json.dumps(dict(tz.open(str(tmp_path / "z")).attrs)) == json.dumps(order)
