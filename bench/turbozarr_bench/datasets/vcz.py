"""Workload D: a VCF Zarr store laid out as bio2zarr writes it.

Written with zarr-python (v2 by default): chunks of `variant_chunk` variants x
`sample_chunk` samples; Blosc zstd clevel 7 with bit shuffle for the genotype
arrays and byte shuffle otherwise; dimension names on every array
(`_ARRAY_DIMENSIONS` in v2) and descriptions on the fields, so that vcztools
writes the same VCF header from it as from a converted VCF. Each variant chunk
is drawn from its own seeded stream. Arrays: variant_contig,
variant_position (sorted), variant_length, variant_allele (V, 4): REF and 1
to 3 ALTs, "" past the last), variant_id ("rs<index>", "." for one in five),
variant_filter (all PASS), call_genotype (V, S, 2) int8 with a U-shaped
allele-frequency spectrum (most calls 0/0), call_genotype_phased,
call_genotype_mask, sample_id, contig_id, contig_length, filter_id,
filter_description, region_index (chunk, contig, start, end, max_end,
n_records), and the augmented fields of the workload: variant_DP,
variant_QUAL, variant_IMPACT (HIGH, MOD x4, LOW x15, cycling), call_DP and
call_GQ.

With `variant_only_bytes` (vcz-long), each variant-only array is chunked to
about that many bytes uncompressed (a multiple of `variant_chunk`, strings
counted as 8 bytes), as the workload asks, while the call arrays keep
`variant_chunk`; those arrays are then written once, whole. The region
index still has a row per `variant_chunk` and contig: the unit in which
vcztools reads it (the call arrays' chunk), which turbozarr recognises.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from turbozarr_bench.checksum import array_digest
from turbozarr_bench.datasets.spec import DatasetSpec


def _chunk_positions(seed: int, k: int, n: int, v0: int) -> np.ndarray:
    # Positions increase by 1..99 per variant; each chunk starts from a
    # closed-form offset (100 per variant before it), so positions are sorted
    # and chunks do not depend on one another.
    rng = np.random.default_rng([seed, k, 1])
    return (v0 * 100 + np.cumsum(rng.integers(1, 100, n))).astype(np.int32)


IMPACT_CYCLE = np.array(["HIGH"] + ["MOD"] * 4 + ["LOW"] * 15)
BASES = np.array(["A", "C", "G", "T"])


def _chunk_alleles(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 4) alleles: a REF base, 1 to 3 ALTs (90%, 7%, 3%) of other bases,
    "" past the last."""
    ref = rng.integers(0, 4, n)
    alleles = np.full((n, 4), "", dtype=object)
    alleles[:, 0] = BASES[ref]
    count = np.where(rng.random(n) < 0.9, 2, np.where(rng.random(n) < 0.7, 3, 4))
    for k in range(1, 4):
        has = count > k
        alleles[has, k] = BASES[(ref[has] + k) % 4]
    return alleles


def write_vcz(spec: DatasetSpec, target: Path) -> str:
    import numcodecs
    import zarr

    v = spec.values
    S, V = v["samples"], v["variants"]
    vc, sc = v["variant_chunk"], v["sample_chunk"]
    fmt = v["zarr_format"]
    root = zarr.open_group(zarr.storage.LocalStore(str(target)), mode="w", zarr_format=fmt)
    root.attrs.update({"vcf_zarr_version": "0.4", "source": "turbozarr-bench workload D"})

    def comp(bit: bool):
        shuffle = numcodecs.Blosc.BITSHUFFLE if bit else numcodecs.Blosc.SHUFFLE
        if fmt == 2:
            return numcodecs.Blosc(cname="zstd", clevel=7, shuffle=shuffle)
        return zarr.codecs.BloscCodec(cname="zstd", clevel=7,
                                      shuffle="bitshuffle" if bit else "shuffle")

    def variant_only_chunk(shape, dtype):
        # ~variant_only_bytes per chunk, in whole call chunks.
        if not v.get("variant_only_bytes"):
            return vc
        per_variant = int(np.prod(shape[1:], dtype=np.int64)) * (
            8 if dtype is str else np.dtype(dtype).itemsize)
        return int(min(V, max(vc, v["variant_only_bytes"] // per_variant // vc * vc)))

    def make(name, shape, chunks, dtype, dims, bit=False, description=None):
        if name.startswith("variant_"):
            chunks = (variant_only_chunk(shape, dtype),) + tuple(chunks[1:])
        kw = {"compressor": comp(bit)} if fmt == 2 else {"compressors": comp(bit),
                                                         "dimension_names": dims}
        a = root.create_array(name, shape=shape, chunks=chunks, dtype=dtype, **kw)
        attrs = {"_ARRAY_DIMENSIONS": list(dims)} if fmt == 2 else {}
        if description:
            attrs["description"] = description
        if attrs:
            a.attrs.update(attrs)
        return a

    var, smp = ("variants",), ("variants", "samples")
    arrays = {
        "variant_contig": make("variant_contig", (V,), (vc,), "i1", var),
        "variant_position": make("variant_position", (V,), (vc,), "i4", var),
        "variant_length": make("variant_length", (V,), (vc,), "i4", var),
        "variant_allele": make("variant_allele", (V, 4), (vc, 4), str, var + ("alleles",)),
        "variant_id": make("variant_id", (V,), (vc,), str, var),
        "variant_filter": make("variant_filter", (V, 1), (vc, 1), "bool", var + ("filters",)),
        "variant_DP": make("variant_DP", (V,), (vc,), "i2", var, description="Total depth"),
        "variant_QUAL": make("variant_QUAL", (V,), (vc,), "f4", var,
                             description="Quality, as an INFO field"),
        "variant_IMPACT": make("variant_IMPACT", (V,), (vc,), str, var,
                               description="Predicted impact"),
        "call_genotype": make("call_genotype", (V, S, 2), (vc, sc, 2), "i1",
                              smp + ("ploidy",), bit=True, description="Genotype"),
        "call_genotype_phased": make("call_genotype_phased", (V, S), (vc, sc), "bool", smp,
                                     bit=True),
        "call_genotype_mask": make("call_genotype_mask", (V, S, 2), (vc, sc, 2), "bool",
                                   smp + ("ploidy",), bit=True),
        "call_DP": make("call_DP", (V, S), (vc, sc), "i2", smp, description="Read depth"),
        "call_GQ": make("call_GQ", (V, S), (vc, sc), "i1", smp,
                        description="Genotype quality"),
    }
    n_chunks = -(-V // vc)
    region = np.zeros((n_chunks, 6), dtype=np.int64)
    digest = hashlib.sha256()
    # Variant-only arrays chunked longer than the call arrays are written
    # once, whole (a chunk rewritten per call chunk would cost its size each
    # time).
    whole = {name: [] for name, a in arrays.items()
             if name.startswith("variant_") and a.chunks[0] != vc}
    for k in range(n_chunks):
        v0, v1 = k * vc, min((k + 1) * vc, V)
        n = v1 - v0
        rng = np.random.default_rng([v["seed"], k])
        pos = _chunk_positions(v["seed"], k, n, v0)
        length = np.where(rng.random(n) < 0.9, 1, rng.integers(2, 50, n)).astype(np.int32)
        af = rng.beta(0.2, 2.0, n)  # U-shaped towards 0: most calls are 0/0
        gt = (rng.random((n, S, 2)) < af[:, None, None]).astype(np.int8)
        ar = np.arange(v0, v1)
        ids = np.array([f"rs{i}" for i in ar], dtype=object)
        ids[ar % 5 == 4] = "."
        block = {
            "variant_contig": np.zeros(n, np.int8), "variant_position": pos,
            "variant_length": length, "variant_allele": _chunk_alleles(rng, n),
            "variant_id": ids, "variant_filter": np.ones((n, 1), bool),
            "variant_DP": (ar % 101).astype(np.int16),
            "variant_QUAL": (ar % 101).astype(np.float32),
            "variant_IMPACT": IMPACT_CYCLE[ar % IMPACT_CYCLE.size].astype(object),
            "call_genotype": gt,
            "call_genotype_phased": np.ones((n, S), bool),
            "call_genotype_mask": np.zeros((n, S, 2), bool),
            "call_DP": (np.arange(v0 * S, v1 * S) % 101).astype(np.int16).reshape(n, S),
            "call_GQ": (np.arange(v0 * S, v1 * S) % 100).astype(np.int8).reshape(n, S),
        }
        for name, values in block.items():
            if name in whole:
                whole[name].append(values)
            else:
                arrays[name][v0:v1] = values
            digest.update(f"{k}/{name}:{_digest(values)};".encode())
        end = pos + length - 1
        region[k] = [k, 0, pos[0], pos[-1], end.max(), n]

    for name, parts in whole.items():
        arrays[name][...] = np.concatenate(parts)

    def table(name, values, dtype, dims):
        a = make(name, (len(values),), (len(values),), dtype, dims)
        data = np.array(values, dtype=object if dtype is str else dtype)
        a[...] = data
        digest.update(f"{name}:{_digest(data)};".encode())

    ri = make("region_index", region.shape, region.shape, "i8", ("region_index_values",
                                                                 "region_index_fields"))
    ri[...] = region
    digest.update(array_digest(region).encode())
    samples = make("sample_id", (S,), (sc,), str, ("samples",))
    samples[...] = np.array([f"S{i:06d}" for i in range(S)], dtype=object)
    table("contig_id", ["1"], str, ("contigs",))
    table("contig_length", [int(region[:, 4].max())], "i8", ("contigs",))
    table("filter_id", ["PASS"], str, ("filters",))
    table("filter_description", ["All filters passed"], str, ("filters",))
    return digest.hexdigest()[:16]


def _digest(values: np.ndarray) -> str:
    if values.dtype.kind in "OT":
        return hashlib.sha256("\0".join(map(str, values.reshape(-1))).encode()).hexdigest()
    return array_digest(values)
