// VariantScan: what `query` and `view` share. It resolves a command's
// selection once (regions and targets to variant rows, samples to columns,
// -i/-e to a compiled filter) and then visits the variants in blocks, each
// read once for every array a command asked for, with the rows the
// selection and the filter keep.
//
// Thread safety: one scan per command; not shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"
#include "vcz/regions.h"
#include "vcz/variant_block.h"
#include "vcz/variant_filter.h"

namespace turbozarr::vcz::internal {

// One block of variants as a command sees it.
struct ScanBlock {
  int64_t first = 0;   // the block's first variant
  int64_t count = 0;   // its variants
  std::vector<int64_t> rows;             // those kept, relative to `first`
  // By the slots Need() gave; the visitor may take their values (this
  // block is their last use).
  std::vector<FieldBlock>* fields;
  // The filter's per-sample outcome (rows x columns, for every row of the
  // block), or empty when the filter does not decide per sample.
  const std::vector<uint8_t>* samples;
};

class VariantScan {
 public:
  // How the filter sees samples: `query` evaluates FORMAT fields over the
  // selected samples; `view` (as bcftools view) over every sample, with the
  // computed fields (AC, AN, ...) over the selected ones; the exports over
  // the selected samples, counting AC, AN, ... for them even when stored,
  // if they are a subset.
  enum class FilterSamples { kSelected, kAll, kSubsetFirst };

  // Resolves `options` for `dataset`. `extra_filter`, when given, is an
  // expression that must also hold (view's -v/-V/-m/-M).
  static Result<VariantScan> Make(const VczDataset& dataset, const SubsetOptions& options,
                                  FilterSamples filter_samples,
                                  const std::optional<std::string>& extra_filter = std::nullopt);

  // The selected samples (indexes into sample_id), in output order. Without
  // -s/-S and filters that is every sample with an ID, which takes the
  // sample table: it is read on the first call (or when a call array is
  // needed), not before, so that a scan of variant fields never waits for it.
  Result<const std::vector<int64_t>*> Columns();
  // Whether a filter decides per sample.
  bool sample_scope() const;
  // Replaces the selected samples (view -G selects none).
  void SetColumns(std::vector<int64_t> columns) {
    columns_ = std::move(columns);
    all_columns_pending_ = false;
  }

  // The slot of array `name` in every block's fields, its shape checked.
  Result<size_t> Need(const std::string& name);

  // The number of variants the selection and the filters keep (for a
  // header that gives it before the records). Called before the command's
  // own Need()s, it reads only what the filters read.
  Result<int64_t> Count();

  // Calls `visit` for each block that keeps a row, in order; blocks that
  // start before variant `from` are left out (a reader resuming).
  Status ForEachBlock(const std::function<Status(const ScanBlock&)>& visit, int64_t from = 0);

 private:
  VariantScan(const VczDataset& d) : d_(&d) {}
  // Without -s/-S: compiles `expressions` (each with whether it is -e) when
  // none of them reads a call array, so that no sample list is needed; false
  // (and nothing compiled) otherwise.
  bool CompileVariantOnlyFilters(const std::vector<std::pair<std::string, bool>>& expressions);
  // Make's -s/-S and filters (`expressions`: each with whether it is -e).
  Status SelectSamplesAndFilters(const SubsetOptions& options, FilterSamples filter_samples,
                                 const std::vector<std::pair<std::string, bool>>& expressions);
  // Filter `f`'s outcome for every row of `block` (those it does not keep
  // fail), evaluated over the kept rows alone when they are few.
  Result<FilterOutcome> Filter(size_t f, const std::vector<FieldBlock>& fields,
                               const ScanBlock& block) const;

  const VczDataset* d_;
  SelectedVariants selected_;
  std::vector<int64_t> columns_;
  bool all_columns_pending_ = false;  // columns_ is every sample, still to list
  // The samples the filters look at (their FORMAT fields, their computed
  // counts): read too, whatever the columns.
  std::vector<int64_t> filter_samples_;
  std::vector<VariantFilter> filters_;  // all must pass
  std::vector<std::vector<size_t>> filter_slots_;
  std::vector<std::string> needed_;
  std::vector<std::shared_ptr<Array>> arrays_;
};

}  // namespace turbozarr::vcz::internal
