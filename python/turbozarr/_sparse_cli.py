"""`turbozarr sparse convert | info`: sparse counts datasets on the command
line (docs/sparse.md). Runs in Python, where the .h5ad reader lives; the
`turbozarr` entry point hands the `sparse` command here."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from turbozarr import sparse
from turbozarr._optional import import_optional
from turbozarr.errors import TurbozarrError


class _ProgressBar:
    """One line on stderr, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._last = 0.0
        self._shown = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = width * done // max(total, 1)
        label = {"scan": "scanning", "write": "writing"}.get(stage, stage)
        self._stream.write(f"\r{label:9} [{'#' * filled}{'.' * (width - filled)}] "
                           f"{done}/{total} tiles")
        self._stream.flush()
        self._shown = True
        if done == total:
            self._stream.write("\n")
            self._shown = False


def _convert(args: argparse.Namespace) -> int:
    source = Path(args.source)
    progress: Callable[[str, int, int], None] | None = None
    if args.progress or (args.progress is None and sys.stderr.isatty()):
        progress = _ProgressBar(sys.stderr)
    options = dict(tile_cells=args.tile_cells, chunks_per_tile=args.chunks_per_tile,
                   zstd_level=args.zstd_level, overwrite=args.overwrite, progress=progress)
    if source.is_dir() or source.name.startswith("matrix.mtx"):
        ds = sparse.from_mtx(source if source.is_dir() else source.parent, args.dest, **options)
    elif source.suffix == ".h5ad":
        ds = sparse.from_h5ad(source, args.dest, key=args.key, **options)
    elif source.suffix == ".npz":
        scipy_sparse = import_optional("scipy.sparse", "sparse", "reading an .npz file")
        ds = sparse.write(args.dest, scipy_sparse.load_npz(source), **options)
    else:
        raise TurbozarrError(f"{source}: not an .h5ad file, a 10x directory (matrix.mtx) "
                             "or a scipy .npz file")
    tiles = f"{ds.n_tiles} tile" + ("s" if ds.n_tiles != 1 else "")
    print(f"{ds.n_cells} cells x {ds.n_genes} genes, {ds.nnz} nonzeros in {tiles} -> {args.dest}")
    return 0


def _info(args: argparse.Namespace) -> int:
    ds = sparse.open(args.dataset)
    layout = ds.layout
    facts = {
        "shape": list(ds.shape),
        "nonzeros": ds.nnz,
        "density": ds.nnz / max(1, ds.n_cells * ds.n_genes),
        "tiles": ds.n_tiles,
        "tile_cells": ds.tile_cells,
        "counts": layout["counts"],
        "stored_values": layout["stored_values"],
        "zstd_level": layout["zstd_level"],
        "obs": ds.obs.columns if ds.obs is not None else [],
        "var": ds.var.columns if ds.var is not None else [],
    }
    if args.json:
        print(json.dumps(facts, indent=2))
        return 0
    per_cell = ds.nnz / max(1, ds.n_cells)
    print(f"{args.dataset}: {ds.n_cells} cells x {ds.n_genes} genes, {ds.nnz} nonzeros "
          f"({per_cell:.1f} per cell, density {facts['density']:.4f})")
    print(f"  {ds.n_tiles} tiles of {ds.tile_cells} cells; counts {layout['counts']} stored as "
          f"{layout['stored_values']}; zstd level {layout['zstd_level']}")
    for name in ("obs", "var"):
        print(f"  {name}: {', '.join(facts[name]) or '(no columns)'}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="turbozarr sparse",
                                     description="Sparse single-cell counts (docs/sparse.md).")
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("convert", help="write a dataset from .h5ad, 10x or .npz")
    convert.add_argument("source", help=".h5ad file, 10x directory (matrix.mtx) or .npz")
    convert.add_argument("dest", help="store URL of the new dataset")
    convert.add_argument("--key", default="X", help="the .h5ad matrix: X, raw/X, layers/NAME")
    convert.add_argument("--tile-cells", type=int, default=sparse.TILE_CELLS)
    convert.add_argument("--chunks-per-tile", type=int, default=8)
    convert.add_argument("--zstd-level", type=int, default=9)
    convert.add_argument("--overwrite", action="store_true")
    convert.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                         help="show a progress bar (default: when stderr is a terminal)")
    convert.set_defaults(run=_convert)
    info = commands.add_parser("info", help="describe a dataset")
    info.add_argument("dataset", help="store URL of the dataset")
    info.add_argument("--json", action="store_true", help="print the facts as JSON")
    info.set_defaults(run=_info)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    # A missing optional dependency is the environment's, not a bug: its
    # message (which names the extra to install) is the whole story.
    except (TurbozarrError, OSError, ModuleNotFoundError) as e:
        print(f"turbozarr sparse {args.command}: {e}", file=sys.stderr)
        return 1
