// A filter expression (`-i/--include`, `-e/--exclude`) compiled against a
// dataset once, then evaluated over blocks of variants, a whole column at a
// time.
//
// Compiling resolves each tag as vcztools does: FORMAT/X to call_X, INFO/X
// to variant_X, a bare X to whichever of the two the dataset has (both is
// ambiguous), the fixed columns (POS, QUAL, ...) to theirs, and AC, AN, AF,
// NS, N_ALT, N_MISSING and F_MISSING, when the dataset stores no such INFO
// field, to values computed from the genotypes of the selected samples.
//
// Evaluation follows vcztools 0.2.0 wherever vcztools evaluates an
// expression, and bcftools where vcztools cannot (`&&` and `||`, which
// vcztools fails to parse): numbers compare and combine with numpy's type
// rules (a float32 field meets a literal in float32); a comparison with a
// missing value is false, except that two missing values are equal (so `=`
// holds and `!=` does not) and one missing value is unequal to anything;
// the padding past the end of a shorter vector matches nothing; a
// per-allele field passes a variant when any of its elements does. An
// expression over a FORMAT field decides per sample: a variant passes when
// any selected sample does, and the samples that passed are what a
// query's sample loops print.
//
// Thread safety: immutable once compiled; Evaluate may run on many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"
#include "vcz/variant_block.h"

namespace turbozarr::vcz::internal {

// What a filter decided for a block of variants.
struct FilterOutcome {
  std::vector<uint8_t> variants;  // one per row: 1 when the variant passes
  // Sample-scope filters only: rows x columns, 1 where the sample passed.
  std::vector<uint8_t> samples;
};

class VariantFilter {
 public:
  // Compiles `expression` for `dataset`, inverted when `exclude`; the
  // FORMAT fields see the samples at `columns` (indexes into sample_id),
  // the computed fields those at `computed_columns` (`columns` when
  // absent). InvalidArgument for what does not parse or what vcztools
  // refuses, with its words; NotFound for a tag the dataset lacks.
  // With `recount`, AC, AN, AF, NS, N_MISSING and F_MISSING are counted
  // from the genotypes even when the dataset stores them (the exports'
  // rule for a sample subset: the stored counts are the whole cohort's).
  static Result<VariantFilter> Compile(
      const VczDataset& dataset, std::string_view expression, bool exclude,
      std::vector<int64_t> columns,
      std::optional<std::vector<int64_t>> computed_columns = std::nullopt,
      bool recount = false);

  // The arrays Evaluate needs, in the order it takes their blocks.
  const std::vector<std::string>& arrays() const;
  // Whether the outcome decides per sample.
  bool sample_scope() const;

  // The outcome for `rows` variants, given the blocks of arrays() for those
  // rows. InvalidArgument when the values' shapes do not combine (a
  // per-allele field against a per-sample one); Corruption for a genotype
  // beyond its variant's alleles.
  Result<FilterOutcome> Evaluate(const std::vector<const FieldBlock*>& blocks,
                                 int64_t rows) const;

  struct Compiled;

 private:
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace turbozarr::vcz::internal
