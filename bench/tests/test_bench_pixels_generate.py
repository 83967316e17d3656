"""Generators are block-independent; fixture blocks cover every key once."""

from __future__ import annotations

import numpy as np
import pytest

from turbozarr_bench.datasets.generate import aligned_blocks
from turbozarr_bench.datasets.pixels import make_generator, slabs


@pytest.mark.parametrize("pixels, shape, dtype", [
    ("photo", (300, 450), "uint8"),
    ("arange", (37, 21), "int32"),
    ("cubic", (20, 17, 33), "uint16"),
    ("ome", (1, 3, 70, 65), "uint16"),
    ("randint24", (50, 40), "int32"),
])
def test_blocks_equal_slices_of_the_whole(pixels, shape, dtype):
    gen = make_generator(pixels, shape, dtype, 7)
    whole = gen(tuple(slice(0, s) for s in shape))
    assert whole.shape == shape and whole.dtype == np.dtype(dtype)
    region = tuple(slice(s // 3, s - s // 4) for s in shape)
    assert np.array_equal(gen(region), whole[region])
    again = make_generator(pixels, shape, dtype, 7)(region)
    assert np.array_equal(again, whole[region])


def test_specific_values():
    a = make_generator("arange", (4, 5), "int32", 0)((slice(0, 4), slice(0, 5)))
    assert np.array_equal(a, np.arange(20, dtype=np.int32).reshape(4, 5))
    r = make_generator("randint24", (8, 8), "int32", 0)((slice(0, 8), slice(0, 8)))
    assert np.array_equal(r, np.random.default_rng(0).integers(0, 2**24, (8, 8), dtype=np.int32))
    c = make_generator("cubic", (4, 40, 40), "uint16", 0)((slice(3, 4), slice(39, 40),
                                                           slice(5, 6)))
    assert int(c[0, 0, 0]) == (5 + 39 * 39 // 32 + 27) % 65536
    p = make_generator("photo", (200, 300), "uint8", 1)((slice(0, 200), slice(0, 300)))
    assert np.array_equal(p[:75], p[75:150])  # period of 75 rows
    assert not np.array_equal(p[0], p[1])


def test_aligned_blocks_cover_each_key_once():
    shape, unit = (103, 50, 7), (10, 20, 7)
    seen = np.zeros(shape, dtype=np.int32)
    for region in aligned_blocks(shape, unit, itemsize=2, budget=10 * 20 * 7 * 2 * 3):
        seen[region] += 1
        for sl, u, s in zip(region, unit, shape):
            assert sl.start % u == 0
            assert (sl.stop - sl.start) % u == 0 or sl.stop == s
    assert (seen == 1).all()


def test_slabs_are_c_order_rows():
    regions = list(slabs((10, 4), itemsize=1, budget=12))
    assert [r[0] for r in regions] == [slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 10)]


def test_reduced_d_and_f_generators(tmp_path):
    import zarr

    from turbozarr_bench.datasets import resolve
    from turbozarr_bench.datasets.generate import generate

    tables = {
        "f": {"base": "f-counts", "cells": 250, "genes": 600, "tile_cells": 100,
              "nnz_min": 20, "nnz_max": 60},
        "d": {"base": "d-vcz-wide", "samples": 30, "variants": 2500, "variant_chunk": 1000,
              "sample_chunk": 20},
    }
    f = generate(resolve("f", tables, "t"), tmp_path / "f")
    g = zarr.open_group(str(tmp_path / "f" / "data.zarr"), mode="r")
    assert sorted(g["tiles"].group_keys()) == ["0", "1", "2"]
    t2 = g["tiles/2"]
    indptr = t2["indptr"][...]
    assert len(indptr) == 51 and t2.attrs["shape"] == [50, 600]
    nnz = np.diff(indptr)
    assert nnz.min() >= 1 and nnz.max() <= 60
    idx = t2["indices"][...]
    assert idx.max() < 600 and (t2["data"][...] >= 1).all()
    assert f["checksum"] and f["nfiles"] > 0
    again = generate(resolve("f", tables, "t"), tmp_path / "f2")
    assert again["checksum"] == f["checksum"]

    d = generate(resolve("d", tables, "t"), tmp_path / "d")
    v = zarr.open_group(str(tmp_path / "d" / "data.zarr"), mode="r")
    assert v["call_genotype"].shape == (2500, 30, 2)
    assert v["call_genotype"].chunks == (1000, 20, 2)
    pos = v["variant_position"][...]
    assert (np.diff(pos) > 0).all()
    gt = v["call_genotype"][...]
    assert 0.5 < (gt == 0).mean() < 1.0  # most calls are 0/0
    ri = v["region_index"][...]
    assert ri.shape == (3, 6) and list(ri[:, 5]) == [1000, 1000, 500]
    assert ri[1, 2] == pos[1000] and ri[2, 3] == pos[-1]
    assert d["checksum"]
