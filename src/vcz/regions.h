// Regions and targets (`-r/-R/-t/-T`): which variants a query keeps, by
// position, as vcztools and bcftools choose them.
//
// A region string is "chr1", "chr1:100", "chr1:100-" or "chr1:100-200"
// (1-based, both ends included; only the last ':' separates, so contig
// names may hold ':'). A regions file has at least three tab-separated
// columns: contig, start, end. A variant falls in a region when any base of
// it does (POS to POS + length - 1); in a target when its POS does. A
// complemented target set ("^...") keeps the variants outside every target.
// With both, a variant must be in a region and in a target.
//
// Planning reads only what it must: the region index names the chunks of
// variants whose span can meet a region, and only their positions,
// lengths and contigs are read.
//
// Thread safety: pure functions; SelectVariants reads through the dataset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"

namespace turbozarr::vcz::internal {

// A region as written: 1-based, inclusive; no start means from the contig's
// beginning, no end to its end.
struct RegionSpec {
  std::string contig;
  std::optional<int64_t> start;
  std::optional<int64_t> end;
};

// "chr1:100-200" and the other forms above (never fails: a string that is
// not contig:positions is a contig name).
RegionSpec ParseRegion(std::string_view region);
// A comma-separated list of them.
std::vector<RegionSpec> ParseRegionList(std::string_view list);
// A regions file; InvalidArgument naming the file and line for a line of
// fewer than three columns or a start or end that is not a number, and for
// an empty file.
Result<std::vector<RegionSpec>> ReadRegionsFile(const std::string& path);

struct VariantSelection {
  std::optional<std::vector<RegionSpec>> regions;
  std::optional<std::vector<RegionSpec>> targets;
  bool targets_complement = false;
  // Variants first .. stop-1 only (SubsetOptions::variants).
  std::optional<std::pair<int64_t, int64_t>> variants;
};

// The variants a selection keeps: every one from `begin` to `end` - 1 (no
// regions and no targets), or those of `rows`, ascending.
struct SelectedVariants {
  bool all = true;
  int64_t begin = 0, end = 0;
  std::vector<int64_t> rows;
};

// What `selection` keeps of `dataset`. NotFound naming the contig for a
// region on a contig the dataset does not have; InvalidArgument for a range
// of variants that is not one of the dataset's.
Result<SelectedVariants> SelectVariants(const VczDataset& dataset,
                                        const VariantSelection& selection);

}  // namespace turbozarr::vcz::internal
