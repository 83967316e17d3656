"""dest[...] = source for two turbozarr arrays: the engine copies unit by unit
where the layouts allow it and in streamed blocks where they do not; either
way every element arrives, what zarr-python reads agrees, and selections that
are not the whole array still take the source's values."""

from __future__ import annotations

import numpy as np
import pytest
import zarr

import turbozarr as tz
from conftest import assert_bit_equal, random_data

SHAPE = (37, 26)


def make_source(path, data, **layout):
    src = tz.create(str(path), shape=data.shape, dtype=data.dtype, **layout)
    src[...] = data
    return src


@pytest.mark.parametrize("src_layout,dst_layout", [
    # Unit by unit: each destination shard or chunk holds whole source chunks.
    (dict(chunks=(8, 13)), dict(chunks=(8, 13), compressors=[{"name": "gzip"}])),
    (dict(chunks=(8, 13)), dict(chunks=(8, 13), shards=(16, 26))),
    (dict(chunks=(4, 13), shards=(8, 26)), dict(chunks=(8, 26), compressors=None)),
    (dict(chunks=(4, 13), shards=(8, 26)), dict(chunks=(4, 13), shards=(16, 26))),
    # Streamed: destination chunks cut the source's.
    (dict(chunks=(8, 13)), dict(chunks=(5, 7))),
    (dict(chunks=(4, 13), shards=(8, 26)), dict(chunks=(3, 26), shards=(9, 26))),
], ids=["chunks-recompressed", "chunks-to-shards", "shards-to-chunks", "bigger-shards",
        "cut-chunks", "cut-shards"])
def test_copies_every_element(tmp_path, src_layout, dst_layout):
    data = random_data("u2", SHAPE, np.random.default_rng(3))
    data[8:16] = 0  # whole chunks of fill value
    src = make_source(tmp_path / "src", data, **src_layout)
    dst = tz.create(str(tmp_path / "dst"), shape=SHAPE, dtype="u2", **dst_layout)
    dst[...] = src
    assert_bit_equal(dst[...], data)
    assert_bit_equal(zarr.open_array(str(tmp_path / "dst"), mode="r")[...], data)


def test_streamed_copy_blocks_hold_whole_destination_shards(tmp_path):
    src = tz.create(str(tmp_path / "src"), shape=SHAPE, dtype="u2", chunks=(4, 13))
    dst = tz.create(str(tmp_path / "dst"), shape=SHAPE, dtype="i4", chunks=(3, 26),
                    shards=(9, 26))
    assert not dst._core.can_copy_by_units(src._core)
    # Both grids' multiple, (36, 26), grown to the whole array when it
    # fits; else one shard.
    assert dst._core.copy_block_shape(src._core) == [45, 26]
    assert dst._core.copy_block_shape(src._core, memory_budget=1000) == [9, 26]
    data = np.arange(np.prod(SHAPE), dtype="u2").reshape(SHAPE)
    src[...] = data
    dst[...] = src
    assert_bit_equal(dst[...], data.astype("i4"))


def test_unit_copy_needs_no_whole_array_read(tmp_path, monkeypatch):
    data = random_data("i4", SHAPE, np.random.default_rng(4))
    src = make_source(tmp_path / "src", data, chunks=(8, 13))
    dst = tz.create(str(tmp_path / "dst"), shape=SHAPE, dtype="i4", chunks=(16, 26))
    assert dst._core.can_copy_by_units(src._core)

    def no_read(*args, **kwargs):
        raise AssertionError("the unit copy read the source from Python")

    monkeypatch.setattr(type(src), "__getitem__", no_read)
    monkeypatch.setattr(type(src), "iter_blocks", no_read)
    dst[:, ...] = src
    monkeypatch.undo()
    assert_bit_equal(dst[...], data)


def test_fill_values_follow_the_destination(tmp_path):
    data = np.arange(np.prod(SHAPE), dtype="i4").reshape(SHAPE)
    data[8:16] = 5
    src = make_source(tmp_path / "src", data, chunks=(8, 13), fill_value=5)
    same = tz.create(str(tmp_path / "same"), shape=SHAPE, dtype="i4", chunks=(8, 13),
                     fill_value=5)
    same[...] = src
    other = tz.create(str(tmp_path / "other"), shape=SHAPE, dtype="i4", chunks=(8, 13),
                      fill_value=0)
    other[...] = src
    assert_bit_equal(same[...], data)
    assert_bit_equal(other[...], data)
    # Rows 8-15 are one row of chunks of the source's fill value: stored only
    # where that is not the destination's fill value.
    assert not (tmp_path / "same" / "c" / "1" / "0").exists()
    assert (tmp_path / "other" / "c" / "1" / "0").exists()


def test_copies_strings_and_converts_types(tmp_path):
    words = random_data("string", SHAPE, np.random.default_rng(5))
    src = make_source(tmp_path / "s", words, chunks=(8, 13))
    dst = tz.create(str(tmp_path / "d"), shape=SHAPE, dtype=str, chunks=(16, 13))
    dst[...] = src
    assert list(dst[...].ravel()) == list(words.ravel())

    small = make_source(tmp_path / "i2", np.arange(962, dtype="i2").reshape(SHAPE),
                        chunks=(8, 13))
    wide = tz.create(str(tmp_path / "f8"), shape=SHAPE, dtype="f8", chunks=(8, 13))
    assert not wide._core.can_copy_by_units(small._core)
    wide[...] = small
    assert_bit_equal(wide[...], np.arange(962, dtype="f8").reshape(SHAPE))


def test_part_of_an_array_takes_the_source_values(tmp_path):
    data = random_data("u1", SHAPE, np.random.default_rng(6))
    src = make_source(tmp_path / "src", data[:10], chunks=(8, 13))
    dst = tz.create(str(tmp_path / "dst"), shape=SHAPE, dtype="u1", chunks=(8, 13))
    dst[5:15] = src
    want = np.zeros(SHAPE, dtype="u1")
    want[5:15] = data[:10]
    assert_bit_equal(dst[...], want)


def test_refuses_other_shapes_and_read_only(tmp_path):
    src = make_source(tmp_path / "src", np.ones((4, 4), dtype="i4"), chunks=(2, 2))
    dst = tz.create(str(tmp_path / "dst"), shape=SHAPE, dtype="i4", chunks=(8, 13))
    with pytest.raises(ValueError):
        dst[...] = src
    ro = tz.open_array(str(tmp_path / "src"), mode="r")
    with pytest.raises(tz.ReadOnlyError):
        ro[...] = src
