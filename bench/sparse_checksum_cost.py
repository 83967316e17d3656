"""Tile reads of workload F's matrix without and with crc32c, one process,
interleaved, same code: the cost of the checksum alone.

    PYTHONPATH=python .venv/bin/python bench/sparse_checksum_cost.py \\
        OLD/turbozarr NEW/turbozarr

OLD is the f-counts fixture's turbozarr matrix as written before matrices
carried a checksum (a copy of the fixture directory kept from a run of an
older build), NEW the one the suite writes now; both from the same .h5ad.
Medians of 15 rounds of tiles 1-3, at 1 and 2 threads."""
import statistics, sys, time
import turbozarr.sparse as sparse
old = sparse.open(sys.argv[1]); new = sparse.open(sys.argv[2])
assert new.layout.get("checksum") == "crc32c" and old.layout.get("checksum") in (None, "none")
for threads in (1, 2):
    t = {"without": [], "with crc32c": []}
    for r in range(15):
        for name, ds in (("without", old), ("with crc32c", new)):
            s = time.perf_counter()
            for tile in (1, 2, 3):
                ds.tile(tile, threads=threads)
            t[name].append((time.perf_counter() - s) / 3)
    a, b = (statistics.median(v) * 1e3 for v in t.values())
    print(f"read_tile, {threads} thread(s): without {a:.1f} ms, with crc32c {b:.1f} ms, ratio {b / a:.3f}")
