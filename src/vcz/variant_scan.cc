#include "vcz/variant_scan.h"

#include <algorithm>
#include <utility>

#include "vcz/samples.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz::internal {
namespace {

// The options' regions and targets, read as vcztools reads them.
Result<VariantSelection> SelectionOf(const SubsetOptions& o) {
  if (o.regions && o.regions_file) {
    return Status::InvalidArgument(
        "Cannot specify both a regions string (-r) and a regions file (-R)");
  }
  if (o.targets && o.targets_file) {
    return Status::InvalidArgument(
        "Cannot specify both a target string (-t) and a targets file (-T)");
  }
  VariantSelection s;
  if (o.regions_file) {
    TZ_ASSIGN_OR_RETURN(s.regions, ReadRegionsFile(*o.regions_file));
  } else if (o.regions) {
    s.regions = ParseRegionList(*o.regions);
  }
  if (o.targets || o.targets_file) {
    std::string targets = o.targets_file ? *o.targets_file : *o.targets;
    if (!targets.empty() && targets.front() == '^') {
      s.targets_complement = true;
      targets.erase(0, 1);
    }
    if (o.targets_file) {
      TZ_ASSIGN_OR_RETURN(s.targets, ReadRegionsFile(targets));
    } else {
      s.targets = ParseRegionList(targets);
    }
  }
  return s;
}

// Every sample but the null ones (ID ""), in the dataset's order.
std::vector<int64_t> AllSamples(const VczDataset& d) {
  std::vector<int64_t> all;
  for (size_t i = 0; i < d.sample_ids().size(); ++i) {
    if (!d.sample_ids()[i].empty()) all.push_back(static_cast<int64_t>(i));
  }
  return all;
}

}  // namespace

Result<VariantScan> VariantScan::Make(const VczDataset& dataset, const SubsetOptions& options,
                                      FilterSamples filter_samples,
                                      const std::optional<std::string>& extra_filter) {
  if (options.include && options.exclude) {
    return Status::InvalidArgument(
        "Cannot handle both an include expression and an exclude expression.");
  }
  VariantScan scan(dataset);
  TZ_ASSIGN_OR_RETURN(scan.columns_,
                      SelectSamples(dataset, options.samples, options.samples_file,
                                    options.force_samples, options.warnings));
  std::vector<int64_t> seen = scan.columns_;
  std::optional<std::vector<int64_t>> computed;
  if (filter_samples == FilterSamples::kAll) {
    seen = AllSamples(dataset);
    computed = scan.columns_;
  }
  std::vector<std::pair<std::string, bool>> expressions;  // and whether -e
  if (options.include || options.exclude) {
    expressions.emplace_back(options.include ? *options.include : *options.exclude,
                             options.exclude.has_value());
  }
  if (extra_filter) expressions.emplace_back(*extra_filter, false);
  // A subset of the samples makes the stored counts stale for the exports.
  const bool recount = filter_samples == FilterSamples::kSubsetFirst &&
                       !scan.columns_.empty() && scan.columns_ != AllSamples(dataset);
  for (const auto& [expression, exclude] : expressions) {
    TZ_ASSIGN_OR_RETURN(VariantFilter filter, VariantFilter::Compile(dataset, expression,
                                                                     exclude, seen, computed,
                                                                     recount));
    std::vector<size_t> slots;
    for (const std::string& name : filter.arrays()) {
      TZ_ASSIGN_OR_RETURN(slots.emplace_back(), scan.Need(name));
    }
    scan.filters_.push_back(std::move(filter));
    scan.filter_slots_.push_back(std::move(slots));
  }
  TZ_ASSIGN_OR_RETURN(VariantSelection selection, SelectionOf(options));
  TZ_ASSIGN_OR_RETURN(scan.selected_, SelectVariants(dataset, selection));
  return scan;
}

bool VariantScan::sample_scope() const {
  for (const VariantFilter& f : filters_) {
    if (f.sample_scope()) return true;
  }
  return false;
}

Result<size_t> VariantScan::Need(const std::string& name) {
  auto it = std::find(needed_.begin(), needed_.end(), name);
  if (it != needed_.end()) return static_cast<size_t>(it - needed_.begin());
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array, d_->OpenArray(name));
  TZ_RETURN_NOT_OK(CheckFieldShape(name, *array, d_->num_variants(), d_->num_samples()));
  needed_.push_back(name);
  arrays_.push_back(std::move(array));
  return needed_.size() - 1;
}

Result<int64_t> VariantScan::Count() {
  if (filters_.empty()) {
    return selected_.all ? d_->num_variants() : static_cast<int64_t>(selected_.rows.size());
  }
  int64_t count = 0;
  TZ_RETURN_NOT_OK(ForEachBlock([&](const ScanBlock& block) {
    count += static_cast<int64_t>(block.rows.size());
    return Status::OK();
  }));
  return count;
}

Status VariantScan::ForEachBlock(const std::function<Status(const ScanBlock&)>& visit) {
  // Rows per block: the smallest variant chunk among the arrays read.
  int64_t step = 10'000;
  for (const std::shared_ptr<Array>& array : arrays_) {
    step = std::min(step, std::max<int64_t>(1, array->metadata().chunk_shape[0]));
  }
  const std::vector<int64_t>& kept = selected_.rows;
  std::vector<FieldBlock> fields;
  std::vector<uint8_t> samples;
  size_t next = 0;  // into kept
  for (int64_t first = 0; first < d_->num_variants(); first += step) {
    ScanBlock block;
    block.first = first;
    block.count = std::min(step, d_->num_variants() - first);
    // The rows of this block the selection keeps; blocks without any are
    // not read.
    if (selected_.all) {
      for (int64_t r = 0; r < block.count; ++r) block.rows.push_back(r);
    } else {
      while (next < kept.size() && kept[next] < first + block.count) {
        block.rows.push_back(kept[next++] - first);
      }
      if (block.rows.empty()) {
        if (next == kept.size()) break;
        first = (kept[next] / step) * step - step;  // on to the next kept block
        continue;
      }
    }
    fields.clear();
    for (const std::shared_ptr<Array>& array : arrays_) {
      TZ_ASSIGN_OR_RETURN(fields.emplace_back(), FieldBlock::Read(*array, first, block.count));
    }
    // Every filter must pass; per-sample outcomes combine sample by sample.
    samples.clear();
    for (size_t f = 0; f < filters_.size(); ++f) {
      std::vector<const FieldBlock*> inputs;
      for (size_t slot : filter_slots_[f]) inputs.push_back(&fields[slot]);
      TZ_ASSIGN_OR_RETURN(FilterOutcome outcome, filters_[f].Evaluate(inputs, block.count));
      std::vector<int64_t> passed;
      for (int64_t r : block.rows) {
        if (outcome.variants[static_cast<size_t>(r)]) passed.push_back(r);
      }
      block.rows = std::move(passed);
      if (outcome.samples.empty()) continue;
      if (samples.empty()) {
        samples = std::move(outcome.samples);
      } else {
        for (size_t i = 0; i < samples.size(); ++i) samples[i] &= outcome.samples[i];
      }
    }
    if (block.rows.empty()) continue;
    block.fields = &fields;
    block.samples = &samples;
    TZ_RETURN_NOT_OK(visit(block));
  }
  return Status::OK();
}

}  // namespace turbozarr::vcz::internal
