"""Writes the VCF that the VCF Zarr layer's fixtures are converted from: a
small file (default 12 samples, about 1,500 records over three contigs) with
every shape of field a VCF can hold, made from a fixed seed so that the same
command writes the same bytes on every machine.

    python scripts/vcz/make_fixture_vcf.py OUT.vcf [--samples N] [--records N] [--seed N]

What it holds, so that each case of the format is met at least once:
- INFO fields of Number 1, A, R, 2 (fixed), . and 0 (Flag), of Type Integer,
  Float, String and Character, each sometimes missing ("." or left out);
- FORMAT fields GT (phased, unphased, haploid on chrX for some samples,
  wholly and partly missing), Number 1, 2, A, R and G of Integer, Float,
  String and Character, with missing values;
- multi-allelic sites (up to three ALT alleles), SNPs, insertions and
  deletions (so that a record's length differs from 1), several records at
  one position, IDs present and missing, QUAL present and missing, FILTER
  PASS, missing and one or two named filters;
- contigs with lengths and one without (chrUn), each with records, and one
  declared but empty (chrM).
"""

from __future__ import annotations

import argparse
import random

CONTIGS = [("chr1", 200_000), ("chr2", 150_000), ("chrX", 120_000), ("chrUn", None),
           ("chrM", 16_569)]
# Records land on these, in this order; chrM stays empty.
USED = ["chr1", "chr2", "chrX", "chrUn"]
# The length records are spread over on a contig that declares none.
UNSIZED_SPAN = 30_000

HEADER = """##fileformat=VCFv4.3
##FILTER=<ID=PASS,Description="All filters passed">
##FILTER=<ID=q10,Description="Quality below 10">
##FILTER=<ID=s50,Description="Less than half of the samples have data">
##INFO=<ID=DP,Number=1,Type=Integer,Description="Total depth">
##INFO=<ID=AF,Number=A,Type=Float,Description="Allele frequency">
##INFO=<ID=AC,Number=A,Type=Integer,Description="Allele count">
##INFO=<ID=RC,Number=R,Type=Integer,Description="Reads per allele">
##INFO=<ID=DB,Number=0,Type=Flag,Description="In dbSNP">
##INFO=<ID=AA,Number=1,Type=String,Description="Ancestral allele">
##INFO=<ID=CH,Number=1,Type=Character,Description="A character">
##INFO=<ID=TAGS,Number=.,Type=String,Description="Free tags">
##INFO=<ID=PAIR,Number=2,Type=Integer,Description="Two integers">
##INFO=<ID=SCORES,Number=.,Type=Float,Description="Scores">
##INFO=<ID=MQ,Number=1,Type=Float,Description="Mapping quality">
##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">
##FORMAT=<ID=DP,Number=1,Type=Integer,Description="Read depth">
##FORMAT=<ID=GQ,Number=1,Type=Integer,Description="Genotype quality">
##FORMAT=<ID=HQ,Number=2,Type=Integer,Description="Haplotype qualities">
##FORMAT=<ID=AD,Number=R,Type=Integer,Description="Allelic depths">
##FORMAT=<ID=PL,Number=G,Type=Integer,Description="Phred-scaled likelihoods">
##FORMAT=<ID=AB,Number=A,Type=Float,Description="Allele balance">
##FORMAT=<ID=FT,Number=1,Type=String,Description="Sample filter">
##FORMAT=<ID=CF,Number=1,Type=Character,Description="A character">
"""

BASES = "ACGT"


def fmt_float(x: float) -> str:
    # Three significant decimals at most, as VCF writers commonly print.
    return f"{x:.3f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x)}"


def alleles(rng: random.Random) -> tuple[str, list[str]]:
    kind = rng.random()
    ref = rng.choice(BASES)
    if kind < 0.15:  # deletion: REF longer than 1
        ref = ref + "".join(rng.choice(BASES) for _ in range(rng.randint(1, 6)))
        return ref, [ref[0]]
    n_alt = 1 if kind < 0.75 else rng.randint(2, 3)
    alts: list[str] = []
    while len(alts) < n_alt:
        if rng.random() < 0.2:  # insertion
            alt = ref + "".join(rng.choice(BASES) for _ in range(rng.randint(1, 5)))
        else:
            alt = rng.choice([b for b in BASES if b != ref])
        if alt not in alts:
            alts.append(alt)
    return ref, alts


def genotype(rng: random.Random, n_alleles: int, haploid: bool, freq: float) -> str:
    if rng.random() < 0.04:
        return "." if haploid else rng.choice(["./.", ".|."])

    def allele() -> str:
        if rng.random() < 0.01:
            return "."
        return str(0 if rng.random() > freq else rng.randint(1, n_alleles - 1))

    if haploid:
        return allele()
    sep = "|" if rng.random() < 0.5 else "/"
    return allele() + sep + allele()


def sample_fields(rng: random.Random, gt: str, n_alleles: int, haploid: bool) -> list[str]:
    def maybe(value: str, p_missing: float = 0.05) -> str:
        return "." if rng.random() < p_missing else value

    n_g = n_alleles if haploid else n_alleles * (n_alleles + 1) // 2
    dp = maybe(str(rng.randint(0, 99)))
    gq = maybe(str(rng.randint(0, 99)))
    hq = ",".join(maybe(str(rng.randint(0, 60)), 0.1) for _ in range(2))
    ad = ",".join(str(rng.randint(0, 40)) for _ in range(n_alleles))
    pl = ",".join(str(rng.randint(0, 255)) for _ in range(n_g))
    ab = ",".join(fmt_float(rng.random()) for _ in range(n_alleles - 1))
    ft = rng.choice(["PASS", "PASS", "PASS", "LowQ", "."])
    cf = rng.choice(["A", "b", "."])
    return [gt, dp, gq, hq, maybe(ad, 0.1), maybe(pl, 0.1), maybe(ab, 0.1), ft, cf]


def info_field(rng: random.Random, n_alleles: int) -> str:
    parts: list[str] = []

    def add(key: str, value: str, p_absent: float = 0.1) -> None:
        if rng.random() >= p_absent:
            parts.append(f"{key}={value}")

    add("DP", str(rng.randint(0, 500)))
    add("AF", ",".join(fmt_float(rng.random()) for _ in range(n_alleles - 1)))
    add("AC", ",".join(str(rng.randint(0, 24)) for _ in range(n_alleles - 1)))
    add("RC", ",".join(str(rng.randint(0, 99)) for _ in range(n_alleles)), 0.3)
    if rng.random() < 0.3:
        parts.append("DB")
    add("AA", rng.choice(["A", "C", "G", "T", "AT", "."]), 0.3)
    add("CH", rng.choice(["x", "Y", "."]), 0.5)
    add("TAGS", ",".join(rng.choice(["alpha", "b", "gamma_3", "."])
                         for _ in range(rng.randint(1, 4))), 0.5)
    add("PAIR", f"{rng.randint(-50, 50)},{rng.choice(['.', str(rng.randint(0, 9))])}", 0.4)
    add("SCORES", ",".join(fmt_float(rng.uniform(-5, 5)) for _ in range(rng.randint(1, 3))),
        0.5)
    add("MQ", fmt_float(rng.uniform(0, 60)), 0.2)
    return ";".join(parts) if parts else "."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--samples", type=int, default=12)
    parser.add_argument("--records", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    samples = [f"S{i:02d}" for i in range(args.samples)]
    # The first third of the samples are haploid on chrX, as males would be.
    haploid_on_x = set(range(args.samples // 3))
    per_contig = {"chr1": args.records // 2, "chr2": args.records // 3,
                  "chrUn": max(1, args.records // 50)}
    per_contig["chrX"] = args.records - sum(per_contig.values())

    with open(args.out, "w", encoding="utf-8") as out:
        out.write(HEADER)
        for name, length in CONTIGS:
            out.write(f"##contig=<ID={name},length={length}>\n" if length
                      else f"##contig=<ID={name}>\n")
        out.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t"
                  + "\t".join(samples) + "\n")
        serial = 0
        for contig in USED:
            length = dict(CONTIGS)[contig] or UNSIZED_SPAN
            pos = 1
            for _ in range(per_contig[contig]):
                # Mostly increasing steps, sometimes the same position again.
                pos += 0 if rng.random() < 0.05 else rng.randint(1, 2 * length // (
                    per_contig[contig] * 2))
                pos = min(pos, length - 10)
                ref, alts = alleles(rng)
                n_alleles = 1 + len(alts)
                serial += 1
                vid = f"rs{serial}" if rng.random() < 0.7 else "."
                qual = fmt_float(rng.uniform(0, 100)) if rng.random() < 0.9 else "."
                filt = rng.choice(["PASS"] * 6 + [".", "q10", "s50", "q10;s50"])
                freq = rng.choice([0.01, 0.05, 0.2, 0.5])
                calls = []
                for s in range(args.samples):
                    haploid = contig == "chrX" and s in haploid_on_x
                    gt = genotype(rng, n_alleles, haploid, freq)
                    calls.append(":".join(sample_fields(rng, gt, n_alleles, haploid)))
                out.write("\t".join([contig, str(pos), vid, ref, ",".join(alts), qual, filt,
                                     info_field(rng, n_alleles),
                                     "GT:DP:GQ:HQ:AD:PL:AB:FT:CF", *calls]) + "\n")


if __name__ == "__main__":
    main()
