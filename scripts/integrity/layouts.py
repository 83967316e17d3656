"""The layouts the campaign damages: one builder per layout, each writing a
small store (a few chunks of a few KiB) and returning what reading it must
give.

A layout's `checksummed` says whether every chunk it stores carries a
checksum: True or False when the layout asks for it (or leaves it out)
itself, None when the library's defaults decide (sparse tiles, OME-Zarr
images); `detect_checksums` reads the stored metadata to say what the
store actually holds, and the campaign holds a layout to "0 silently
wrong" when either says it is checksummed.
"""

from __future__ import annotations

import inspect
import json
import os
import pickle
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

REPO = Path(__file__).resolve().parents[2]

# Metadata documents of Zarr v2 and v3.
META_NAMES = (".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json")


@dataclass
class Layout:
    name: str
    kind: str                      # "array", "sparse", "ome" or "vcz"
    checksummed: bool | None       # None: the library's defaults decide (detected)
    build: Callable[[Path], Any]   # writes the store at the path, returns `expected`
    zip: bool = False              # the store is a zip archive, not a directory
    note: str = ""


@dataclass
class Built:
    """A layout as built: where it is, what reading it gives, and the keys
    the damage may hit."""
    layout: Layout
    root: Path
    expected: Any
    chunk_keys: list[str] = field(default_factory=list)
    meta_keys: list[str] = field(default_factory=list)
    # (key, start, stop): byte ranges of indexes inside values (shard
    # indexes), or for a zip archive the central directory ("" as key).
    index_targets: list[tuple[str, int, int]] = field(default_factory=list)
    checksum_detected: bool = False
    pristine: dict[str, bytes] = field(default_factory=dict, repr=False)
    fills: dict[str, Any] = field(default_factory=dict)  # array path -> fill value


# -- data ----------------------------------------------------------------------

def array_values(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values that compress a little (a ramp and small noise, so zstd has
    something to code) with no chunk all fill value; floats carry NaNs with
    payloads, infinities and -0.0, which must come back bit for bit."""
    rng = np.random.default_rng(seed)
    ramp = np.indices(shape).sum(axis=0) % 251
    noise = rng.integers(0, 64, size=shape)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        out = (ramp * 0.25 + noise / 1024.0 + 1.0).astype(dt)
        flat = out.reshape(-1)
        bits = flat.view(f"u{dt.itemsize}")
        picks = rng.choice(flat.size, size=12, replace=False)
        nan = np.array(np.nan, dt).view(f"u{dt.itemsize}")
        bits[picks[:6]] = nan | rng.integers(1, 255, size=6).astype(bits.dtype)
        flat[picks[6]] = -0.0
        flat[picks[7]] = np.inf
        flat[picks[8]] = -np.inf
        return out
    return (ramp * 1000 + noise + 1).astype(dt)


# -- plain arrays ----------------------------------------------------------------

def _create_supports_checksum() -> bool:
    import turbozarr as tz
    return "checksum" in inspect.signature(tz.create).parameters


def _create_array(store: Any, data: np.ndarray, *, path: str, checksum: bool, zarr_format: int,
                  chunks: tuple[int, ...], shards: tuple[int, ...] | None = None,
                  raw: bool = False) -> None:
    """A plain array holding `data`: zarr-python's default chain (v3
    bytes + zstd level 0, v2 zstd level 0), none with `raw`, and with
    `checksum` one that checks each chunk (inner chunk for a sharded array).
    Where `turbozarr.create` takes `checksum=` it chooses the chain;
    before that, the same chain is spelled out."""
    import turbozarr as tz
    kwargs: dict[str, Any] = dict(path=path, chunks=chunks, shards=shards, zarr_format=zarr_format)
    if raw:
        kwargs["compressors"] = None
    if checksum:
        if _create_supports_checksum():
            kwargs["checksum"] = True
        elif zarr_format == 3:
            kwargs["compressors"] = [{"name": "zstd", "configuration": {"level": 0, "checksum": False}},
                                     {"name": "crc32c"}]
        else:
            kwargs["compressor"] = {"id": "zstd", "level": 0, "checksum": True}
            kwargs.pop("compressors", None)
    a = tz.create(store, data.shape, data.dtype, **kwargs)
    a[...] = data


def _array_layout(dtype: str, shape: tuple[int, ...], chunks: tuple[int, ...], *,
                  zarr_format: int = 3, shards: tuple[int, ...] | None = None,
                  checksum: bool = False, raw: bool = False, zip_archive: bool = False,
                  seed: int = 0) -> Callable[[Path], Any]:
    def build(root: Path) -> Any:
        import turbozarr as tz
        data = array_values(dtype, shape, seed)
        if zip_archive:
            store = tz.ZipStore(root, mode="w")
            tz.group(store)
        else:
            store = tz.group(str(root), zarr_format=zarr_format).store
        _create_array(store, data, path="a", checksum=checksum, zarr_format=zarr_format,
                      chunks=chunks, shards=shards, raw=raw)
        if zip_archive:
            store.close()
        return {"arrays": {"a": data}, "chunks": {"a": chunks}, "shards": {"a": shards},
                "fill": {"a": 0}}
    return build


# -- domain layouts ------------------------------------------------------------------

def sparse_counts(cells: int = 240, genes: int = 64, seed: int = 7):
    """Counts as in test_sparse.py: mostly 1-3, a few large, empty cells."""
    import scipy.sparse
    rng = np.random.default_rng(seed)
    weights = 1.0 / (np.arange(genes) + 3.0)
    dense = rng.random((cells, genes)) < 0.25 * genes * weights / weights.sum() * 3
    dense[::7] = False
    values = rng.integers(1, 4, size=dense.sum())
    tail = rng.random(len(values))
    values[tail < 0.02] = rng.integers(256, 60_000, size=(tail < 0.02).sum())
    values[tail < 0.004] = rng.integers(65_536, 10_000_000, size=(tail < 0.004).sum())
    rows, cols = np.nonzero(dense)
    return scipy.sparse.csr_matrix((values.astype(np.int32), (rows, cols)), shape=(cells, genes))


def _build_sparse(root: Path) -> Any:
    from turbozarr import sparse
    X = sparse_counts()
    sparse.write(root, X, tile_cells=80, chunks_per_tile=2, zstd_level=3)
    return {"X": X, "tile_cells": 80}


def _ome_layout(version: str) -> Callable[[Path], Any]:
    def build(root: Path) -> Any:
        from turbozarr import ome
        pixels = array_values("uint16", (2, 96, 80), seed=11)
        image = ome.create(pixels, root, axes="cyx", levels=3, chunks=(1, 32, 32),
                           ngff_version=version)
        label = (pixels[0] % 5 == 0).astype(np.uint8) + (pixels[0] % 3 == 0)
        image.create_label("cells", label)
        image = ome.open(root)
        levels = [image.read(level=k) for k in range(len(image.levels))]
        if not np.array_equal(levels[0], pixels):
            raise AssertionError("ome: level 0 does not read back as written")
        lab = image.label("cells")
        labels = [lab.read(level=k) for k in range(len(lab.levels))]
        if not np.array_equal(labels[0], label):
            raise AssertionError("ome: the label does not read back as written")
        return {"levels": levels, "labels": {"cells": labels},
                "paths": [lv.array.path for lv in image.levels],
                "label_paths": [lv.array.path for lv in lab.levels],
                "chunks": [tuple(lv.array.chunks) for lv in image.levels],
                "label_chunks": [tuple(lv.array.chunks) for lv in lab.levels]}
    return build


VCZ_FIELDS_SKIP = ("region_index",)


def _build_vcz(root: Path) -> Any:
    """A small VCF Zarr dataset converted by bio2zarr (its own choice of
    codecs: no checksums) from the fixture VCF of scripts/vcz."""
    import turbozarr as tz
    from turbozarr import vcz
    peers = REPO / ".venv-vcz" / "bin"
    work = root.parent / (root.name + ".src")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    vcf = work / "fx.vcf"
    _run([sys.executable, REPO / "scripts" / "vcz" / "make_fixture_vcf.py", vcf,
          "--samples", "6", "--records", "240", "--seed", "5"])
    gz = work / "fx.vcf.gz"
    _run(["bcftools", "view", "-Oz", "-o", gz, vcf])
    _run(["bcftools", "index", "-t", gz])
    _run([peers / "vcf2zarr", "convert", "-Q", "-l", "80", "-w", "4", gz, root])
    shutil.rmtree(work)
    group = tz.open_group(str(root))
    fields = sorted(name for name, node in group.members()
                    if isinstance(node, tz.Array) and name not in VCZ_FIELDS_SKIP
                    and (name.startswith("variant_") or name.startswith("call_")))
    arrays = vcz.read(str(root), fields)
    view = vcz.view(str(root))
    return {"fields": fields, "arrays": arrays, "view": view}


def _run(args: list) -> None:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")


def vcz_available() -> str | None:
    """Why the VCF Zarr layout cannot be built here, or None."""
    if not (REPO / ".venv-vcz" / "bin" / "vcf2zarr").is_file():
        return "bio2zarr is not installed (.venv-vcz)"
    if shutil.which("bcftools") is None:
        return "bcftools is not installed"
    return None


# -- the list ----------------------------------------------------------------------

def all_layouts() -> list[Layout]:
    F8, F4, I4 = "float64", "float32", "int32"
    out = [
        Layout("v3", "array", False, _array_layout(F8, (64, 64), (32, 32), seed=1),
               note="zarr-python's default v3 chain: bytes, zstd level 0"),
        Layout("v3-checksum", "array", True,
               _array_layout(F8, (64, 64), (32, 32), checksum=True, seed=1),
               note="checksum=True: crc32c last in the chain"),
        Layout("v3-raw", "array", False,
               _array_layout(I4, (64, 64), (32, 32), raw=True, seed=2),
               note="bytes alone, no compressor"),
        Layout("v3-raw-checksum", "array", True,
               _array_layout(I4, (64, 64), (16, 64), raw=True, checksum=True, seed=2),
               note="bytes and crc32c, chunks of whole rows (read straight into the result)"),
        Layout("v2", "array", False,
               _array_layout(I4, (64, 64), (32, 32), zarr_format=2, seed=3),
               note="zarr-python's default v2 compressor: zstd level 0"),
        Layout("v2-checksum", "array", True,
               _array_layout(I4, (64, 64), (32, 32), zarr_format=2, checksum=True, seed=3),
               note="checksum=True: zstd's content checksum"),
        Layout("v3-sharded", "array", False,
               _array_layout(F4, (64, 64), (16, 32), shards=(32, 64), seed=4),
               note="inner chunks bytes + zstd; the index carries crc32c"),
        Layout("v3-sharded-checksum", "array", True,
               _array_layout(F4, (64, 64), (16, 32), shards=(32, 64), checksum=True, seed=4),
               note="checksum=True: crc32c on every inner chunk"),
        Layout("zip-v3", "array", True,
               _array_layout(F8, (64, 64), (32, 32), zip_archive=True, seed=5), zip=True,
               note="a zip archive: its CRC-32 checks every value read whole"),
        Layout("zip-v3-sharded", "array", False,
               _array_layout(F4, (64, 64), (16, 32), shards=(32, 64), zip_archive=True, seed=6),
               zip=True, note="a zip archive: inner chunks are read by range, which no CRC covers"),
        Layout("sparse", "sparse", True, _build_sparse,
               note="`turbozarr.sparse.write`'s defaults: crc32c after zstd"),
        Layout("ome-0.5", "ome", True, _ome_layout("0.5"),
               note="`ome.create`'s defaults, NGFF 0.5: crc32c last"),
        Layout("ome-0.4", "ome", True, _ome_layout("0.4"),
               note="`ome.create`'s defaults, NGFF 0.4: zstd's content checksum"),
    ]
    if vcz_available() is None:
        out.append(Layout("vcz", "vcz", False, _build_vcz,
                          note="written by bio2zarr (its codecs: no checksums)"))
    return out


# -- building and finding keys ---------------------------------------------------

def build_all(directory: Path, layouts: list[Layout]) -> None:
    """Builds every layout into `directory` (name/ or name.zip) with its
    expected values beside it (name.expected.pickle)."""
    directory.mkdir(parents=True, exist_ok=True)
    for layout in layouts:
        root = store_path(directory, layout)
        if root.is_dir():
            shutil.rmtree(root)
        elif root.exists():
            root.unlink()
        expected = layout.build(root)
        with open(directory / f"{layout.name}.expected.pickle", "wb") as f:
            pickle.dump(expected, f)


def store_path(directory: Path, layout: Layout) -> Path:
    return directory / (layout.name + (".zip" if layout.zip else ""))


def load(directory: Path, layout: Layout) -> Built:
    """A built layout: its expected values and its keys, sorted."""
    root = store_path(directory, layout)
    with open(directory / f"{layout.name}.expected.pickle", "rb") as f:
        expected = pickle.load(f)
    files = stored_files(root)
    meta = sorted(k for k in files if k.rsplit("/", 1)[-1] in META_NAMES)
    chunks = sorted(k for k in files if k.rsplit("/", 1)[-1] not in META_NAMES)
    if layout.kind == "sparse":
        # The matrix: what its readers read (obs and var are tables beside it).
        meta = [k for k in meta if k.startswith("X/")]
        chunks = [k for k in chunks if k.startswith("X/")]
    documents = {k: files[k] for k in meta}
    built = Built(layout, root, expected, chunks, meta, pristine=files)
    built.fills = _fill_values(documents)
    built.index_targets = _index_targets(root, layout, files, documents)
    built.checksum_detected = detect_checksums(documents)
    return built


def stored_files(root: Path) -> dict[str, bytes]:
    """{key: bytes} of a directory store or a zip archive."""
    if root.is_file():
        with zipfile.ZipFile(root) as z:
            return {name: z.read(name) for name in z.namelist() if not name.endswith("/")}
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            full = Path(dirpath) / name
            out[full.relative_to(root).as_posix()] = full.read_bytes()
    return out


def _index_targets(root: Path, layout: Layout, files: dict[str, bytes],
                   documents: dict[str, bytes]) -> list[tuple[str, int, int]]:
    out = []
    for key, raw in documents.items():
        if not key.endswith("zarr.json"):
            continue
        doc = json.loads(raw)
        codecs = doc.get("codecs") or []
        if doc.get("node_type") != "array" or not codecs or codecs[0]["name"] != "sharding_indexed":
            continue
        config = codecs[0]["configuration"]
        shards = doc["chunk_grid"]["configuration"]["chunk_shape"]
        inner = config["chunk_shape"]
        n = int(np.prod([s // c for s, c in zip(shards, inner)]))
        size = 16 * n + (4 if any(c["name"] == "crc32c" for c in config.get("index_codecs", [])) else 0)
        prefix = key[:-len("zarr.json")] + "c/"  # the default chunk key encoding
        for k, value in files.items():
            if not k.startswith(prefix):
                continue
            if config.get("index_location", "end") == "end":
                out.append((k, len(value) - size, len(value)))
            else:
                out.append((k, 0, size))
    if layout.zip:
        with zipfile.ZipFile(root) as z:
            end_of_entries = max(_entry_data_range(z, i)[1] for i in z.infolist())
        out.append(("", end_of_entries, root.stat().st_size))
    return sorted(set(out))


def _entry_data_range(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[int, int]:
    """Where an entry's data lies in the archive: after its local header."""
    z.fp.seek(info.header_offset)
    header = z.fp.read(30)
    name_len = int.from_bytes(header[26:28], "little")
    extra_len = int.from_bytes(header[28:30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    return start, start + info.compress_size


def _fill_values(documents: dict[str, bytes]) -> dict[str, Any]:
    out = {}
    for key, raw in documents.items():
        name = key.rsplit("/", 1)[-1]
        if name not in ("zarr.json", ".zarray"):
            continue
        doc = json.loads(raw)
        if name == ".zarray" or doc.get("node_type") == "array":
            out[key[:-len(name)].rstrip("/")] = doc.get("fill_value")
    return out


def detect_checksums(documents: dict[str, bytes]) -> bool:
    """True when every array's chunks (inner chunks, for a sharded array)
    carry a checksum: crc32c in a v3 chain, zstd's content checksum, or a
    numcodecs checksum filter in v2."""
    arrays = 0
    checked = 0
    for key, raw in documents.items():
        name = key.rsplit("/", 1)[-1]
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        if name == "zarr.json" and doc.get("node_type") == "array":
            chain = doc.get("codecs") or []
            if chain and chain[0]["name"] == "sharding_indexed":
                chain = chain[0]["configuration"].get("codecs", [])
            ok = any(c["name"] == "crc32c" or (c["name"] == "zstd" and (c.get("configuration") or {}).get("checksum"))
                     for c in chain)
        elif name == ".zarray":
            parts = list(doc.get("filters") or []) + ([doc["compressor"]] if doc.get("compressor") else [])
            ok = any(p.get("id") in ("crc32", "crc32c", "adler32", "fletcher32")
                     or (p.get("id") == "zstd" and p.get("checksum")) for p in parts)
        else:
            continue
        arrays += 1
        checked += ok
    return arrays > 0 and arrays == checked


def entry_data_range(archive: Path, key: str) -> tuple[int, int]:
    with zipfile.ZipFile(archive) as z:
        return _entry_data_range(z, z.getinfo(key))
