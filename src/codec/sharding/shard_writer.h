// ShardWriter: the new stored bytes of one shard, put together from the
// inner chunks a write brings and those it keeps of the stored shard.
//
// Inner chunks given to Set take their new bytes (nullopt: not stored, as
// an inner chunk all of fill value is left out); the others keep their
// bytes from the old shard (a ShardStore held in memory), if any. Finish
// lays them out as zarr-python does (Morton order, the index at its place,
// encoded by the index codecs).
//
// A write that covers the whole shard with inner chunks whose stored form is
// their elements as they are (no compression) can build each inner chunk
// straight into its place: LayOutInPlace reserves the places, Place gives
// each, and when every one of them was built (none came out all fill
// value), Finish hands over that buffer with the index put in, without
// copying a byte.
//
// Thread safety: Set and Place may be called from many threads at once for
// different inner chunks; LayOutInPlace and Finish from one, before and
// after them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "codec/sharding/shard_store.h"
#include "codec/sharding/sharded_chain.h"
#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr {

class ShardWriter {
 public:
  // `old`: the stored shard, held in memory (ShardStore::FromBytes), or null
  // when there is none or nothing of it is kept.
  ShardWriter(ShardedChain sharding, std::shared_ptr<const ShardStore> old);

  // Reserves `inner_bytes` bytes for each of the inner chunks `linears` in a
  // shard laid out for exactly them. REQUIRES: no old shard; called once,
  // before Place and Set.
  void LayOutInPlace(std::span<const int64_t> linears, uint64_t inner_bytes);
  // Where inner chunk `linear` is built. REQUIRES: `linear` was laid out.
  MutableByteView Place(int64_t linear);

  // Inner chunk `linear`'s new stored bytes, nullopt when it is not to be
  // stored. The bytes must stay valid until Finish.
  void Set(int64_t linear, std::optional<ByteView> bytes);

  // The shard's new bytes; nullopt when no inner chunk is stored (the shard
  // is then to be erased). Call once.
  Result<std::optional<Buffer>> Finish();

 private:
  ShardedChain sharding_;
  std::shared_ptr<const ShardStore> old_;
  // Per inner chunk, C order: whether Set was called, and what it gave.
  std::vector<char> set_;
  std::vector<std::optional<ByteView>> bytes_;
  // Built in place: the laid-out shard and the inner chunks reserved in it.
  Buffer placed_;
  std::vector<ByteSpan> places_;
  std::vector<int64_t> placed_linears_;
};

}  // namespace turbozarr
