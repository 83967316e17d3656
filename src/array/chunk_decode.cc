#include "array/chunk_decode.h"

#include "array/chunk_copy.h"
#include "array/chunk_region.h"

namespace turbozarr::internal {
namespace {

// Scratch kept by each thread between chunks, so that a read of many chunks
// allocates (and page-faults in) its decode buffer once per thread rather
// than once per chunk. Chunks larger than this are decoded into a buffer of
// their own that is freed afterwards, so one huge chunk does not pin its
// size in memory for the life of the thread.
constexpr size_t kKeepScratchBytes = size_t{64} << 20;

Buffer& ThreadScratch() {
  thread_local Buffer scratch;
  return scratch;
}

}  // namespace

DecodeRoute ChooseDecodeRoute(const CodecChain& chain, const ChunkProjection& p,
                              const std::vector<int64_t>& block_shape) {
  if (!chain.CanDecodeInto()) return DecodeRoute::kFullDecode;
  if (IsContiguousWholeChunk(p, chain.spec().shape, block_shape)) {
    return DecodeRoute::kInPlace;
  }
  return chain.StoresRawElements() ? DecodeRoute::kStoredView : DecodeRoute::kScratch;
}

Status DecodeChunkToBlock(const CodecChain& chain, ByteView bytes,
                          const ChunkProjection& p,
                          const std::vector<int64_t>& block_shape, void* block) {
  const ArraySpec& spec = chain.spec();
  switch (ChooseDecodeRoute(chain, p, block_shape)) {
    case DecodeRoute::kInPlace: {
      const size_t elem = spec.dtype.size();
      const size_t n = static_cast<size_t>(spec.num_elements()) * elem;
      std::byte* dst =
          static_cast<std::byte*>(block) + BlockOffset(p, block_shape) * elem;
      return chain.DecodeInto(bytes, MutableByteView(dst, n));
    }
    case DecodeRoute::kStoredView: {
      TZ_ASSIGN_OR_RETURN(ByteView elements, chain.RawElements(bytes));
      CopyChunkBytesToBlock(elements.data(), spec.dtype.size(),
                            ChunkRegion::Make(p, spec.shape, block_shape), block);
      return Status::OK();
    }
    case DecodeRoute::kScratch: {
      const size_t elem = spec.dtype.size();
      const size_t n = static_cast<size_t>(spec.num_elements()) * elem;
      Buffer own;
      Buffer& scratch = n <= kKeepScratchBytes ? ThreadScratch() : own;
      scratch.Clear();  // keeps the capacity; nothing old is worth copying on growth
      scratch.Resize(n);
      TZ_RETURN_NOT_OK(chain.DecodeInto(bytes, scratch.mutable_view()));
      CopyChunkBytesToBlock(scratch.data(), elem,
                            ChunkRegion::Make(p, spec.shape, block_shape), block);
      return Status::OK();
    }
    case DecodeRoute::kFullDecode:
      break;
  }
  TZ_ASSIGN_OR_RETURN(ChunkArray chunk, chain.Decode(bytes));
  CopyChunkToBlock(chunk, ChunkRegion::Make(p, spec.shape, block_shape), block);
  return Status::OK();
}

}  // namespace turbozarr::internal
