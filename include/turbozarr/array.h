// Array: one Zarr array (v2 or v3) in a Store: open, create, read and write
// any Selection, resize, attributes.
//
// Reads and writes go through the chunk grid: chunks are fetched, decoded and
// copied into the caller's buffer (missing chunks read as the fill value);
// writes of part of a chunk read it, modify it and write it back whole.
//
// Thread safety: an Array may be read from many threads at once. Concurrent
// writes to different chunks are safe; concurrent writes to the same chunk
// from two callers race (last writer wins per chunk), as in every Zarr
// implementation without a lock service.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/config.h"
#include "turbozarr/element_span.h"
#include "turbozarr/metadata.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {
namespace internal {
class ChunkChains;
}  // namespace internal

struct CreateOptions {
  // Replace an array or group already at the path (its keys are erased).
  bool overwrite = false;
};

struct WriteOptions {
  // Store chunks whose elements all equal the fill value; when false such a
  // chunk is erased instead (it reads back the same).
  bool write_empty_chunks = false;
  // The threads the write runs on (turbozarr/config.h); null: the
  // process-wide pool.
  std::shared_ptr<ThreadPool> pool;
  // When set, one byte per element of the selection (C order, as the
  // source): only the elements whose byte is nonzero are written, and the
  // others keep their stored values. Each chunk (or shard) is read, merged
  // and stored under its update (Store::BeginUpdates), so a scattered write
  // (integer-array, mask or point selections, written as their bounding box
  // and a mask) loses no other writer's update to the elements it skips.
  const uint8_t* mask = nullptr;
};

struct ReadOptions {
  // The threads the read runs on (turbozarr/config.h); null: the
  // process-wide pool.
  std::shared_ptr<ThreadPool> pool;
  // What a chunk (or shard) that is not stored reads as: the fill value, or,
  // when false, a NotFound error naming its key (zarr-python's
  // `read_missing_chunks=False`, for data that must be there). Inner chunks
  // absent from a stored shard read as the fill value either way, as in
  // zarr-python: the shard says they hold nothing else.
  bool fill_missing_chunks = true;
};

class Array {
 public:
  // Opens the array at `path` ("" for the store's root); NotFound if none.
  static Result<std::shared_ptr<Array>> Open(std::shared_ptr<Store> store,
                                             std::string_view path);
  // Opens an array whose metadata is already known (consolidated metadata).
  static Result<std::shared_ptr<Array>> FromMetadata(std::shared_ptr<Store> store,
                                                     std::string_view path,
                                                     ArrayMetadata metadata);
  // Writes the metadata and returns the new, empty array.
  static Result<std::shared_ptr<Array>> Create(std::shared_ptr<Store> store,
                                               std::string_view path,
                                               ArrayMetadata metadata,
                                               const CreateOptions& options = {});

  const ArrayMetadata& metadata() const { return metadata_; }
  const std::vector<int64_t>& shape() const { return metadata_.shape; }
  const DataType& dtype() const { return metadata_.dtype; }
  const std::string& path() const { return path_; }
  const std::shared_ptr<Store>& store() const { return store_; }
  // The chain that encodes chunks of metadata().chunk_shape.
  const CodecChain& codec_chain() const { return chain_; }
  // Where the chunks lie: the regular grid, or a rectilinear grid's edges.
  const ChunkGrid& chunk_grid() const { return grid_; }
  // True when the chunks within the array are those of the regular grid of
  // metadata().chunk_shape: every regular grid, and a rectilinear grid
  // whose chunks that touch the array are all of one shape. Then every
  // chunk is encoded by codec_chain().
  bool regular_grid() const { return regular_grid_; }
  // The chain that encodes chunk `chunk_coords`: codec_chain() on a regular
  // grid, else the chain for that chunk's own shape, built on first use and
  // valid while the array is (InvalidArgument when the codecs cannot encode
  // that shape).
  Result<const CodecChain*> ChunkChain(const std::vector<int64_t>& chunk_coords) const;

  // Reads `selection` into `out`, a C-contiguous block of selection.shape()
  // elements (std::string elements for variable-length types).
  // InvalidArgument unless `out` holds exactly that many elements of the
  // array's data type.
  Status Read(const Selection& selection, ElementSpan out,
              const ReadOptions& options = {}) const;
  // Writes `src`, laid out as Read's `out`, into `selection`.
  Status Write(const Selection& selection, const void* src,
               const WriteOptions& options = {});

  // Changes the shape; chunks wholly outside the new shape are erased.
  Status Resize(const std::vector<int64_t>& new_shape);
  Status SetAttributes(const JsonDocument& attributes);

  // The store key of a chunk.
  std::string ChunkKey(const std::vector<int64_t>& chunk_coords) const;
  // "array 'a/b' in file:///x" for error messages.
  std::string Describe() const;

 private:
  Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata,
        CodecChain chain);
  Status WriteMetadata();
  // Sets grid_, regular_grid_ and chains_ from metadata_.
  void UpdateGrid();

  std::shared_ptr<Store> store_;
  std::string path_;
  ArrayMetadata metadata_;
  CodecChain chain_;
  ChunkGrid grid_;
  bool regular_grid_ = true;
  // The chains of a rectilinear grid's chunk shapes; null on a regular grid.
  std::shared_ptr<internal::ChunkChains> chains_;
};

}  // namespace turbozarr
