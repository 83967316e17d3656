// Decoding one stored chunk into its share of the caller's block, by the
// cheapest route the chunk's codecs and the selection allow:
//
//  0. the stored value is the chunk's elements byte for byte (no compression,
//     native byte order; a trailing checksum is read beside them and checked
//     over the block) and the chunk is one contiguous run of the block: the
//     store reads it straight into the block (Store::GetInto), so a full
//     read holds nothing but the output;
//  1. the chunk is selected whole and is one contiguous run of the block:
//     decode straight into the block (no intermediate copy);
//  2. else, when the stored bytes are the elements themselves (no
//     compression, native byte order), one strided copy straight out of
//     them (contiguous inner runs, fixed outer strides);
//  3. else, codecs that can decode into caller memory decode into a reused
//     per-thread scratch buffer, then the same strided copy;
//  4. else (variable-length types, array->array codecs, nested sharding):
//     a full Decode, then the same strided copy.
//
// Thread safety: safe to call from many threads at once for disjoint parts
// of a block; each thread has its own scratch buffer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/codec.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// Decodes `bytes`, one chunk encoded by `chain` (whose spec gives the chunk's
// shape), and writes the elements `p` selects into `block`, a C-contiguous
// array of `block_shape` (p.out_start is in its coordinates). Errors are the
// chain's; on failure the selected part of the block is unspecified.
Status DecodeChunkToBlock(const CodecChain& chain, ByteView bytes,
                          const ChunkProjection& p,
                          const std::vector<int64_t>& block_shape, void* block);

// Fetches chunk `key` from `store` into the calling thread's reused read
// buffer (Store::GetReusing, so that a read of many chunks page-faults one
// buffer per thread instead of a fresh one per chunk) and decodes it into
// its share of `block` as DecodeChunkToBlock does. Answers false when the key
// is absent (the block is untouched). A value of more than 64 MiB is read
// into a buffer of its own, freed afterwards.
Result<bool> FetchAndDecodeChunkToBlock(Store& store, const std::string& key,
                                        const CodecChain& chain, const ChunkProjection& p,
                                        const std::vector<int64_t>& block_shape,
                                        void* block);

// Route 0: true when `chain` stores chunks as their bare elements and `p`
// is one contiguous run of the block.
bool CanReadStraightIntoBlock(const CodecChain& chain, const ChunkProjection& p,
                              const std::vector<int64_t>& block_shape);
// Reads chunk `key` from `store` straight into its place in `block` with one
// GetInto. Answers false when the key is absent (the block is untouched),
// Corruption when the stored value is not exactly the chunk's size.
// REQUIRES: CanReadStraightIntoBlock(chain, p, block_shape).
Result<bool> ReadStraightIntoBlock(Store& store, const std::string& key,
                                   const CodecChain& chain, const ChunkProjection& p,
                                   const std::vector<int64_t>& block_shape, void* block);

// Route 0 for chunks stored as their bare elements followed by a 4-byte
// checksum (bytes + crc32c, which AddChecksum makes of an uncompressed
// array): true when `chain` is that and `p` is one contiguous run of the
// block.
bool CanReadStraightIntoBlockChecked(const CodecChain& chain, const ChunkProjection& p,
                                     const std::vector<int64_t>& block_shape);
// Reads the elements of chunk `key` straight into their place in `block`
// and the sum beside them, then checks the sum over the block. A sum that
// disagrees (damage, or a writer that replaced the chunk between the two
// reads) is settled by FetchAndDecodeChunkToBlock: one read of the whole
// value, verified as every other route verifies it. Answers as
// ReadStraightIntoBlock.
// REQUIRES: CanReadStraightIntoBlockChecked(chain, p, block_shape).
Result<bool> ReadStraightIntoBlockChecked(Store& store, const std::string& key,
                                          const CodecChain& chain, const ChunkProjection& p,
                                          const std::vector<int64_t>& block_shape,
                                          void* block);

// A chunk read straight into the block can also be read as `parts` ranged
// reads of equal size, so that a read of a few huge chunks keeps every
// thread copying. StraightReadParts is the number of parts worth making for
// a chunk of `chain`, at most `want`: parts of 16 MiB at least, so that
// each part's copy outweighs the cost of one more request.
int StraightReadParts(const CodecChain& chain, int want);
// Reads part `part` of `parts` (from StraightReadParts) of chunk `key`
// straight into its place; answers as ReadStraightIntoBlock, for this part.
// The last part asks for one byte more than it expects, so that a stored
// value longer than the chunk shows as a length mismatch.
// REQUIRES: CanReadStraightIntoBlock(chain, p, block_shape), part < parts.
Result<bool> ReadStraightIntoBlockPart(Store& store, const std::string& key,
                                       const CodecChain& chain, const ChunkProjection& p,
                                       const std::vector<int64_t>& block_shape,
                                       void* block, int part, int parts);

// Which route DecodeChunkToBlock takes, for tests and measurements.
enum class DecodeRoute { kInPlace, kStoredView, kScratch, kFullDecode };
DecodeRoute ChooseDecodeRoute(const CodecChain& chain, const ChunkProjection& p,
                              const std::vector<int64_t>& block_shape);

}  // namespace turbozarr::internal
