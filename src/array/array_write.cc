// The write pipeline: for each chunk a selection touches (in parallel), build
// the chunk's new contents, from the caller's block alone when the selection
// covers it, else by reading, decoding and modifying the stored chunk, then
// encode and store it whole. A chunk equal to the fill value is erased
// unless write_empty_chunks is set.
#include <string>

#include "array/chunk_copy.h"
#include "array/chunk_region.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr {

Status Array::Write(const Selection& selection, const void* src,
                    const WriteOptions& options) {
  Status valid = selection.Validate(metadata_.shape);
  if (!valid.ok()) return valid.WithContext(Describe());
  if (selection.num_elements() == 0) return Status::OK();
  if (!store_->IsWritable()) {
    return Status::InvalidArgument(Describe() + ": the store is read-only");
  }

  const std::vector<ChunkProjection> plan =
      PlanChunks(selection, metadata_.shape, metadata_.chunk_shape);
  const std::vector<int64_t> block_shape = selection.shape();
  const ArraySpec& spec = chain_.spec();

  return ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(plan.size()), [&](int64_t i) -> Status {
        const ChunkProjection& p = plan[i];
        const ChunkRegion region = ChunkRegion::Make(p, metadata_.chunk_shape, block_shape);
        const std::string key = ChunkKey(p.chunk_coords);
        auto fail = [&](const Status& s) {
          return s.WithContext(Describe() + ", chunk '" + key + "'");
        };

        ChunkArray chunk;
        if (p.covers_chunk) {
          chunk = ChunkArray::Filled(spec);
        } else {
          Result<std::optional<Buffer>> old = store_->Get(key);
          if (!old.ok()) return fail(old.status());
          if (old->has_value()) {
            Result<ChunkArray> decoded = chain_.Decode((*old)->view());
            if (!decoded.ok()) return fail(decoded.status());
            chunk = std::move(*decoded);
          } else {
            chunk = ChunkArray::Filled(spec);
          }
        }
        CopyBlockToChunk(src, region, chunk);

        if (!options.write_empty_chunks && chunk.IsAll(metadata_.fill_value)) {
          Status erased = store_->Erase(key);
          return erased.ok() ? erased : fail(erased);
        }
        Result<Buffer> encoded = chain_.Encode(std::move(chunk));
        if (!encoded.ok()) return fail(encoded.status());
        Status stored = store_->Set(key, encoded->view());
        return stored.ok() ? stored : fail(stored);
      });
}

}  // namespace turbozarr
