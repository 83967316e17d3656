"""The physical ceiling beside workload E's reads and writes: the seconds in
which the codec alone, one process per core, decodes the level-0 chunks a
read touches, or encodes the chunks a write makes and writes each stored
key into a fresh file. No framework, no copies into the output: the
payloads are in memory before the clock starts, and numcodecs' thin wrapper
over the C library (ceilings.py) does nothing but the codec's work. A
side's time beside it says how much of that time is the machine's, which no
implementation on this machine can undercut without skipping work.

- read: the stored payloads of every chunk (the inner chunks of a sharded
  image, located by the shard index) that the region overlaps, decoded;
- write: every chunk the region overlaps, as it must be stored (the
  region's pixels, the fill value around them in a chunk it only
  straddles), encoded (uncompressed images: as they are), and each stored
  key (a chunk, or a shard: its inner chunks and index) written with one
  write() into a new file beside the case's outputs. The file writes belong
  in it: on this machine's disks, copying bytes into fresh page-cache pages
  costs a core 3-6 ms per MB (about as much as encoding them), and every
  writer pays it.
Uncompressed images have no read ceiling (no codec work): it is left empty.

Runs in the harness, untimed for the sides, after a case.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from turbozarr_bench.ceilings import _decode_parallel, run_forked, shard_inner_chunks
from turbozarr_bench.datasets.spec import DatasetSpec

ROUNDS = 3  # the fastest of these


def _codec(spec: DatasetSpec) -> Any | None:
    if spec.values["codec"] == "none":
        return None
    import numcodecs

    return numcodecs.Zstd(level=spec.values["level"])


def chunk_grid(spec: DatasetSpec, index: tuple[slice, ...]) -> list[tuple[int, ...]]:
    """The coordinates of every level-0 chunk (inner chunk) `index` overlaps."""
    ranges = [range(s.start // c, -(-s.stop // c)) for s, c in zip(index, spec.chunks)]
    return list(itertools.product(*ranges))


def _key(spec: DatasetSpec, coords: tuple[int, ...]) -> str:
    return "/".join(map(str, coords)) if spec.zarr_format == 2 else "c/" + "/".join(
        map(str, coords))


def payloads(level0: Path, spec: DatasetSpec, coords: list[tuple[int, ...]]) -> list[bytes]:
    """The stored bytes of the chunks at `coords` of the level-0 array at
    `level0` (inner chunks of a sharded one; chunks never written left out)."""
    shards = spec.values.get("shards")
    if not shards:
        return [p.read_bytes() for p in (level0 / _key(spec, c) for c in coords) if p.exists()]
    cfg = json.loads((level0 / "zarr.json").read_text())["codecs"][0]["configuration"]
    per = [s // c for s, c in zip(shards, spec.chunks)]
    inner: dict[tuple[int, ...], list[bytes | None]] = {}  # each shard read once
    out = []
    for c in coords:
        shard = tuple(i // p for i, p in zip(c, per))
        if shard not in inner:
            path = level0 / _key(spec, shard)
            inner[shard] = (shard_inner_chunks(path.read_bytes(), cfg, int(np.prod(per)))
                            if path.exists() else [])
        k = int(np.ravel_multi_index(tuple(i % p for i, p in zip(c, per)), per))
        if inner[shard] and inner[shard][k] is not None:
            out.append(inner[shard][k])
    return out


def read_seconds(fixture: Path, spec: DatasetSpec, index: tuple[slice, ...]) -> float | None:
    """The decode ceiling of reading `index` from the fixture's level 0."""
    codec = _codec(spec)
    if codec is None:
        return None
    stored = payloads(fixture / "0", spec, chunk_grid(spec, index))
    chunk_bytes = int(np.prod(spec.chunks)) * np.dtype(spec.dtype).itemsize
    procs = os.cpu_count() or 1
    return min(_decode_parallel(stored, [codec], False, chunk_bytes, procs)
               for _ in range(ROUNDS))


def _store_worker(conn, barrier, keys, codec, directory) -> None:
    """Encodes the chunks of each stored key and writes the key (the chunks
    one after another, then a shard's index) into a new file."""
    barrier.wait()
    t0 = time.perf_counter()
    for name, chunks, index_bytes in keys:
        parts = [codec.encode(c) if codec is not None else c.tobytes() for c in chunks]
        blob = b"".join(parts) + bytes(index_bytes)
        fd = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, blob)
        finally:
            os.close(fd)
    conn.send(time.perf_counter() - t0)
    conn.close()


def stored_keys(spec: DatasetSpec, index: tuple[slice, ...],
                chunks: list[np.ndarray]) -> list[tuple[str, list[np.ndarray], int]]:
    """The keys a write of `index` stores, each with its chunks (those of
    write_chunks, in its order) and the bytes of its shard index (0 when the
    image is not sharded): (file name, chunks, index bytes)."""
    coords = chunk_grid(spec, index)
    shards = spec.values.get("shards")
    if not shards:
        return [("-".join(map(str, c)), [chunk], 0) for c, chunk in zip(coords, chunks)]
    per = [s // c for s, c in zip(shards, spec.chunks)]
    index_bytes = int(np.prod(per)) * 16 + 4  # offsets and lengths, crc32c
    grouped: dict[tuple[int, ...], list[np.ndarray]] = {}
    for c, chunk in zip(coords, chunks):
        grouped.setdefault(tuple(i // p for i, p in zip(c, per)), []).append(chunk)
    return [("-".join(map(str, s)), group, index_bytes) for s, group in grouped.items()]


def write_chunks(spec: DatasetSpec, index: tuple[slice, ...],
                 data: np.ndarray) -> list[np.ndarray]:
    """Every chunk a write of `data` at `index` into a fresh level 0 makes:
    the data where the region covers it, the fill value elsewhere."""
    chunks = []
    for c in chunk_grid(spec, index):
        box = tuple(slice(i * n, min((i + 1) * n, total))
                    for i, n, total in zip(c, spec.chunks, spec.shape))
        inside = tuple(slice(max(b.start, r.start), min(b.stop, r.stop))
                       for b, r in zip(box, index))
        chunk = np.full(spec.chunks, spec.fill_value, dtype=spec.dtype)
        chunk[tuple(slice(s.start - b.start, s.stop - b.start) for s, b in zip(inside, box))] = \
            data[tuple(slice(s.start - r.start, s.stop - r.start) for s, r in zip(inside, index))]
        chunks.append(chunk)
    return chunks


def write_seconds(spec: DatasetSpec, index: tuple[slice, ...], data: np.ndarray,
                  directory: Path) -> float:
    """The ceiling of writing `data` at `index` into a fresh level 0: its
    chunks encoded and its keys written to new files under `directory`,
    left there for the caller to remove (and let the file system settle:
    ome_runner._clear)."""
    codec = _codec(spec)
    keys = stored_keys(spec, index, write_chunks(spec, index, data))
    procs = os.cpu_count() or 1
    best = float("inf")
    for round_ in range(ROUNDS):
        # A directory per round: no file is replaced, none removed while the
        # rounds run (ome_runner._clear says why that matters).
        shares = []
        for w in range(procs):
            d = directory / f"ceiling-{round_}" / str(w)
            d.mkdir(parents=True)
            shares.append((keys[w::procs], codec, str(d)))
        best = min(best, run_forked(_store_worker, shares, procs))
    return best
