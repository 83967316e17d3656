"""turbozarr.ome: pyramids equal to a numpy reference, metadata that the
NGFF schemas accept, images that zarr-python, ngio and ome-zarr-py read as
turbozarr wrote them (and the other way round), streaming from arrays that
are not in memory, pyramids rebuilt where level 0 changed, and clear errors
for what is not an image."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import turbozarr
from turbozarr import ome

from test_pickle import http_root  # noqa: F401 (an HTTP server on loopback)

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / ".deps" / "ngff-schemas"


# -- the reference: each method as numpy computes it ------------------------------

def reference(x: np.ndarray, factors: list[int], method: str) -> np.ndarray:
    """One level, by numpy: floor sizes (at least 1), integer means rounded
    half to even, nearest the later central pixel, linear the centre
    (the central pair's mean for even factors), mode the most frequent
    value (the smallest on a tie)."""
    out_shape = [max(1, n // f) for n, f in zip(x.shape, factors)]
    # Windows: full ones, or the whole axis when it is shorter than its factor.
    win = [min(f, n) for f, n in zip(factors, x.shape)]
    crop = x[tuple(slice(0, o * w) for o, w in zip(out_shape, win))]
    blocks = crop.reshape([v for o, w in zip(out_shape, win) for v in (o, w)])
    window_axes = tuple(range(1, 2 * x.ndim, 2))
    if method == "nearest":
        return blocks[tuple(sl for w in win for sl in (slice(None), w // 2))]
    if method == "linear":
        centre = tuple(sl for w in win for sl in (
            slice(None), slice(w // 2, w // 2 + 1) if w % 2 else slice(w // 2 - 1, w // 2 + 1)))
        blocks = blocks[centre]
        method = "mean"
    if method == "mean":
        mean = blocks.astype(np.float64).mean(axis=window_axes)
        if np.issubdtype(x.dtype, np.integer):
            return np.round(mean).astype(x.dtype)
        return mean.astype(x.dtype)
    assert method == "mode"
    moved = np.moveaxis(blocks, window_axes, tuple(range(x.ndim, 2 * x.ndim)))
    flat = moved.reshape(tuple(out_shape) + (-1,))
    out = np.empty(out_shape, x.dtype)
    for idx in np.ndindex(*out_shape):
        values, counts = np.unique(flat[idx], return_counts=True)
        out[idx] = values[np.argmax(counts)]  # unique sorts: a tie keeps the smallest
    return out


def image_data(shape, dtype=np.uint16, seed=0) -> np.ndarray:
    """Spatially correlated pixels, like the benchmark's images: a coarse
    random field, blown up 8 times, plus a little noise."""
    rng = np.random.default_rng(seed)
    field = rng.integers(0, 3000, size=tuple(n // 8 + 1 for n in shape))
    for axis in range(len(shape)):
        field = np.repeat(field, 8, axis=axis)
    field = field[tuple(slice(0, n) for n in shape)]
    return (field + rng.integers(0, 50, size=shape)).astype(dtype)


@pytest.mark.parametrize("version", ["0.4", "0.5"])
@pytest.mark.parametrize("method", ["mean", "nearest", "linear", "mode"])
@pytest.mark.parametrize("dtype", [np.uint16, np.int16, np.uint8, np.float32])
def test_levels_equal_the_numpy_reference(tmp_path, version, method, dtype):
    data = image_data((2, 5, 131, 98), dtype)  # odd sizes: the last row drops out
    image = ome.create(data, tmp_path / "img.ome.zarr", axes="czyx", levels=4,
                       method=method, ngff_version=version, chunks=(1, 2, 32, 32))
    assert [lv.shape for lv in image.levels] == [
        (2, 5, 131, 98), (2, 5, 65, 49), (2, 5, 32, 24), (2, 5, 16, 12)]
    want = data
    for k in range(1, 4):
        want = reference(want, [1, 1, 2, 2], method)
        got = image.read(level=k)
        assert got.dtype == data.dtype
        np.testing.assert_array_equal(got, want, err_msg=f"level {k}")
    assert image.method == method


def test_z_downsampling_and_short_axes(tmp_path):
    data = image_data((3, 40, 40))
    image = ome.create(data, tmp_path / "z.ome.zarr", axes="zyx", downsample=("z", "y", "x"),
                       levels=3, pixel_sizes={"z": 1.0, "y": 0.25, "x": 0.25})
    # z: 3 -> 1 -> 1 (an axis shorter than its factor keeps one pixel).
    assert [lv.shape for lv in image.levels] == [(3, 40, 40), (1, 20, 20), (1, 10, 10)]
    np.testing.assert_array_equal(image.read(level=1), reference(data, [2, 2, 2], "mean"))
    np.testing.assert_array_equal(image.read(level=2),
                                  reference(reference(data, [2, 2, 2], "mean"), [2, 2, 2], "mean"))
    assert image.levels[1].scale == [2.0, 0.5, 0.5]
    assert image.levels[1].translation == [0.5, 0.125, 0.125]
    # Level 2's one plane is level 1's one plane: z stays where it was.
    assert image.levels[2].scale == [2.0, 1.0, 1.0]
    assert image.levels[2].translation == [0.5, 0.375, 0.375]


@pytest.mark.parametrize("method", ["mean", "nearest"])
def test_an_axis_shorter_than_its_factor_stays_at_the_centre_of_its_planes(tmp_path, method):
    # z = 3 halved three times: level 1 summarises planes 0 and 1 (centre 0.5,
    # or plane 1 for nearest); levels 2 and 3 hold that same plane.
    data = image_data((3, 64, 64))
    image = ome.create(data, tmp_path / "z3.ome.zarr", axes="zyx", levels=4, method=method,
                       downsample=("z", "y", "x"))
    first = 0.5 if method == "mean" else 1.0
    assert [lv.scale[0] for lv in image.levels] == [1.0, 2.0, 2.0, 2.0]
    assert [lv.translation[0] for lv in image.levels[1:]] == [first] * 3
    assert [lv.scale[1] for lv in image.levels] == [1.0, 2.0, 4.0, 8.0]
    want = data
    for k in range(1, 4):
        want = reference(want, [2, 2, 2], method)
        np.testing.assert_array_equal(image.read(level=k), want, err_msg=f"level {k}")
    # A rebuild from level 0 makes the same levels (the factors come from the
    # scales: the 3 planes were summarised as 2, not 3).
    before = [image.read(level=k) for k in range(4)]
    for k in range(1, 4):
        image.level(k)[...] = 0
    image.update_pyramid()
    for k in range(4):
        np.testing.assert_array_equal(image.read(level=k), before[k], err_msg=f"level {k}")

    # z = 1 halved: the plane never moves and its scale never grows.
    flat = ome.create(image_data((1, 32, 32)), tmp_path / "z1.ome.zarr", axes="zyx",
                      levels=3, method=method, downsample=("z", "y", "x"),
                      pixel_sizes={"z": 4.0, "y": 1.0, "x": 1.0})
    assert [lv.scale[0] for lv in flat.levels] == [4.0, 4.0, 4.0]
    assert all(lv.translation is None or lv.translation[0] == 0.0 for lv in flat.levels)


def test_factors_per_axis_name(tmp_path):
    data = image_data((2, 90, 64))
    image = ome.create(data, tmp_path / "f.ome.zarr", axes="cyx", levels=3,
                       factors={"y": 3, "x": 2})
    assert [lv.shape for lv in image.levels] == [(2, 90, 64), (2, 30, 32), (2, 10, 16)]
    assert [lv.scale for lv in image.levels] == [[1.0, 1.0, 1.0], [1.0, 3.0, 2.0],
                                                 [1.0, 9.0, 4.0]]
    np.testing.assert_array_equal(image.read(level=1), reference(data, [1, 3, 2], "mean"))
    listed = ome.create(data, tmp_path / "l.ome.zarr", axes="cyx", levels=3, factors=[1, 3, 2])
    for a, b in zip(image.levels, listed.levels):
        assert (a.shape, a.scale, a.translation) == (b.shape, b.scale, b.translation)
    with pytest.raises(ValueError, match="factors"):
        ome.create(data, tmp_path / "bad.ome.zarr", axes="cyx", factors={"y": 0})


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_every_level_and_label_carries_a_checksum_by_default(tmp_path, version):
    data = image_data((1, 64, 64))
    root = tmp_path / "c.ome.zarr"
    image = ome.create(data, root, axes="cyx", levels=3, chunks=(1, 16, 16),
                       ngff_version=version)
    image.create_label("cells", (data[0] > 1500).astype(np.uint8))
    arrays = [root / lv.path for lv in image.levels]
    arrays += [root / "labels" / "cells" / str(k) for k in range(3)]
    for a in arrays:
        if version == "0.5":
            codecs = json.loads((a / "zarr.json").read_text())["codecs"]
            assert codecs[-1] == {"name": "crc32c"}, a
        else:
            zarray = json.loads((a / ".zarray").read_text())
            assert zarray["compressor"]["id"] == "zstd" and zarray["compressor"]["checksum"], a
    # One flipped bit in a stored chunk is an error naming it, not other pixels.
    chunk = root / "1" / ("c/0/1/0" if version == "0.5" else "0.1.0")
    raw = bytearray(chunk.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    chunk.write_bytes(bytes(raw))
    with pytest.raises(turbozarr.CorruptionError, match="1/" if version == "0.5" else "0.1.0"):
        ome.open(root).read(level=1)
    plain = ome.create(data, tmp_path / "p.ome.zarr", axes="cyx", levels=2, checksum=False,
                       ngff_version=version)
    meta = (tmp_path / "p.ome.zarr" / plain.levels[1].path /
            ("zarr.json" if version == "0.5" else ".zarray"))
    assert "crc32c" not in meta.read_text() and '"checksum": true' not in meta.read_text()


def test_levels_stop_at_the_minimum_size_and_keep_chunks_and_codecs(tmp_path):
    data = image_data((1, 1000, 600))
    image = ome.create(data, tmp_path / "m.ome.zarr", axes="cyx", min_size=200,
                       chunks=(1, 256, 256), shards=(1, 512, 512),
                       compressors=[{"name": "zstd", "configuration": {"level": 3}}])
    # 1000 -> 500 -> 250 -> 125: the largest axis stops once it is 200 or less.
    assert [lv.shape for lv in image.levels] == [(1, 1000, 600), (1, 500, 300), (1, 250, 150),
                                                 (1, 125, 75)]
    for lv in image.levels:
        meta = json.loads((tmp_path / "m.ome.zarr" / lv.path / "zarr.json").read_text())
        sharding = meta["codecs"][0]
        assert sharding["name"] == "sharding_indexed"
        assert [c["name"] for c in sharding["configuration"]["codecs"][-2:]] == ["zstd", "crc32c"]
        shard = meta["chunk_grid"]["configuration"]["chunk_shape"]
        inner = sharding["configuration"]["chunk_shape"]
        assert all(s % i == 0 for s, i in zip(shard, inner))
        assert all(s <= -(-n // i) * i for s, n, i in zip(shard, lv.shape, inner))


def schema_validator(version: str, name: str):
    jsonschema = pytest.importorskip("jsonschema")
    referencing = pytest.importorskip("referencing")
    if not (SCHEMAS / version).is_dir():
        pytest.skip("the NGFF schemas are not fetched (scripts/fetch_ngff_schemas.sh)")
    resources = []
    for path in (SCHEMAS / version).glob("*.schema"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], referencing.Resource.from_contents(
            schema, default_specification=referencing.jsonschema.DRAFT202012)))
    registry = referencing.Registry().with_resources(resources)
    schema = json.loads((SCHEMAS / version / f"{name}.schema").read_text())
    return jsonschema.Draft202012Validator(schema, registry=registry)


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_what_turbozarr_writes_validates_against_the_ngff_schemas(tmp_path, version):
    data = image_data((2, 4, 64, 64))
    image = ome.create(data, tmp_path / "s.ome.zarr", axes="czyx", levels=3,
                       ngff_version=version, channel_names=["DAPI", "GFP"],
                       pixel_sizes={"z": 1.5, "y": 0.2, "x": 0.2})
    image.create_label("nuclei", (data[0] > 1500).astype(np.uint32),
                       colors={1: (255, 0, 0, 255)})
    attrs = dict(image.group.attrs)
    problems = [e.message for e in schema_validator(version, "image").iter_errors(attrs)]
    assert problems == []
    label_attrs = dict(image.label("nuclei").group.attrs)
    problems = [e.message for e in schema_validator(version, "label").iter_errors(label_attrs)]
    assert problems == []
    # What the schema leaves open, pinned: the version's layout.
    if version == "0.5":
        assert attrs["ome"]["version"] == "0.5" and "multiscales" not in attrs
    else:
        assert attrs["multiscales"][0]["version"] == "0.4" and "ome" not in attrs


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_zarr_python_reads_every_level(tmp_path, version):
    zarr = pytest.importorskip("zarr")
    data = image_data((1, 3, 90, 70))
    image = ome.create(data, tmp_path / "z.ome.zarr", axes="czyx", levels=3,
                       ngff_version=version)
    group = zarr.open_group(str(tmp_path / "z.ome.zarr"), mode="r")
    for lv in image.levels:
        np.testing.assert_array_equal(group[lv.path][...], image.read(level=int(lv.path)))


def test_ngio_and_ome_zarr_py_read_what_turbozarr_writes(tmp_path):
    ngio = pytest.importorskip("ngio")
    pytest.importorskip("ome_zarr")
    from ome_zarr.io import parse_url
    from ome_zarr.reader import Reader

    data = image_data((2, 6, 128, 96))
    for version in ("0.4", "0.5"):
        path = tmp_path / f"i{version}.ome.zarr"
        image = ome.create(data, path, axes="czyx", levels=3, ngff_version=version,
                           pixel_sizes={"z": 2.0, "y": 0.5, "x": 0.5},
                           channel_names=["a", "b"])
        container = ngio.open_ome_zarr_container(str(path), mode="r")
        assert container.levels == 3
        for k in range(3):
            level = container.get_image(path=str(k))
            assert tuple(level.axes) == ("c", "z", "y", "x")
            assert level.pixel_size.x == pytest.approx(0.5 * 2 ** k)
            assert level.pixel_size.z == pytest.approx(2.0)
            np.testing.assert_array_equal(level.get_as_numpy(), image.read(level=k))
        node = list(Reader(parse_url(str(path)))())[0]
        assert [a["name"] for a in node.metadata["axes"]] == ["c", "z", "y", "x"]
        assert len(node.data) == 3
        for k in range(3):
            np.testing.assert_array_equal(np.asarray(node.data[k]), image.read(level=k))


def test_turbozarr_reads_what_ngio_and_ome_zarr_py_write(tmp_path):
    ngio = pytest.importorskip("ngio")
    pytest.importorskip("ome_zarr")
    zarr = pytest.importorskip("zarr")
    from ome_zarr.format import FormatV04, FormatV05
    from ome_zarr.writer import write_image

    data = image_data((1, 4, 64, 64))
    for version, fmt in (("0.4", FormatV04()), ("0.5", FormatV05())):
        path = tmp_path / f"ngio{version}.ome.zarr"
        ngio.create_ome_zarr_from_array(store=str(path), array=data, pixelsize=0.5, levels=3,
                                        axes_names=["c", "z", "y", "x"], ngff_version=version,
                                        overwrite=True)
        image = ome.open(path)
        container = ngio.open_ome_zarr_container(str(path), mode="r")
        assert image.version == version
        assert image.axis_names == "czyx"
        assert image.pixel_sizes["x"] == pytest.approx(0.5)
        for k, path_k in enumerate(container.level_paths):
            np.testing.assert_array_equal(image.read(level=k),
                                          container.get_image(path=path_k).get_as_numpy())

        path = tmp_path / f"omezarr{version}.ome.zarr"
        root = zarr.open_group(str(path), mode="w", zarr_format=fmt.zarr_format)
        write_image(data, group=root, scale_factors=[2, 4], axes=["c", "z", "y", "x"], fmt=fmt,
                    scale={"y": 0.5, "x": 0.5}, storage_options=dict(chunks=(1, 1, 32, 32)))
        image = ome.open(path)
        assert [lv.path for lv in image.levels] == ["s0", "s1", "s2"]
        assert image.levels[1].translation == pytest.approx([0, 0, 0.25, 0.25])
        for lv in image.levels:
            np.testing.assert_array_equal(image.read(level=image.levels.index(lv)),
                                          root[lv.path][...])


def test_labels_read_by_ngio(tmp_path):
    ngio = pytest.importorskip("ngio")
    data = image_data((2, 4, 64, 64))
    image = ome.create(data, tmp_path / "l.ome.zarr", axes="czyx", levels=3,
                       ngff_version="0.5", channel_names=["a", "b"])
    labels = np.zeros((4, 64, 64), np.uint32)
    labels[:, 10:30, 5:50] = 7
    labels[:, 40:60, 20:40] = 9
    label = image.create_label("cells", labels)
    assert image.labels == ["cells"]
    assert label.axis_names == "zyx"
    np.testing.assert_array_equal(label.read(level=1), reference(labels, [1, 2, 2], "mode"))
    assert set(np.unique(label.read(level=2))) <= {0, 7, 9}
    container = ngio.open_ome_zarr_container(str(tmp_path / "l.ome.zarr"), mode="r")
    assert container.list_labels() == ["cells"]
    np.testing.assert_array_equal(container.get_label("cells", path="0").get_as_numpy(), labels)


@pytest.mark.parametrize("source", ["turbozarr", "zarr", "dask"])
def test_streams_from_arrays_not_in_memory(tmp_path, source):
    data = image_data((2, 6, 150, 130))
    if source == "turbozarr":
        src = turbozarr.array(data, str(tmp_path / "src.zarr"), chunks=(1, 1, 64, 64))
    elif source == "zarr":
        zarr = pytest.importorskip("zarr")
        src = zarr.create_array(str(tmp_path / "src.zarr"), shape=data.shape, dtype=data.dtype,
                                chunks=(1, 1, 64, 64))
        src[...] = data
    else:
        da = pytest.importorskip("dask.array")
        src = da.from_array(data, chunks=(1, 2, 64, 64))
    # A budget below one level-0 plane: blocks of one row of chunks at a time.
    image = ome.create(src, tmp_path / "out.ome.zarr", axes="czyx", levels=3,
                       chunks=(1, 1, 64, 64), memory_budget=64 * 1024)
    want = ome.create(data, tmp_path / "ref.ome.zarr", axes="czyx", levels=3,
                      chunks=(1, 1, 64, 64))
    for k in range(3):
        np.testing.assert_array_equal(image.read(level=k), want.read(level=k))


def test_update_pyramid_rebuilds_only_what_changed(tmp_path):
    data = image_data((1, 2, 128, 128))
    image = ome.create(data, tmp_path / "u.ome.zarr", axes="czyx", levels=3,
                       chunks=(1, 1, 16, 16))
    # A marker in a level-1 chunk far from the change: an update that
    # rewrote it would erase the marker.
    image.level(1)[0, 0, 48:64, 48:64] = 1
    patch = np.full((1, 1, 10, 20), 50000, np.uint16)
    image.write(patch, roi={"z": (1, 2), "y": (3, 13), "x": (90, 110)})
    data[:, 1:2, 3:13, 90:110] = patch
    image.update_pyramid()
    level1 = reference(data, [1, 1, 2, 2], "mean")
    got = image.read(level=1)
    assert (got[0, 0, 48:64, 48:64] == 1).all()
    got[0, 0, 48:64, 48:64] = level1[0, 0, 48:64, 48:64]
    np.testing.assert_array_equal(got, level1)
    np.testing.assert_array_equal(image.read(level=2), reference(level1, [1, 1, 2, 2], "mean"))


def test_rois_in_pixels_and_physical_units(tmp_path):
    data = image_data((1, 4, 100, 80))
    image = ome.create(data, tmp_path / "r.ome.zarr", axes="czyx", levels=3,
                       pixel_sizes={"z": 2.0, "y": 0.5, "x": 0.5})
    np.testing.assert_array_equal(image.read({"y": slice(10, 20), "x": (5, 9)}),
                                  data[:, :, 10:20, 5:9])
    # 5 to 10 micrometres in y: pixels 10 to 19 at level 0, 5 to 9 at level 1
    # (level 1's pixels are centred 0.25 um further).
    np.testing.assert_array_equal(image.read({"y": (5.0, 10.0)}, physical=True),
                                  data[:, :, 10:20])
    np.testing.assert_array_equal(image.read({"y": (5.0, 10.0)}, level=1, physical=True),
                                  image.read(level=1)[:, :, 5:10])
    with pytest.raises(KeyError, match="no axis 't'"):
        image.read({"t": (0, 1)})


def test_what_is_not_an_image_gets_an_error_naming_the_field(tmp_path):
    g = turbozarr.group(str(tmp_path / "plain.zarr"))
    with pytest.raises(turbozarr.errors.InvalidArgumentError, match="no \"multiscales\""):
        ome.open(tmp_path / "plain.zarr")
    image = ome.create(image_data((1, 32, 32)), tmp_path / "i.ome.zarr", axes="cyx", levels=2,
                       ngff_version="0.4")
    attrs = dict(image.group.attrs)
    bad = json.loads(json.dumps(attrs))
    bad["multiscales"][0]["axes"][1]["type"] = "spaec"
    image.group.attrs.put(bad)
    with pytest.raises(turbozarr.errors.InvalidArgumentError, match=r"axes\[1\]\.type"):
        ome.open(tmp_path / "i.ome.zarr")
    bad = json.loads(json.dumps(attrs))
    bad["multiscales"][0]["version"] = "0.7"
    image.group.attrs.put(bad)
    with pytest.raises(turbozarr.errors.InvalidArgumentError, match="version is \"0.7\""):
        ome.open(tmp_path / "i.ome.zarr")
    bad = json.loads(json.dumps(attrs))
    bad["multiscales"][0]["datasets"].reverse()  # level 1 before level 0: it grows
    image.group.attrs.put(bad)
    with pytest.raises(ValueError, match="larger along 'y'"):
        ome.open(tmp_path / "i.ome.zarr")
    with pytest.raises(ValueError, match="unknown method 'gaussian'"):
        ome.create(image_data((8, 8)), tmp_path / "g.ome.zarr", method="gaussian")
    with pytest.raises(ValueError, match="3 axes"):
        ome.create(image_data((8, 8)), tmp_path / "a.ome.zarr", axes="zyx")
    # A pyramid it cannot build is refused before anything is written.
    mask = image_data((16, 16)) > 2000
    with pytest.raises(ValueError, match="cannot downsample bool pixels by mean"):
        ome.create(mask, tmp_path / "m.ome.zarr")
    assert not (tmp_path / "m.ome.zarr").exists()
    del g


# -- the command line: turbozarr ome create | info | downsample --------------------

CLI = __import__("os").environ.get("TURBOZARR_CLI", "")
needs_cli = pytest.mark.skipif(
    not CLI or not __import__("os").access(CLI, __import__("os").X_OK),
    reason="TURBOZARR_CLI does not name the built turbozarr binary")


def run_cli(*args, expect: int = 0) -> str:
    import subprocess
    proc = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == expect, (proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout + proc.stderr


@needs_cli
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_the_command_line_makes_the_pyramid_python_makes(tmp_path, zarr_format):
    data = image_data((2, 3, 130, 101))
    turbozarr.array(data, str(tmp_path / "src.zarr"), chunks=(1, 1, 32, 32),
                    zarr_format=zarr_format)
    run_cli("ome", "create", tmp_path / "src.zarr", tmp_path / "cli.ome.zarr", "--axes", "czyx",
            "--levels", "3", "--pixel-size", "z=2,y=0.5,x=0.5", "--method", "mean",
            "--no-progress")
    made = ome.open(tmp_path / "cli.ome.zarr", mode="r+")
    want = ome.create(data, tmp_path / "py.ome.zarr", axes="czyx", levels=3,
                      pixel_sizes={"z": 2, "y": 0.5, "x": 0.5}, chunks=(1, 1, 32, 32),
                      ngff_version="0.4" if zarr_format == 2 else "0.5")
    assert made.version == want.version
    assert made.axes == want.axes
    for a, b in zip(made.levels, want.levels):
        assert (a.shape, a.scale, a.translation) == (b.shape, b.scale, b.translation)
        np.testing.assert_array_equal(a.array[...], b.array[...])
    info = run_cli("ome", "info", tmp_path / "cli.ome.zarr")
    assert "y (space, micrometer)" in info
    assert "2  shape (2, 3, 32, 25)  chunks (1, 1, 32, 25)  scale (1, 2, 2, 2)" in info

    # Level 0 changes behind the pyramid's back; downsample rebuilds it.
    made.level(0)[...] = 7
    run_cli("ome", "downsample", tmp_path / "cli.ome.zarr", "--no-progress")
    assert (ome.open(tmp_path / "cli.ome.zarr").read(level=2) == 7).all()


@needs_cli
def test_the_command_line_names_what_is_wrong(tmp_path):
    turbozarr.array(image_data((4, 40, 40)), str(tmp_path / "src.zarr"))
    out = run_cli("ome", "create", tmp_path / "src.zarr", tmp_path / "o.zarr", "--axes", "yx",
                  expect=2)
    assert "--axes 'yx' names 2 axes" in out
    out = run_cli("ome", "create", tmp_path / "src.zarr", tmp_path / "o.zarr", "--method",
                  "gaussian", expect=2)
    assert "unknown downsampling method 'gaussian'" in out
    out = run_cli("ome", "info", tmp_path / "src.zarr", expect=1)
    assert "no group" in out
    turbozarr.array(image_data((4, 40, 40)) > 2000, str(tmp_path / "mask.zarr"))
    out = run_cli("ome", "create", tmp_path / "mask.zarr", tmp_path / "m.zarr", "--method",
                  "linear", expect=2)
    assert "cannot downsample bool pixels by linear" in out
    assert not (tmp_path / "m.zarr").exists()
    turbozarr.group(str(tmp_path / "g.zarr"))
    out = run_cli("ome", "info", tmp_path / "g.zarr", expect=2)
    assert "not an OME-Zarr image" in out


# -- concurrent writers of one sharded image -----------------------------------------

TILE = 16


def _tiles_of(writer: int, writers: int, shape) -> list[tuple[int, int, int]]:
    """The (z, y, x) tiles a writer owns: every writers-th, so that each
    shard holds tiles of every writer."""
    z, ny, nx = shape[1], shape[2] // TILE, shape[3] // TILE
    all_tiles = [(k, ty, tx) for k in range(z) for ty in range(ny) for tx in range(nx)]
    return [t for i, t in enumerate(all_tiles) if i % writers == writer]


def _write_tiles(path: str, writer: int, writers: int, rounds: int, seed: int) -> dict:
    """Writes random owned tiles `rounds` times; returns each tile's last value."""
    import threading

    image = ome.open(path, mode="r+")
    tiles = _tiles_of(writer, writers, image.shape)
    last: dict = {}
    lock = threading.Lock()

    def worker(part: list, value_base: int) -> None:
        rng = np.random.default_rng(seed * 1000 + value_base)  # one per thread
        for i in range(rounds):
            k, ty, tx = part[int(rng.integers(0, len(part)))]
            value = value_base + i + 1
            image.level(0)[0, k, ty * TILE:(ty + 1) * TILE, tx * TILE:(tx + 1) * TILE] = value
            with lock:
                last[(k, ty, tx)] = value

    # Two threads per process, each with its own half of the writer's tiles.
    halves = [tiles[0::2], tiles[1::2]]
    threads = [threading.Thread(target=worker, args=(h, (writer * 2 + j) * 1000))
               for j, h in enumerate(halves)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return last


def test_concurrent_region_writes_into_one_sharded_image_lose_nothing(tmp_path):
    import concurrent.futures
    import multiprocessing

    path = str(tmp_path / "shared.ome.zarr")
    ome.create(np.zeros((1, 4, 256, 256), np.uint16), path, axes="czyx", levels=2,
               chunks=(1, 1, 32, 32), shards=(1, 2, 128, 128))
    writers, rounds = 4, 150  # 4 processes x 2 threads x 150 writes into 8 shards
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(writers, mp_context=ctx) as pool:
        results = list(pool.map(_write_tiles, [path] * writers, range(writers),
                                [writers] * writers, [rounds] * writers, range(writers)))
    want = np.zeros((1, 4, 256, 256), np.uint16)
    for last in results:
        for (k, ty, tx), value in last.items():
            want[0, k, ty * TILE:(ty + 1) * TILE, tx * TILE:(tx + 1) * TILE] = value
    got = ome.open(path).read()
    assert int((got != want).sum()) == 0
    assert sum(len(r) for r in results) > 100  # many tiles were written


def test_a_straddling_roi_reads_only_the_chunks_it_overlaps(tmp_path):
    data = image_data((1, 4, 512, 512))
    ome.create(data, tmp_path / "roi.ome.zarr", axes="czyx", levels=2, chunks=(1, 1, 128, 128))
    metrics = turbozarr.MetricsStore(str(tmp_path / "roi.ome.zarr"))
    image = ome.open(metrics)
    # Starting at chunk // 2 + 1 = 65, 128 pixels long: two chunks along y
    # and two along x, on each of the 4 planes.
    metrics.reset_metrics()
    roi = image.read({"y": (65, 65 + 128), "x": (65, 65 + 128)})
    np.testing.assert_array_equal(roi, data[:, :, 65:193, 65:193])
    assert metrics.metrics()["gets"] == 4 * 2 * 2
    metrics.reset_metrics()
    image.read({"y": (0, 128), "x": (128, 256)})  # aligned: one chunk per plane
    assert metrics.metrics()["gets"] == 4


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_an_image_served_over_http_opens_and_reads(http_root, version):
    root, url = http_root
    data = image_data((2, 3, 96, 80))
    local = ome.create(data, root / f"web{version}.ome.zarr", axes="czyx", levels=3,
                       ngff_version=version, pixel_sizes={"y": 0.5, "x": 0.5})
    local.create_label("cells", (data[0] > 1500).astype(np.uint8))
    image = ome.open(f"{url}/web{version}.ome.zarr")
    assert image.version == version and image.axis_names == "czyx"
    assert [lv.shape for lv in image.levels] == [lv.shape for lv in local.levels]
    np.testing.assert_array_equal(image.read({"y": (10, 40)}, level=1),
                                  local.read(level=1)[:, :, 10:40])
    assert image.labels == ["cells"]
    np.testing.assert_array_equal(image.label("cells").read(level=2),
                                  local.label("cells").read(level=2))


def test_a_mask_image_gets_a_window_of_zero_to_one(tmp_path):
    mask = np.zeros((64, 64), bool)
    mask[10:40, 5:30] = True
    image = ome.create(mask, tmp_path / "mask.ome.zarr", levels=2, method="nearest")
    window = image.omero["channels"][0]["window"]
    assert (window["min"], window["max"]) == (0.0, 1.0)
    np.testing.assert_array_equal(image.read(level=1), mask[1::2, 1::2])
