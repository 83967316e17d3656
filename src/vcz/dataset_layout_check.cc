// CheckDatasetLayout (turbozarr/vcz.h): what `verify` asks of a VCF Zarr
// dataset beyond its arrays' bytes: it opens (the arrays every dataset has,
// with their shapes and types), and the arrays' leading dimensions agree,
// by the spec's naming: variant_* arrays have one row per variant, call_*
// one per variant and sample, sample_* one per sample, contig_* one per
// contig, variant_filter one column per filter_id; and its region_index,
// when there is one, reads.
#include <string>

#include "turbozarr/group.h"
#include "turbozarr/vcz.h"

namespace turbozarr::vcz {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + "]";
}

// The group looks like a dataset: bio2zarr's version attribute, or the
// array every dataset has.
bool IsDataset(const Group& group) {
  if (group.attributes().contains("vcf_zarr_version")) return true;
  Result<NodeInfo> position =
      InspectNode(group.store(), JoinKey(group.path(), "variant_position"));
  return position.ok() && position->kind == NodeKind::kArray;
}

// The lengths the dimensions of array `name` must have, leading first (0:
// not known from its name).
std::vector<int64_t> LeadingLengths(const VczDataset& d, const std::string& name,
                                    int64_t filters) {
  if (name == "variant_filter") return {d.num_variants(), filters};
  if (name.starts_with("variant_")) return {d.num_variants()};
  if (name.starts_with("call_")) return {d.num_variants(), d.num_samples()};
  if (name.starts_with("sample_")) return {d.num_samples()};
  if (name.starts_with("contig_")) return {d.num_contigs()};
  if (name.starts_with("filter_")) return {filters};
  return {};
}

void CheckArrays(const VczDataset& d, std::vector<VerifyFinding>& findings) {
  int64_t filters = 0;
  if (d.Has("filter_id")) {
    Result<std::shared_ptr<Array>> ids = d.OpenArray("filter_id");
    if (ids.ok() && !(*ids)->shape().empty()) filters = (*ids)->shape()[0];
  }
  const std::string path = d.root().path();
  for (const std::string& name : d.ArrayNames()) {
    const std::string key = JoinKey(path, name);
    Result<std::shared_ptr<Array>> array = d.OpenArray(name);
    if (!array.ok()) {
      findings.push_back({key, array.status().message()});
      continue;
    }
    const std::vector<int64_t>& shape = (*array)->shape();
    const std::vector<int64_t> want = LeadingLengths(d, name, filters);
    for (size_t k = 0; k < want.size(); ++k) {
      if (k < shape.size() && shape[k] == want[k]) continue;
      findings.push_back({key, "has shape " + ShapeText(shape) + "; the dataset has " +
                                   std::to_string(d.num_variants()) + " variants, " +
                                   std::to_string(d.num_samples()) + " samples, " +
                                   std::to_string(d.num_contigs()) + " contigs and " +
                                   std::to_string(filters) + " filters, so dimension " +
                                   std::to_string(k) + " must be " + std::to_string(want[k])});
      break;
    }
  }
}

}  // namespace

std::optional<LayoutReport> CheckDatasetLayout(const std::shared_ptr<Group>& group) {
  if (!IsDataset(*group)) return std::nullopt;
  LayoutReport report{"vcf-zarr", group->path(), {}};
  Result<std::shared_ptr<const VczDataset>> dataset = VczDataset::Open(group);
  if (!dataset.ok()) {
    report.findings.push_back({group->path(), dataset.status().message()});
    return report;
  }
  CheckArrays(**dataset, report.findings);
  if ((*dataset)->Has("region_index")) {
    Result<std::vector<RegionIndexRow>> index = (*dataset)->ReadRegionIndex();
    if (!index.ok()) {
      report.findings.push_back(
          {JoinKey(group->path(), "region_index"), index.status().message()});
    }
  }
  return report;
}

}  // namespace turbozarr::vcz
