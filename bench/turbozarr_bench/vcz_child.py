"""One retrieval task of workload D on one side, in a process of its own:

    python -m turbozarr_bench.vcz_child '{"impl": "turbozarr" | "vcztools",
        "backend": null | "fsspec" | "obstore", "task": NAME,
        "path": DATASET (a directory or a URL), "region": "1:a-b"}'

run with the interpreter that has that side's library (the project's for
turbozarr, .venv-vcz for vcztools); `backend` is the store vcztools reads a
URL through (turbozarr opens URLs itself). It opens the dataset, sets up the
selection and iterates the blocks twice: once untimed, hashing the values
for the check (so that neither side's imports, lazy set-up or the hashing
count), then timed from the open to the last block. It prints one JSON
line: seconds, cpu, peak_rss_mb, records, bytes (of values returned) and
digest (FieldDigest).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from typing import Any, Iterator

import numpy as np

from turbozarr_bench import measure
from turbozarr_bench.vcz_tasks import BY_NAME, FieldDigest, Task, sample_count


def _turbozarr_blocks(task: Task, path: str, region: str,
                      backend: str | None) -> Iterator[tuple[dict, int]]:
    from turbozarr import vcz

    d = vcz.open(path)
    root = d.group
    selection: dict[str, Any] = {}
    if task.region:
        selection["regions"] = region
    if task.variant_chunks is not None:
        # The first chunks by number, as vcztools' side asks for them: in
        # units of the call arrays' chunk (variant-only arrays may be
        # chunked longer).
        size = root["call_genotype"].chunks[0]
        selection["variants"] = (0, min(task.variant_chunks * size, d.num_variants))
    n = sample_count(task, d.num_samples, root["sample_id"].chunks[0])
    if n is not None:
        selection["samples"] = ",".join(d.sample_ids[:n])
    if task.include:
        selection["include"] = task.include
    fields = list(task.fields) or ["variant_index"]
    for block in vcz.iter_blocks(d, fields, **selection):
        yield block, len(next(iter(block.values())))


def _vcztools_blocks(task: Task, path: str, region: str,
                     backend: str | None) -> Iterator[tuple[dict, int]]:
    from vcztools import bcftools_filter, retrieval, utils
    from vcztools import regions as regions_mod

    options = {"client_options": {"allow_http": True}} if backend == "obstore" else None
    reader = retrieval.VczReader(utils.open_zarr(path, backend_storage=backend,
                                                 storage_options=options))
    # Samples first: planning a region reads through the reader, which
    # fixes its samples.
    n = sample_count(task, reader.num_samples, reader.samples_chunk_size)
    if n is not None:
        reader.set_sample_indexes(np.arange(n))
    if task.region:
        reader.set_variants(regions_mod.build_chunk_plan(reader, regions=region))
    if task.variant_chunks is not None:
        size, total = reader.variants_chunk_size, reader.num_variants
        reader.set_variants([utils.ChunkRead(index=i, num_selected=min(size, total - i * size))
                             for i in range(min(task.variant_chunks, -(-total // size)))])
    if task.include:
        if task.all_sample_filter:
            reader.set_bcftools_semantics(full_sample_filter=True)
        reader.set_variant_filter(bcftools_filter.BcftoolsFilter(reader, include=task.include))
    if not task.fields:
        # The chunk plan alone, as vcztools' own suite counts it.
        for cr in reader.variant_chunk_plan:
            yield {}, cr.num_selected
        return
    for chunk in reader.variant_chunks(fields=list(task.fields)):
        yield chunk, int(chunk[task.fields[0]].shape[0])


def run(doc: dict[str, Any]) -> dict[str, Any]:
    task = BY_NAME[doc["task"]]
    blocks = _turbozarr_blocks if doc["impl"] == "turbozarr" else _vcztools_blocks
    # Once untimed, with the values hashed for the check: the imports and
    # set-up either library does lazily on first use are not the task's, nor
    # is the hashing. Then the timed run, which only counts.
    digest = FieldDigest(task.fields)
    args = (task, doc["path"], doc.get("region", ""), doc.get("backend"))
    for block, records in blocks(*args):
        digest.add(block, records)
    records = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for _, n in blocks(*args):
        records += n
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if records != digest.records:
        raise RuntimeError(f"{task.name}: {records} records timed, {digest.records} checked")
    # This process's own high-water mark: ru_maxrss would also count the
    # harness's, which the kernel carries over into a child it starts.
    peak = measure.peak_rss_mb()
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "cpu": cpu, "peak_rss_mb": peak,
            "records": digest.records, "bytes": digest.nbytes, "digest": digest.hexdigest()}


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
