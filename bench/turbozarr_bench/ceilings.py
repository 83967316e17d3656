"""The physical ceilings, measured in the same run as the cases they bound.

| ceiling     | what is timed                                            | bytes     |
|-------------|----------------------------------------------------------|-----------|
| memcpy      | np.copyto of the decoded size between pre-faulted buffers| decoded   |
| pagecache   | pread of every stored file, warm, into a pre-faulted     | stored    |
|             | buffer, on `threads` threads                             |           |
| decode-1    | the codec's decode of every stored chunk, one core       | decoded   |
| decode-all  | the same split over one process per core                 | decoded   |

No framework sits between the loop and the codec library: the chunk payloads
are read into memory first (untimed), then numcodecs' thin wrapper over the
C library (Blosc, zstd, zlib) decodes each into one reused buffer. For
sharded arrays the payloads are the inner chunks, located by the shard index.
A ceiling is a rate no implementation can beat on this machine without
skipping work; reading it next to a row says how much of the time is the
framework's.

Runs in the child (harness interpreter, which has numcodecs), through
child.py: this module provides `Driver` with `build_measured`.
"""

from __future__ import annotations

import math
import os
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from turbozarr_bench import measure
from turbozarr_bench.adapters.base import Driver as _Base, Unsupported
from turbozarr_bench.ops import Measured

NAMES = ("memcpy", "pagecache", "decode-1", "decode-all")
RANGE = 64 << 20  # bytes per pread task


def _prefaulted(nbytes: int) -> np.ndarray:
    a = np.empty(nbytes, dtype=np.uint8)
    a.fill(1)
    return a


def _codec_chain(codecs: list[dict]) -> tuple[list[Any], bool]:
    """numcodecs decoders for a v3 bytes-to-bytes chain (applied in reverse),
    and whether a trailing crc32c must be stripped."""
    import numcodecs

    chain = []
    crc = False
    for c in codecs:
        name, cfg = c["name"], c.get("configuration", {})
        if name in ("bytes", "endian"):
            if cfg.get("endian", "little") != "little":
                raise Unsupported("big-endian chunks")
            continue
        if name == "crc32c":
            crc = True
            continue
        if name == "zstd":
            chain.append(numcodecs.Zstd(level=cfg.get("level", 0)))
        elif name == "gzip":
            chain.append(numcodecs.GZip(level=cfg.get("level", 6)))
        elif name == "blosc":
            shuffles = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}
            chain.append(numcodecs.Blosc(cname=cfg["cname"], clevel=cfg["clevel"],
                                         shuffle=shuffles[cfg["shuffle"]],
                                         blocksize=cfg.get("blocksize", 0)))
        else:
            raise Unsupported(f"no ceiling decoder for codec '{name}'")
    return chain, crc


def chunk_payloads(path: Path, meta: dict) -> tuple[list[bytes], list[Any], bool, int]:
    """(encoded payloads, decoder chain, strip crc, decoded bytes per chunk)."""
    import numcodecs

    if meta.get("zarr_format") == 2:
        itemsize = np.dtype(meta["dtype"]).itemsize
        chunk_bytes = math.prod(meta["chunks"]) * itemsize
        chain = [numcodecs.get_codec(meta["compressor"])] if meta.get("compressor") else []
        if meta.get("filters"):
            raise Unsupported("v2 filters")
        files = [p for p in measure.files_under(path) if not p.name.startswith(".z")]
        return [p.read_bytes() for p in sorted(files)], chain, False, chunk_bytes
    itemsize = np.dtype(meta["data_type"]).itemsize
    codecs = meta["codecs"]
    outer = meta["chunk_grid"]["configuration"]["chunk_shape"]
    files = sorted(p for p in measure.files_under(path) if p.name != "zarr.json")
    if codecs[0]["name"] != "sharding_indexed":
        chain, crc = _codec_chain(codecs)
        return [p.read_bytes() for p in files], chain, crc, math.prod(outer) * itemsize
    cfg = codecs[0]["configuration"]
    inner = cfg["chunk_shape"]
    chain, crc = _codec_chain(cfg["codecs"])
    n = math.prod(o // i for o, i in zip(outer, inner))
    payloads = []
    for p in files:
        payloads += [c for c in shard_inner_chunks(p.read_bytes(), cfg, n) if c is not None]
    return payloads, chain, crc, math.prod(inner) * itemsize


def shard_inner_chunks(blob: bytes, cfg: dict, n: int) -> list[bytes | None]:
    """The `n` inner chunks of one stored shard (sharding_indexed
    configuration `cfg`), in the index's order; None where one is absent."""
    if cfg.get("index_location", "end") != "end":
        raise Unsupported("shard index at the start")
    index_bytes = n * 16 + (4 if any(c["name"] == "crc32c" for c in cfg["index_codecs"]) else 0)
    index = blob[len(blob) - index_bytes:]
    out: list[bytes | None] = []
    for k in range(n):
        offset, length = struct.unpack_from("<QQ", index, 16 * k)
        out.append(None if offset == 2**64 - 1 else blob[offset:offset + length])
    return out


def _decode_all(payloads, chain, crc: bool, chunk_bytes: int) -> None:
    out = np.empty(chunk_bytes, dtype=np.uint8)
    for payload in payloads:
        data = payload[:-4] if crc else payload
        for i, codec in enumerate(reversed(chain)):
            last = i == len(chain) - 1
            data = codec.decode(data, out=out if last else None)


def _worker(conn, barrier, payloads, chain, crc, chunk_bytes) -> None:
    barrier.wait()
    t0 = time.perf_counter()
    _decode_all(payloads, chain, crc, chunk_bytes)
    conn.send(time.perf_counter() - t0)
    conn.close()


def run_forked(worker, shares: list[tuple], procs: int) -> float:
    """Wall time for `procs` forked processes, the k-th running
    worker(conn, barrier, *shares[k]) and sending its time from the common
    barrier on `conn`; returns the slowest."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(procs)
    pipes, workers = [], []
    for share in shares[:procs]:
        parent, child = ctx.Pipe(duplex=False)
        p = ctx.Process(target=worker, args=(child, barrier, *share))
        p.start()
        pipes.append(parent)
        workers.append(p)
    times = [c.recv() for c in pipes]
    for p in workers:
        p.join()
    return max(times)


def _decode_parallel(payloads, chain, crc, chunk_bytes, procs: int) -> float:
    """Wall time for `procs` forked processes to decode the payloads between
    them, each timed from a common barrier; returns the slowest."""
    return run_forked(_worker, [(payloads[w::procs], chain, crc, chunk_bytes)
                                for w in range(procs)], procs)


class Driver(_Base):
    """Builds the Measured for one ceiling; `case["options"]["ceiling"]` names it."""

    def versions(self) -> dict[str, str]:
        import numcodecs

        v = super().versions()
        v["numcodecs"] = numcodecs.__version__
        return v

    def build_measured(self) -> Measured:
        case = self.case
        which = case["options"]["ceiling"]
        fixture = case["fixture"]
        path = Path(fixture["path"])
        nbytes = int(fixture["stamp"]["nbytes"])
        if which == "memcpy":
            src = _prefaulted(nbytes)
            dst = _prefaulted(nbytes)
            self.notes.append("np.copyto, one thread")
            return Measured(run=lambda: np.copyto(dst, src), setup=lambda: None, nbytes=nbytes)
        if which == "pagecache":
            return self._pagecache(path)
        payloads, chain, crc, chunk_bytes = chunk_payloads(path, fixture["meta"])
        if not chain:
            raise Unsupported("the dataset is uncompressed: decoding is a copy")
        decoded = chunk_bytes * len(payloads)
        libs = {"GZip": "GZip (zlib)", "Zstd": "Zstd (libzstd)", "Blosc": "Blosc (c-blosc)"}
        self.notes.append(f"{len(payloads)} chunks, "
                          f"{'+'.join(libs.get(type(c).__name__, type(c).__name__) for c in chain)}"
                          f" via numcodecs")
        if which == "decode-1":
            return Measured(run=lambda: _decode_all(payloads, chain, crc, chunk_bytes),
                            setup=lambda: None, nbytes=decoded)
        procs = self.threads
        timed: dict[str, float] = {}

        def run() -> None:
            # The measured span is the workers' own (from their common
            # barrier), reported through `timed`; fork costs are outside it.
            timed["last"] = _decode_parallel(payloads, chain, crc, chunk_bytes, procs)

        self.notes.append(f"{procs} processes")
        m = Measured(run=run, setup=lambda: None, nbytes=decoded)
        m.inner_time = timed  # type: ignore[attr-defined]
        return m

    def _pagecache(self, path: Path) -> Measured:
        files = sorted(measure.files_under(path))
        sizes = [p.stat().st_size for p in files]
        total = sum(sizes)
        buf = _prefaulted(max(total, 1))
        view = memoryview(buf)
        tasks = []
        base = 0
        for p, size in zip(files, sizes):
            for off in range(0, size, RANGE):
                tasks.append((str(p), off, min(RANGE, size - off), base + off))
            base += size
        threads = self.threads

        def one(task) -> None:
            name, off, length, at = task
            fd = os.open(name, os.O_RDONLY)
            try:
                os.preadv(fd, [view[at:at + length]], off)
            finally:
                os.close(fd)

        def run() -> None:
            if threads <= 1:
                for t in tasks:
                    one(t)
            else:
                with ThreadPoolExecutor(threads) as pool:
                    list(pool.map(one, tasks))

        self.notes.append(f"pread of {len(files)} files on {threads} threads")
        return Measured(run=run, setup=lambda: None, nbytes=total, files=files)

