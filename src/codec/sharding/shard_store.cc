#include "codec/sharding/shard_store.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <numeric>

#include "codec/sharding/sharding_codec.h"

namespace turbozarr {
namespace {

// The length of an entry for an inner chunk that is not stored.
constexpr uint64_t kNotStored = std::numeric_limits<uint64_t>::max();

std::string SpanName(uint64_t offset, uint64_t nbytes) {
  return "[" + std::to_string(offset) + ", +" + std::to_string(nbytes) + ")";
}

// The bytes [begin, end) of a value of `size` bytes that `range` selects,
// cut short at its end as Store::Get does.
ByteSpan Select(ByteRange range, uint64_t size) {
  if (range.suffix) {
    const uint64_t n = std::min(range.length, size);
    return {size - n, n};
  }
  const uint64_t begin = std::min(range.offset, size);
  const uint64_t n = std::min(range.length, size - begin);
  return {begin, n};
}

}  // namespace

ShardStore::ShardStore(Location where, ShardedChain sharding,
                       std::vector<ByteSpan> entries)
    : where_(std::move(where)), sharding_(sharding), entries_(std::move(entries)) {}

ShardStore::Location ShardStore::At(std::shared_ptr<Store> store, std::string key) {
  Location where;
  where.name = "chunk '" + key + "'";
  where.store = std::move(store);
  where.key = std::move(key);
  return where;
}

KeyRange ShardStore::IndexRead(const Location& where, const ShardedChain& sharding) {
  ByteRange range = sharding.IndexRange(where.size);
  if (!range.suffix) range.offset += where.offset;
  return {where.key, range};
}

KeyRange ShardStore::WholeRead(const Location& where) {
  if (!where.size) return {where.key, ByteRange::Full()};
  return {where.key, ByteRange::Of(where.offset, *where.size)};
}

std::optional<ByteView> ShardStore::HeldIndex(const Location& where,
                                              const ShardedChain& sharding) {
  if (!where.held) return std::nullopt;
  const ByteView value = *where.held;
  const ByteSpan shard =
      where.size ? ByteSpan{where.offset, *where.size}
                 : ByteSpan{where.offset, value.size() - std::min<uint64_t>(
                                                             where.offset, value.size())};
  const ByteSpan index = Select(sharding.IndexRange(shard.length), shard.length);
  return value.subspan(shard.offset + index.offset, index.length);
}

Result<std::shared_ptr<ShardStore>> ShardStore::FromIndex(Location where,
                                                          ShardedChain sharding,
                                                          ByteView index) {
  const ShardingCodec& codec = sharding.codec();
  const uint64_t index_size = sharding.index_size();
  if (index.size() != index_size) {
    return Status::Corruption(where.name + ": shard of " + std::to_string(index.size()) +
                              " bytes is smaller than its " + std::to_string(index_size) +
                              "-byte index");
  }
  Result<std::vector<ShardingCodec::IndexEntry>> decoded =
      codec.DecodeIndex(index, where.size);
  if (!decoded.ok()) return decoded.status().WithContext(where.name);
  const bool index_at_start =
      codec.index_location() == ShardingCodec::IndexLocation::kStart;
  std::vector<ByteSpan> entries(decoded->size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const ShardingCodec::IndexEntry& e = (*decoded)[i];
    if (e.missing()) {
      entries[i] = {0, kNotStored};
      continue;
    }
    // Without the shard's size only these checks are possible here; a range
    // past the end shows up as a short read.
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    if ((index_at_start && e.offset < index_size) || e.offset > kMax - where.offset ||
        e.nbytes > kMax - where.offset - e.offset) {
      return Status::Corruption(
          where.name + ": shard index: " + codec.InnerChunkName(static_cast<int64_t>(i)) +
          " at bytes " + SpanName(e.offset, e.nbytes) + " lies outside the shard's data");
    }
    entries[i] = {e.offset, e.nbytes};
  }
  return std::make_shared<ShardStore>(std::move(where), sharding, std::move(entries));
}

Result<std::shared_ptr<ShardStore>> ShardStore::FromBytes(Location where,
                                                          ShardedChain sharding,
                                                          Buffer shard) {
  auto owner = std::make_shared<const Buffer>(std::move(shard));
  const ByteView bytes = owner->view();
  where.held_owner = std::move(owner);
  return OverBytes(std::move(where), sharding, bytes);
}

Result<std::shared_ptr<ShardStore>> ShardStore::OverBytes(Location where,
                                                          ShardedChain sharding,
                                                          ByteView shard) {
  where.offset = 0;
  where.size = shard.size();
  where.held = shard;
  if (shard.size() < sharding.index_size()) {
    return Status::Corruption(where.name + ": shard of " + std::to_string(shard.size()) +
                              " bytes is smaller than its " +
                              std::to_string(sharding.index_size()) + "-byte index");
  }
  const std::optional<ByteView> index = HeldIndex(where, sharding);
  return FromIndex(std::move(where), sharding, *index);
}

Result<std::shared_ptr<ShardStore>> ShardStore::Open(Location where,
                                                     ShardedChain sharding) {
  if (where.size && *where.size < sharding.index_size()) {
    return Status::Corruption(where.name + ": shard of " + std::to_string(*where.size) +
                              " bytes is smaller than its " +
                              std::to_string(sharding.index_size()) + "-byte index");
  }
  if (const std::optional<ByteView> index = HeldIndex(where, sharding)) {
    return FromIndex(std::move(where), sharding, *index);
  }
  const KeyRange read = IndexRead(where, sharding);
  Result<std::optional<Buffer>> index = where.store->Get(read.key, read.range);
  if (!index.ok()) return index.status().WithContext(where.name);
  if (!index->has_value()) return std::shared_ptr<ShardStore>();
  return FromIndex(std::move(where), sharding, (*index)->view());
}

bool ShardStore::AnyStored() const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [](const ByteSpan& e) { return e.length != kNotStored; });
}

std::optional<ByteSpan> ShardStore::Locate(int64_t linear) const {
  const ByteSpan& e = entries_[static_cast<size_t>(linear)];
  if (e.length == kNotStored) return std::nullopt;
  return ByteSpan{where_.offset + e.offset, e.length};
}

std::optional<ByteView> ShardStore::HeldBytes(int64_t linear) const {
  const std::optional<ByteSpan> span = Locate(linear);
  if (!span) return std::nullopt;
  return where_.held->subspan(span->offset, span->length);
}

std::optional<ShardStore::Location> ShardStore::InnerLocation(int64_t linear) const {
  const std::optional<ByteSpan> span = Locate(linear);
  if (!span) return std::nullopt;
  Location inner;
  inner.store = where_.store;
  inner.key = where_.key;
  inner.offset = span->offset;
  inner.size = span->length;
  inner.held = where_.held;
  inner.held_owner = where_.held_owner;
  inner.name = where_.name + ", " + sharding_.InnerChunkName(linear);
  return inner;
}

std::string ShardStore::InnerKey(int64_t linear) const {
  std::string key = "c";
  const std::vector<int64_t> coords = sharding_.codec().InnerChunkCoords(linear);
  for (int64_t c : coords) key += "/" + std::to_string(c);
  return key;
}

Result<int64_t> ShardStore::ParseInnerKey(std::string_view key) const {
  const std::vector<int64_t>& grid = sharding_.chunks_per_shard();
  auto invalid = [&] {
    return Status::InvalidArgument(Describe() + ": '" + std::string(key) +
                                   "' is not an inner chunk key (c/i/j/...)");
  };
  if (!key.starts_with("c")) return invalid();
  std::string_view rest = key.substr(1);
  int64_t linear = 0;
  for (size_t d = 0; d < grid.size(); ++d) {
    if (!rest.starts_with("/")) return invalid();
    rest.remove_prefix(1);
    int64_t c = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), c);
    if (ec != std::errc() || end == rest.data() || c < 0 || c >= grid[d]) {
      return invalid();
    }
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
    linear = linear * grid[d] + c;
  }
  if (!rest.empty()) return invalid();
  return linear;
}

std::vector<MergedRun> ShardStore::MergeRuns(std::span<const ByteSpan> spans,
                                             uint64_t max_bytes) {
  return MergeSortedSpans(spans, {kMaxMergeGap, max_bytes});
}

Result<std::optional<ByteSpan>> ShardStore::Resolve(std::string_view key,
                                                    ByteRange range) const {
  TZ_ASSIGN_OR_RETURN(int64_t linear, ParseInnerKey(key));
  const std::optional<ByteSpan> span = Locate(linear);
  if (!span) return std::optional<ByteSpan>();
  const ByteSpan part = Select(range, span->length);
  return std::optional<ByteSpan>(ByteSpan{span->offset + part.offset, part.length});
}

Result<std::optional<Buffer>> ShardStore::ReadSpan(ByteSpan span) const {
  if (where_.held) {
    const ByteView value = *where_.held;
    if (span.offset > value.size() || span.length > value.size() - span.offset) {
      return Status::Corruption(where_.name + ": bytes " +
                                SpanName(span.offset, span.length) +
                                " run past the end of the shard");
    }
    return std::optional<Buffer>(Buffer(value.subspan(span.offset, span.length)));
  }
  Result<std::optional<Buffer>> got =
      where_.store->Get(where_.key, ByteRange::Of(span.offset, span.length));
  if (!got.ok()) return got.status().WithContext(where_.name);
  if (!got->has_value()) {
    return Status::IOError(where_.name +
                           ": the shard disappeared while it was being read");
  }
  if ((*got)->size() != span.length) {
    return Status::Corruption(where_.name + ": bytes " +
                              SpanName(span.offset, span.length) +
                              " run past the end of the shard");
  }
  return got;
}

Result<std::optional<Buffer>> ShardStore::Get(std::string_view key, ByteRange range) {
  TZ_ASSIGN_OR_RETURN(std::optional<ByteSpan> span, Resolve(key, range));
  if (!span) return std::optional<Buffer>();
  return ReadSpan(*span);
}

Result<std::vector<std::optional<Buffer>>> ShardStore::GetMany(
    std::span<const KeyRange> reads) {
  // The stored ranges sorted by offset, merged into runs, each run fetched
  // with one read of the store holding the shard (all in one GetMany, so a
  // remote store keeps them in flight together), and sliced back.
  std::vector<std::optional<Buffer>> answers(reads.size());
  std::vector<size_t> order;
  std::vector<ByteSpan> spans(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    TZ_ASSIGN_OR_RETURN(std::optional<ByteSpan> span,
                        Resolve(reads[i].key, reads[i].range));
    if (!span) continue;
    spans[i] = *span;
    order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return spans[a].offset < spans[b].offset; });
  std::vector<ByteSpan> sorted(order.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = spans[order[k]];
  const std::vector<MergedRun> runs =
      MergeRuns(sorted, std::numeric_limits<uint64_t>::max());
  std::vector<Buffer> fetched(runs.size());
  if (where_.held) {
    for (size_t r = 0; r < runs.size(); ++r) {
      TZ_ASSIGN_OR_RETURN(std::optional<Buffer> bytes,
                          ReadSpan({runs[r].begin, runs[r].end - runs[r].begin}));
      fetched[r] = std::move(*bytes);
    }
  } else {
    std::vector<KeyRange> run_reads;
    for (const MergedRun& run : runs) {
      run_reads.push_back({where_.key, ByteRange::Of(run.begin, run.end - run.begin)});
    }
    Result<std::vector<std::optional<Buffer>>> got = where_.store->GetMany(run_reads);
    if (!got.ok()) return got.status().WithContext(where_.name);
    for (size_t r = 0; r < runs.size(); ++r) {
      if (!(*got)[r].has_value()) {
        return Status::IOError(where_.name +
                               ": the shard disappeared while it was being read");
      }
      fetched[r] = std::move(*(*got)[r]);
    }
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    const ByteView run = fetched[r].view();
    for (size_t k = runs[r].first; k < runs[r].last; ++k) {
      const uint64_t rel = sorted[k].offset - runs[r].begin;
      if (rel > run.size() || sorted[k].length > run.size() - rel) {
        return Status::Corruption(where_.name + ": bytes " +
                                  SpanName(sorted[k].offset, sorted[k].length) +
                                  " run past the end of the shard");
      }
      answers[order[k]] = Buffer(run.subspan(rel, sorted[k].length));
    }
  }
  return answers;
}

Result<std::optional<uint64_t>> ShardStore::GetInto(std::string_view key, ByteRange range,
                                                    MutableByteView out) {
  TZ_ASSIGN_OR_RETURN(std::optional<ByteSpan> span, Resolve(key, range));
  if (!span) return std::optional<uint64_t>();
  if (span->length != out.size() || where_.held) {
    TZ_ASSIGN_OR_RETURN(std::optional<Buffer> bytes, ReadSpan(*span));
    if (bytes->size() == out.size() && !out.empty()) {
      std::memcpy(out.data(), bytes->data(), out.size());
    }
    return std::optional<uint64_t>(bytes->size());
  }
  Result<std::optional<uint64_t>> got =
      where_.store->GetInto(where_.key, ByteRange::Of(span->offset, span->length), out);
  if (!got.ok()) return got.status().WithContext(where_.name);
  if (!got->has_value()) {
    return Status::IOError(where_.name +
                           ": the shard disappeared while it was being read");
  }
  return got;
}

Result<std::optional<uint64_t>> ShardStore::Size(std::string_view key) {
  TZ_ASSIGN_OR_RETURN(std::optional<ByteSpan> span, Resolve(key, ByteRange::Full()));
  if (!span) return std::optional<uint64_t>();
  return std::optional<uint64_t>(span->length);
}

Status ShardStore::Set(std::string_view key, ByteView) {
  return Status::InvalidArgument(Describe() + ": key '" + std::string(key) +
                                 "': a shard's inner chunks are read-only; write the "
                                 "array instead");
}

Status ShardStore::Erase(std::string_view key) { return Set(key, {}); }

Result<std::vector<std::string>> ShardStore::List(std::string_view prefix) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].length == kNotStored) continue;
    std::string key = InnerKey(static_cast<int64_t>(i));
    if (prefix.empty() || key == prefix ||
        (key.starts_with(prefix) && key[prefix.size()] == '/')) {
      keys.push_back(std::move(key));
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

int ShardStore::PreferredRequestsInFlight() const {
  return where_.held ? 0 : where_.store->PreferredRequestsInFlight();
}

std::string ShardStore::Describe() const {
  return "shard " + where_.name.substr(where_.name.find(' ') + 1) + " in " +
         where_.store->Describe();
}

}  // namespace turbozarr
