#include "array/chunk_encode.h"

#include "array/chunk_copy.h"
#include "array/chunk_region.h"
#include "array/thread_buffers.h"
#include "util/repeated_elements.h"

namespace turbozarr::internal {
namespace {

// The chunk being put together (thread_buffers.h).
struct ChunkBeingEncoded;

// The fill value, when it is one element of the chunk's type (else no chunk
// counts as all fill).
std::optional<ByteView> FillElement(const ArraySpec& spec) {
  if (spec.fill_value.bytes.size() != spec.dtype.size()) return std::nullopt;
  return spec.fill_value.bytes.view();
}

bool AllFill(ByteView elements, const ArraySpec& spec) {
  std::optional<ByteView> fill = FillElement(spec);
  return fill && AllElementsEqual(elements, *fill);
}

// True when p selects the chunk's every element, none clipped by the edge.
bool SelectsWholeChunk(const ChunkProjection& p, const std::vector<int64_t>& shape) {
  if (!p.covers_chunk) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (p.count[d] != shape[d]) return false;
  }
  return true;
}

// Puts the chunk's new contents together in `work` (the chunk's size): the
// stored chunk decoded into it, or the fill value, where the block does not
// cover it, then the block's share copied in with one strided-kernel call.
Status PutTogether(const CodecChain& chain, const ChunkProjection& p,
                   const std::vector<int64_t>& block_shape, const void* block,
                   const uint8_t* mask, std::optional<ByteView> old, MutableByteView work) {
  const ArraySpec& spec = chain.spec();
  if (!p.covers_chunk && old) {
    TZ_RETURN_NOT_OK(chain.DecodeInto(*old, work));
  } else if (!SelectsWholeChunk(p, spec.shape)) {
    std::optional<ByteView> fill = FillElement(spec);
    if (fill) {
      FillElements(work, *fill);
    } else if (!work.empty()) {
      std::memset(work.data(), 0, work.size());  // as ChunkArray::Filled
    }
  }
  const ChunkRegion region = ChunkRegion::Make(p, spec.shape, block_shape);
  if (mask != nullptr) {
    CopyBlockToChunkBytesMasked(block, mask, region, spec.dtype.size(), work.data());
  } else {
    CopyBlockToChunkBytes(block, region, spec.dtype.size(), work.data());
  }
  return Status::OK();
}

Status EncodeViaScratch(const CodecChain& chain, const ChunkProjection& p,
                        const std::vector<int64_t>& block_shape, const void* block,
                        const uint8_t* mask, std::optional<ByteView> old,
                        bool write_empty_chunks, EncodedChunk& out) {
  const ArraySpec& spec = chain.spec();
  const size_t n = static_cast<size_t>(spec.num_elements()) * spec.dtype.size();
  // When no codec changes the bytes, the chunk is put together where it is
  // kept, saving a copy out of the scratch.
  Buffer own;
  Buffer& work = StoresChunkAsIs(chain) ? out.storage
                 : n <= kKeepThreadBufferBytes ? ThreadBuffer<ChunkBeingEncoded>()
                                          : own;
  work.Clear();  // keeps the capacity; nothing old is worth copying on growth
  work.Resize(n);
  TZ_RETURN_NOT_OK(
      PutTogether(chain, p, block_shape, block, mask, old, work.mutable_view()));
  if (!write_empty_chunks && AllFill(work.view(), spec)) {
    out.empty = true;
    return Status::OK();
  }
  TZ_ASSIGN_OR_RETURN(out.bytes, chain.EncodeFrom(work.view(), out.storage));
  return Status::OK();
}

}  // namespace

void TrimScratch(Buffer& scratch) {
  TrimThreadBuffer(scratch);
}

bool StoresChunkAsIs(const CodecChain& chain) {
  return chain.CanEncodeFrom() && chain.StoresRawElements() &&
         chain.bytes_to_bytes().empty();
}

Status BuildChunkInPlace(const CodecChain& chain, const ChunkProjection& p,
                         const std::vector<int64_t>& block_shape, const void* block,
                         std::optional<ByteView> old, bool write_empty_chunks,
                         MutableByteView dest, bool& empty, const uint8_t* mask) {
  const ArraySpec& spec = chain.spec();
  const size_t n = static_cast<size_t>(spec.num_elements()) * spec.dtype.size();
  if (!StoresChunkAsIs(chain) || dest.size() != n) {
    return Status::InvalidArgument("chunk of " + std::to_string(n) +
                                   " bytes cannot be built in place in " +
                                   std::to_string(dest.size()) + " bytes");
  }
  TZ_RETURN_NOT_OK(PutTogether(chain, p, block_shape, block, mask, old, dest));
  empty = !write_empty_chunks && AllFill(dest, spec);
  return Status::OK();
}

EncodeRoute ChooseEncodeRoute(const CodecChain& chain, const ChunkProjection& p,
                              const std::vector<int64_t>& block_shape) {
  if (!chain.CanEncodeFrom()) return EncodeRoute::kChunkArray;
  if (p.covers_chunk && IsContiguousWholeChunk(p, chain.spec().shape, block_shape)) {
    return EncodeRoute::kFromBlock;
  }
  return EncodeRoute::kScratch;
}

Status EncodeChunkFromBlock(const CodecChain& chain, const ChunkProjection& p,
                            const std::vector<int64_t>& block_shape, const void* block,
                            std::optional<ByteView> old, bool write_empty_chunks,
                            EncodedChunk& out, const uint8_t* mask) {
  out.empty = false;
  out.bytes = {};
  const ArraySpec& spec = chain.spec();
  // Masked, the chunk keeps its stored elements wherever the mask is clear.
  const EncodeRoute route = ChooseEncodeRoute(chain, p, block_shape);
  switch (mask != nullptr && route == EncodeRoute::kFromBlock ? EncodeRoute::kScratch
                                                                : route) {
    case EncodeRoute::kFromBlock: {
      const size_t elem = spec.dtype.size();
      const ByteView elements(
          static_cast<const std::byte*>(block) + BlockOffset(p, block_shape) * elem,
          static_cast<size_t>(spec.num_elements()) * elem);
      if (!write_empty_chunks && AllFill(elements, spec)) {
        out.empty = true;
        return Status::OK();
      }
      TZ_ASSIGN_OR_RETURN(out.bytes, chain.EncodeFrom(elements, out.storage));
      return Status::OK();
    }
    case EncodeRoute::kScratch:
      return EncodeViaScratch(chain, p, block_shape, block, mask, old, write_empty_chunks,
                              out);
    case EncodeRoute::kChunkArray:
      break;
  }
  ChunkArray chunk;
  if (!p.covers_chunk && old) {
    TZ_ASSIGN_OR_RETURN(chunk, chain.Decode(*old));
  } else {
    chunk = ChunkArray::Filled(spec);
  }
  const ChunkRegion region = ChunkRegion::Make(p, spec.shape, block_shape);
  if (mask != nullptr) {
    CopyBlockToChunkMasked(block, mask, region, chunk);
  } else {
    CopyBlockToChunk(block, region, chunk);
  }
  if (!write_empty_chunks && chunk.IsAll(spec.fill_value)) {
    out.empty = true;
    return Status::OK();
  }
  TZ_ASSIGN_OR_RETURN(out.storage, chain.Encode(std::move(chunk)));
  out.bytes = out.storage.view();
  return Status::OK();
}

Status UpdateChunkFromBlock(Store& store, const std::string& key, const CodecChain& chain,
                            const ChunkProjection& p, const std::vector<int64_t>& block_shape,
                            const void* block, bool write_empty_chunks, const uint8_t* mask) {
  // The chunk is rewritten under its update (Store::BeginUpdates): no other
  // writer's update of it commits between the read of what the write keeps
  // and the store of the result. A store that checks at commit instead of
  // locking answers false when one did: read again and build again.
  TZ_ASSIGN_OR_RETURN(std::unique_ptr<KeyUpdate> update, store.BeginUpdate(key));
  for (;;) {
    std::optional<Buffer> old;
    if (!p.covers_chunk) {
      TZ_ASSIGN_OR_RETURN(old, update->Read());
    }
    // Kept by the thread between its chunks, so that an encoded chunk is
    // built in memory already touched rather than in a fresh allocation
    // that the kernel must fault in and zero for every chunk; the store
    // copies the bytes before the next chunk reuses it.
    thread_local EncodedChunk chunk;
    TZ_RETURN_NOT_OK(EncodeChunkFromBlock(
        chain, p, block_shape, block,
        old ? std::optional<ByteView>(old->view()) : std::nullopt, write_empty_chunks,
        chunk, mask));
    // A chunk that was read and found missing needs no erasing.
    Result<bool> committed =
        chunk.empty ? (p.covers_chunk || old ? update->Commit(std::nullopt)
                                             : Result<bool>(true))
                    : update->Commit(chunk.bytes);
    TrimScratch(chunk.storage);
    TZ_RETURN_NOT_OK(committed.status());
    if (*committed) return Status::OK();
  }
}

}  // namespace turbozarr::internal
