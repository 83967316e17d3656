// ShardStore: one stored shard presented as a read-only Store of its inner
// chunks, the way TensorStore presents sharding: key "c/i/j" is the inner
// chunk at (i, j) of the shard's grid, and its value is that inner chunk's
// stored (encoded) bytes; an inner chunk the index marks empty is an absent
// key. Reading a sharded array is then reading chunks from shard stores.
//
// Opening a shard decodes its index, fetched with one ranged read
// (IndexRead) or taken from the whole shard when that was fetched instead
// (FromBytes: one round trip rather than two when a read wants all of it;
// the shard is then held in memory and answers from there). Inner chunks are
// ranged reads of the value that holds the shard (one read alone goes
// straight to its target), and a batch merges the ranges of neighbouring
// inner chunks into one read by the rule the remote stores apply too
// (ReadPlanned, store/read_plan.h; gap kMaxMergeGap). A shard whose inner chunks
// are shards again (nested sharding) opens them as shard stores in turn
// (InnerLocation): their reads go straight to the same stored value, so a
// partial read of a nested shard fetches only the bytes it needs.
//
// A shard may be replaced while it is read (another writer). Its index and
// inner chunks come from separate reads, so each read's ReadAnswer::version
// is checked against the index's: a difference (or the shard gone) is a
// ShardChanged error, and the reader reads again from the index rather than
// take inner chunks of one version at the offsets of another.
//
// Readers that fetch many inner chunks at once (the array's read pipeline)
// use the pieces a batched Read is made of: Locate gives where an inner chunk's
// bytes lie in the stored value, and MergeRuns cuts sorted spans into
// reads, so that a merged read lands in one buffer and its inner chunks are
// decoded straight out of it.
//
// Thread safety: immutable once opened; every method may be called from
// many threads at once. The store holding the shard is called as it allows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/sharding/sharded_chain.h"
#include "turbozarr/store.h"
#include "util/range_merge.h"

namespace turbozarr {

// Two needed byte ranges of a shard whose gap is at most this are fetched
// with one read, gap included. A read costs a system call on a local store
// (several microseconds, the time to copy ~32-64 KiB from the page cache),
// a round trip on a remote one (milliseconds, the time to receive
// megabytes); below 64 KiB the wasted bytes never cost much more than the
// read they save, and they save far more on anything but a warm page cache.
inline constexpr uint64_t kMaxMergeGap = uint64_t{64} << 10;

class ShardStore final : public Store {
 public:
  // Where a stored shard lies: bytes [offset, offset + size) of the value of
  // `key` in `store`. A shard stored under a key of its own is the whole
  // value (offset 0, size unknown until read); a nested shard lies inside
  // the value of its outer shard.
  struct Location {
    std::shared_ptr<Store> store;
    std::string key;
    uint64_t offset = 0;
    std::optional<uint64_t> size;
    // The value of `key` when it was fetched whole: reads answer from it.
    // `held_owner` keeps those bytes alive, unless the caller does
    // (ShardStore::OverBytes).
    std::optional<ByteView> held;
    std::shared_ptr<const void> held_owner;
    // Names the shard in messages, which every error of the store begins
    // with: "<context>, chunk 'a/c/0/1'", and for a nested shard its outer
    // shard's name and ", inner chunk [i, j]".
    std::string name;
    // The ReadAnswer::version of the value the index was read from (for a
    // nested shard, its outer shard's); 0 when not known.
    uint64_t version = 0;
  };

  // The error for a shard at `where` found replaced (or gone) while read:
  // an IOError that IsShardChanged recognises, so that readers read again.
  static Status ShardChanged(const Location& where);
  static bool IsShardChanged(const Status& status);
  // ShardChanged unless `version` (of a read of the shard's value) is the
  // one its index came from, or either is unknown (0).
  static Status CheckVersion(const Location& where, uint64_t version);

  // The location of the shard stored as the whole value of `key`; `context`
  // (such as "array 'a' in file:///x") leads its name.
  static Location At(std::shared_ptr<Store> store, std::string key,
                     std::string_view context = {});

  // The reads that fetch the index of the shard at `where`, and all of it.
  static KeyRange IndexRead(const Location& where, const ShardedChain& sharding);
  static KeyRange WholeRead(const Location& where);

  // Opens the shard at `where` from `index`, its index's bytes as IndexRead
  // fetched them (where.version: the version they came from, when known).
  // Corruption naming the shard when they are not an index of
  // `sharding` (wrong size, a bad checksum, entries over the index or,
  // where the shard's size is known, past its end).
  static Result<std::shared_ptr<ShardStore>> FromIndex(Location where,
                                                       ShardedChain sharding,
                                                       ByteView index);
  // Opens the shard at `where` from all of its bytes (as WholeRead fetched
  // them), which it then holds: its reads answer from memory.
  static Result<std::shared_ptr<ShardStore>> FromBytes(Location where,
                                                       ShardedChain sharding,
                                                       Buffer shard);
  // As FromBytes, for bytes the caller keeps alive and unchanged while the
  // store is used (a buffer a thread reuses from shard to shard).
  static Result<std::shared_ptr<ShardStore>> OverBytes(Location where,
                                                       ShardedChain sharding,
                                                       ByteView shard);
  // Reads the index of the shard at `where` (one ranged read, or none when
  // it is held) and opens the shard; null when the shard is not stored.
  // ShardChanged when where.version is known and the index read another.
  static Result<std::shared_ptr<ShardStore>> Open(Location where, ShardedChain sharding);

  const ShardedChain& sharding() const { return sharding_; }
  const Location& location() const { return where_; }
  // Whether any inner chunk is stored.
  bool AnyStored() const;
  // Where inner chunk `linear` (its C-order position in the shard) lies in
  // the value of location().key, nullopt when it is not stored.
  std::optional<ByteSpan> Locate(int64_t linear) const;
  // The bytes of inner chunk `linear` when the shard is held in memory
  // (nullopt when not stored). REQUIRES: location().held.
  std::optional<ByteView> HeldBytes(int64_t linear) const;
  // The location of inner chunk `linear` as a shard of its own (nested
  // sharding), nullopt when it is not stored.
  std::optional<Location> InnerLocation(int64_t linear) const;

  // The store key of inner chunk `linear` ("c/i/j"; "c" for rank 0), and
  // back (InvalidArgument naming the key when it is not one).
  std::string InnerKey(int64_t linear) const;
  Result<int64_t> ParseInnerKey(std::string_view key) const;

  // Cuts the spans of one shard, sorted by offset, into merged reads of at
  // most `max_bytes` (unless one span is more), by the rule Read applies.
  static std::vector<MergedRun> MergeRuns(std::span<const ByteSpan> spans,
                                          uint64_t max_bytes);

  // Store. Writes answer InvalidArgument: a shard is rewritten whole by its
  // array (shard_writer.h).
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  // Read-only; in flight as the store holding the shard (0 when held).
  StoreCapabilities Capabilities() const override;
  std::string Describe() const override;

  ShardStore(Location where, ShardedChain sharding, std::vector<ByteSpan> entries);

 private:
  // The shard's index bytes, when its location holds them in memory.
  static std::optional<ByteView> HeldIndex(const Location& where,
                                           const ShardedChain& sharding);
  // The absolute span that `range` selects of inner chunk `key`; nullopt
  // when the inner chunk is not stored.
  Result<std::optional<ByteSpan>> Resolve(std::string_view key, ByteRange range) const;
  // Serves `requests`, reads of ranges of the stored value that holds the
  // shard: from memory, or from the store (several merged into one read
  // where neighbours). Each must find all its bytes: a shorter answer is
  // Corruption, an absent value an IOError, both naming the shard.
  Status ReadStored(std::span<const ReadRequest> requests,
                    std::span<ReadAnswer> answers) const;

  Location where_;
  ShardedChain sharding_;
  // Per inner chunk, C order: where its bytes lie relative to the shard's
  // start; length kNotStored for one not stored.
  std::vector<ByteSpan> entries_;
};

}  // namespace turbozarr
