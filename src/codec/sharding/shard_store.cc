#include "codec/sharding/shard_store.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <numeric>

#include "codec/sharding/sharding_codec.h"
#include "store/read_plan.h"
#include "store/store_internal.h"

namespace turbozarr {
namespace {

// The length of an entry for an inner chunk that is not stored.
constexpr uint64_t kNotStored = std::numeric_limits<uint64_t>::max();

std::string SpanName(uint64_t offset, uint64_t nbytes) {
  return "[" + std::to_string(offset) + ", +" + std::to_string(nbytes) + ")";
}

constexpr std::string_view kChanged =
    ": the shard was replaced while it was being read (another writer)";

}  // namespace

Status ShardStore::ShardChanged(const Location& where) {
  return Status::IOError(where.name + std::string(kChanged));
}

bool ShardStore::IsShardChanged(const Status& status) {
  return status.code() == StatusCode::kIOError && status.message().ends_with(kChanged);
}

Status ShardStore::CheckVersion(const Location& where, uint64_t version) {
  if (where.version == 0 || version == 0 || version == where.version) return Status::OK();
  return ShardChanged(where);
}

ShardStore::ShardStore(Location where, ShardedChain sharding,
                       std::vector<ByteSpan> entries)
    : where_(std::move(where)), sharding_(sharding), entries_(std::move(entries)) {}

ShardStore::Location ShardStore::At(std::shared_ptr<Store> store, std::string key,
                                    std::string_view context) {
  Location where;
  where.name =
      (context.empty() ? "" : std::string(context) + ", ") + "chunk '" + key + "'";
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
  const internal::ResolvedRange index =
      internal::ResolveByteRange(sharding.IndexRange(shard.length), shard.length);
  return value.subspan(shard.offset + index.begin, index.length());
}

Result<std::shared_ptr<ShardStore>> ShardStore::FromIndex(Location where,
                                                          ShardedChain sharding,
                                                          ByteView index) {
  const ShardingCodec& codec = sharding.codec();
  // A short answer to the index read: the stored value is shorter still.
  if (index.size() < codec.index_size()) {
    return codec.CheckShardSize(index.size()).WithContext(where.name);
  }
  Result<std::vector<ShardingCodec::IndexEntry>> decoded =
      codec.DecodeIndex(index, where.size);
  if (!decoded.ok()) return decoded.status().WithContext(where.name);
  std::vector<ByteSpan> entries(decoded->size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const ShardingCodec::IndexEntry& e = (*decoded)[i];
    entries[i] = e.missing() ? ByteSpan{0, kNotStored} : ByteSpan{e.offset, e.nbytes};
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
  TZ_RETURN_NOT_OK(sharding.codec().CheckShardSize(shard.size()).WithContext(where.name));
  const std::optional<ByteView> index = HeldIndex(where, sharding);
  return FromIndex(std::move(where), sharding, *index);
}

Result<std::shared_ptr<ShardStore>> ShardStore::Open(Location where,
                                                     ShardedChain sharding) {
  if (where.size) {
    TZ_RETURN_NOT_OK(
        sharding.codec().CheckShardSize(*where.size).WithContext(where.name));
  }
  if (const std::optional<ByteView> index = HeldIndex(where, sharding)) {
    return FromIndex(std::move(where), sharding, *index);
  }
  const KeyRange read = IndexRead(where, sharding);
  Buffer index;
  ReadAnswer answer;
  const ReadRequest request = ReadRequest::NewBuffer(read.key, read.range, index);
  Status s = where.store->Read({&request, 1}, {&answer, 1});
  if (!s.ok()) return s.WithContext(where.name);
  if (!answer.found) {
    // A nested shard's outer shard was there a moment ago.
    if (where.version != 0) return ShardChanged(where);
    return std::shared_ptr<ShardStore>();
  }
  TZ_RETURN_NOT_OK(CheckVersion(where, answer.version));
  if (answer.version != 0) where.version = answer.version;
  return FromIndex(std::move(where), sharding, index.view());
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
  inner.version = where_.version;
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
  const internal::ResolvedRange part = internal::ResolveByteRange(range, span->length);
  return std::optional<ByteSpan>(ByteSpan{span->offset + part.begin, part.length()});
}

Status ShardStore::Read(std::span<const ReadRequest> requests,
                        std::span<ReadAnswer> answers) {
  // Each request becomes a read of the value holding the shard, with the
  // caller's own target, so that one inner chunk read alone lands straight
  // where the caller wants it (a pread into its array on a local store).
  auto translate = [&](size_t i) -> Result<std::optional<ReadRequest>> {
    TZ_ASSIGN_OR_RETURN(std::optional<ByteSpan> span,
                        Resolve(requests[i].key, requests[i].range));
    if (!span) {
      answers[i] = internal::Absent(requests[i]);
      return std::optional<ReadRequest>();
    }
    ReadRequest stored = requests[i];
    stored.key = where_.key;
    stored.range = ByteRange::Of(span->offset, span->length);
    return std::optional<ReadRequest>(stored);
  };
  if (requests.size() == 1) {  // no batch to gather: no allocation
    TZ_ASSIGN_OR_RETURN(std::optional<ReadRequest> stored, translate(0));
    if (!stored) return Status::OK();
    return ReadStored({&*stored, 1}, answers);
  }
  std::vector<ReadRequest> stored;
  std::vector<size_t> from;
  for (size_t i = 0; i < requests.size(); ++i) {
    TZ_ASSIGN_OR_RETURN(std::optional<ReadRequest> r, translate(i));
    if (!r) continue;
    stored.push_back(*r);
    from.push_back(i);
  }
  std::vector<ReadAnswer> got(stored.size());
  TZ_RETURN_NOT_OK(ReadStored(stored, got));
  for (size_t k = 0; k < from.size(); ++k) answers[from[k]] = got[k];
  return Status::OK();
}

Status ShardStore::ReadStored(std::span<const ReadRequest> requests,
                              std::span<ReadAnswer> answers) const {
  auto past_end = [&](const ByteRange& r) {
    return Status::Corruption(where_.name + ": bytes " + SpanName(r.offset, r.length) +
                              " run past the end of the shard");
  };
  if (where_.held) {
    const ByteView value = *where_.held;
    for (size_t i = 0; i < requests.size(); ++i) {
      const ByteRange& r = requests[i].range;
      if (r.offset > value.size() || r.length > value.size() - r.offset) {
        return past_end(r);
      }
      answers[i] = internal::DeliverBytes(requests[i], value.subspan(r.offset, r.length));
    }
    return Status::OK();
  }
  Status read;
  if (requests.size() == 1) {
    read = where_.store->Read(requests, answers);
  } else {
    // Neighbouring inner chunks are fetched as one merged read, all in one
    // batch (so a remote store keeps them in flight together), and cut back
    // out by the rule the remote stores apply.
    auto fetch = [&](std::span<const internal::PlannedRead> plan,
                     std::span<std::optional<internal::FetchedBytes>> out) -> Status {
      std::vector<Buffer> bodies(plan.size());
      std::vector<ReadRequest> runs(plan.size());
      for (size_t k = 0; k < plan.size(); ++k) {
        runs[k] = ReadRequest::NewBuffer(plan[k].key, plan[k].range, bodies[k]);
      }
      std::vector<ReadAnswer> found(plan.size());
      TZ_RETURN_NOT_OK(where_.store->Read(runs, found));
      for (size_t k = 0; k < plan.size(); ++k) {
        if (!found[k].found) continue;
        internal::FetchedBytes& f = out[k].emplace();
        f.body = std::move(bodies[k]);
        f.first = plan[k].range.offset;
        f.version = found[k].version;
      }
      return Status::OK();
    };
    read = internal::ReadPlanned(requests, answers,
                                 {kMaxMergeGap, std::numeric_limits<uint64_t>::max()},
                                 requests.size(), fetch);
  }
  if (!read.ok()) return read.WithContext(where_.name);
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!answers[i].found) return ShardChanged(where_);
    TZ_RETURN_NOT_OK(CheckVersion(where_, answers[i].version));
    if (answers[i].length != requests[i].range.length) return past_end(requests[i].range);
  }
  return Status::OK();
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

StoreCapabilities ShardStore::Capabilities() const {
  return {.writable = false,
          .requests_in_flight =
              where_.held ? 0 : where_.store->Capabilities().requests_in_flight};
}

std::string ShardStore::Describe() const {
  return "the shard of " + where_.name + " in " + where_.store->Describe();
}

}  // namespace turbozarr
