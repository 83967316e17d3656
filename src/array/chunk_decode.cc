#include "array/chunk_decode.h"

#include <algorithm>
#include <array>

#include "array/chunk_copy.h"
#include "array/chunk_region.h"
#include "array/thread_buffers.h"
#include "util/shape_string.h"

namespace turbozarr::internal {
namespace {

// Straight reads are split into ranged reads no smaller than this, so each
// part's copy out of the page cache outweighs the cost of one more request.
constexpr size_t kMinStraightReadPart = size_t{16} << 20;

// Decoded chunks (route 3), and stored chunks as fetched
// (FetchAndDecodeChunkToBlock): thread_buffers.h.
struct DecodedChunk;
struct FetchedChunk;

}  // namespace

bool CanReadStraightIntoBlock(const CodecChain& chain, const ChunkProjection& p,
                              const std::vector<int64_t>& block_shape) {
  return chain.StoresRawElements() && chain.bytes_to_bytes().empty() &&
         IsContiguousWholeChunk(p, chain.spec().shape, block_shape);
}

bool CanReadStraightIntoBlockChecked(const CodecChain& chain, const ChunkProjection& p,
                                     const std::vector<int64_t>& block_shape) {
  return chain.TrailingChecksumBytes() == 4 &&
         IsContiguousWholeChunk(p, chain.spec().shape, block_shape);
}

Result<bool> ReadStraightIntoBlockChecked(Store& store, const std::string& key,
                                          const CodecChain& chain, const ChunkProjection& p,
                                          const std::vector<int64_t>& block_shape,
                                          void* block) {
  const ArraySpec& spec = chain.spec();
  const size_t elem = spec.dtype.size();
  const size_t n = static_cast<size_t>(spec.num_elements()) * elem;
  std::byte* dst = static_cast<std::byte*>(block) + BlockOffset(p, block_shape) * elem;
  TZ_ASSIGN_OR_RETURN(std::optional<uint64_t> got,
                      store.GetInto(key, ByteRange::Of(0, n), MutableByteView(dst, n)));
  if (!got) return false;
  // One byte more than the sum asked for, so that a longer value shows.
  std::array<std::byte, 4> sum{};
  Result<std::optional<uint64_t>> tail =
      *got == n ? store.GetInto(key, ByteRange::Of(n, 5), MutableByteView(sum.data(), 4))
                : Result<std::optional<uint64_t>>(std::optional<uint64_t>());
  if (tail.ok() && tail->has_value() && **tail == 4 &&
      chain.VerifyTrailingChecksum(ByteView(dst, n), ByteView(sum.data(), 4)).ok()) {
    return true;
  }
  return FetchAndDecodeChunkToBlock(store, key, chain, p, block_shape, block);
}

int StraightReadParts(const CodecChain& chain, int want) {
  const ArraySpec& spec = chain.spec();
  const size_t n = static_cast<size_t>(spec.num_elements()) * spec.dtype.size();
  const size_t most = std::max<size_t>(1, n / kMinStraightReadPart);
  return static_cast<int>(std::min<size_t>(std::max(want, 1), most));
}

Result<bool> ReadStraightIntoBlock(Store& store, const std::string& key,
                                   const CodecChain& chain, const ChunkProjection& p,
                                   const std::vector<int64_t>& block_shape, void* block) {
  return ReadStraightIntoBlockPart(store, key, chain, p, block_shape, block, 0, 1);
}

Result<bool> ReadStraightIntoBlockPart(Store& store, const std::string& key,
                                       const CodecChain& chain, const ChunkProjection& p,
                                       const std::vector<int64_t>& block_shape,
                                       void* block, int part, int parts) {
  const ArraySpec& spec = chain.spec();
  const size_t elem = spec.dtype.size();
  const size_t n = static_cast<size_t>(spec.num_elements()) * elem;
  std::byte* dst = static_cast<std::byte*>(block) + BlockOffset(p, block_shape) * elem;
  // `got` is the value's size, or nullopt when only "more than n" is known.
  auto mismatch = [&](std::optional<uint64_t> got) {
    return Status::Corruption(
        "codec bytes: chunk of shape " + internal::ShapeString(spec.shape) +
        " and type " + spec.dtype.ToString() + " needs " + std::to_string(n) +
        " bytes, got " + (got ? std::to_string(*got) : std::string("more")));
  };
  if (parts <= 1) {
    TZ_ASSIGN_OR_RETURN(std::optional<uint64_t> got,
                        store.GetInto(key, ByteRange::Full(), MutableByteView(dst, n)));
    if (!got) return false;
    if (*got != n) return mismatch(*got);
    return true;
  }
  const size_t part_size = (n + parts - 1) / parts;
  const size_t begin = std::min(n, static_cast<size_t>(part) * part_size);
  const size_t length = std::min(part_size, n - begin);
  const bool last = part == parts - 1;
  TZ_ASSIGN_OR_RETURN(std::optional<uint64_t> got,
                      store.GetInto(key, ByteRange::Of(begin, length + (last ? 1 : 0)),
                                    MutableByteView(dst + begin, length)));
  if (!got) return false;
  if (*got != length) {
    return mismatch(*got > length ? std::nullopt : std::optional(begin + *got));
  }
  return true;
}

Result<bool> FetchAndDecodeChunkToBlock(Store& store, const std::string& key,
                                        const CodecChain& chain, const ChunkProjection& p,
                                        const std::vector<int64_t>& block_shape,
                                        void* block) {
  Buffer& bytes = ThreadBuffer<FetchedChunk>();
  TZ_ASSIGN_OR_RETURN(bool found, store.GetReusing(key, ByteRange::Full(), bytes));
  Status decoded =
      found ? DecodeChunkToBlock(chain, bytes.view(), p, block_shape, block) : Status::OK();
  TrimThreadBuffer(bytes);
  TZ_RETURN_NOT_OK(decoded);
  return found;
}

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
      Buffer& scratch = n <= kKeepThreadBufferBytes ? ThreadBuffer<DecodedChunk>() : own;
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
