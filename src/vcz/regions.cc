#include "vcz/regions.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <map>

#include "vcz/variant_block.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz::internal {
namespace {

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> Number(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Half-open, 0-based intervals on one contig, sorted and with overlapping
// ones merged, so that "does [start, end) meet any?" is one binary search.
class IntervalSet {
 public:
  void Add(int64_t start, int64_t end) { spans_.push_back({start, end}); }
  void Seal() {
    std::sort(spans_.begin(), spans_.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& s : spans_) {
      if (s.second <= s.first) continue;  // empty: meets nothing
      if (!merged.empty() && s.first < merged.back().second) {
        merged.back().second = std::max(merged.back().second, s.second);
      } else {
        merged.push_back(s);
      }
    }
    spans_ = std::move(merged);
  }
  bool Meets(int64_t start, int64_t end) const {
    // The first span that ends after `start`; ends ascend once merged.
    auto it = std::upper_bound(spans_.begin(), spans_.end(), start,
                               [](int64_t v, const auto& s) { return v < s.second; });
    return it != spans_.end() && it->first < end && start < end;
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> spans_;
};

using ContigIntervals = std::map<int64_t, IntervalSet>;

Result<ContigIntervals> Resolve(const std::vector<RegionSpec>& specs,
                                const VczDataset& dataset) {
  ContigIntervals out;
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  const std::vector<std::string>& contigs = tables->contig_ids;
  for (const RegionSpec& r : specs) {
    auto it = std::find(contigs.begin(), contigs.end(), r.contig);
    if (it == contigs.end()) {
      std::string known;
      for (size_t c = 0; c < contigs.size() && c < 20; ++c) {
        known += (c ? ", " : "") + contigs[c];
      }
      if (contigs.size() > 20) known += ", ...";
      return Status::NotFound(dataset.Describe() + ": unknown contig '" + r.contig +
                              "' in a region or target; its contigs are " + known);
    }
    out[it - contigs.begin()].Add(r.start ? *r.start - 1 : 0, r.end ? *r.end : kToEnd);
  }
  for (auto& [contig, set] : out) set.Seal();
  return out;
}

bool Meets(const ContigIntervals& sets, int64_t contig, int64_t start, int64_t end) {
  auto it = sets.find(contig);
  return it != sets.end() && it->second.Meets(start, end);
}

// Whether the region index counts its chunks in units of `unit` variants:
// then its chunk numbers run over every chunk of that size, and each chunk's
// rows (one per contig) hold its records exactly.
bool IndexCountsIn(const std::vector<RegionIndexRow>& rows, int64_t unit, int64_t n) {
  const int64_t chunks = (n + unit - 1) / unit;
  std::vector<int64_t> records(static_cast<size_t>(chunks), 0);
  for (const RegionIndexRow& row : rows) {
    if (row.chunk < 0 || row.chunk >= chunks) return false;
    records[static_cast<size_t>(row.chunk)] += row.num_records;
  }
  for (int64_t c = 0; c < chunks; ++c) {
    if (records[static_cast<size_t>(c)] != std::min(unit, n - c * unit)) return false;
  }
  return true;
}

// The unit of the region index's chunk numbers. bio2zarr writes one row
// per chunk of variant_position (and contig); vcztools reads the numbers in
// units of the call arrays' variant chunk. The two agree unless the variant
// arrays are chunked as multiples of the call arrays' chunk, so the index
// itself tells which it is. nullopt: it fits neither (a stale index), and
// prunes nothing.
Result<std::optional<int64_t>> IndexUnit(const VczDataset& dataset,
                                         const std::vector<RegionIndexRow>& rows,
                                         int64_t position_unit) {
  const int64_t n = dataset.num_variants();
  if (IndexCountsIn(rows, position_unit, n)) return std::optional<int64_t>(position_unit);
  std::optional<int64_t> call_unit;
  for (const std::string& name : dataset.ArrayNames()) {
    if (name.rfind("call_", 0) != 0) continue;
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> call, dataset.OpenArray(name));
    if (call->shape().empty() || call->shape()[0] != n || !call->regular_grid()) continue;
    const int64_t chunk = std::max<int64_t>(1, call->metadata().chunk_shape[0]);
    call_unit = std::min(call_unit.value_or(chunk), chunk);
  }
  if (call_unit && IndexCountsIn(rows, *call_unit, n)) return call_unit;
  return std::optional<int64_t>();
}

}  // namespace

RegionSpec ParseRegion(std::string_view region) {
  const RegionSpec whole{std::string(region), std::nullopt, std::nullopt};
  const size_t colon = region.rfind(':');
  if (colon == std::string_view::npos) return whole;
  const std::string_view positions = region.substr(colon + 1);
  const size_t dash = positions.find('-');
  const std::string_view from = positions.substr(0, dash);
  const std::string_view to =
      dash == std::string_view::npos ? std::string_view() : positions.substr(dash + 1);
  if (!AllDigits(from) || (!to.empty() && !AllDigits(to))) return whole;
  RegionSpec r{std::string(region.substr(0, colon)), Number(from), std::nullopt};
  if (dash == std::string_view::npos) r.end = r.start;    // "chr1:100"
  if (!to.empty()) r.end = Number(to);                    // "chr1:100-200"
  // Digits past 64 bits are no position: the whole string names a contig.
  if (!r.start || (!to.empty() && !r.end)) return whole;
  return r;
}

std::vector<RegionSpec> ParseRegionList(std::string_view list) {
  std::vector<RegionSpec> out;
  size_t begin = 0;
  while (true) {
    const size_t comma = list.find(',', begin);
    out.push_back(ParseRegion(list.substr(begin, comma == std::string_view::npos
                                                     ? std::string_view::npos
                                                     : comma - begin)));
    if (comma == std::string_view::npos) return out;
    begin = comma + 1;
  }
}

Result<std::vector<RegionSpec>> ReadRegionsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot open the regions file " + path);
  std::vector<RegionSpec> out;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    // As vcztools: the line stripped, then split on tabs.
    const size_t first = line.find_first_not_of(" \t\r\n");
    const size_t last = line.find_last_not_of(" \t\r\n");
    line = first == std::string::npos ? "" : line.substr(first, last - first + 1);
    std::vector<std::string_view> parts;
    std::string_view rest(line);
    while (true) {
      const size_t tab = rest.find('\t');
      parts.push_back(rest.substr(0, tab));
      if (tab == std::string_view::npos) break;
      rest.remove_prefix(tab + 1);
    }
    const std::string at = " at line " + std::to_string(number) + ": " + path;
    if (parts.size() < 3) {
      return Status::InvalidArgument(
          "expected at least 3 tab-separated columns (chrom, start, end), got " +
          std::to_string(parts.size()) + at);
    }
    const std::optional<int64_t> start = Number(parts[1]);
    if (!start) {
      return Status::InvalidArgument("non-numeric start position '" + std::string(parts[1]) +
                                     "'" + at);
    }
    const std::optional<int64_t> end = Number(parts[2]);
    if (!end) {
      return Status::InvalidArgument("non-numeric end position '" + std::string(parts[2]) +
                                     "'" + at);
    }
    out.push_back({std::string(parts[0]), start, end});
  }
  if (out.empty()) return Status::InvalidArgument("regions file is empty: " + path);
  return out;
}

Result<SelectedVariants> SelectVariants(const VczDataset& dataset,
                                        const VariantSelection& selection) {
  SelectedVariants kept;
  const int64_t n = dataset.num_variants();
  kept.end = n;
  if (selection.variants) {
    const auto [first, stop] = *selection.variants;
    if (first < 0 || stop < first || stop > n) {
      return Status::InvalidArgument(dataset.Describe() + ": variants " +
                                     std::to_string(first) + " to " + std::to_string(stop) +
                                     " (stop excluded) are not a range of its " +
                                     std::to_string(n) + " variants");
    }
    kept.begin = first;
    kept.end = stop;
  }
  if (!selection.regions && !selection.targets) return kept;
  kept.all = false;
  std::optional<ContigIntervals> regions, targets;
  if (selection.regions) {
    TZ_ASSIGN_OR_RETURN(regions, Resolve(*selection.regions, dataset));
  }
  if (selection.targets) {
    TZ_ASSIGN_OR_RETURN(targets, Resolve(*selection.targets, dataset));
  }

  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> position, dataset.OpenArray("variant_position"));
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> contig, dataset.OpenArray("variant_contig"));
  std::shared_ptr<Array> length;
  if (regions) {
    TZ_ASSIGN_OR_RETURN(length, dataset.OpenArray("variant_length"));
  }
  // The chunks to read, in the region index's unit (see IndexUnit): with
  // regions, those whose span can meet one; otherwise all.
  if (!position->regular_grid()) {
    return Status::Unsupported(position->Describe() +
                               ": a rectilinear chunk grid; VCF Zarr's region index counts "
                               "variant chunks of one size");
  }
  int64_t unit = std::max<int64_t>(1, position->metadata().chunk_shape[0]);
  std::vector<int64_t> chunks;
  std::optional<int64_t> index_unit;
  if (regions) {
    TZ_ASSIGN_OR_RETURN(std::vector<RegionIndexRow> rows, dataset.ReadRegionIndex());
    TZ_ASSIGN_OR_RETURN(index_unit, IndexUnit(dataset, rows, unit));
    if (index_unit) {
      unit = *index_unit;
      for (const RegionIndexRow& row : rows) {
        if (Meets(*regions, row.contig, row.start - 1, row.max_end)) chunks.push_back(row.chunk);
      }
      std::sort(chunks.begin(), chunks.end());
      chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
    }
  }
  if (!index_unit) {
    for (int64_t c = 0; c * unit < n; ++c) chunks.push_back(c);
  }

  // Runs of consecutive chunks are read in one call per array (the
  // engine reads a run's chunks at once), the three arrays side by side:
  // from a remote store each read costs a round trip.
  constexpr int64_t kRunVariants = int64_t{1} << 20;
  chunks.erase(std::remove_if(chunks.begin(), chunks.end(),
                              [&](int64_t c) {
                                return c < 0 || c * unit >= kept.end ||
                                       (c + 1) * unit <= kept.begin;
                              }),
               chunks.end());
  for (size_t i = 0; i < chunks.size();) {
    size_t j = i + 1;
    while (j < chunks.size() && chunks[j] == chunks[j - 1] + 1 &&
           static_cast<int64_t>(j - i) * unit < kRunVariants) {
      ++j;
    }
    const int64_t first = chunks[i] * unit;
    const int64_t count = std::min((chunks[j - 1] + 1) * unit, n) - first;
    i = j;
    FieldBlock pos, con;
    std::optional<FieldBlock> len;
    TZ_RETURN_NOT_OK(RunAll(
        {[&]() -> Status {
           TZ_ASSIGN_OR_RETURN(pos, FieldBlock::Read(*position, first, count));
           return Status::OK();
         },
         [&]() -> Status {
           TZ_ASSIGN_OR_RETURN(con, FieldBlock::Read(*contig, first, count));
           return Status::OK();
         },
         [&]() -> Status {
           if (!length) return Status::OK();
           TZ_ASSIGN_OR_RETURN(len, FieldBlock::Read(*length, first, count));
           return Status::OK();
         }},
        ReadsOverlap(*position)));
    for (int64_t row = 0; row < count; ++row) {
      if (first + row < kept.begin || first + row >= kept.end) continue;
      const int64_t k = con.Integer(row, 0);
      const int64_t start = pos.Integer(row, 0) - 1;
      if (regions && !Meets(*regions, k, start, start + len->Integer(row, 0))) continue;
      if (targets && Meets(*targets, k, start, start + 1) == selection.targets_complement) {
        continue;
      }
      kept.rows.push_back(first + row);
    }
  }
  return kept;
}

}  // namespace turbozarr::vcz::internal
