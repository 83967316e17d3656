// Encoding one chunk's new contents from the caller's block, by the cheapest
// route the chunk's codecs and the selection allow (the mirror of
// chunk_decode.h):
//
//  1. kFromBlock: the block covers the chunk whole and the chunk is one
//     contiguous run of it, and the chain can encode from a byte view
//     (fixed-size type, no array->array codec): encode straight from the
//     caller's memory. With no codec that changes the bytes, the encoded
//     chunk is the caller's memory itself and nothing is copied.
//  2. kScratch: else, for the same chains, the chunk is put together in a
//     reused per-thread scratch buffer (the stored chunk decoded into it, or
//     the fill value, when the block covers only part of it or it is clipped
//     by the array's edge), the block's share copied in with one
//     strided-kernel call, and encoded from there.
//  3. kChunkArray: else (variable-length types, array->array codecs, nested
//     sharding) the same in a ChunkArray, then CodecChain::Encode.
//
// Every route checks whether all elements equal the fill value with one pass
// that stops at the first difference; such a chunk comes back `empty`
// (store nothing) unless write_empty_chunks is set.
//
// Thread safety: safe to call from many threads at once; each thread has its
// own scratch buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/codec.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// One chunk's new stored form.
struct EncodedChunk {
  // Every element is the fill value and write_empty_chunks is off: the chunk
  // is not to be stored (`bytes` is empty).
  bool empty = false;
  // The encoded chunk: a view of `storage` or of the caller's block.
  ByteView bytes;
  Buffer storage;
};

// Builds and encodes the new contents of the chunk `p` projects the caller's
// `block` (C order, `block_shape`) onto: the block's share of it, and where
// the block does not cover it, the chunk's stored elements (`old`, its
// stored bytes, decoded by `chain`) or the fill value where `old` is nullopt.
// `old` is not read when p.covers_chunk. The chain's spec gives the chunk's
// shape and fill value. Errors are the chain's (Corruption for a bad `old`).
// With a `mask` (WriteOptions::mask; the caller then passes projections that
// do not cover their chunks, so that `old` is read), only the block's
// elements whose mask byte is set are written; the rest keep `old`'s values.
Status EncodeChunkFromBlock(const CodecChain& chain, const ChunkProjection& p,
                            const std::vector<int64_t>& block_shape, const void* block,
                            std::optional<ByteView> old, bool write_empty_chunks,
                            EncodedChunk& out, const uint8_t* mask = nullptr);

// Stores chunk `key`'s new contents (EncodeChunkFromBlock) under the key's
// update (Store::BeginUpdates), so that no other writer's update of the
// chunk is lost: reads what the write keeps (unless p.covers_chunk), builds,
// commits, and reads and builds again when the store found another commit in
// between. A chunk equal to the fill value is erased instead of stored unless
// `write_empty_chunks`.
Status UpdateChunkFromBlock(Store& store, const std::string& key, const CodecChain& chain,
                            const ChunkProjection& p, const std::vector<int64_t>& block_shape,
                            const void* block, bool write_empty_chunks,
                            const uint8_t* mask = nullptr);

// True when `chain` stores a chunk's elements exactly as they are in memory
// (no codec changes a byte), so a chunk's encoded form can be built where it
// will be stored.
bool StoresChunkAsIs(const CodecChain& chain);

// As EncodeChunkFromBlock for a chain that StoresChunkAsIs, building the
// chunk's encoded form straight into `dest` (its size exactly), e.g. its
// place in a shard. `empty` is set as EncodedChunk::empty would be (`dest`
// then holds the fill value and is not to be stored).
Status BuildChunkInPlace(const CodecChain& chain, const ChunkProjection& p,
                         const std::vector<int64_t>& block_shape, const void* block,
                         std::optional<ByteView> old, bool write_empty_chunks,
                         MutableByteView dest, bool& empty, const uint8_t* mask = nullptr);

// Frees `scratch` when it holds more than a thread keeps between chunks
// (64 MiB), so that one huge chunk does not pin its memory for the thread's
// life; smaller buffers keep their capacity for the next chunk.
void TrimScratch(Buffer& scratch);

// Which route EncodeChunkFromBlock takes, for tests and measurements.
enum class EncodeRoute { kFromBlock, kScratch, kChunkArray };
EncodeRoute ChooseEncodeRoute(const CodecChain& chain, const ChunkProjection& p,
                              const std::vector<int64_t>& block_shape);

}  // namespace turbozarr::internal
