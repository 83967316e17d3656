#include "vcz/variant_scan.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "turbozarr/config.h"
#include "vcz/block_read_ahead.h"
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
  s.variants = o.variants;
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
Result<std::vector<int64_t>> AllSamples(const VczDataset& d) {
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, d.tables());
  std::vector<int64_t> all;
  for (size_t i = 0; i < tables->sample_ids.size(); ++i) {
    if (!tables->sample_ids[i].empty()) all.push_back(static_cast<int64_t>(i));
  }
  return all;
}

// The spans of one array read so far, for an array chunked longer than the
// scan's blocks (variant-only arrays beside call arrays of a shorter chunk,
// as workload D's vcz-long has them): a block takes its rows from the span
// of whole chunks that holds them, read once, where reading each block on
// its own would decode the chunk once per block. Local to one ForEachBlock
// call, so a fork child, which starts a call of its own, never meets a lock
// a parent's lane held.
struct SpanCache {
  std::mutex mutex;
  struct Span {
    int64_t first = 0, end = 0;
    std::shared_ptr<const FieldBlock> block;
  };
  std::vector<Span> spans;  // the last two read: blocks come in order
};

Result<FieldBlock> ReadThroughSpans(SpanCache& cache, const Array& array, int64_t first,
                                    int64_t count,
                                    std::optional<std::pair<int64_t, int64_t>> samples,
                                    const ReadOptions& options) {
  const int64_t chunk = array.metadata().chunk_shape[0];
  const int64_t from = first / chunk * chunk;
  const int64_t to = std::min(array.shape()[0], (first + count + chunk - 1) / chunk * chunk);
  std::shared_ptr<const FieldBlock> span;
  {
    // Held while a span is read: the lanes that need it wait for it rather
    // than read it again.
    std::lock_guard lock(cache.mutex);
    for (const SpanCache::Span& s : cache.spans) {
      if (s.first == from && s.end == to) span = s.block;
    }
    if (!span) {
      TZ_ASSIGN_OR_RETURN(FieldBlock read, FieldBlock::Read(array, from, to - from, samples,
                                                            options));
      span = std::make_shared<const FieldBlock>(std::move(read));
      cache.spans.push_back({from, to, span});
      if (cache.spans.size() > 2) cache.spans.erase(cache.spans.begin());
    }
  }
  return span->RowRange(first - from, count);
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
  std::vector<std::pair<std::string, bool>> expressions;  // and whether -e
  if (options.include || options.exclude) {
    expressions.emplace_back(options.include ? *options.include : *options.exclude,
                             options.exclude.has_value());
  }
  if (extra_filter) expressions.emplace_back(*extra_filter, false);
  // Every sample, with no filter to look at them (none, or filters of
  // per-variant fields only): listed when first asked for, so that the
  // sample table is read only if something needs it.
  if (!options.samples && !options.samples_file &&
      scan.CompileVariantOnlyFilters(expressions)) {
    scan.all_columns_pending_ = true;
  } else {
    TZ_RETURN_NOT_OK(scan.SelectSamplesAndFilters(options, filter_samples, expressions));
  }
  TZ_ASSIGN_OR_RETURN(VariantSelection selection, SelectionOf(options));
  TZ_ASSIGN_OR_RETURN(scan.selected_, SelectVariants(dataset, selection));
  return scan;
}

bool VariantScan::CompileVariantOnlyFilters(
    const std::vector<std::pair<std::string, bool>>& expressions) {
  std::vector<VariantFilter> compiled;
  for (const auto& [expression, exclude] : expressions) {
    // No samples to see: whatever reads a call array (a FORMAT field, a
    // count computed from the genotypes) is compiled again with them.
    Result<VariantFilter> filter = VariantFilter::Compile(*d_, expression, exclude, {});
    if (!filter.ok()) return false;
    for (const std::string& name : filter->arrays()) {
      if (name.rfind("call_", 0) == 0) return false;
    }
    compiled.push_back(std::move(*filter));
  }
  std::vector<std::vector<size_t>> slots(compiled.size());
  for (size_t f = 0; f < compiled.size(); ++f) {
    for (const std::string& name : compiled[f].arrays()) {
      Result<size_t> slot = Need(name);
      if (!slot.ok()) return false;  // (reported by the compilation with samples)
      slots[f].push_back(*slot);
    }
  }
  for (size_t f = 0; f < compiled.size(); ++f) {
    filters_.push_back(std::move(compiled[f]));
    filter_slots_.push_back(std::move(slots[f]));
  }
  return true;
}

Status VariantScan::SelectSamplesAndFilters(
    const SubsetOptions& options, FilterSamples filter_samples,
    const std::vector<std::pair<std::string, bool>>& expressions) {
  const VczDataset& dataset = *d_;
  TZ_ASSIGN_OR_RETURN(columns_,
                      SelectSamples(dataset, options.samples, options.samples_file,
                                    options.force_samples, options.warnings));
  std::vector<int64_t> seen = columns_;
  std::optional<std::vector<int64_t>> computed;
  if (filter_samples == FilterSamples::kAll) {
    TZ_ASSIGN_OR_RETURN(seen, AllSamples(dataset));
    computed = columns_;
  }
  // A subset of the samples makes the stored counts stale for the exports.
  bool recount = false;
  if (filter_samples == FilterSamples::kSubsetFirst && !columns_.empty()) {
    TZ_ASSIGN_OR_RETURN(std::vector<int64_t> all, AllSamples(dataset));
    recount = columns_ != all;
  }
  for (const auto& [expression, exclude] : expressions) {
    TZ_ASSIGN_OR_RETURN(VariantFilter filter, VariantFilter::Compile(dataset, expression,
                                                                     exclude, seen, computed,
                                                                     recount));
    std::vector<size_t> slots;
    for (const std::string& name : filter.arrays()) {
      TZ_ASSIGN_OR_RETURN(slots.emplace_back(), Need(name));
    }
    filters_.push_back(std::move(filter));
    filter_slots_.push_back(std::move(slots));
  }
  if (!expressions.empty()) {
    filter_samples_ = seen;
    if (computed) filter_samples_.insert(filter_samples_.end(), computed->begin(), computed->end());
  }
  return Status::OK();
}

Result<const std::vector<int64_t>*> VariantScan::Columns() {
  if (all_columns_pending_) {
    TZ_ASSIGN_OR_RETURN(columns_, AllSamples(*d_));
    all_columns_pending_ = false;
  }
  return &columns_;
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

Result<FilterOutcome> VariantScan::Filter(size_t f, const std::vector<FieldBlock>& fields,
                                          const ScanBlock& block) const {
  std::vector<const FieldBlock*> inputs;
  for (size_t slot : filter_slots_[f]) inputs.push_back(&fields[slot]);
  const int64_t kept = static_cast<int64_t>(block.rows.size());
  if (2 * kept >= block.count) return filters_[f].Evaluate(inputs, block.count);
  // Few rows kept (a region within a chunk): the filter sees those alone,
  // and its outcome is spread back over the block's rows.
  std::vector<FieldBlock> compact;
  compact.reserve(inputs.size());
  for (const FieldBlock* b : inputs) compact.push_back(b->Rows(block.rows));
  for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = &compact[i];
  TZ_ASSIGN_OR_RETURN(FilterOutcome few, filters_[f].Evaluate(inputs, kept));
  FilterOutcome out;
  out.variants.assign(static_cast<size_t>(block.count), 0);
  const size_t width = few.samples.size() / static_cast<size_t>(std::max<int64_t>(kept, 1));
  if (!few.samples.empty()) out.samples.assign(static_cast<size_t>(block.count) * width, 0);
  for (size_t i = 0; i < block.rows.size(); ++i) {
    const auto r = static_cast<size_t>(block.rows[i]);
    out.variants[r] = few.variants[i];
    if (width > 0) {
      std::copy_n(few.samples.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                  out.samples.begin() + static_cast<std::ptrdiff_t>(r * width));
    }
  }
  return out;
}

Result<int64_t> VariantScan::Count() {
  if (filters_.empty()) {
    return selected_.all ? selected_.end - selected_.begin
                         : static_cast<int64_t>(selected_.rows.size());
  }
  int64_t count = 0;
  TZ_RETURN_NOT_OK(ForEachBlock([&](const ScanBlock& block) {
    count += static_cast<int64_t>(block.rows.size());
    return Status::OK();
  }));
  return count;
}

Status VariantScan::ForEachBlock(const std::function<Status(const ScanBlock&)>& visit,
                                 int64_t from) {
  // Rows per block: the smallest variant chunk among the arrays read, at
  // most 10,000; with no array to read (counting records, or their row
  // numbers alone: 8 bytes a row), blocks of 2^16 rows.
  int64_t step = arrays_.empty() ? int64_t{1} << 16 : 10'000;
  for (const std::shared_ptr<Array>& array : arrays_) {
    step = std::min(step, std::max<int64_t>(1, array->metadata().chunk_shape[0]));
  }
  // The blocks that keep a row, with those rows (all of them, when the
  // selection keeps everything, are listed as the block is visited).
  struct Planned {
    int64_t first = 0, count = 0;
    std::vector<int64_t> rows;
  };
  std::vector<Planned> plan;
  const std::vector<int64_t>& kept = selected_.rows;
  size_t next = 0;  // into kept
  // Blocks of the selection's range only: the range of variants cuts the
  // first and last, whose rows are then listed.
  const int64_t begin = selected_.begin, end = selected_.end;
  for (int64_t first = begin / step * step; first < end; first += step) {
    Planned p{first, std::min(step, d_->num_variants() - first), {}};
    if (selected_.all && (first < begin || first + p.count > end)) {
      for (int64_t v = std::max(first, begin); v < std::min(first + p.count, end); ++v) {
        p.rows.push_back(v - first);
      }
      if (p.rows.empty()) continue;  // (an empty range, within a block)
    } else if (!selected_.all) {
      while (next < kept.size() && kept[next] < first + p.count) {
        p.rows.push_back(kept[next++] - first);
      }
      if (p.rows.empty()) {
        if (next == kept.size()) break;
        first = (kept[next] / step) * step - step;  // on to the next kept block
        continue;
      }
    }
    plan.push_back(std::move(p));
  }
  std::erase_if(plan, [from](const Planned& p) { return p.first < from; });
  // Call arrays are read for the samples someone looks at only: the output
  // columns, and those the filters and computed fields see.
  for (const std::string& name : needed_) {
    if (name.rfind("call_", 0) == 0) {
      TZ_RETURN_NOT_OK(Columns().status());
      break;
    }
  }
  std::optional<std::pair<int64_t, int64_t>> samples;
  for (const std::vector<int64_t>* list : {&columns_, &filter_samples_}) {
    for (int64_t c : *list) {
      if (!samples) samples = std::pair<int64_t, int64_t>(c, c + 1);
      samples->first = std::min(samples->first, c);
      samples->second = std::max(samples->second, c + 1);
    }
  }
  if (!samples) samples = std::pair<int64_t, int64_t>(0, 0);
  // Bytes of values per variant, over the arrays read (strings counted as
  // 32 bytes).
  int64_t row_bytes = 0;
  for (size_t a = 0; a < arrays_.size(); ++a) {
    const std::vector<int64_t>& shape = arrays_[a]->shape();
    int64_t per_variant = arrays_[a]->dtype().is_variable_length()
                              ? int64_t{32}
                              : static_cast<int64_t>(arrays_[a]->dtype().size());
    for (size_t dim = 1; dim < shape.size(); ++dim) {
      const bool window = dim == 1 && needed_[a].rfind("call_", 0) == 0;
      per_variant *= window ? samples->second - samples->first : shape[dim];
    }
    row_bytes += per_variant;
  }
  // Small blocks (a few samples: chunks of some KiB) are read several at a
  // time, up to 4 MiB of values and a 16th of the blocks: one engine read
  // and one lane hand-over for a group of consecutive blocks, cut into its
  // blocks again on the lane; blocks one by one, each a read and two thread
  // wake-ups, spent more time handing over than decoding. Not with arrays
  // read through spans (see SpanCache), whose blocks already share one
  // read: cutting a group out of a span and blocks out of the group
  // measured slower than blocks out of the span.
  std::vector<std::unique_ptr<SpanCache>> spans(arrays_.size());
  bool any_span = false;
  for (size_t a = 0; a < arrays_.size(); ++a) {
    if (arrays_[a]->regular_grid() && arrays_[a]->metadata().chunk_shape[0] > step) {
      spans[a] = std::make_unique<SpanCache>();
      any_span = true;
    }
  }
  const int64_t group_bytes = any_span ? 0 : int64_t{4} << 20;
  // At least 16 groups when there are as many blocks, so that reading
  // still runs ahead of the visits.
  const size_t max_group_blocks = std::max<size_t>(1, plan.size() / 16);
  struct ReadGroup {
    size_t begin = 0, end = 0;  // into plan
    int64_t first = 0, count = 0;
  };
  std::vector<ReadGroup> groups;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (!groups.empty()) {
      ReadGroup& g = groups.back();
      if (plan[i].first == g.first + g.count && g.end - g.begin < max_group_blocks &&
          (g.count + plan[i].count) * row_bytes <= group_bytes) {
        g.end = i + 1;
        g.count += plan[i].count;
        continue;
      }
    }
    groups.push_back({i, i + 1, plan[i].first, plan[i].count});
  }
  // The next blocks are read (and decoded) while this one is visited, as
  // many at once as the machine has cores (at most 4), on lanes of their
  // own: each block's chunks are decoded in turn on its lane, on a pool of
  // its share of the cores (the lane alone, on up to 4 cores), so that no
  // codec starts threads of its own on a machine already busy with the
  // other lanes. A single block (a region within a chunk) is read as the
  // engine reads any selection, its chunks in parallel; so are blocks that
  // span several sample chunks, each read a parallel loop over its chunks
  // on the engine's pool, so that the last block does not leave the other
  // cores idle (those chunks never take codec threads: there are as many
  // as cores, or more).
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_t ahead = groups.size() > 1 ? static_cast<size_t>(std::min(cores, 4)) : 0;
  // A remote store answers after its latency, not the cores' time: as many
  // blocks are read at once as it serves requests at once, within a budget
  // of decoded bytes waiting.
  const int in_flight = arrays_.empty() ? 0 : arrays_[0]->store()->Capabilities().requests_in_flight;
  if (ahead > 0 && in_flight > 0) {
    constexpr int64_t kRemoteBudgetBytes = int64_t{512} << 20;
    int64_t group_rows = step;
    for (const ReadGroup& g : groups) group_rows = std::max(group_rows, g.count);
    const int64_t fit =
        std::max<int64_t>(1, kRemoteBudgetBytes / std::max<int64_t>(1, group_rows * row_bytes));
    ahead = std::max(ahead, static_cast<size_t>(std::min<int64_t>(in_flight, fit)));
  }
  bool several_chunks = false;
  for (size_t a = 0; a < arrays_.size(); ++a) {
    const std::vector<int64_t>& chunk = arrays_[a]->metadata().chunk_shape;
    const bool call = needed_[a].rfind("call_", 0) == 0 && chunk.size() >= 2;
    if (call && samples->second - samples->first > chunk[1]) several_chunks = true;
  }
  ReadOptions lane_read;
  if (ahead > 0 && !several_chunks) {
    TZ_ASSIGN_OR_RETURN(lane_read.pool,
                        MakeThreadPool(std::max(1, cores / static_cast<int>(ahead))));
  }
  const bool remote = in_flight > 0;
  // A group's read: its blocks' fields one block after the other (cut on
  // the lane, not on the thread that visits them).
  auto read = [this, &groups, &plan, samples, &lane_read, &spans,
               remote](size_t g) -> Result<std::vector<FieldBlock>> {
    const int64_t first = groups[g].first, count = groups[g].count;
    std::vector<FieldBlock> fields(arrays_.size());
    auto read_array = [&](size_t a) -> Status {
      const bool call = needed_[a].rfind("call_", 0) == 0;
      const std::optional<std::pair<int64_t, int64_t>> window =
          call ? samples : std::nullopt;
      if (spans[a]) {
        TZ_ASSIGN_OR_RETURN(fields[a], ReadThroughSpans(*spans[a], *arrays_[a], first, count,
                                                        window, lane_read));
      } else {
        TZ_ASSIGN_OR_RETURN(fields[a],
                            FieldBlock::Read(*arrays_[a], first, count, window, lane_read));
      }
      return Status::OK();
    };
    // A remote store answers each array's requests after its latency: the
    // block's arrays are read at once, one round trip rather than one each.
    std::vector<std::function<Status()>> reads;
    for (size_t a = 0; a < arrays_.size(); ++a) {
      reads.push_back([&read_array, a] { return read_array(a); });
    }
    TZ_RETURN_NOT_OK(RunAll(reads, remote));
    const ReadGroup& group = groups[g];
    if (group.end - group.begin == 1) return fields;
    std::vector<FieldBlock> blocks;
    blocks.reserve((group.end - group.begin) * fields.size());
    for (size_t i = group.begin; i < group.end; ++i) {
      for (FieldBlock& f : fields) {
        // Each block's rows are taken once, in order: strings move.
        blocks.push_back(f.TakeRowRange(plan[i].first - first, plan[i].count));
      }
    }
    return blocks;
  };
  BlockReadAhead reading(groups.size(), ahead, read);
  std::vector<FieldBlock> group_fields, fields;
  std::vector<uint8_t> samples_passed;
  size_t group = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (i == groups[group].end) ++group;
    if (i == groups[group].begin) {
      Result<std::vector<FieldBlock>> got = reading.Next();
      TZ_RETURN_NOT_OK(got.status());
      group_fields = std::move(*got);
    }
    if (groups[group].end - groups[group].begin == 1) {
      fields = std::move(group_fields);
    } else {
      const size_t at = (i - groups[group].begin) * arrays_.size();
      fields.resize(arrays_.size());
      for (size_t a = 0; a < arrays_.size(); ++a) fields[a] = std::move(group_fields[at + a]);
    }
    ScanBlock block;
    block.first = plan[i].first;
    block.count = plan[i].count;
    if (selected_.all && plan[i].rows.empty()) {
      block.rows.resize(static_cast<size_t>(block.count));
      for (int64_t r = 0; r < block.count; ++r) block.rows[static_cast<size_t>(r)] = r;
    } else {
      block.rows = std::move(plan[i].rows);
    }
    // Every filter must pass; per-sample outcomes combine sample by sample.
    samples_passed.clear();
    for (size_t f = 0; f < filters_.size() && !block.rows.empty(); ++f) {
      TZ_ASSIGN_OR_RETURN(FilterOutcome outcome, Filter(f, fields, block));
      std::vector<int64_t> passed;
      for (int64_t r : block.rows) {
        if (outcome.variants[static_cast<size_t>(r)]) passed.push_back(r);
      }
      block.rows = std::move(passed);
      if (outcome.samples.empty()) continue;
      if (samples_passed.empty()) {
        samples_passed = std::move(outcome.samples);
      } else {
        for (size_t k = 0; k < samples_passed.size(); ++k) {
          samples_passed[k] &= outcome.samples[k];
        }
      }
    }
    if (block.rows.empty()) continue;
    block.fields = &fields;
    block.samples = &samples_passed;
    TZ_RETURN_NOT_OK(visit(block));
  }
  return Status::OK();
}

}  // namespace turbozarr::vcz::internal
