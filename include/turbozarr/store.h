// Store: a flat map from string keys ("a/b/zarr.json", "a/b/c/0/1") to bytes,
// the bottom layer every array and group reads and writes through.
//
// A missing key is not an error: Get answers std::nullopt. Keys use "/" as the
// separator, never start or end with "/", and may not contain "." or ".."
// segments or backslashes; a store refuses such keys with InvalidArgument, so
// that no key can reach outside the store's root.
//
// Thread safety: every Store implementation is safe to call from many threads
// at once (each Read call with its own requests, answers and targets). A Set
// of one key is atomic: a concurrent read sees the old value or the new one,
// never a mixture. A read-modify-write of one key (BeginUpdates) loses no
// concurrent update of that key made the same way; docs/guarantees.md says
// how far each store carries this (threads, processes, machines).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr {

// Which bytes of a value to read.
struct ByteRange {
  // Whole value.
  static ByteRange Full() { return {}; }
  // `length` bytes from `offset`. A range that runs past the end is cut short.
  static ByteRange Of(uint64_t offset, uint64_t length) {
    return {offset, length, false};
  }
  // The last `length` bytes (all of them if the value is shorter).
  static ByteRange Suffix(uint64_t length) { return {0, length, true}; }

  bool IsFull() const { return !suffix && offset == 0 && length == kToEnd; }

  static constexpr uint64_t kToEnd = ~uint64_t{0};
  uint64_t offset = 0;
  uint64_t length = kToEnd;
  bool suffix = false;
};

// What a reader knows of a read beyond its range, for stores that fetch
// over a link of limited speed per connection (HTTP): a large value read
// with few other reads in flight may then be fetched in several ranged
// parts at once over connections that would otherwise idle. Stores that
// read local files ignore it.
struct ReadHint {
  // About how long the value is, when the reader can tell (a shard's or a
  // chunk's decoded size: an upper bound for most codecs); 0: unknown.
  uint64_t expected_bytes = 0;
  // How many reads are in flight together with this one, itself included
  // (a window of chunks or shards); 0: unknown.
  uint32_t reads_in_flight = 0;
};

struct KeyRange {
  KeyRange() = default;
  KeyRange(std::string key, ByteRange range, ReadHint hint = {})  // NOLINT: {key, range}
      : key(std::move(key)), range(range), hint(hint) {}

  std::string key;
  ByteRange range;
  ReadHint hint;
};

// The direct children of a prefix: keys stored right under it and the
// "directories" (prefixes) that have keys further down.
struct DirectoryListing {
  std::vector<std::string> keys;      // names relative to the prefix
  std::vector<std::string> prefixes;  // names relative to the prefix, no trailing '/'
};

// Where a read's bytes land (ReadRequest::target).
enum class ReadTarget : uint8_t {
  // *buffer becomes a buffer of its own holding the selected part; what it
  // held is released first. Get's target.
  kNewBuffer,
  // The part lands in *buffer, whose memory is reused when it is large
  // enough; what it held is lost. A reader that fetches chunk after chunk
  // into one buffer page-faults it in once rather than a fresh allocation
  // per chunk (which for chunks of many MiB costs as much as the read). A
  // store that receives its bytes in a buffer of its own (a remote one) may
  // hand that buffer over instead, which costs less than a copy.
  kReuseBuffer,
  // The part is written straight into `memory` when it is exactly
  // memory.size() bytes long, so a value that is a decoded chunk byte for
  // byte lands in the caller's array with no copy in between. Otherwise
  // `memory` holds nothing useful afterwards (the answer's length tells
  // the caller to read again into a buffer).
  kCallerMemory,
};

// One read: the part of `key`'s value that `range` selects, and where it
// lands. The request points at the caller's key and target, which must stay
// valid until Read returns.
struct ReadRequest {
  std::string_view key;
  ByteRange range;
  ReadTarget target = ReadTarget::kNewBuffer;
  Buffer* buffer = nullptr;  // kNewBuffer, kReuseBuffer
  MutableByteView memory;    // kCallerMemory
  ReadHint hint;             // only whole-value reads use it

  static ReadRequest NewBuffer(std::string_view key, ByteRange range, Buffer& out) {
    return {key, range, ReadTarget::kNewBuffer, &out, {}, {}};
  }
  static ReadRequest Reusing(std::string_view key, ByteRange range, Buffer& into) {
    return {key, range, ReadTarget::kReuseBuffer, &into, {}, {}};
  }
  static ReadRequest Into(std::string_view key, ByteRange range, MutableByteView out) {
    return {key, range, ReadTarget::kCallerMemory, nullptr, out, {}};
  }
};

// What one read found.
struct ReadAnswer {
  bool found = false;  // the key is present (a missing key is not an error)
  // The length of the selected part (cut short at the value's end). For a
  // kCallerMemory target the bytes were written only if this equals
  // memory.size(); buffer targets hold exactly this many bytes.
  uint64_t length = 0;
  // Which stored value the bytes came from, when the store can tell (0 when
  // it cannot): two answers about one key with the same nonzero version read
  // the same value, and a value replaced gets a new version (a local file:
  // its identity and change time; S3 and HTTP: its ETag; memory: a write
  // counter). A reader that combines several reads of one value (a shard's
  // index, then its inner chunks) compares them, so that a value replaced
  // between the reads is read again rather than mixed.
  uint64_t version = 0;
};

// What a store can do, as it is opened. A snapshot: none of it changes over
// a store's life, so readers may ask once and keep the answer.
struct StoreCapabilities {
  // Set, Erase and ErasePrefix may succeed. False for stores that refuse
  // every write (HTTP, an existing zip archive, a read-only view, a shard).
  bool writable = true;
  // How many requests this store serves best at once. 0 (local stores): one
  // per reading thread is right. Remote stores answer with the concurrency
  // that hides their latency, and readers then batch their reads into Read
  // calls of about that many requests.
  int requests_in_flight = 0;
};

// KeyUpdate: one read-modify-write of one key (Store::BeginUpdates). Between
// its start and its end no other KeyUpdate of the same key commits: a store
// that can lock keys holds the key's lock for the update's life (a local
// directory: across processes too); a store that cannot (S3) checks at Commit
// that the key is as Read found it. Destroying the update ends it.
//
// Thread safety: one thread at a time per update; an update may be begun
// on one thread and committed or destroyed on another.
class KeyUpdate {
 public:
  virtual ~KeyUpdate() = default;

  // The key's value (nullopt if absent); a conditional Commit checks that it
  // is still this.
  virtual Result<std::optional<Buffer>> Read() = 0;

  // Stores `value`, or erases the key when nullopt. Answers false, having
  // stored nothing, when another writer changed the key since Read: the
  // caller reads again, rebuilds the value and commits again. After no Read
  // it stores unconditionally (a write that keeps nothing of the old value)
  // and answers true.
  virtual Result<bool> Commit(std::optional<ByteView> value) = 0;

  // As Commit, handing the value over (see Store::SetBuffer).
  virtual Result<bool> CommitBuffer(std::optional<Buffer> value) {
    return value ? Commit(value->view()) : Commit(std::nullopt);
  }

  // Whether the update holds the key's lock: then any write of the key
  // while it lives (a wrapper's own Set, say) is as safe as Commit.
  virtual bool HoldsLock() const { return false; }
};

// Store: the interface every store implements.
//
// Reads have one primitive, Read: a batch of requests, each with a byte
// range and a target (a fresh buffer, a reused buffer, or the caller's
// memory). Stores implement only Read, and do with a batch what suits them:
// remote stores keep its requests in flight together and merge neighbouring
// ranges of one key; a local store preads each straight into its target.
// Get, GetInto, GetReusing and GetMany are conveniences over it for callers
// and cost nothing beyond the one virtual call.
class Store {
 public:
  virtual ~Store() = default;

  // Serves `requests`, answering each in answers[i] (REQUIRES:
  // answers.size() == requests.size()). A missing key is found=false, its
  // target left empty (buffers) or untouched (memory). An error (a bad key,
  // an I/O failure) fails the whole batch; the answers and targets are then
  // unspecified. Requests may name the same key more than once.
  virtual Status Read(std::span<const ReadRequest> requests,
                      std::span<ReadAnswer> answers) = 0;

  // The value of `key` (or the part that `range` selects); nullopt if absent.
  Result<std::optional<Buffer>> Get(std::string_view key,
                                    ByteRange range = ByteRange::Full());

  // Reads straight into `out` (ReadTarget::kCallerMemory). Answers the
  // length of the selected part (when it differs from out.size(), `out`
  // holds nothing useful), or nullopt if `key` is absent.
  Result<std::optional<uint64_t>> GetInto(std::string_view key, ByteRange range,
                                          MutableByteView out);

  // Reads into `into`, reusing its memory (ReadTarget::kReuseBuffer). False
  // if `key` is absent (`into` is then empty).
  Result<bool> GetReusing(std::string_view key, ByteRange range, Buffer& into);

  // Many reads into fresh buffers at once, answers in the order asked.
  Result<std::vector<std::optional<Buffer>>> GetMany(std::span<const KeyRange> reads);

  // Size of the value in bytes, or nullopt if absent. The default reads the
  // value.
  virtual Result<std::optional<uint64_t>> Size(std::string_view key);

  // Stores `value` atomically under `key`, replacing what was there.
  virtual Status Set(std::string_view key, ByteView value) = 0;

  // As Set, handing `value` over: a store that keeps values in memory keeps
  // this buffer instead of copying it. The default calls Set with its bytes,
  // so wrappers that watch their Sets see this one too.
  virtual Status SetBuffer(std::string_view key, Buffer value) {
    return Set(key, value.view());
  }

  // Removes `key`; erasing an absent key is OK.
  virtual Status Erase(std::string_view key) = 0;

  // Begins a read-modify-write of each of `keys` (distinct), answered in the
  // order asked. Blocks while another writer holds one of them; the store
  // takes them in an order of its own that every writer shares, so writers
  // that hold several at once never deadlock. The default excludes the
  // writers of this store object in this process, and reads and writes
  // with Get, Set and Erase.
  virtual Result<std::vector<std::unique_ptr<KeyUpdate>>> BeginUpdates(
      std::span<const std::string> keys);

  // BeginUpdates of one key.
  Result<std::unique_ptr<KeyUpdate>> BeginUpdate(std::string_view key);

  // Removes every key that starts with `prefix` + "/" and `prefix` itself.
  // An empty prefix erases the whole store.
  virtual Status ErasePrefix(std::string_view prefix);

  // Every key under `prefix` (recursively), as full keys, sorted.
  virtual Result<std::vector<std::string>> List(std::string_view prefix) = 0;

  // The direct children of `prefix` ("" for the root).
  virtual Result<DirectoryListing> ListDirectory(std::string_view prefix);

  // What this store can do; see StoreCapabilities. The default: writable,
  // requests_in_flight 0.
  virtual StoreCapabilities Capabilities() const { return {}; }

  // Whether Prefetch is worth calling now. Not in StoreCapabilities, whose
  // answers hold for the store's life: this one changes from moment to
  // moment, and readers ask it before each chunk, so it stays a call of its
  // own that costs one relaxed load, beside the Prefetch it gates. Readers
  // prepare hints only while it is true: reads of data the store has at
  // hand then pay nothing for them. False by default; a local store
  // answers true while its reads have lately had to wait for the disk.
  virtual bool WantsPrefetch() const { return false; }

  // Hints that `keys` will be read soon, so that a store whose reads wait on
  // a device starts fetching their values now and the reads that follow
  // find them at hand. A hint reports nothing: a problem with a key is the
  // read's to report. The default does nothing.
  virtual void Prefetch(std::span<const std::string> /*keys*/) {}

  // Makes what was written so far complete in the store's own format. Most
  // stores finish each Set before it returns and answer OK at once; a store
  // that keeps an index of its own (a zip archive's central directory) writes
  // it here, and again from its destructor if anything changed since. Writing
  // may continue after a Flush.
  virtual Status Flush() { return Status::OK(); }

  // A human description such as "file:///data/x.zarr" used in error messages.
  virtual std::string Describe() const = 0;
};

// Checks a key against the rules above; the error names the key.
Status ValidateKey(std::string_view key);

// "a" + "b" -> "a/b"; an empty side is dropped.
std::string JoinKey(std::string_view a, std::string_view b);

// A store held entirely in memory.
std::shared_ptr<Store> MakeMemoryStore();

// How a local directory store writes.
struct LocalStoreOptions {
  // Durable writes: each value's file is fsync'ed before it is renamed into
  // place, and its directory after, so that a write that returned survives
  // a power loss (Erase syncs the directory too). Off by default, as in
  // other Zarr implementations: the rename alone keeps values whole for
  // readers and across a killed process.
  bool durable = false;
};

// A store over a local directory (created on first write if absent).
Result<std::shared_ptr<Store>> MakeLocalStore(std::string root,
                                              LocalStoreOptions options = {});

}  // namespace turbozarr
