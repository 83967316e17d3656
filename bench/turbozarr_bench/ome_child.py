"""One operation of workload E on one side, in a process of its own:

    python -m turbozarr_bench.ome_child '{"impl": "turbozarr" | "ngio" |
        "ome-zarr-py" | "zarr-python" | "tensorstore" | "ngff-zarr" |
        "bioio" | "iohub" | "acquire-zarr", "op": NAME,
        "image": SPEC (the image's dataset spec, as JSON), "path": FIXTURE,
        "workdir": DIR, "method": "mean" | "nearest"}'

It prints one JSON line: seconds, cpu (the process's, every thread's),
peak_rss_mb (at the end of the timed part), bytes (of pixels read or
written), digest (checksum.py), expected (for writes: the digest of the
pixels handed in), method_native (what the side was handed for `method`)
and audit (for create: what is on disk); or status "unsupported" and the
reason, for an operation the side has no call for.

What is timed, and what is not:
- read: the open and the read of the region into a numpy array, after one
  untimed pass of the same (imports, lazy set-up and the page cache are
  then the same for every side); the digest is of the array returned.
- write: the open of a fresh image (its arrays created by zarr-python
  beforehand, no chunk written) and the write of the region, after an
  untimed write of the first planes into another fresh image (imports, the
  codec, any thread pool); the digest is of what zarr-python reads back.
- create: the whole pyramid (level 0, every level, the metadata) from a
  numpy array, after an untimed create of the first planes; the audit reads
  back with zarr-python what the side wrote: its levels' paths, shapes,
  chunks, shards and dtype, the digest of level 0 (which every side must
  write exactly) and of the whole pyramid (the same for sides that round the
  same way).
The pixels handed to a write or a create are generated before the clock
starts.
"""

from __future__ import annotations

import hashlib
import json
import resource
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from turbozarr_bench.checksum import array_digest
from turbozarr_bench.datasets.pixels import make_generator
from turbozarr_bench.datasets.spec import DatasetSpec, validate
from turbozarr_bench.ome_tasks import (AXES, BY_NAME, PIXEL_SIZE, Z_SPACING, level_shapes,
                                       ngff_version, region)


class Unsupported(Exception):
    """The side has no call for this operation; the message says why."""


def _zstd_level(spec: DatasetSpec) -> int | None:
    if spec.values["codec"] == "none":
        return None
    if spec.values["codec"] != "zstd":
        raise Unsupported(f"workload E's images are zstd or uncompressed, not "
                          f"{spec.values['codec']}")
    return spec.values["level"]


def _zarr_compressors(spec: DatasetSpec) -> Any:
    """The codec as zarr-python takes it (ngio and ome-zarr-py hand it on)."""
    level = _zstd_level(spec)
    if level is None:
        return None
    if spec.zarr_format == 2:
        import numcodecs

        return [numcodecs.Zstd(level=level)]
    import zarr

    return [zarr.codecs.ZstdCodec(level=level, checksum=False)]


def _shards(spec: DatasetSpec) -> tuple[int, ...] | None:
    shards = spec.values.get("shards")
    return tuple(shards) if shards else None


# -- reading (level 0 of an image) -------------------------------------------------


def _read(impl: str, path: str, index: tuple[slice, ...]) -> np.ndarray:
    y, x = index[2], index[3]
    if impl == "turbozarr":
        from turbozarr import ome

        image = ome.open(path)
        return image.read(roi={"y": (y.start, y.stop), "x": (x.start, x.stop)}, level=0)
    if impl == "ngio":
        import ngio

        image = ngio.open_ome_zarr_container(path, mode="r").get_image(path="0")
        return image.get_as_numpy(y=y, x=x)
    if impl == "ome-zarr-py":
        from ome_zarr.io import parse_url
        from ome_zarr.reader import Reader

        node = next(iter(Reader(parse_url(path))()))
        return np.asarray(node.data[0][..., y, x])
    if impl == "zarr-python":
        import zarr

        return zarr.open_array(store=f"{path}/0", mode="r")[..., y, x]
    if impl == "tensorstore":
        return _tensorstore_level0(path)[..., y, x].read().result()
    if impl == "ngff-zarr":
        import ngff_zarr

        return np.asarray(ngff_zarr.from_ngff_zarr(path).images[0].data[..., y, x].compute())
    if impl == "bioio":
        import bioio_ome_zarr
        from bioio import BioImage

        image = BioImage(path, reader=bioio_ome_zarr.Reader)
        return np.asarray(image.get_image_dask_data("".join(AXES).upper())[..., y, x].compute())
    if impl == "iohub":
        from iohub import open_ome_zarr

        with open_ome_zarr(path, layout="fov", mode="r") as position:
            return np.asarray(position["0"][..., y, x])
    if impl == "acquire-zarr":
        raise Unsupported("acquire-zarr only writes: a stream of frames into a new image")
    raise Unsupported(f"no reader for {impl}")


def _tensorstore_level0(path: str) -> Any:
    import tensorstore as ts

    level0 = Path(path) / "0"
    driver = "zarr3" if (level0 / "zarr.json").exists() else "zarr"
    return ts.open({"driver": driver, "kvstore": {"driver": "file", "path": str(level0)}},
                   open=True).result()


# -- writing (into level 0 of a fresh image) ---------------------------------------


def _write(impl: str, path: str, index: tuple[slice, ...], data: np.ndarray) -> None:
    y, x = index[2], index[3]
    if impl == "turbozarr":
        from turbozarr import ome

        image = ome.open(path, mode="r+")
        image.level(0)[:, :, y, x] = data
        return
    if impl == "ngio":
        import ngio

        image = ngio.open_ome_zarr_container(path, mode="r+").get_image(path="0")
        image.set_array(data, y=y, x=x)
        return
    if impl == "ome-zarr-py":
        raise Unsupported("ome-zarr-py writes an image only whole, creating it "
                          "(write_image); it has no call that writes into an existing one")
    if impl == "zarr-python":
        import zarr

        zarr.open_array(store=f"{path}/0", mode="r+")[:, :, y, x] = data
        return
    if impl == "tensorstore":
        _tensorstore_level0(path)[:, :, y, x].write(data).result()
        return
    if impl == "iohub":
        from iohub import open_ome_zarr

        with open_ome_zarr(path, layout="fov", mode="r+") as position:
            position["0"][:, :, y, x] = data
        return
    if impl == "ngff-zarr":
        raise Unsupported("ngff-zarr writes a whole multiscale image (to_ngff_zarr); it has "
                          "no call that writes into an existing one")
    if impl == "bioio":
        raise Unsupported("bioio's OMEZarrWriter.write_region writes the region into every "
                          "level of the pyramid; it has no call that writes level 0 alone")
    if impl == "acquire-zarr":
        raise Unsupported("acquire-zarr streams frames into a new image; it has no call that "
                          "writes into an existing one")
    raise Unsupported(f"no writer for {impl}")


# -- creating a pyramid ------------------------------------------------------------


def _create(impl: str, path: str, spec: DatasetSpec, data: np.ndarray, method: str) -> str:
    """Writes the image with its pyramid; returns what the side was handed
    for `method`."""
    levels, version = spec.levels, ngff_version(spec)
    chunks = tuple(spec.chunks)
    if impl == "turbozarr":
        from turbozarr import ome

        level = _zstd_level(spec)
        if level is None:
            compressors = None
        elif spec.zarr_format == 2:
            compressors = {"id": "zstd", "level": level}
        else:
            compressors = [{"name": "zstd", "configuration": {"level": level}}]
        ome.create(data, path, axes="czyx", levels=levels, method=method, chunks=chunks,
                   shards=_shards(spec), compressors=compressors,
                   pixel_sizes={"z": Z_SPACING, "y": PIXEL_SIZE, "x": PIXEL_SIZE},
                   ngff_version=version, overwrite=True)
        return f"method='{method}'"
    if impl == "ngio":
        import ngio

        common = dict(store=path, pixelsize=PIXEL_SIZE, z_spacing=Z_SPACING, levels=levels,
                      axes_names=list(AXES), ngff_version=version, chunks=chunks,
                      shards=_shards(spec), compressors=_zarr_compressors(spec),
                      overwrite=True)
        if method == "mean":
            # Its one call; its "linear" order coarsened is np.mean over
            # each 2x2 window, cast back to the dtype.
            ngio.create_ome_zarr_from_array(array=data, consolidation_mode="coarsen", **common)
            return "create_ome_zarr_from_array(consolidation_mode='coarsen'): order 'linear'"
        # That call takes no order: the same steps it takes, with "nearest"
        # (coarsening's "nearest" is np.max, so the zoom path).
        ngio.create_empty_ome_zarr(shape=data.shape, dtype=str(data.dtype), **common)
        container = ngio.open_ome_zarr_container(store=path, mode="r+", cache=True)
        image = container.get_image()
        image.set_array(data)
        image.consolidate(order="nearest", mode="dask")
        container.set_channel_windows_with_percentiles(percentiles=(0.1, 99.9))
        return "create_empty_ome_zarr + set_array + consolidate(order='nearest', mode='dask')"
    if impl == "ome-zarr-py":
        import zarr
        from ome_zarr.format import FormatV04, FormatV05
        from ome_zarr.scale import Methods
        from ome_zarr.writer import write_image

        native = Methods.LOCAL_MEAN if method == "mean" else Methods.NEAREST
        options: dict[str, Any] = {"chunks": chunks, "compressors": _zarr_compressors(spec)}
        if _shards(spec):
            options["shards"] = _shards(spec)
        group = zarr.open_group(path, mode="w", zarr_format=spec.zarr_format)
        write_image(data, group, scale_factors=[2 ** k for k in range(1, levels)],
                    method=native, fmt=FormatV04() if version == "0.4" else FormatV05(),
                    axes=list(AXES), scale={"z": Z_SPACING, "y": PIXEL_SIZE, "x": PIXEL_SIZE},
                    storage_options=options)
        return f"Methods.{native.name}"
    if impl == "zarr-python":
        # No pyramid builder of its own: the workload's reference pyramid
        # in numpy, each level written by zarr-python (ome_fixture.py).
        from turbozarr_bench.ome_fixture import write_pyramid

        write_pyramid(spec, Path(path), method, lambda r: data[r], digests=False)
        return ("numpy 2x2 mean, rounded half to even" if method == "mean"
                else "numpy x[1::2, 1::2]")
    if impl == "ngff-zarr":
        import ngff_zarr

        native = (ngff_zarr.Methods.ITKWASM_BIN_SHRINK if method == "mean"
                  else ngff_zarr.Methods.DASK_IMAGE_NEAREST)
        image = ngff_zarr.to_ngff_image(data, dims=list(AXES),
                                        scale={"c": 1.0, "z": Z_SPACING, "y": PIXEL_SIZE,
                                               "x": PIXEL_SIZE})
        multiscales = ngff_zarr.to_multiscales(
            image, scale_factors=[{"z": 1, "y": 2 ** k, "x": 2 ** k} for k in range(1, levels)],
            method=native, chunks=dict(zip(AXES, chunks)))
        options: dict[str, Any] = {"version": version, "overwrite": True}
        if _shards(spec):
            options["chunks_per_shard"] = dict(zip(AXES, (s // c for s, c in
                                                          zip(_shards(spec), chunks))))
        level = _zstd_level(spec)
        if level is not None:
            options["compressors" if spec.zarr_format == 3 else "compressor"] = (
                _zarr_compressors(spec) if spec.zarr_format == 3
                else _zarr_compressors(spec)[0])
        ngff_zarr.to_ngff_zarr(path, multiscales, **options)
        return f"Methods.{native.name}"
    if impl == "bioio":
        if method == "mean":
            raise Unsupported("bioio's OMEZarrWriter downsamples by nearest-neighbour resize "
                              "(order 0) only")
        from bioio_ome_zarr.writers import OMEZarrWriter

        level_chunks = [[min(c, n) for c, n in zip(chunks, shape)]
                        for shape in level_shapes(spec)]
        writer = OMEZarrWriter(
            path, level_shapes=level_shapes(spec), dtype=data.dtype, chunk_shape=level_chunks,
            shard_shape=([[min(s, -(-n // c) * c) for s, n, c in zip(_shards(spec), shape, lc)]
                          for shape, lc in zip(level_shapes(spec), level_chunks)]
                         if _shards(spec) else None),
            compressor=(_zarr_compressors(spec) or [None])[0], zarr_format=spec.zarr_format,
            axes_names=list(AXES), physical_pixel_size=[1.0, Z_SPACING, PIXEL_SIZE, PIXEL_SIZE])
        writer.write_full_volume(data)
        writer.close()
        return "OMEZarrWriter.write_full_volume: resize(order=0)"
    if impl == "iohub":
        from iohub import open_ome_zarr
        from iohub.core.config import CompressorConfig, ZarrConfig
        from iohub.ngff.models import ChannelAxisMeta, SpaceAxisMeta

        native = "mean" if method == "mean" else "stride"
        axes = [ChannelAxisMeta(name="c")] + [SpaceAxisMeta(name=a, unit="micrometer")
                                              for a in AXES[1:]]
        # iohub writes blosc only: told zstd at the image's level (blosc's
        # level 0 is no compression, zstd's its default, 3), no shuffle.
        level = _zstd_level(spec)
        config = ZarrConfig(compressor=CompressorConfig(
            cname="zstd", clevel=0 if level is None else (level or 3), shuffle="noshuffle"))
        with open_ome_zarr(path, layout="fov", mode="w", channel_names=["c0"], axes=axes,
                           version=version, disable_path_checking=True,
                           implementation_config=config) as position:
            shards = _shards(spec)
            position.create_image("0", data, chunks=chunks,
                                  shards_ratio=(tuple(s // c for s, c in zip(shards, chunks))
                                                if shards else None))
            position.compute_pyramid(levels=levels, method=native, dims={"y", "x"})
        return (f"compute_pyramid(method='{native}', dims={{'y', 'x'}}); "
                f"blosc(zstd, {config.compressor.clevel}, noshuffle)")
    if impl == "acquire-zarr":
        raise Unsupported("acquire-zarr's streaming writer halves z with y and x (every space "
                          "axis) and stops halving at the chunk size; the workload's pyramid "
                          "halves y and x only, below the chunk size")
    raise Unsupported(f"{impl} has no pyramid builder")


def _audit_pyramid(path: str) -> dict[str, Any]:
    """What a create left on disk, read by zarr-python."""
    import zarr

    from turbozarr_bench.ome_fixture import digest_array

    group = zarr.open_group(path, mode="r")
    attributes = dict(group.attrs)
    ome = attributes.get("ome", attributes)
    multiscale = ome["multiscales"][0]
    version = ome.get("version") or multiscale.get("version")
    levels, pyramid = [], hashlib.sha256()
    for d in multiscale["datasets"]:
        a = group[d["path"]]
        digest = digest_array(a)
        pyramid.update(digest.encode())
        levels.append({"path": d["path"], "shape": list(a.shape), "dtype": str(a.dtype),
                       "chunks": list(a.chunks),
                       "shards": list(a.shards) if getattr(a, "shards", None) else None,
                       "compressors": [type(c).__name__ for c in a.compressors],
                       "digest": digest})
    return {"ngff": version, "zarr_format": group.metadata.zarr_format,
            "levels": levels, "level0_digest": levels[0]["digest"] if levels else "",
            "pyramid_digest": pyramid.hexdigest()[:16]}


# -- the run -----------------------------------------------------------------------


def _fresh(spec: DatasetSpec, path: Path) -> str:
    from turbozarr_bench.ome_fixture import create_levels

    shutil.rmtree(path, ignore_errors=True)
    create_levels(spec, path)
    return str(path)


def _first_planes(spec: DatasetSpec) -> DatasetSpec:
    """The image cut to its first write unit of planes: what the untimed
    write or create before the timed one works on."""
    values = dict(spec.values)
    values["shape"] = [spec.shape[0], min(spec.shape[1], spec.write_unit[1])] + spec.shape[2:]
    return validate(spec.name, values, "ome child")


def _stats(t0: float, c0: float) -> dict[str, float]:
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run(doc: dict[str, Any]) -> dict[str, Any]:
    impl, op = doc["impl"], BY_NAME[doc["op"]]
    image = dict(doc["image"])
    spec = validate(image.pop("name"), image, "ome child")
    work = Path(doc.get("workdir") or ".")
    gen = make_generator("ome", spec.shape, spec.dtype, spec.seed)
    if op.kind == "read":
        index = region(op, spec)
        _read(impl, doc["path"], index)
        t0, c0 = time.perf_counter(), time.process_time()
        out = _read(impl, doc["path"], index)
        stats = _stats(t0, c0)
        return {**stats, "bytes": int(out.nbytes), "digest": array_digest(out), "expected": "",
                "method_native": "", "audit": {"shape": list(out.shape), "dtype": str(out.dtype)}}
    if op.kind == "write":
        index = region(op, spec)
        data = gen(index)
        warm = _first_planes(spec)
        warm_index = (index[0], slice(0, warm.shape[1])) + index[2:]
        # The warm-up's image stays until the case is over (ome_runner's
        # _clear says why a deletion just before the timed run would not do).
        _write(impl, _fresh(warm, work / "warm.zarr"), warm_index, data[:, :warm.shape[1]])
        target = _fresh(spec, work / "image.zarr")
        t0, c0 = time.perf_counter(), time.process_time()
        _write(impl, target, index, data)
        stats = _stats(t0, c0)
        import zarr

        from turbozarr_bench.ome_fixture import digest_array

        back = digest_array(zarr.open_array(store=f"{target}/0", mode="r"), index)
        return {**stats, "bytes": int(data.nbytes), "digest": back,
                "expected": array_digest(data), "method_native": "",
                "audit": {"shape": [s.stop - s.start for s in index]}}
    method = doc.get("method") or "mean"
    data = gen(tuple(slice(0, n) for n in spec.shape))
    warm = _first_planes(spec)
    _create(impl, str(work / "warm.zarr"), warm, np.ascontiguousarray(data[:, :warm.shape[1]]),
            method)
    t0, c0 = time.perf_counter(), time.process_time()
    native = _create(impl, str(work / "image.zarr"), spec, data, method)
    stats = _stats(t0, c0)
    audit = _audit_pyramid(str(work / "image.zarr"))
    return {**stats, "bytes": int(data.nbytes), "digest": audit["level0_digest"],
            "expected": array_digest(data), "method_native": native, "audit": audit}


def main(argv: list[str]) -> int:
    doc = json.loads(argv[0])
    try:
        out = run(doc)
    except Unsupported as e:
        out = {"status": "unsupported", "reason": str(e)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
