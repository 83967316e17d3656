// Array: opening, creating, resizing and describing. The read and write
// pipelines are in array_read.cc and array_write.cc.
#include "turbozarr/array.h"

#include "array/metadata_io.h"
#include "array/node_parents.h"
#include "array/node_path.h"

namespace turbozarr {
namespace {

Status ValidateNewMetadata(const ArrayMetadata& m) {
  if (m.chunk_shape.size() != m.shape.size()) {
    return Status::InvalidArgument("chunk shape has rank " +
                                   std::to_string(m.chunk_shape.size()) +
                                   " but the array has rank " + std::to_string(m.shape.size()));
  }
  for (size_t d = 0; d < m.shape.size(); ++d) {
    if (m.shape[d] < 0) return Status::InvalidArgument("negative array extent");
    if (m.chunk_shape[d] <= 0) return Status::InvalidArgument("chunk extents must be positive");
  }
  return m.CheckSizes();
}

}  // namespace

Array::Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata,
             CodecChain chain)
    : store_(std::move(store)),
      path_(std::move(path)),
      metadata_(std::move(metadata)),
      chain_(std::move(chain)) {}

Result<std::shared_ptr<Array>> Array::Open(std::shared_ptr<Store> store,
                                           std::string_view path) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  TZ_ASSIGN_OR_RETURN(ArrayMetadata m, LoadArrayMetadata(*store, p));
  return FromMetadata(std::move(store), p, std::move(m));
}

Result<std::shared_ptr<Array>> Array::FromMetadata(std::shared_ptr<Store> store,
                                                   std::string_view path,
                                                   ArrayMetadata metadata) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  std::string where = "array " + DescribeNodePath(p) + " in " + store->Describe();
  Status valid = ValidateNewMetadata(metadata);
  if (!valid.ok()) return valid.WithContext(where);
  Result<CodecChain> chain = metadata.MakeCodecChain();
  if (!chain.ok()) return chain.status().WithContext(where);
  return std::shared_ptr<Array>(
      new Array(std::move(store), std::move(p), std::move(metadata), std::move(*chain)));
}

Result<std::shared_ptr<Array>> Array::Create(std::shared_ptr<Store> store,
                                             std::string_view path, ArrayMetadata metadata,
                                             const CreateOptions& options) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  TZ_ASSIGN_OR_RETURN(NodeDocuments existing, LoadNodeDocuments(*store, p));
  if (existing.zarr_format != 0) {
    if (!options.overwrite) {
      return Status::AlreadyExists("cannot create array at " + DescribeNodePath(p) + " in " +
                                   store->Describe() + ": a node is already there");
    }
  }
  // Build first so that invalid metadata leaves the store untouched.
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                      FromMetadata(store, p, std::move(metadata)));
  TZ_ASSIGN_OR_RETURN(const std::vector<std::string> parents, MissingParents(*store, p));
  if (options.overwrite) TZ_RETURN_NOT_OK(store->ErasePrefix(p));
  TZ_RETURN_NOT_OK(CreateEmptyGroups(*store, parents, array->metadata().zarr_format));
  TZ_RETURN_NOT_OK(array->WriteMetadata());
  return array;
}

Status Array::WriteMetadata() {
  return StoreArrayMetadata(*store_, path_, metadata_).WithContext(Describe());
}

std::string Array::ChunkKey(const std::vector<int64_t>& chunk_coords) const {
  return JoinKey(path_, metadata_.chunk_key_encoding.EncodeKey(chunk_coords));
}

std::string Array::Describe() const {
  return "array " + DescribeNodePath(path_) + " in " + store_->Describe();
}

Status Array::SetAttributes(const JsonDocument& attributes) {
  if (!attributes.is_object()) {
    return Status::InvalidArgument(Describe() + ": attributes must be a JSON object");
  }
  metadata_.attributes = attributes;
  return WriteMetadata();
}

Status Array::Resize(const std::vector<int64_t>& new_shape) {
  if (new_shape.size() != metadata_.shape.size()) {
    return Status::InvalidArgument(Describe() + ": resize to rank " +
                                   std::to_string(new_shape.size()) + " from rank " +
                                   std::to_string(metadata_.shape.size()));
  }
  for (int64_t e : new_shape) {
    if (e < 0) return Status::InvalidArgument(Describe() + ": negative extent in resize");
  }
  // Erase chunks of the old grid that lie wholly outside the new shape, so
  // that growing again later shows fill values, not stale data.
  std::vector<int64_t> old_grid = ChunkGridShape(metadata_.shape, metadata_.chunk_shape);
  std::vector<int64_t> new_grid = ChunkGridShape(new_shape, metadata_.chunk_shape);
  const size_t rank = old_grid.size();
  int64_t total = 1;
  for (int64_t g : old_grid) total *= g;
  std::vector<int64_t> coords(rank, 0);
  for (int64_t n = 0; n < total && rank > 0; ++n) {
    bool outside = false;
    for (size_t d = 0; d < rank; ++d) outside |= coords[d] >= new_grid[d];
    if (outside) TZ_RETURN_NOT_OK(store_->Erase(ChunkKey(coords)).WithContext(Describe()));
    for (size_t d = rank; d-- > 0;) {
      if (++coords[d] < old_grid[d]) break;
      coords[d] = 0;
    }
  }
  metadata_.shape = new_shape;
  return WriteMetadata();
}

}  // namespace turbozarr
