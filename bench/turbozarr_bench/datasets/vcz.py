"""Workload D, reduced: a VCF Zarr store laid out as bio2zarr writes it.

Written with zarr-python (v2 by default): chunks of `variant_chunk` variants x
`sample_chunk` samples; Blosc zstd clevel 7 with bit shuffle for the genotype
arrays and byte shuffle otherwise. Each variant chunk is drawn from its own
seeded stream. Arrays: variant_contig, variant_position (sorted),
variant_length, call_genotype (V, S, 2) int8 with a U-shaped allele-frequency
spectrum (most calls 0/0), call_genotype_phased, call_genotype_mask,
contig_id/contig_length as int arrays, region_index (chunk, contig, start,
end, max_end, n_records), and the augmented fields variant_DP, variant_QUAL,
call_DP and call_GQ. Reduced: the string arrays (variant_allele, variant_id,
sample_id, variant_IMPACT, filter_id) are not written yet; they arrive with
workload D's experiments, together with the zip and HTTP copies.
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


def write_vcz(spec: DatasetSpec, target: Path) -> str:
    import numcodecs
    import zarr

    v = spec.values
    S, V = v["samples"], v["variants"]
    vc, sc = v["variant_chunk"], v["sample_chunk"]
    fmt = v["zarr_format"]
    root = zarr.open_group(zarr.storage.LocalStore(str(target)), mode="w", zarr_format=fmt)

    def comp(bit: bool):
        shuffle = numcodecs.Blosc.BITSHUFFLE if bit else numcodecs.Blosc.SHUFFLE
        if fmt == 2:
            return numcodecs.Blosc(cname="zstd", clevel=7, shuffle=shuffle)
        return zarr.codecs.BloscCodec(cname="zstd", clevel=7,
                                      shuffle="bitshuffle" if bit else "shuffle")

    def make(name, shape, chunks, dtype, bit=False):
        kw = {"compressor": comp(bit)} if fmt == 2 else {"compressors": comp(bit)}
        return root.create_array(name, shape=shape, chunks=chunks, dtype=dtype, **kw)

    arrays = {
        "variant_contig": make("variant_contig", (V,), (vc,), "i1"),
        "variant_position": make("variant_position", (V,), (vc,), "i4"),
        "variant_length": make("variant_length", (V,), (vc,), "i4"),
        "variant_DP": make("variant_DP", (V,), (vc,), "i2"),
        "variant_QUAL": make("variant_QUAL", (V,), (vc,), "f4"),
        "call_genotype": make("call_genotype", (V, S, 2), (vc, sc, 2), "i1", bit=True),
        "call_genotype_phased": make("call_genotype_phased", (V, S), (vc, sc), "bool",
                                     bit=True),
        "call_genotype_mask": make("call_genotype_mask", (V, S, 2), (vc, sc, 2), "bool",
                                   bit=True),
        "call_DP": make("call_DP", (V, S), (vc, sc), "i2"),
        "call_GQ": make("call_GQ", (V, S), (vc, sc), "i1"),
    }
    n_chunks = -(-V // vc)
    region = np.zeros((n_chunks, 6), dtype=np.int64)
    digest = hashlib.sha256()
    for k in range(n_chunks):
        v0, v1 = k * vc, min((k + 1) * vc, V)
        n = v1 - v0
        rng = np.random.default_rng([v["seed"], k])
        pos = _chunk_positions(v["seed"], k, n, v0)
        length = np.where(rng.random(n) < 0.9, 1, rng.integers(2, 50, n)).astype(np.int32)
        af = rng.beta(0.2, 2.0, n)  # U-shaped towards 0: most calls are 0/0
        gt = (rng.random((n, S, 2)) < af[:, None, None]).astype(np.int8)
        ar = np.arange(v0, v1)
        block = {
            "variant_contig": np.zeros(n, np.int8), "variant_position": pos,
            "variant_length": length, "variant_DP": (ar % 101).astype(np.int16),
            "variant_QUAL": (ar % 101).astype(np.float32), "call_genotype": gt,
            "call_genotype_phased": np.ones((n, S), bool),
            "call_genotype_mask": np.zeros((n, S, 2), bool),
            "call_DP": (np.arange(v0 * S, v1 * S) % 101).astype(np.int16).reshape(n, S),
            "call_GQ": (np.arange(v0 * S, v1 * S) % 100).astype(np.int8).reshape(n, S),
        }
        for name, values in block.items():
            arrays[name][v0:v1] = values
            digest.update(f"{k}/{name}:{array_digest(values)};".encode())
        end = pos + length - 1
        region[k] = [k, 0, pos[0], pos[-1], end.max(), n]
    ri = root.create_array("region_index", shape=region.shape, chunks=region.shape,
                           dtype="i8")
    ri[...] = region
    cid = root.create_array("contig_id", shape=(1,), chunks=(1,), dtype="i4")
    cid[...] = 0
    clen = root.create_array("contig_length", shape=(1,), chunks=(1,), dtype="i8")
    clen[...] = int(region[:, 4].max())
    digest.update(array_digest(region).encode())
    return digest.hexdigest()[:16]
