#include "vcz/genotype_counts.h"

#include <cstring>

namespace turbozarr::vcz::internal {
namespace {

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

float Float32Missing() { return FromBits(0x7F800001); }
float Float32Fill() { return FromBits(0x7F800002); }

Result<GenotypeCounts> CountGenotypes(const FieldBlock* alleles, const FieldBlock* genotypes,
                                      const std::vector<int64_t>& columns, int64_t rows,
                                      const std::string& dataset) {
  GenotypeCounts c;
  c.rows = rows;
  c.n_alt.assign(static_cast<size_t>(rows), 0);
  if (alleles != nullptr) {
    c.max_alt = std::max<int64_t>(alleles->per_variant() - 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 1; k < alleles->per_variant(); ++k) {
        c.n_alt[static_cast<size_t>(r)] += !alleles->String(r, k).empty();
      }
    }
  }
  if (genotypes == nullptr) return c;
  const int64_t ploidy = genotypes->per_row_of(1);
  c.ac.assign(static_cast<size_t>(rows * c.max_alt), 0);
  c.an.assign(static_cast<size_t>(rows), 0);
  c.ns.assign(static_cast<size_t>(rows), 0);
  c.n_missing.assign(static_cast<size_t>(rows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = c.n_alt[static_cast<size_t>(r)] + 1;
    int32_t* ac = c.ac.data() + r * c.max_alt;
    for (int64_t k = n - 1; k < c.max_alt; ++k) ac[k] = -2;
    for (int64_t s : columns) {
      bool called = false;
      for (int64_t p = 0; p < ploidy; ++p) {
        const int64_t allele = genotypes->Integer(r, s * ploidy + p);
        if (allele < -2 || (alleles != nullptr && allele >= n)) {
          return Status::Corruption(dataset + ": call_genotype holds allele " +
                                    std::to_string(allele) + " for a variant with " +
                                    std::to_string(n) + " alleles");
        }
        if (allele < 0) continue;
        called = true;
        ++c.an[static_cast<size_t>(r)];
        if (allele > 0 && allele <= c.max_alt) ++ac[allele - 1];
      }
      c.ns[static_cast<size_t>(r)] += called;
      c.n_missing[static_cast<size_t>(r)] += !called;
    }
  }
  return c;
}

std::vector<float> AlleleFrequencies(const GenotypeCounts& c) {
  std::vector<float> af(c.ac.size());
  for (int64_t r = 0; r < c.rows; ++r) {
    const float total = static_cast<float>(c.an[static_cast<size_t>(r)]);
    for (int64_t k = 0; k < c.max_alt; ++k) {
      const size_t i = static_cast<size_t>(r * c.max_alt + k);
      af[i] = c.ac[i] == -2 ? Float32Fill()
              : total == 0  ? Float32Missing()
                            : static_cast<float>(c.ac[i]) / total;
    }
  }
  return af;
}

}  // namespace turbozarr::vcz::internal
