// The per-variant counts vcztools computes from the genotypes when a
// dataset stores no such INFO field (or `view --fill-tags` asks for them):
// AC (per ALT allele), AN, AF = AC / AN, NS, N_ALT, N_MISSING, over a chosen
// set of samples. Both filters (`-i 'AC>1'`) and the VCF writer use them.
//
// Thread safety: pure functions over values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "turbozarr/status.h"
#include "vcz/variant_block.h"

namespace turbozarr::vcz::internal {

struct GenotypeCounts {
  int64_t rows = 0;
  int64_t max_alt = 0;             // ALT columns of variant_allele
  std::vector<int64_t> n_alt;      // non-empty ALT alleles, per variant
  // Filled only when genotypes were given:
  std::vector<int32_t> ac;         // rows x max_alt; -2 past a variant's ALTs
  std::vector<int32_t> an;         // called alleles
  std::vector<int32_t> ns;         // samples with a called allele
  std::vector<int64_t> n_missing;  // samples with every allele missing
};

// The counts for `rows` variants over the samples at `columns`, from their
// alleles (variant_allele; null: no ALT counts) and genotypes
// (call_genotype; null: only n_alt). Corruption naming `dataset` for a
// genotype beyond its variant's alleles.
Result<GenotypeCounts> CountGenotypes(const FieldBlock* alleles, const FieldBlock* genotypes,
                                      const std::vector<int64_t>& columns, int64_t rows,
                                      const std::string& dataset);

// AF as vcztools computes it: AC / AN in float32; missing (the spec's NaN
// payload) where AN is 0, fill past a variant's ALTs.
std::vector<float> AlleleFrequencies(const GenotypeCounts& counts);

// The spec's float32 missing and fill values.
float Float32Missing();
float Float32Fill();

}  // namespace turbozarr::vcz::internal
