#include <algorithm>
#include <cstring>
#include <utility>

#include "turbozarr/element_block.h"
#include "turbozarr/selection.h"
#include "turbozarr/vcz.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz {
namespace {

// The arrays without which no query can run: every VCZ has them.
constexpr const char* kRequired[] = {"variant_position", "variant_contig", "contig_id",
                                     "sample_id"};

}  // namespace

Result<std::shared_ptr<const VczDataset>> VczDataset::Open(std::shared_ptr<Group> root) {
  std::shared_ptr<VczDataset> d(new VczDataset());
  d->root_ = std::move(root);
  TZ_ASSIGN_OR_RETURN(std::vector<NodeInfo> members, d->root_->Members());
  for (const NodeInfo& m : members) {
    if (m.kind == NodeKind::kArray) d->members_.push_back(m.name);
  }
  std::sort(d->members_.begin(), d->members_.end());
  for (const char* name : kRequired) {
    if (!d->Has(name)) {
      return Status::NotFound(d->Describe() + ": no array '" + name +
                              "': not a VCF Zarr dataset, or an incomplete one");
    }
  }

  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> position, d->OpenArray("variant_position"));
  if (position->shape().size() != 1) {
    return Status::Corruption(position->Describe() + ": variant_position has " +
                              std::to_string(position->shape().size()) +
                              " dimensions; a VCZ stores one position per variant");
  }
  d->num_variants_ = position->shape()[0];
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> contig, d->OpenArray("variant_contig"));
  if (contig->shape() != position->shape()) {
    return Status::Corruption(contig->Describe() + ": variant_contig has shape " +
                              internal::ShapeString(contig->shape()) +
                              ", variant_position " +
                              internal::ShapeString(position->shape()));
  }

  // The tables' metadata is checked now; their values are read on first use.
  TZ_ASSIGN_OR_RETURN(d->sample_table_, d->OpenArray("sample_id"));
  TZ_ASSIGN_OR_RETURN(d->contig_table_, d->OpenArray("contig_id"));
  TZ_RETURN_NOT_OK(internal::CheckStrings(*d->sample_table_));
  TZ_RETURN_NOT_OK(internal::CheckStrings(*d->contig_table_));
  d->num_samples_ = d->sample_table_->shape()[0];
  if (d->Has("contig_length")) {
    TZ_ASSIGN_OR_RETURN(d->length_table_, d->OpenArray("contig_length"));
    if (d->length_table_->shape() != d->contig_table_->shape()) {
      return Status::Corruption(d->length_table_->Describe() + ": contig_length has shape " +
                                internal::ShapeString(d->length_table_->shape()) + " for " +
                                std::to_string(d->contig_table_->shape()[0]) + " contigs");
    }
  }
  return std::shared_ptr<const VczDataset>(std::move(d));
}

Result<const VczTables*> VczDataset::tables() const {
  std::call_once(tables_read_, [this] {
    // The three are read at once from a remote store, where each costs a
    // round trip.
    std::vector<int64_t> lengths;
    tables_status_ = internal::RunAll(
        {[&]() -> Status {
           TZ_ASSIGN_OR_RETURN(tables_.sample_ids, internal::ReadStrings(*sample_table_));
           return Status::OK();
         },
         [&]() -> Status {
           TZ_ASSIGN_OR_RETURN(tables_.contig_ids, internal::ReadStrings(*contig_table_));
           return Status::OK();
         },
         [&]() -> Status {
           if (!length_table_) return Status::OK();
           TZ_ASSIGN_OR_RETURN(lengths, internal::ReadIntegers(*length_table_));
           return Status::OK();
         }},
        internal::ReadsOverlap(*sample_table_));
    if (length_table_) tables_.contig_lengths = std::move(lengths);
  });
  TZ_RETURN_NOT_OK(tables_status_);
  return &tables_;
}

std::string VczDataset::Describe() const {
  return "VCZ dataset " + root_->store()->Describe() +
         (root_->path().empty() ? "" : " (path '" + root_->path() + "')");
}

bool VczDataset::Has(std::string_view name) const {
  return std::binary_search(members_.begin(), members_.end(), name);
}

Result<std::shared_ptr<Array>> VczDataset::OpenArray(std::string_view name) const {
  if (!Has(name)) {
    return Status::NotFound(Describe() + ": no array '" + std::string(name) + "'");
  }
  return root_->OpenArray(name);
}

Result<std::vector<RegionIndexRow>> VczDataset::ReadRegionIndex() const {
  if (!Has("region_index")) {
    // vcztools' words, so that scripts that match on them keep working.
    return Status::NotFound(Describe() +
                            ": Could not load 'region_index' variable. Use 'vcz2zarr' "
                            "to create an index.");
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> index, OpenArray("region_index"));
  const std::vector<int64_t>& shape = index->shape();
  if (shape.size() != 2 || shape[1] != 6) {
    return Status::Corruption(index->Describe() + ": region_index has shape " +
                              internal::ShapeString(shape) + "; expected (chunks, 6)");
  }
  TZ_ASSIGN_OR_RETURN(std::vector<int64_t> values, internal::ReadIntegers(*index));
  std::vector<RegionIndexRow> rows(static_cast<size_t>(shape[0]));
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t* v = values.data() + 6 * r;
    rows[r] = {v[0], v[1], v[2], v[3], v[4], v[5]};
    if (v[1] < 0 || v[1] >= num_contigs() || v[5] < 0) {
      return Status::Corruption(index->Describe() + ": region_index row " +
                                std::to_string(r) + " names contig " +
                                std::to_string(v[1]) + " with " + std::to_string(v[5]) +
                                " records; the dataset has " +
                                std::to_string(num_contigs()) + " contigs");
    }
  }
  return rows;
}

}  // namespace turbozarr::vcz
