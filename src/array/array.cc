// Array: opening, creating, resizing and describing. The read and write
// pipelines are in array_read.cc and array_write.cc.
#include "turbozarr/array.h"

#include "array/chunk_chains.h"
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
  if (m.rectilinear()) {
    if (m.zarr_format != 3) {
      return Status::InvalidArgument("Zarr format 2 has no rectilinear chunk grids");
    }
    TZ_RETURN_NOT_OK(m.CheckChunkEdges());
    // Every chunk is a whole number of a sharding codec's inner chunks, as
    // zarr-python requires, so that each shard's inner grid is regular.
    if (const std::optional<std::vector<int64_t>> inner = m.InnerChunkShape()) {
      for (size_t d = 0; d < m.chunk_edges.size() && d < inner->size(); ++d) {
        for (const ChunkEdgeRun& r : m.chunk_edges[d]) {
          if ((*inner)[d] > 0 && r.length % (*inner)[d] != 0) {
            return Status::InvalidArgument(
                "chunk edge length " + std::to_string(r.length) + " in dimension " +
                std::to_string(d) + " is not divisible by the shard's inner chunk size " +
                std::to_string((*inner)[d]));
          }
        }
      }
    }
  }
  return m.CheckSizes();
}

// The grid metadata `m` describes (for a rectilinear one, its runs).
ChunkGrid GridOf(const ArrayMetadata& m) {
  return m.rectilinear() ? ChunkGrid::FromEdges(m.chunk_shape, m.chunk_edges)
                         : ChunkGrid::Regular(m.chunk_shape);
}

}  // namespace

Array::Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata,
             CodecChain chain)
    : store_(std::move(store)),
      path_(std::move(path)),
      metadata_(std::move(metadata)),
      chain_(std::move(chain)) {
  UpdateGrid();
}

void Array::UpdateGrid() {
  grid_ = GridOf(metadata_);
  regular_grid_ = grid_.IsRegularWithin(metadata_.shape);
  // Within the array such a grid is the regular grid of chunk_shape (its
  // chunks' common length): plan over that, with no search of the runs.
  if (regular_grid_) grid_ = ChunkGrid::Regular(metadata_.chunk_shape);
  if (!regular_grid_ && !chains_) {
    chains_ = std::make_shared<internal::ChunkChains>(metadata_);
  }
}

Result<const CodecChain*> Array::ChunkChain(const std::vector<int64_t>& chunk_coords) const {
  if (regular_grid_) return &chain_;
  return chains_->For(grid_.ChunkShape(chunk_coords));
}

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
  // A rectilinear grid may gain an edge (ArrayMetadata::Resize).
  ArrayMetadata resized = metadata_;
  resized.Resize(new_shape);
  Status valid = ValidateNewMetadata(resized);
  if (!valid.ok()) return valid.WithContext(Describe() + ": resize");
  std::optional<CodecChain> chain;
  if (resized.chunk_shape != metadata_.chunk_shape) {
    Result<CodecChain> made = resized.MakeCodecChain();
    if (!made.ok()) return made.status().WithContext(Describe() + ": resize");
    chain = std::move(*made);
  }
  // Erase chunks of the old grid that lie wholly outside the new shape, so
  // that growing again later shows fill values, not stale data.
  std::vector<int64_t> old_grid = grid_.GridShape(metadata_.shape);
  std::vector<int64_t> new_grid = GridOf(resized).GridShape(new_shape);
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
  metadata_ = std::move(resized);
  if (chain) chain_ = std::move(*chain);
  UpdateGrid();
  return WriteMetadata();
}

}  // namespace turbozarr
