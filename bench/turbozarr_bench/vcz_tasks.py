"""Workload D's tasks (the vcztools benchmark suite, ../shared/workloads.md):
what each reads and selects, in terms both sides understand.

Retrieval tasks iterate the selected variants a block at a time and hand
back the chosen fields (turbozarr.vcz.iter_blocks; vcztools'
VczReader.variant_chunks). Output tasks run the command-line tools and write
files. Both sides hash what they returned (FieldDigest), so the runner can
check that they agree value for value whatever their block boundaries.

Pure standard library and numpy: it is imported in the harness, in the
turbozarr child and in the vcztools environment.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

INFO = ("variant_position", "variant_contig", "variant_length", "variant_DP", "variant_QUAL")
FMT_FILTER = "FMT/GQ>=0 & FMT/GQ<=100 & FMT/DP>=0 & FMT/DP<=101"


@dataclass(frozen=True)
class Task:
    name: str
    fields: tuple[str, ...] = ()     # returned; () counts records only
    variant_chunks: int | None = None  # the first k variant chunks, else all
    samples: str | None = None       # "chunk", "chunk-1", "5%", "1%"; None: all
    region: bool = False             # the workload's central region
    include: str | None = None       # a bcftools filter expression
    all_sample_filter: bool = False  # the filter sees every sample, not the selection
    output: str | None = None        # "vcf", "plink", "bgen": a command writes files
    level: int | None = None         # BGEN zlib level


TASKS: tuple[Task, ...] = (
    Task("iter_no_fields"),
    Task("iter_info_only", INFO + ("variant_IMPACT",)),
    Task("region_info_and_format", INFO + ("call_DP", "call_GQ", "call_genotype"), region=True),
    Task("first_samples_chunk", ("call_genotype",), samples="chunk"),
    Task("first_samples_chunk_slice", ("call_genotype",), samples="chunk-1"),
    Task("first_variant_chunks", ("call_genotype",), variant_chunks=5),
    Task("fmt_fields", ("call_genotype", "call_GQ", "call_DP"), variant_chunks=60,
         samples="chunk"),
    Task("fmt_fields_filtered", ("call_genotype", "call_GQ", "call_DP"), variant_chunks=60,
         samples="chunk", include=FMT_FILTER),
    Task("region_variant_position", ("variant_position",), region=True),
    Task("filter_info_dp_gt_80", ("variant_position", "variant_DP"), include="INFO/DP>80"),
    Task("filter_info_dp_gt_80_genotypes", ("variant_position", "variant_DP", "call_genotype"),
         samples="5%", include="INFO/DP>80"),
    Task("region_filter_format_gq_gt_50", ("variant_position",), region=True,
         include="FMT/GQ>50", all_sample_filter=True),
    Task("region_and_sample_subset", ("call_genotype",), region=True, samples="1%"),
    Task("output_vcf", variant_chunks=1, output="vcf"),
    Task("output_plink", variant_chunks=20, output="plink"),
    Task("output_bgen_l0", variant_chunks=5, output="bgen", level=0),
    Task("output_bgen_l1", variant_chunks=5, output="bgen", level=1),
    Task("output_bgen_l6", variant_chunks=5, output="bgen", level=6),
)
BY_NAME = {t.name: t for t in TASKS}


def sample_count(task: Task, num_samples: int, sample_chunk: int) -> int | None:
    """How many of the first samples a task selects (None: all)."""
    if task.samples is None:
        return None
    chunk = min(sample_chunk, num_samples)
    return {"chunk": chunk, "chunk-1": max(1, chunk - 1),
            "5%": max(1, num_samples // 20), "1%": max(1, num_samples // 100)}[task.samples]


def central_region(contig: str, positions: np.ndarray, fraction: float = 0.002) -> str:
    """The central `fraction` of the variants around the median position,
    as "contig:start-end" (the workload's region)."""
    positions = np.sort(positions)
    half = fraction / 2
    lo = int(len(positions) * (0.5 - half))
    hi = max(lo + 1, int(len(positions) * (0.5 + half)))
    return f"{contig}:{int(positions[lo])}-{int(positions[min(hi, len(positions)) - 1])}"


def first_chunks_region(contig: str, positions: Any, chunks: int, chunk_size: int) -> str:
    """A region holding exactly the first `chunks` variant chunks of
    `chunk_size` variants (the call arrays' chunk, as vcztools counts them)
    of `positions` (a numpy or turbozarr array; one contig, as the
    workload's datasets have): positions are sorted and distinct, so from
    the first position to the last of those chunks."""
    last = min(chunks * chunk_size, positions.shape[0]) - 1
    return f"{contig}:{int(positions[0])}-{int(positions[last])}"


class FieldDigest:
    """A digest of the values returned, field by field, independent of how
    they were cut into blocks: each field's values in order (numbers as
    their bytes in C order with their dtype, strings as UTF-8 separated by
    NUL), and the number of records."""

    def __init__(self, fields: tuple[str, ...]):
        self.fields = fields
        self.hashes = {f: hashlib.sha256() for f in fields}
        self.dtypes: dict[str, str] = {}
        self.records = 0
        self.nbytes = 0

    def add(self, block: dict[str, np.ndarray], records: int) -> None:
        self.records += records
        for name in self.fields:
            a = block[name]
            if a.dtype.kind in "OTU":
                self.dtypes[name] = "str"
                text = "".join(str(x) + "\0" for x in a.reshape(-1))
                self.hashes[name].update(text.encode())
                self.nbytes += a.size * 8
            else:
                self.dtypes[name] = a.dtype.str
                a = np.ascontiguousarray(a)
                self.hashes[name].update(memoryview(a.reshape(-1)).cast("B"))
                self.nbytes += a.nbytes

    def hexdigest(self) -> str:
        h = hashlib.sha256(f"records={self.records};".encode())
        for name in self.fields:
            h.update(f"{name}:{self.dtypes.get(name, '')}:{self.hashes[name].hexdigest()};"
                     .encode())
        return h.hexdigest()[:16]
