#include "array/chunk_encode.h"

#include "array/chunk_copy.h"
#include "array/chunk_region.h"
#include "codec/raw_bytes.h"

namespace turbozarr::internal {
namespace {

// Scratch kept by each thread between chunks, as on the read side
// (chunk_decode.cc): one allocation per thread rather than per chunk, and a
// huge chunk gets a buffer of its own that is freed afterwards.
constexpr size_t kKeepScratchBytes = size_t{64} << 20;

Buffer& ThreadScratch() {
  thread_local Buffer scratch;
  return scratch;
}

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

Status EncodeViaScratch(const CodecChain& chain, const ChunkProjection& p,
                        const std::vector<int64_t>& block_shape, const void* block,
                        std::optional<ByteView> old, bool write_empty_chunks,
                        EncodedChunk& out) {
  const ArraySpec& spec = chain.spec();
  const size_t elem = spec.dtype.size();
  const size_t n = static_cast<size_t>(spec.num_elements()) * elem;
  // When no codec changes the bytes, the chunk is put together where it is
  // kept, saving a copy out of the scratch.
  const bool identity = chain.StoresRawElements() && chain.bytes_to_bytes().empty();
  Buffer own;
  Buffer& work = identity ? out.storage : n <= kKeepScratchBytes ? ThreadScratch() : own;
  work.Clear();  // keeps the capacity; nothing old is worth copying on growth
  work.Resize(n);
  if (!p.covers_chunk && old) {
    TZ_RETURN_NOT_OK(chain.DecodeInto(*old, work.mutable_view()));
  } else if (!SelectsWholeChunk(p, spec.shape)) {
    std::optional<ByteView> fill = FillElement(spec);
    if (fill) {
      FillElements(work.mutable_view(), *fill);
    } else if (n > 0) {
      std::memset(work.data(), 0, n);  // as ChunkArray::Filled
    }
  }
  CopyBlockToChunkBytes(block, ChunkRegion::Make(p, spec.shape, block_shape), elem,
                        work.data());
  if (!write_empty_chunks && AllFill(work.view(), spec)) {
    out.empty = true;
    return Status::OK();
  }
  TZ_ASSIGN_OR_RETURN(out.bytes, chain.EncodeFrom(work.view(), out.storage));
  return Status::OK();
}

}  // namespace

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
                            EncodedChunk& out) {
  out.empty = false;
  out.bytes = {};
  const ArraySpec& spec = chain.spec();
  switch (ChooseEncodeRoute(chain, p, block_shape)) {
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
      return EncodeViaScratch(chain, p, block_shape, block, old, write_empty_chunks, out);
    case EncodeRoute::kChunkArray:
      break;
  }
  ChunkArray chunk;
  if (!p.covers_chunk && old) {
    TZ_ASSIGN_OR_RETURN(chunk, chain.Decode(*old));
  } else {
    chunk = ChunkArray::Filled(spec);
  }
  CopyBlockToChunk(block, ChunkRegion::Make(p, spec.shape, block_shape), chunk);
  if (!write_empty_chunks && chunk.IsAll(spec.fill_value)) {
    out.empty = true;
    return Status::OK();
  }
  TZ_ASSIGN_OR_RETURN(out.storage, chain.Encode(std::move(chunk)));
  out.bytes = out.storage.view();
  return Status::OK();
}

}  // namespace turbozarr::internal
