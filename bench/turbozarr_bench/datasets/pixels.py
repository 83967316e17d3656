"""Deterministic pixel generators: any block of a dataset, computed alone.

A generator maps a region (a tuple of step-1 slices inside the shape) to the
values there, and the value at a coordinate never depends on which region
asked for it. That lets the fixture writer work in blocks of bounded size,
lets a write benchmark rebuild its source array without reading a fixture
through a contestant, and lets the checksum of the whole array be computed
slab by slab.

Only numpy is imported: this module also runs inside the peers' environments.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

Region = tuple[slice, ...]
Generator = Callable[[Region], np.ndarray]

# Bumped whenever a generator's output changes, so its cached fixtures (and
# only its) regenerate. Generators not listed are at version 1.
GENERATOR_VERSIONS: dict[str, int] = {"ome": 2, "vcz": 2}

# Workload A: rows repeat with this period, as in the original study.
PHOTO_PERIOD = 75
# The noise level that gives the original study's compressed sizes for
# Blosc lz4 (clevel 5): ~4.7 MB per (5000, 1000) chunk, ~7.4 kB per (500, 100).
PHOTO_SIGMA = 1.25


def _shape_of(region: Region) -> tuple[int, ...]:
    return tuple(s.stop - s.start for s in region)


def _photo(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> Generator:
    """A smooth field plus noise, rows repeating with a period of 75 (workload A)."""
    if len(shape) != 2:
        raise ValueError("pixels 'photo' needs a 2-D shape")
    width = shape[1]
    rng = np.random.default_rng(seed)
    # Each of the 75 base rows is a random walk over a coarse grid, linearly
    # interpolated: smooth along x, independent between rows, like a texture.
    knots = width // 200 + 2
    coarse = rng.normal(size=(PHOTO_PERIOD, knots)).cumsum(axis=1)
    x = np.linspace(0, knots - 1, width)
    i0 = np.floor(x).astype(np.int64)
    i1 = np.minimum(i0 + 1, knots - 1)
    frac = x - i0
    smooth = coarse[:, i0] * (1 - frac) + coarse[:, i1] * frac
    smooth = (smooth - smooth.min()) / max(np.ptp(smooth), 1e-12) * 200 + 20
    noise = np.random.default_rng(seed + 1).normal(0, PHOTO_SIGMA, size=smooth.shape)
    tile = np.clip(np.rint(smooth + noise), 0, 255).astype(dtype)

    def block(region: Region) -> np.ndarray:
        rows = np.arange(region[0].start, region[0].stop) % PHOTO_PERIOD
        return np.ascontiguousarray(tile[rows][:, region[1]])

    return block


def _index_grid(region: Region, shape: tuple[int, ...]) -> np.ndarray:
    """The C-order flat index of every element of `region`, as int64."""
    flat = np.zeros(_shape_of(region), dtype=np.int64)
    stride = 1
    for d in range(len(shape) - 1, -1, -1):
        coord = np.arange(region[d].start, region[d].stop, dtype=np.int64) * stride
        flat += coord.reshape([-1 if k == d else 1 for k in range(len(shape))])
        stride *= shape[d]
    return flat


def _arange(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> Generator:
    """np.arange(n).reshape(shape), cast to dtype (workload B, uncompressed)."""
    del seed

    def block(region: Region) -> np.ndarray:
        return _index_grid(region, shape).astype(dtype)

    return block


def _randint24(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> Generator:
    """default_rng(seed).integers(0, 2**24, shape, dtype) (workload B, gzip).

    The values come from one RNG stream over the whole array, so the array is
    drawn once and sliced; the spec validation caps its size.
    """
    whole: list[np.ndarray] = []

    def block(region: Region) -> np.ndarray:
        if not whole:
            whole.append(np.random.default_rng(seed).integers(0, 2**24, shape, dtype=dtype))
        return np.ascontiguousarray(whole[0][region])

    return block


def _cubic(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> Generator:
    """(x + y*y // 32 + z**3) % 65536 over (z, y, x): the zarr_benchmarks data (C)."""
    del seed
    if len(shape) != 3:
        raise ValueError("pixels 'cubic' needs a 3-D shape")

    def block(region: Region) -> np.ndarray:
        z = np.arange(region[0].start, region[0].stop, dtype=np.int64)[:, None, None]
        y = np.arange(region[1].start, region[1].stop, dtype=np.int64)[None, :, None]
        x = np.arange(region[2].start, region[2].stop, dtype=np.int64)[None, None, :]
        return ((x + (y * y) // 32 + z * z * z) % 65536).astype(dtype)

    return block


OME_CELL = 16  # pixels per coarse-grid cell of the workload E field
# 128 levels spread over the uint16 range; with OME_CELL this gives ~1.8x under
# zstd on (256, 256) chunks, the compressibility of a real sample image.
OME_STEP = 509
OME_LEVELS = 128


def _ome_plane(seed: int, c: int, z: int, ny: int, nx: int) -> np.ndarray:
    rng = np.random.default_rng([seed, c, z])
    coarse = rng.random((ny // OME_CELL + 2, nx // OME_CELL + 2))
    gy = np.arange(ny) / OME_CELL
    gx = np.arange(nx) / OME_CELL
    y0 = np.floor(gy).astype(np.int64)
    x0 = np.floor(gx).astype(np.int64)
    fy = (gy - y0)[:, None]
    fx = (gx - x0)[None, :]
    field = (coarse[y0][:, x0] * (1 - fy) * (1 - fx) + coarse[y0 + 1][:, x0] * fy * (1 - fx)
             + coarse[y0][:, x0 + 1] * (1 - fy) * fx + coarse[y0 + 1][:, x0 + 1] * fy * fx)
    field += rng.normal(0, 0.02, size=field.shape)
    return np.clip(np.rint(field * (OME_LEVELS - 1)), 0, OME_LEVELS - 1) * OME_STEP


def _ome(shape: tuple[int, ...], dtype: np.dtype, seed: int) -> Generator:
    """A spatially correlated (c, z, y, x) image, ~1.8x compressible (workload E):
    a coarse random field upsampled, N(0, 0.02) noise, 128 levels."""
    if len(shape) != 4:
        raise ValueError("pixels 'ome' needs a 4-D (c, z, y, x) shape")

    def block(region: Region) -> np.ndarray:
        out = np.empty(_shape_of(region), dtype=dtype)
        for ci, c in enumerate(range(region[0].start, region[0].stop)):
            for zi, z in enumerate(range(region[1].start, region[1].stop)):
                plane = _ome_plane(seed, c, z, shape[2], shape[3])
                out[ci, zi] = plane[region[2], region[3]]
        return out

    return block


GENERATORS: dict[str, Callable[[tuple[int, ...], np.dtype, int], Generator]] = {
    "photo": _photo,
    "arange": _arange,
    "randint24": _randint24,
    "cubic": _cubic,
    "ome": _ome,
}

# Generators drawn from one stream over the whole array hold it in memory.
WHOLE_ARRAY_GENERATORS = frozenset({"randint24"})


def make_generator(pixels: str, shape, dtype, seed: int) -> Generator:
    return GENERATORS[pixels](tuple(int(s) for s in shape), np.dtype(dtype), int(seed))


def slabs(shape: tuple[int, ...], itemsize: int, budget: int = 64 << 20):
    """Regions covering `shape` in C order, each a run of whole rows along
    axis 0 (or a single row when one row is larger than `budget`)."""
    if not shape:
        yield ()
        return
    row = itemsize
    for s in shape[1:]:
        row *= s
    step = max(1, budget // max(row, 1))
    rest = tuple(slice(0, s) for s in shape[1:])
    for start in range(0, shape[0], step):
        yield (slice(start, min(start + step, shape[0])),) + rest
