// Fuzzes the shard index and the reads that go through it. The first byte
// picks a case of shard_fuzz_cases.h (index at the start or end, with or
// without crc32c, nested shards, ...) and, in its next bit, whether the
// index checksum is repaired first; the rest is a stored shard. The shard
// is read every way the library reads one:
//   - its index decoded with the shard's size (ShardingCodec::IndexOfShard)
//     and without (DecodeIndex, as a reader that has not sized the value);
//   - opened as a ShardStore over its bytes, and over a store holding it
//     with its size unknown; every inner chunk located, read whole, in
//     ranges, in one batch, and decoded (and opened as a shard again when
//     the inner chunks are shards);
//   - decoded whole by the codec, and read through an Array.
// Lies in the index (entries past the end or over the index, overlapping,
// half of the "missing" marker 2^64-1, a bad checksum) must give
// Corruption (or Unsupported), never a crash or an out-of-bounds read; and
// whatever is accepted must hold together: an entry that parses lies in the
// shard's data, every read answers the bytes the index points at, and the
// readers agree with each other.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "codec/sharding/shard_store.h"
#include "shard_fuzz_cases.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"

namespace {

using turbozarr::Buffer;
using turbozarr::ByteRange;
using turbozarr::ByteSpan;
using turbozarr::ByteView;
using turbozarr::ChunkArray;
using turbozarr::Result;
using turbozarr::ShardedChain;
using turbozarr::ShardingCodec;
using turbozarr::ShardStore;
using turbozarr::Status;
using turbozarr::StatusCode;
using turbozarr::fuzz::PreparedShardCase;
using Entries = std::vector<ShardingCodec::IndexEntry>;

constexpr uint64_t kMissing = ShardingCodec::IndexEntry::kMissing;

// The key the shard is stored under, for the stores that hold it.
constexpr char kShardKey[] = "shard";

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  std::fprintf(stderr, "shard_index_fuzzer: %s: %s\n", where.c_str(), what.c_str());
  std::abort();
}

// Hostile bytes may be refused only as malformed or not supported: any
// other code (InvalidArgument, IOError, ...) would blame the caller or the
// system for what the stored data did.
void ExpectClean(const std::string& where, const Status& s) {
  if (s.code() != StatusCode::kCorruption && s.code() != StatusCode::kUnsupported) {
    Fail(where, "refused with an unexpected code: " + s.ToString());
  }
}

bool Same(ByteView a, ByteView b) {
  return turbozarr::AsChars(a) == turbozarr::AsChars(b);
}

bool SameChunk(const ChunkArray& a, const ChunkArray& b) {
  return a.shape == b.shape && a.dtype == b.dtype && a.bytes == b.bytes &&
         a.strings == b.strings;
}

// Bytes [begin, end) of a value of `size` bytes that `range` selects, by the
// rule of turbozarr/store.h: ranges past the end are cut short.
ByteSpan Select(const ByteRange& range, uint64_t size) {
  if (range.suffix) {
    const uint64_t n = std::min(range.length, size);
    return {size - n, n};
  }
  const uint64_t begin = std::min(range.offset, size);
  return {begin, std::min(range.length, size - begin)};
}

bool Inside(const ByteSpan& span, uint64_t size) {
  return span.offset <= size && span.length <= size - span.offset;
}

// How a read of `span` of a value of `size` bytes must end: with its bytes
// when they lie inside, as Corruption when some lie past the end. Zero bytes
// past the end may go either way: nothing is read wrongly, and a store
// asked for nothing there may well answer nothing.
enum class Expect { kBytes, kCorruption, kEither };
Expect ExpectRead(const ByteSpan& span, uint64_t size) {
  if (Inside(span, size)) return Expect::kBytes;
  return span.length == 0 ? Expect::kEither : Expect::kCorruption;
}

// Every entry the index accepted lies in the shard's data: past an index at
// the start, before an index at the end and, with `shard_size`, inside the
// shard. An entry is present or missing as a whole.
void CheckEntriesInside(const std::string& where, const ShardingCodec& codec,
                        const Entries& entries, std::optional<uint64_t> shard_size) {
  if (static_cast<int64_t>(entries.size()) != codec.num_inner_chunks()) {
    Fail(where, "the index has the wrong number of entries");
  }
  const bool start = codec.index_location() == ShardingCodec::IndexLocation::kStart;
  const uint64_t begin = start ? codec.index_size() : 0;
  const uint64_t end = !shard_size ? std::numeric_limits<uint64_t>::max()
                       : start     ? *shard_size
                                   : *shard_size - codec.index_size();
  for (const ShardingCodec::IndexEntry& e : entries) {
    if (e.missing()) continue;
    if (e.offset == kMissing || e.nbytes == kMissing) {
      Fail(where, "an entry with half of the missing marker was accepted");
    }
    if (e.offset < begin || e.offset > end || e.nbytes > end - e.offset) {
      Fail(where, "an accepted entry [" + std::to_string(e.offset) + ", +" +
                      std::to_string(e.nbytes) + ") lies outside the shard's data");
    }
  }
}

// Reads every inner chunk of `store` (a shard whose index decoded to
// `entries`) and checks the answers against `value`, the bytes of the
// stored value that holds the shard, of which the shard is bytes
// [base, base + shard size). A read whose bytes lie inside `value` must
// answer them; one that runs past its end must be Corruption.
void ReadInnerChunks(const std::string& where, ShardStore& store, const Entries& entries,
                     ByteView value, uint64_t base, int depth);

void CheckInnerChunk(const std::string& where, ShardStore& store,
                     const ShardingCodec::IndexEntry& e, int64_t i, ByteView value,
                     uint64_t base) {
  const std::string key = store.InnerKey(i);
  Result<int64_t> parsed = store.ParseInnerKey(key);
  if (!parsed.ok() || *parsed != i)
    Fail(where, "inner key " + key + " does not parse back");
  const std::optional<ByteSpan> located = store.Locate(i);
  Result<std::optional<uint64_t>> size = store.Size(key);
  if (!size.ok()) Fail(where, "Size failed: " + size.status().ToString());
  if (e.missing()) {
    if (located || size->has_value())
      Fail(where, key + ": a missing inner chunk is located");
    Result<std::optional<Buffer>> got = store.Get(key);
    if (!got.ok() || got->has_value()) Fail(where, key + ": a missing inner chunk reads");
    return;
  }
  if (!located || located->offset != base + e.offset || located->length != e.nbytes) {
    Fail(where, key + ": located somewhere other than its index entry");
  }
  if (*size != std::optional<uint64_t>(e.nbytes))
    Fail(where, key + ": Size is not its length");
  for (ByteRange range : {ByteRange::Full(), ByteRange::Of(1, 3), ByteRange::Suffix(2),
                          ByteRange::Of(e.nbytes, 1)}) {
    const ByteSpan part = Select(range, e.nbytes);
    const ByteSpan absolute{located->offset + part.offset, part.length};
    Result<std::optional<Buffer>> got = store.Get(key, range);
    const Expect expect = ExpectRead(absolute, value.size());
    if (expect != Expect::kBytes) {
      if (got.ok()) {
        if (expect == Expect::kCorruption || !got->has_value() || !(*got)->empty()) {
          Fail(where, key + ": a read past the end of the value succeeded");
        }
      } else if (got.status().code() != StatusCode::kCorruption) {
        Fail(where,
             key + ": a read past the end is not Corruption: " + got.status().ToString());
      }
      continue;
    }
    if (!got.ok() || !got->has_value()) {
      Fail(where, key + ": a read inside the value failed: " + got.status().ToString());
    }
    if (!Same(**got, value.subspan(absolute.offset, absolute.length))) {
      Fail(where, key + ": a read answers other bytes than the index points at");
    }
  }
}

void ReadInnerChunks(const std::string& where, ShardStore& store, const Entries& entries,
                     ByteView value, uint64_t base, int depth) {
  const ShardedChain& sharding = store.sharding();
  const ShardingCodec& codec = sharding.codec();
  std::vector<turbozarr::KeyRange> all;
  Expect batch_expect = Expect::kBytes;
  size_t stored = 0;
  for (int64_t i = 0; i < codec.num_inner_chunks(); ++i) {
    const ShardingCodec::IndexEntry& e = entries[static_cast<size_t>(i)];
    CheckInnerChunk(where, store, e, i, value, base);
    all.push_back({store.InnerKey(i), ByteRange::Full()});
    if (e.missing()) continue;
    ++stored;
    const Expect expect = ExpectRead({base + e.offset, e.nbytes}, value.size());
    if (expect == Expect::kCorruption || batch_expect == Expect::kBytes)
      batch_expect = expect;
  }
  if (store.AnyStored() != (stored > 0))
    Fail(where, "AnyStored disagrees with the index");
  Result<std::vector<std::string>> keys = store.List("");
  if (!keys.ok() || keys->size() != stored)
    Fail(where, "List does not list the stored chunks");

  // All at once: a batch that merges neighbouring inner chunks into one read.
  Result<std::vector<std::optional<Buffer>>> batch = store.GetMany(all);
  if (batch_expect != Expect::kBytes) {
    if (!batch.ok()) {
      if (batch.status().code() != StatusCode::kCorruption) {
        Fail(where,
             "a batch past the end is not Corruption: " + batch.status().ToString());
      }
      return;
    }
    if (batch_expect == Expect::kCorruption) {
      Fail(where, "a batch reading past the end of the value succeeded");
    }
  }
  if (!batch.ok())
    Fail(where, "a batch inside the value failed: " + batch.status().ToString());
  for (int64_t i = 0; i < codec.num_inner_chunks(); ++i) {
    const ShardingCodec::IndexEntry& e = entries[static_cast<size_t>(i)];
    const std::optional<Buffer>& got = (*batch)[static_cast<size_t>(i)];
    const bool inside = Inside({base + e.offset, e.nbytes}, value.size());
    if (e.missing() != !got.has_value() ||
        (got && (inside ? !Same(*got, value.subspan(base + e.offset, e.nbytes))
                        : !got->empty()))) {
      Fail(where, store.InnerKey(i) + ": a batched read differs from the index");
    }
    if (!got) continue;
    // Each stored inner chunk decodes, or is refused as malformed.
    Result<ChunkArray> inner = codec.DecodeInnerChunk(*got);
    if (!inner.ok()) {
      ExpectClean(where + ", " + store.InnerKey(i), inner.status());
    } else if (inner->shape != codec.chunk_shape()) {
      Fail(where, store.InnerKey(i) + ": decoded to the wrong shape");
    }
    // Shards of shards: the inner chunk opens as a shard in turn, from the
    // same value, exactly when its own index is sound.
    std::optional<ShardedChain> nested = ShardedChain::Of(codec.inner_chain());
    if (!nested || depth > 0) continue;
    std::optional<ShardStore::Location> at = store.InnerLocation(i);
    if (!at) Fail(where, "a stored inner chunk has no location");
    const std::string name = where + ", " + store.InnerKey(i);
    Result<Entries> index = nested->codec().IndexOfShard(*got);
    Result<std::shared_ptr<ShardStore>> opened = ShardStore::Open(*at, *nested);
    if (opened.ok() != index.ok()) Fail(name, "the shard store and the codec disagree");
    if (!index.ok()) {
      ExpectClean(name, index.status());
      ExpectClean(name, opened.status());
      continue;
    }
    if (*opened == nullptr) Fail(name, "a stored inner shard opens as absent");
    CheckEntriesInside(name, nested->codec(), *index, got->size());
    ReadInnerChunks(name, **opened, *index, value, base + e.offset, depth + 1);
  }
}

// The per-case state that lives across inputs: the case itself, a memory
// store and an array of one shard over it.
struct Target {
  PreparedShardCase c;
  std::shared_ptr<turbozarr::Store> store;
  std::shared_ptr<turbozarr::Array> array;
  std::string shard_key;  // the array's one chunk
};

std::vector<std::unique_ptr<Target>> MakeTargets() {
  std::vector<std::unique_ptr<Target>> targets;
  for (const turbozarr::fuzz::ShardCase& c : turbozarr::fuzz::ShardCases()) {
    auto t = std::make_unique<Target>();
    Status prepared = turbozarr::fuzz::Prepare(c, t->c);
    if (!prepared.ok()) Fail(c.name, "the fixed case is invalid: " + prepared.ToString());
    t->store = turbozarr::MakeMemoryStore();
    Result<std::shared_ptr<turbozarr::Array>> array =
        turbozarr::Array::FromMetadata(t->store, "", t->c.metadata);
    if (!array.ok())
      Fail(c.name, "the fixed array does not open: " + array.status().ToString());
    t->array = *array;
    t->shard_key =
        t->array->ChunkKey(std::vector<int64_t>(t->c.metadata.shape.size(), 0));
    targets.push_back(std::move(t));
  }
  return targets;
}

// Reads `selection` of the array into a chunk of its shape.
Status ReadArray(const Target& t, const turbozarr::Selection& selection,
                 ChunkArray& out) {
  static const std::shared_ptr<turbozarr::ThreadPool> pool = [] {
    auto p = turbozarr::MakeThreadPool(1);  // one thread: reproducible runs
    if (!p.ok()) Fail("setup", "no thread pool: " + p.status().ToString());
    return *p;
  }();
  const turbozarr::DataType& dtype = t.c.metadata.dtype;
  out.shape = selection.shape();
  out.dtype = dtype;
  int64_t n = 1;
  for (int64_t d : out.shape) n *= d;
  turbozarr::ReadOptions options;
  options.pool = pool;
  if (dtype.is_variable_length()) {
    out.strings.assign(static_cast<size_t>(n), std::string());
    return t.array->Read(selection, out.strings, options);
  }
  out.bytes.Resize(static_cast<size_t>(n) * dtype.size());
  return t.array->Read(selection, turbozarr::ElementSpan(out.bytes.data(), dtype, n),
                       options);
}

void FuzzShard(Target& t, Buffer& shard) {
  const PreparedShardCase& c = t.c;
  const ShardingCodec& codec = c.codec();
  const std::string& name = c.name;
  const uint64_t n = codec.index_size();
  const bool start = codec.index_location() == ShardingCodec::IndexLocation::kStart;

  // The index, with the shard's size and without.
  Result<Entries> sized = codec.IndexOfShard(shard);
  std::optional<Result<Entries>> unsized;
  if (shard.size() < n) {
    if (sized.ok()) Fail(name, "a shard smaller than its index has an index");
  } else {
    const ByteView index = start ? shard.view().first(n) : shard.view().last(n);
    unsized = codec.DecodeIndex(index, std::nullopt);
    if (unsized->ok()) {
      CheckEntriesInside(name + ", unsized", codec, **unsized, std::nullopt);
    } else {
      ExpectClean(name + ", unsized index", unsized->status());
    }
    if (sized.ok()) {
      // Knowing the size only adds checks, and entries are stored as read.
      if (!unsized->ok() || **unsized != *sized) {
        Fail(name, "the index decodes differently without the shard's size");
      }
      Result<Buffer> again = codec.EncodeIndex(*sized);
      if (!again.ok() || !Same(*again, index)) {
        Fail(name, "the decoded index does not encode back to its bytes");
      }
    }
  }
  if (sized.ok()) {
    CheckEntriesInside(name, codec, *sized, shard.size());
  } else {
    ExpectClean(name + ", index", sized.status());
  }

  // A shard store over the shard's bytes: opens exactly when the codec
  // reads the index, and answers the bytes the index points at.
  ShardStore::Location where = ShardStore::At(t.store, kShardKey, name);
  Result<std::shared_ptr<ShardStore>> held =
      ShardStore::OverBytes(where, *c.sharding, shard.view());
  if (held.ok() != sized.ok())
    Fail(name, "the shard store and the codec disagree on the index");
  if (held.ok()) {
    ReadInnerChunks(name + ", held", **held, *sized, shard.view(), 0, 0);
  } else {
    ExpectClean(name + ", held", held.status());
  }

  // A shard store over a store holding the shard, its size unknown: the
  // index comes from a ranged read, and inner chunks the index places past
  // the end are found out when read.
  if (!t.store->Set(kShardKey, shard.view()).ok())
    Fail(name, "the memory store refused a Set");
  Result<std::shared_ptr<ShardStore>> stored = ShardStore::Open(where, *c.sharding);
  if (!unsized) {
    if (stored.ok()) Fail(name, "a shard smaller than its index opens");
    ExpectClean(name + ", stored", stored.status());
  } else {
    if (stored.ok() != unsized->ok())
      Fail(name, "opening from a store disagrees with the codec");
    if (stored.ok()) {
      if (*stored == nullptr) Fail(name, "a stored shard opens as absent");
      ReadInnerChunks(name + ", stored", **stored, **unsized, shard.view(), 0, 0);
    } else {
      ExpectClean(name + ", stored", stored.status());
    }
  }

  // The whole shard decoded by the codec: exactly when the index is sound
  // and every stored inner chunk decodes; what decodes encodes and decodes
  // back unchanged.
  Result<ChunkArray> decoded = c.chain.Decode(shard);
  bool inner_ok = sized.ok();
  if (sized.ok()) {
    for (const ShardingCodec::IndexEntry& e : *sized) {
      if (!e.missing() &&
          !codec.DecodeInnerChunk(shard.view().subspan(e.offset, e.nbytes)).ok())
        inner_ok = false;
    }
  }
  if (decoded.ok() != inner_ok)
    Fail(name, "a whole decode disagrees with the inner chunks");
  if (decoded.ok()) {
    Result<Buffer> encoded = c.chain.Encode(*decoded);
    if (!encoded.ok())
      Fail(name, "a decoded shard does not encode: " + encoded.status().ToString());
    Result<ChunkArray> again = c.chain.Decode(*encoded);
    if (!again.ok() || !SameChunk(*decoded, *again)) Fail(name, "decode(encode(x)) != x");
  } else {
    ExpectClean(name + ", decode", decoded.status());
  }

  // The array reader (index by a ranged read, inner chunks merged into
  // runs): what the codec decodes, it reads the same; and a part of what it
  // reads whole, it reads the same in part.
  if (!t.store->Set(t.shard_key, shard.view()).ok())
    Fail(name, "the memory store refused a Set");
  const std::vector<int64_t>& shape = c.metadata.shape;
  ChunkArray whole;
  Status read = ReadArray(t, turbozarr::Selection::All(shape), whole);
  if (!read.ok()) {
    ExpectClean(name + ", array read", read);
    if (decoded.ok()) Fail(name, "the array cannot read a shard the codec decodes");
    return;
  }
  if (decoded.ok() && !SameChunk(whole, *decoded)) {
    Fail(name, "the array reads other values than the codec decodes");
  }
  // The first half along the first axis: a C-order prefix of the whole.
  std::vector<turbozarr::DimRange> half;
  for (size_t d = 0; d < shape.size(); ++d)
    half.push_back({0, d == 0 ? shape[0] / 2 : shape[d], 1});
  ChunkArray part;
  read = ReadArray(t, turbozarr::Selection(half), part);
  if (!read.ok())
    Fail(name, "a part of a readable shard does not read: " + read.ToString());
  const size_t elements = static_cast<size_t>(whole.num_elements() / 2);
  const bool same =
      c.metadata.dtype.is_variable_length()
          ? std::equal(part.strings.begin(), part.strings.end(), whole.strings.begin()) &&
                part.strings.size() == elements
          : Same(part.bytes, whole.bytes.view().first(part.bytes.size())) &&
                part.bytes.size() == elements * c.metadata.dtype.size();
  if (!same) Fail(name, "a part reads other values than the whole");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::unique_ptr<Target>> targets = MakeTargets();
  if (size == 0) return 0;
  Target& t = *targets[data[0] % targets.size()];
  const bool repair = (data[0] / targets.size()) % 2 == 1;
  Buffer shard(ByteView(reinterpret_cast<const std::byte*>(data + 1), size - 1));
  if (repair) turbozarr::fuzz::RepairIndexChecksum(t.c.codec(), shard.mutable_view());
  FuzzShard(t, shard);
  return 0;
}
