"""Orthogonal, coordinate, mask and block selections (a.oindex, a.vindex,
a.blocks, the get_/set_*_selection methods and a[...] with index arrays):
property-based against numpy over random layouts, then the explicit cases,
the chunks a gather and a scatter touch, and zarr-python 3.4's answers on
the same stored arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import turbozarr as tz
from conftest import assert_bit_equal, random_data
from turbozarr.errors import ReadOnlyError

PROPERTY = settings(deadline=None, max_examples=60, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

# (dtype for create, dtype for random_data, zarr_format)
KINDS = [("i4", "i4", 3), ("f8", "f8", 3), ("u1", "u1", 2), (">i2", ">i2", 2),
         (str, "string", 3), (bytes, "bytes", 2)]


@st.composite
def layouts(draw):
    """An array of random shape, chunks, shards, type and format, holding
    random values, and those values in numpy."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 9)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, n)) for n in shape)
    dtype, data_dtype, zarr_format = draw(st.sampled_from(KINDS))
    shards = None
    if zarr_format == 3 and draw(st.booleans()):
        shards = tuple(c * draw(st.integers(1, 3)) for c in chunks)
    a = tz.create("memory://", shape=shape, dtype=dtype, chunks=chunks, shards=shards,
                  zarr_format=zarr_format)
    data = random_data(data_dtype, shape, np.random.default_rng(draw(st.integers(0, 99))))
    a[...] = data
    return a, data


def dim_keys(n: int):
    """One dimension of an orthogonal selection of an extent-`n` dimension."""
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    return st.one_of(
        st.integers(-n, n - 1),
        st.builds(slice, bound, bound, st.sampled_from([None, 1, 2, 3, -1, -2])),
        st.lists(st.integers(-n, n - 1), max_size=7),
        st.lists(st.integers(0, n - 1), max_size=7, unique=True).map(
            lambda v: np.array(sorted(v), dtype=np.int64)),
        st.lists(st.booleans(), min_size=n, max_size=n).map(np.array),
    )


def numpy_positions(key, n: int) -> np.ndarray:
    if isinstance(key, slice):
        return np.arange(n)[key]
    k = np.asarray(key)
    if k.dtype == bool:
        return np.flatnonzero(k)
    return k.astype(np.intp).reshape(-1) % max(n, 1) if k.size else k.astype(np.intp)


def numpy_oindex(shape, key) -> tuple[tuple, tuple[int, ...]]:
    """numpy's index of the orthogonal selection `key` (np.ix_) and the
    result's shape (integer dimensions dropped)."""
    positions = [numpy_positions(k, n) for k, n in zip(key, shape)]
    kept = tuple(len(p) for p, k in zip(positions, key) if not isinstance(k, int))
    return np.ix_(*positions), kept


def values_like(data: np.ndarray, shape, seed: int) -> np.ndarray:
    kind = {"T": "string", "O": "bytes"}.get(data.dtype.kind, data.dtype.str)
    return random_data(kind, shape, np.random.default_rng(seed)).astype(data.dtype)


# -- properties against numpy -----------------------------------------------------


@st.composite
def orthogonal_cases(draw):
    a, data = draw(layouts())
    key = tuple(draw(dim_keys(n)) for n in a.shape)
    return a, data, key


@PROPERTY
@given(orthogonal_cases(), st.integers(0, 99))
def test_orthogonal_reads_and_writes_match_numpy(case, seed):
    a, data, key = case
    where, shape = numpy_oindex(a.shape, key)
    assert_bit_equal(a.oindex[key], data[where].reshape(shape))
    values = values_like(data, shape, seed)
    a.oindex[key] = values
    data[where] = values.reshape(data[where].shape)  # the last of repeats wins, as here
    assert_bit_equal(a[...], data)


@st.composite
def point_cases(draw):
    """An array, and a coordinate or a mask selection of it with numpy's index."""
    a, data = draw(layouts())
    if draw(st.booleans()):
        k = draw(st.integers(0, 8))
        key = tuple(draw(st.lists(st.integers(-n, n - 1), min_size=k, max_size=k))
                    for n in a.shape)
        return a, data, key, tuple(np.array(k, dtype=np.intp) for k in key)
    bits = draw(st.lists(st.booleans(), min_size=data.size, max_size=data.size))
    mask = np.array(bits, dtype=bool).reshape(a.shape)
    return a, data, mask, mask


@PROPERTY
@given(point_cases(), st.integers(0, 99))
def test_point_reads_and_writes_match_numpy(case, seed):
    a, data, key, where = case
    assert_bit_equal(a.vindex[key], data[where])
    assert_bit_equal(a[key], data[where])  # a[...] sends both kinds to vindex
    get = a.get_mask_selection if key is where else a.get_coordinate_selection
    assert_bit_equal(get(key), data[where])
    values = values_like(data, data[where].shape, seed)
    a.vindex[key] = values
    data[where] = values  # the last of repeated points wins, as here
    assert_bit_equal(a[...], data)


# -- explicit cases -----------------------------------------------------------------


@pytest.fixture
def grid(tmp_path):
    data = np.arange(40 * 30, dtype="i4").reshape(40, 30)
    a = tz.create(str(tmp_path / "g"), shape=data.shape, dtype="i4", chunks=(8, 7))
    a[...] = data
    return a, data


def test_negative_repeated_unsorted_indices(grid):
    a, data = grid
    rows, cols = [5, -1, 5, 0, 17, 5], [29, -30, 3, 3]
    assert_bit_equal(a.oindex[rows, cols], data[np.ix_(rows, cols)])
    assert_bit_equal(a.oindex[rows, 4], data[rows, 4])
    assert_bit_equal(a.oindex[::-3, cols], data[::-3][:, cols])
    assert_bit_equal(a.vindex[rows[:4], cols], data[rows[:4], cols])
    assert_bit_equal(a.vindex[np.array([[1, -2], [3, 4]]), 6],
                     data[np.array([[1, -2], [3, 4]]), 6])


def test_empty_selections(grid):
    a, data = grid
    assert a.oindex[[], :].shape == (0, 30)
    assert a.oindex[np.zeros(40, bool), [1, 2]].shape == (0, 2)
    assert a.vindex[[], []].shape == (0,)
    assert a.get_mask_selection(np.zeros((40, 30), bool)).shape == (0,)
    assert a.oindex[[], :].dtype == a.dtype
    a.oindex[[], :] = 5
    a.vindex[[], []] = []
    a.set_mask_selection(np.zeros((40, 30), bool), 1)
    assert_bit_equal(a[...], data)


def test_bad_selections_raise_index_errors(grid):
    a, _ = grid
    with pytest.raises(IndexError, match="boolean index did not match axis 0"):
        a.oindex[np.ones(41, bool), :]
    with pytest.raises(IndexError, match="invalid mask selection"):
        a.get_mask_selection(np.ones((40, 29), bool))
    with pytest.raises(IndexError, match="invalid mask selection"):
        a.vindex[np.ones((40, 29), bool)] = 1
    with pytest.raises(IndexError, match="index 40 is out of bounds for axis 0"):
        a.oindex[[0, 40], :]
    with pytest.raises(IndexError, match="index -31 is out of bounds for axis 1"):
        a.vindex[[0, 1], [0, -31]]
    with pytest.raises(IndexError, match="index 30 is out of bounds for axis 1"):
        a.oindex[1, np.array([30], dtype=np.uint64)]
    with pytest.raises(IndexError, match="index 99 is out of bounds"):
        a[[1, 2], [3, 99]]
    with pytest.raises(IndexError, match="1-dimensional"):
        a.oindex[np.zeros((2, 2), int), :]
    with pytest.raises(IndexError, match="broadcast"):
        a.vindex[[1, 2, 3], [1, 2]]
    with pytest.raises(IndexError, match="coordinate selection"):
        a.get_coordinate_selection(([1, 2],))
    with pytest.raises(IndexError, match="vectorized"):
        a.vindex[1:3, [1, 2]]
    with pytest.raises(IndexError, match="block index 6"):
        a.blocks[6, 0]
    with pytest.raises(IndexError):
        a.oindex[[0.5], :]
    with pytest.raises(ValueError, match="step cannot be zero"):
        a.oindex[::0, [1]]


def test_out_is_checked_and_filled(grid):
    a, data = grid
    for get, key, want in [
        (a.get_orthogonal_selection, ([3, 9, 20], slice(2, 9)), data[[3, 9, 20], 2:9]),
        (a.get_orthogonal_selection, ([20, 3, 3], slice(None, None, -5)),
         data[[20, 3, 3]][:, ::-5]),
        (a.get_coordinate_selection, ([3, 9, 20], [0, 29, 1]), data[[3, 9, 20], [0, 29, 1]]),
        (a.get_mask_selection, data % 11 == 0, data[data % 11 == 0]),
        (a.get_block_selection, (1, slice(2, 4)), data[8:16, 14:28]),
    ]:
        out = np.full(want.shape, -7, dtype="i4")
        assert get(key, out=out) is out
        assert_bit_equal(out, want)
        with pytest.raises(ValueError, match="out has shape"):
            get(key, out=np.empty(want.shape + (1,), dtype="i4"))
        with pytest.raises(ValueError, match="out has shape"):
            get(key, out=np.empty(want.shape, dtype="i8"))
    strided = np.zeros((6, 7), dtype="i4")[::2]  # not contiguous: filled through a copy
    a.get_orthogonal_selection(([1, 2, 39], slice(0, 7)), out=strided)
    assert_bit_equal(strided, data[[1, 2, 39], :7])


def test_variable_length_strings_and_bytes(tmp_path):
    rng = np.random.default_rng(4)
    for dtype, kind, fmt in [(str, "string", 3), (bytes, "bytes", 2), (str, "string", 2)]:
        data = random_data(kind, (9, 5), rng)
        a = tz.create(str(tmp_path / f"{kind}{fmt}"), shape=data.shape, dtype=dtype,
                      chunks=(4, 2), zarr_format=fmt)
        a[...] = data
        assert_bit_equal(a.oindex[[8, 0, 8], [4, 1]], data[np.ix_([8, 0, 8], [4, 1])])
        assert_bit_equal(a.vindex[[8, 0, 3], [4, 1, 1]], data[[8, 0, 3], [4, 1, 1]])
        mask = np.arange(45).reshape(9, 5) % 4 == 0
        assert_bit_equal(a[mask], data[mask])
        new = random_data(kind, (3, 2), rng)
        a.oindex[[1, 7, 2], [0, 3]] = new
        data[np.ix_([1, 7, 2], [0, 3])] = new
        a.vindex[[0, 8], [0, 4]] = new[0]
        data[[0, 8], [0, 4]] = new[0]
        assert_bit_equal(a[...], data)


def test_v2_big_endian(tmp_path):
    data = (np.arange(12 * 10).reshape(12, 10) / 3).astype(">f8")
    a = tz.create(str(tmp_path / "be"), shape=data.shape, dtype=">f8", chunks=(5, 3),
                  zarr_format=2)
    a[...] = data
    got = a.oindex[[11, 0, 4], 1::4]
    assert got.dtype == np.dtype(">f8")
    assert_bit_equal(got, data[[11, 0, 4]][:, 1::4])
    assert_bit_equal(a.vindex[[2, 3], [9, 0]], data[[2, 3], [9, 0]])
    out = np.empty((3,), dtype=">f8")
    assert_bit_equal(a.get_coordinate_selection(([1, 5, 11], [1, 2, 3]), out=out),
                     data[[1, 5, 11], [1, 2, 3]])
    a.oindex[[1, 10], [2, 8]] = np.array([[1, 2], [3, 4]], dtype="<f8")
    data[np.ix_([1, 10], [2, 8])] = [[1, 2], [3, 4]]
    assert_bit_equal(a[...], data)


def test_sharded_arrays(tmp_path):
    rng = np.random.default_rng(8)
    data = rng.integers(0, 1000, size=(50, 40)).astype("u2")
    a = tz.create(str(tmp_path / "sh"), shape=data.shape, dtype="u2", chunks=(5, 4),
                  shards=(20, 16))
    a[...] = data
    rows = np.sort(rng.choice(50, size=12, replace=False))
    assert_bit_equal(a.oindex[rows, [39, 0, 17]], data[np.ix_(rows, [39, 0, 17])])
    assert_bit_equal(a.blocks[1, 2], data[20:40, 32:40])
    a.oindex[rows, 3:30:7] = 7
    data[np.ix_(rows, range(3, 30, 7))] = 7
    a.vindex[[49, 0, 21], [0, 39, 21]] = [1, 2, 3]
    data[[49, 0, 21], [0, 39, 21]] = [1, 2, 3]
    assert_bit_equal(tz.open(str(tmp_path / "sh"))[...], data)


def test_getitem_dispatches_like_zarr_python(tmp_path):
    data = np.arange(4 * 5 * 6, dtype="i2").reshape(4, 5, 6)
    a = tz.create(str(tmp_path / "d"), shape=data.shape, dtype="i2", chunks=(3, 2, 4))
    a[...] = data
    assert_bit_equal(a[[3, 1]], data[[3, 1]])  # one array: orthogonal
    assert_bit_equal(a[[3, 1], [0, 4], [5, 5]], data[[3, 1], [0, 4], [5, 5]])  # points
    assert_bit_equal(a[1, [0, 4], [5, 2]], data[1, [0, 4], [5, 2]])
    assert_bit_equal(a[data > 100], data[data > 100])  # a mask
    assert_bit_equal(a[np.array([True, False, True, True]), :, 2], data[[0, 2, 3], :, 2])
    # zarr-python takes an integer beside one array orthogonally (numpy would
    # move the array's axis first)
    assert_bit_equal(a[0, :, [1, 2]], data[0][:, [1, 2]])
    assert_bit_equal(a[..., [5, 0]], data[..., [5, 0]])
    with pytest.raises(IndexError):
        a[[0, 1], [1, 2], :]  # two arrays beside a slice: neither kind in zarr-python
    a[[2, 0], 1:3] = -1
    data[[2, 0], 1:3] = -1
    a[[0, 3], [4, 4], [1, 0]] = [8, 9]
    data[[0, 3], [4, 4], [1, 0]] = [8, 9]
    a[data == 9] = 10
    data[data == 9] = 10
    assert_bit_equal(a[...], data)


def test_blocks(grid):
    a, data = grid
    assert_bit_equal(a.blocks[4, 4], data[32:40, 28:30])
    assert_bit_equal(a.blocks[-1, 1:3], data[32:40, 7:21])
    assert_bit_equal(a.blocks[:2], data[:16])
    a.blocks[0, 0] = 0
    data[:8, :7] = 0
    assert_bit_equal(a[...], data)


def test_bad_writes_change_nothing(grid):
    a, data = grid
    with pytest.raises(ValueError):
        a.oindex[[1, 30], [2, 20, 3]] = np.zeros((2, 2))
    with pytest.raises(ValueError):
        a.vindex[[1, 30], [2, 20]] = ["x", "y"]
    with pytest.raises(IndexError):
        a.oindex[[1, 40], :] = 0
    assert_bit_equal(a[...], data)
    b = tz.open(a.store, mode="r", path=a.path)
    with pytest.raises(ReadOnlyError):
        b.oindex[[1], :] = 0
    with pytest.raises(ReadOnlyError):
        b.vindex[[1], [1]] = 0


# -- which chunks a gather and a scatter touch ----------------------------------------


def test_index_runs():
    # A regular progression is one strided box; other indices one box per
    # chunk they fall into, none for the chunks between.
    from turbozarr._fancy_indexing import _plan_dim

    plan = _plan_dim(np.array([3, 7, 11]), 8)
    assert [(r.range, r.take) for r in plan.runs] == [((3, 12, 4), None)]
    plan = _plan_dim(np.array([1, 2, 9, 14, 30, 31]), 8)
    assert [r.range for r in plan.runs] == [(1, 3, 1), (9, 15, 5), (30, 32, 1)]
    assert [r.take for r in plan.runs] == [None, None, None]
    plan = _plan_dim(np.array([31, 1, 2, 6, 1, 30]), 8)  # unsorted, repeated
    assert [r.range for r in plan.runs] == [(1, 7, 1), (30, 32, 1)]
    assert plan.runs[0].take.tolist() == [0, 1, 5] and plan.runs[1].take is None
    assert plan.post.tolist() == [4, 0, 1, 2, 0, 3]


def test_sorted_gather_reads_each_touched_chunk_once(tmp_path):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((20_000, 8)).astype("f4")
    tz.create(str(tmp_path / "m"), shape=data.shape, dtype="f4", chunks=(100, 8))[...] = data
    m = tz.MetricsStore(tz.open_store(str(tmp_path / "m")))
    a = tz.open_array(m)
    rows = np.sort(rng.choice(20_000, size=300, replace=False))
    m.reset_metrics()
    assert_bit_equal(a.oindex[rows, :], data[rows])
    assert m.metrics()["gets"] == len(np.unique(rows // 100))
    m.reset_metrics()
    assert_bit_equal(a[rows], data[rows])
    assert m.metrics()["gets"] == len(np.unique(rows // 100))


def test_scattered_writes_touch_only_chunks_with_selected_elements(tmp_path):
    data = np.arange(64 * 64, dtype="i4").reshape(64, 64)
    tz.create(str(tmp_path / "w"), shape=data.shape, dtype="i4", chunks=(8, 8))[...] = data
    m = tz.MetricsStore(tz.open_store(str(tmp_path / "w")))
    a = tz.open_array(m, mode="r+")
    m.reset_metrics()
    a.oindex[[60, 0, 1], [41, 5, 40]] = -1  # chunk rows {0, 7} x chunk columns {0, 5}
    data[np.ix_([60, 0, 1], [41, 5, 40])] = -1
    assert (m.metrics()["gets"], m.metrics()["sets"]) == (4, 4)
    m.reset_metrics()
    a.vindex[[3, 63, 4], [3, 0, 60]] = -2  # chunks (0, 0), (7, 0), (0, 7)
    data[[3, 63, 4], [3, 0, 60]] = -2
    assert (m.metrics()["gets"], m.metrics()["sets"]) == (3, 3)
    assert_bit_equal(a[...], data)


# -- zarr-python 3.4 on the same stored arrays ---------------------------------------


def test_same_answers_as_zarr_python(tmp_path):
    zarr = pytest.importorskip("zarr", minversion="3.4")
    rng = np.random.default_rng(11)
    layouts = [dict(zarr_format=3, chunks=(4, 3, 5)),
               dict(zarr_format=3, chunks=(2, 3, 5), shards=(4, 6, 10)),
               dict(zarr_format=2, chunks=(3, 4, 4))]
    data = rng.integers(-1000, 1000, size=(9, 7, 12)).astype("i4")
    mask = rng.random(data.shape) < 0.2
    oindex_keys = [([8, 0, 3], slice(None), 2), (slice(1, 8, 3), [6, 0, 0], [11, -1]),
                   (np.array([True, False] * 4 + [True]), 4, slice(2, None)), [0, 8],
                   (Ellipsis, 3), (slice(None), slice(None), np.array([3, 3, 0])), (1, 2, 3)]
    vindex_keys = [([1, 1, 2], [0, 6, 3], [4, 4, 11]), (2, [1, 5], [0, 10]), mask]
    # a[...] sends these to orthogonal or vectorized indexing
    getitem_keys = [k for k in oindex_keys + vindex_keys if k is not oindex_keys[1]]
    for i, layout in enumerate(layouts):
        path = str(tmp_path / f"z{i}.zarr")
        z = zarr.create_array(path, shape=data.shape, dtype="i4", **layout)
        z[...] = data
        a = tz.open(path)
        for key in getitem_keys:
            assert_bit_equal(a[key], z[key])
        for key in oindex_keys:
            assert_bit_equal(a.oindex[key], z.oindex[key])
        for key in vindex_keys:
            assert_bit_equal(a.vindex[key], z.vindex[key])
        assert_bit_equal(a.get_orthogonal_selection(oindex_keys[0], out=np.empty((3, 7), "i4")),
                         z.get_orthogonal_selection(oindex_keys[0]))
        assert_bit_equal(a.get_coordinate_selection(vindex_keys[0], out=np.empty(3, "i4")),
                         z.get_coordinate_selection(vindex_keys[0]))
        for key in [oindex_keys[1]]:  # two arrays beside a slice: neither kind
            with pytest.raises(IndexError):
                z[key]
            with pytest.raises(IndexError):
                a[key]
        for key in [(1, 0), (slice(1, 3), -1), (slice(None),)]:
            assert_bit_equal(a.blocks[key], z.blocks[key])
        for bad in [([0, 9], 0, 0), (np.ones(8, bool), 0, 0)]:
            with pytest.raises(IndexError):
                z.oindex[bad]
            with pytest.raises(IndexError):
                a.oindex[bad]
        # writes by one are read by the other
        w = tz.open(path, mode="r+")
        w.oindex[[7, 1], 3, [0, 11]] = [[1, 2], [3, 4]]
        w.vindex[[0, 8], [6, 6], [11, 0]] = [5, 6]
        expected = data.copy()
        expected[np.ix_([7, 1], [3], [0, 11])] = np.array([[1, 2], [3, 4]])[:, None, :]
        expected[[0, 8], [6, 6], [11, 0]] = [5, 6]
        assert_bit_equal(zarr.open_array(path, mode="r")[...], expected)
