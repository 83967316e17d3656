"""The paths a trial reads a damaged layout through, one function each.

A reader gets the context of its worker (the HTTP server's URL, a scratch
directory), the built layout, the trial's damage (so that a partial read
takes its slice from the damaged chunk, or inner chunk of a damaged shard)
and the trial's random numbers, and returns (got, want): what the path
read and what it must read. An exception is the path's answer too: the
campaign classifies it.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import random
import re
import subprocess
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .damage import Damage, array_of
from .layouts import Built


class ChildCrashed(Exception):
    """A command-line child died by a signal: a crash of the path."""


class ChildHung(Exception):
    """A command-line child gave no answer in time: a hang of the path."""


class CommandError(Exception):
    """The binary refused with a nonzero exit status and a message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class Context:
    http_url: str              # the worker's HTTP server, serving `served`
    served: Path               # the directory the layouts live in
    scratch: Path              # for zip archives made per trial
    cli: str | None            # the turbozarr binary, if there is one
    timeout: float             # for command-line children


@dataclass
class Reader:
    name: str
    kinds: tuple[str, ...]     # layout kinds it applies to
    read: Callable[[Context, Built, Damage, random.Random], tuple[Any, Any]]
    zip_layouts: bool = True   # applies to layouts stored as zip archives
    needs: str = ""            # "zarr-python" or "cli": skipped when missing


# -- stores -------------------------------------------------------------------------

def local_url(built: Built) -> str:
    return ("zip://" if built.layout.zip else "file://") + str(built.root)


def http_url(ctx: Context, built: Built) -> str:
    return f"{ctx.http_url}/{built.root.relative_to(ctx.served).as_posix()}"


def zip_copy(ctx: Context, built: Built) -> str:
    """The layout as it is now (damaged), in a zip archive of its own: the
    zip store as a path, with CRCs of the damaged bytes."""
    out = ctx.scratch / f"{built.layout.name}.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for dirpath, _, names in os.walk(built.root):
            for name in sorted(names):
                full = Path(dirpath) / name
                z.write(full, full.relative_to(built.root).as_posix())
    return "zip://" + str(out)


# -- plain arrays ----------------------------------------------------------------------

def _array(url: str, **config: Any):
    import turbozarr as tz
    return tz.open_array(url, path="a", **({"config": config} if config else {}))


def _expected(built: Built) -> np.ndarray:
    return built.expected["arrays"]["a"]


def whole(ctx, built, damage, rng):
    return _array(local_url(built))[...], _expected(built)


def strict(ctx, built, damage, rng):
    return _array(local_url(built), read_missing_chunks=False)[...], _expected(built)


def over_http(ctx, built, damage, rng):
    return _array(http_url(ctx, built))[...], _expected(built)


def through_zip(ctx, built, damage, rng):
    return _array(zip_copy(ctx, built))[...], _expected(built)


def partial(ctx, built, damage, rng):
    """A box inside one chunk (for a sharded array, one inner chunk): the
    damaged one when the damage hit a chunk of the array."""
    e = built.expected
    full = e["arrays"]["a"]
    inner = e["chunks"]["a"]
    outer = e["shards"]["a"] or inner
    origin = _chunk_origin(damage.key, outer, "a")
    if origin is None:
        origin = [rng.randrange(0, n, c) for n, c in zip(full.shape, outer)]
    # An inner chunk of the shard (or the chunk itself).
    start = [o + rng.randrange(0, min(s, n - o), c) for o, s, c, n in zip(origin, outer, inner, full.shape)]
    box = []
    for s, c, n in zip(start, inner, full.shape):
        hi = min(s + c, n)
        a = rng.randrange(s, hi)
        b = rng.randrange(a + 1, hi + 1)
        box.append(slice(a, b))
    box = tuple(box)
    return _array(local_url(built))[box], full[box]


def _chunk_origin(key: str, chunk: tuple[int, ...], array: str) -> list[int] | None:
    """The first element of the chunk `key` names, if it is one of `array`'s."""
    coords = re.search(r"(?:^|/)c/(\d+(?:/\d+)*)$|(?:^|/)(\d+(?:\.\d+)*)$", key)
    if not key or coords is None or array_of(key) != array:
        return None
    text = coords.group(1) or coords.group(2)
    index = [int(x) for x in re.split(r"[/.]", text)]
    if len(index) != len(chunk):
        return None
    return [i * c for i, c in zip(index, chunk)]


def blocks(ctx, built, damage, rng):
    """`iter_blocks`, streamed with a small readahead budget."""
    a = _array(local_url(built))
    out = np.empty(a.shape, a.dtype)
    for key, block in a.iter_blocks(readahead_bytes=8192):
        out[key] = block
    return out, _expected(built)


def gather(ctx, built, damage, rng):
    """`vindex` points: half of them in the damaged chunk (or shard)."""
    e = built.expected
    full = e["arrays"]["a"]
    outer = e["shards"]["a"] or e["chunks"]["a"]
    origin = _chunk_origin(damage.key, outer, "a")
    points = []
    for i in range(12):
        if origin is not None and i % 2 == 0:
            points.append([rng.randrange(o, min(o + c, n)) for o, c, n in zip(origin, outer, full.shape)])
        else:
            points.append([rng.randrange(n) for n in full.shape])
    index = tuple(np.array(axis) for axis in zip(*points))
    return _array(local_url(built)).vindex[index], full[index]


def copy(ctx, built, damage, rng):
    """`dest[...] = source` into a memory array of other chunks, read back."""
    import turbozarr as tz
    source = _array(local_url(built))
    chunks = tuple(max(1, c // 2) for c in built.expected["chunks"]["a"])
    dest = tz.create("memory://", source.shape, source.dtype, chunks=chunks)
    dest[...] = source
    return dest[...], _expected(built)


def cli_copy(ctx, built, damage, rng):
    """`turbozarr cp --codec zstd`: a converting copy, which decodes every
    chunk (a plain copy moves the stored bytes as they are), read back."""
    dest = ctx.scratch / "cp.zarr"
    _run_cli(ctx, ["cp", "--no-progress", "--overwrite", "--src-path", "a", "--dst-path", "a",
                   "--codec", "zstd", str(built.root), str(dest)])
    return _array(str(dest))[...], _expected(built)


def _run_cli(ctx: Context, args: list[str]) -> bytes:
    """The binary's standard output: a signal is a crash, no answer in
    time a hang, a nonzero exit an error with its standard error as the
    message."""
    command = f"turbozarr {args[0]}"
    try:
        done = subprocess.run([ctx.cli, *args], capture_output=True, timeout=ctx.timeout)
    except subprocess.TimeoutExpired:
        raise ChildHung(f"{command} gave no answer in {ctx.timeout} s") from None
    if done.returncode < 0:
        raise ChildCrashed(f"{command} died of signal {-done.returncode}: "
                           f"{done.stderr.decode(errors='replace')[-500:]}")
    if done.returncode != 0:
        raise CommandError(done.returncode, done.stderr.decode(errors="replace").strip())
    return done.stdout


def zarr_python(ctx, built, damage, rng):
    """zarr-python 3.4 with turbozarr's codec pipeline."""
    import zarr

    import turbozarr.zarr_pipeline  # noqa: F401 (registers the pipeline with zarr-python)
    with zarr.config.set({"codec_pipeline.path": "turbozarr.ZarrCodecPipeline"}):
        if built.layout.zip:
            store = zarr.storage.ZipStore(built.root, mode="r")
        else:
            store = zarr.storage.LocalStore(built.root, read_only=True)
        try:
            z = zarr.open_array(store=store, path="a", mode="r")
            if type(z._async_array.codec_pipeline).__name__ != "ZarrCodecPipeline":
                raise AssertionError("zarr-python did not take turbozarr's codec pipeline")
            got = z[...]
        finally:
            store.close()
    return got, _expected(built)


# -- sparse ---------------------------------------------------------------------------------

def _tile_of(damage: Damage, built: Built, rng: random.Random) -> int:
    m = re.match(r"X/tiles/(\d+)/", damage.key)
    n_tiles = -(-built.expected["X"].shape[0] // built.expected["tile_cells"])
    return int(m.group(1)) if m else rng.randrange(n_tiles)


def _tile_rows(built: Built, t: int) -> Any:
    n = built.expected["tile_cells"]
    return built.expected["X"][t * n:(t + 1) * n]


def sparse_tile(ctx, built, damage, rng):
    from turbozarr import sparse
    t = _tile_of(damage, built, rng)
    return sparse.open(local_url(built)).tile(t, sorted=True), _tile_rows(built, t)


def sparse_cells(ctx, built, damage, rng):
    from turbozarr import sparse
    X = built.expected["X"]
    n = built.expected["tile_cells"]
    t = _tile_of(damage, built, rng)
    ids = [rng.randrange(t * n, min((t + 1) * n, X.shape[0])) for _ in range(8)]
    ids += [rng.randrange(X.shape[0]) for _ in range(8)]
    return sparse.open(local_url(built)).cells(ids, sorted=True), X[ids]


def sparse_whole(ctx, built, damage, rng):
    from turbozarr import sparse
    return sparse.open(local_url(built)).to_scipy(), built.expected["X"]


def sparse_http(ctx, built, damage, rng):
    from turbozarr import sparse
    t = _tile_of(damage, built, rng)
    return sparse.open(http_url(ctx, built)).tile(t, sorted=True), _tile_rows(built, t)


def sparse_zip(ctx, built, damage, rng):
    from turbozarr import sparse
    return sparse.open(zip_copy(ctx, built)).to_scipy(), built.expected["X"]


# -- OME-Zarr --------------------------------------------------------------------------------

def _ome_all(url: str, built: Built):
    from turbozarr import ome
    image = ome.open(url)
    got = [image.read(level=k) for k in range(len(image.levels))]
    label = image.label("cells")
    got_labels = [label.read(level=k) for k in range(len(label.levels))]
    e = built.expected
    return (got, got_labels), (e["levels"], e["labels"]["cells"])


def _level_of(damage: Damage, built: Built, rng: random.Random) -> tuple[bool, int]:
    """(label?, level) of the array the damage hit, else one at random."""
    e = built.expected
    owner = array_of(damage.key) if damage.key else ""
    for is_label, paths in ((True, e["label_paths"]), (False, e["paths"])):
        if owner in paths:
            return is_label, paths.index(owner)
    return False, rng.randrange(len(e["paths"]))


def ome_levels(ctx, built, damage, rng):
    return _ome_all(local_url(built), built)


def ome_zip(ctx, built, damage, rng):
    return _ome_all(zip_copy(ctx, built), built)


def _ome_region(url: str, built: Built, damage: Damage, rng: random.Random):
    from turbozarr import ome
    is_label, level = _level_of(damage, built, rng)
    image = ome.open(url)
    if is_label:
        image = image.label("cells")
    e = built.expected
    full = (e["labels"]["cells"] if is_label else e["levels"])[level]
    chunk = (e["label_chunks"] if is_label else e["chunks"])[level]
    path = (e["label_paths"] if is_label else e["paths"])[level]
    # A region that holds a pixel of the damaged chunk, when the damage hit one.
    origin = _chunk_origin(damage.key, chunk, path) or [0] * full.ndim
    span = chunk if _chunk_origin(damage.key, chunk, path) else full.shape
    box = []
    for o, c, n in list(zip(origin, span, full.shape))[-2:]:
        inside = rng.randrange(o, min(o + c, n))
        box.append((rng.randint(0, inside), rng.randint(inside + 1, n)))
    (y0, y1), (x0, x1) = box
    got = image.read({"y": (y0, y1), "x": (x0, x1)}, level=level)
    return got, full[..., y0:y1, x0:x1]


def ome_region(ctx, built, damage, rng):
    return _ome_region(local_url(built), built, damage, rng)


def ome_http(ctx, built, damage, rng):
    return _ome_region(http_url(ctx, built), built, damage, rng)


# -- VCF Zarr ---------------------------------------------------------------------------------

def vcz_read(ctx, built, damage, rng):
    from turbozarr import vcz
    return vcz.read(str(built.root), built.expected["fields"]), built.expected["arrays"]


def vcz_zip(ctx, built, damage, rng):
    from turbozarr import vcz
    return vcz.read(zip_copy(ctx, built), built.expected["fields"]), built.expected["arrays"]


def vcz_view(ctx, built, damage, rng):
    from turbozarr import vcz
    return vcz.view(str(built.root)), built.expected["view"]


def vcz_cli_view(ctx, built, damage, rng):
    """`turbozarr vcz view`, the binary."""
    out = _run_cli(ctx, ["vcz", "view", "--no-version", str(built.root)])
    return out.decode(), built.expected["view"]


# -- the list --------------------------------------------------------------------------------

READERS = [
    Reader("whole", ("array",), whole),
    Reader("partial", ("array",), partial),
    Reader("strict", ("array",), strict),
    Reader("http", ("array",), over_http, zip_layouts=False),
    Reader("zip", ("array",), through_zip, zip_layouts=False),
    Reader("blocks", ("array",), blocks),
    Reader("gather", ("array",), gather),
    Reader("copy", ("array",), copy),
    Reader("cli-cp", ("array",), cli_copy, needs="cli"),
    Reader("zarr-python", ("array",), zarr_python, needs="zarr-python"),
    Reader("tile", ("sparse",), sparse_tile),
    Reader("cells", ("sparse",), sparse_cells),
    Reader("whole", ("sparse",), sparse_whole),
    Reader("http", ("sparse",), sparse_http),
    Reader("zip", ("sparse",), sparse_zip),
    Reader("levels", ("ome",), ome_levels),
    Reader("region", ("ome",), ome_region),
    Reader("http", ("ome",), ome_http),
    Reader("zip", ("ome",), ome_zip),
    Reader("read", ("vcz",), vcz_read),
    Reader("view", ("vcz",), vcz_view),
    Reader("cli-view", ("vcz",), vcz_cli_view, needs="cli"),
    Reader("zip", ("vcz",), vcz_zip),
]

DESCRIPTIONS = {
    "whole": "the whole array (sparse: the whole matrix, `to_scipy`)",
    "partial": "a box inside one chunk, or one inner chunk of a shard: the damaged one",
    "strict": "the whole array with `read_missing_chunks=False`",
    "http": "over HTTP from a loopback server (arrays whole; sparse a tile; OME a region)",
    "zip": "a zip archive made from the damaged layout (so its CRCs fit the damage)",
    "blocks": "`iter_blocks` with an 8 KiB readahead budget",
    "gather": "`vindex` of 12 points, half of them in the damaged chunk",
    "copy": "`dest[...] = source` into an array of smaller chunks, read back",
    "cli-cp": "the binary: `turbozarr cp --codec zstd` (a converting copy), read back",
    "zarr-python": "zarr-python 3.4 with `turbozarr.ZarrCodecPipeline` (Python 3.12)",
    "tile": "`sparse.open(...).tile(t)`, the damaged tile",
    "cells": "`cells(ids)`: 8 cells of the damaged tile and 8 anywhere",
    "levels": "`ome.open` and every level of the image and of its label",
    "region": "a region of the damaged level (`image.read(roi, level=k)`)",
    "read": "`turbozarr.vcz.read` of every variant_ and call_ field",
    "view": "`turbozarr.vcz.view` (the VCF text)",
    "cli-view": "the binary: `turbozarr vcz view --no-version`",
}


def available(need: str, cli: str | None) -> bool:
    if need == "cli":
        return bool(cli) and os.path.isfile(cli)
    if need == "zarr-python":
        try:
            import zarr
        except ImportError:
            return False
        return tuple(int(p) for p in zarr.__version__.split(".")[:2]) >= (3, 4)
    return True


def readers_for(built_kind: str, zip_layout: bool, cli: str | None) -> list[Reader]:
    return [r for r in READERS if built_kind in r.kinds and (r.zip_layouts or not zip_layout)
            and available(r.needs, cli)]


# -- an HTTP server for the worker -----------------------------------------------------------

class _RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Files with single byte ranges (206), as object stores answer."""

    def log_message(self, *args):
        pass

    def send_head(self):
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
        path = self.translate_path(self.path)
        if match is None or not os.path.isfile(path):
            return super().send_head()
        data = Path(path).read_bytes()
        first, last = match.groups()
        if first == "":
            first, last = max(0, len(data) - int(last)), len(data) - 1
        else:
            first, last = int(first), min(int(last or len(data) - 1), len(data) - 1)
        if first >= len(data):
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{len(data)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return io.BytesIO(b"")
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {first}-{last}/{len(data)}")
        self.send_header("Content-Length", str(last - first + 1))
        self.end_headers()
        return io.BytesIO(data[first:last + 1])


def serve(directory: Path) -> tuple[str, Callable[[], None]]:
    """Serves `directory` on loopback; returns the URL and a stop function."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_RangeHandler, directory=str(directory)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
    return f"http://127.0.0.1:{server.server_address[1]}", stop
