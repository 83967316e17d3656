#include "array/chunk_check.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <utility>

#include "array/thread_buffers.h"
#include "codec/sharding/shard_store.h"
#include "codec/sharding/sharded_chain.h"

namespace turbozarr::internal {
namespace {

// Where chunks are decoded to be checked (thread_buffers.h).
struct CheckedChunk;

uint64_t DecodedSize(const ChunkArray& chunk) {
  if (!chunk.dtype.is_variable_length()) return chunk.bytes.size();
  uint64_t n = 0;
  for (const std::string& s : chunk.strings) n += s.size();
  return n;
}

// Decodes one (inner) chunk in full: straight into scratch memory where the
// chain allows (no allocation per chunk), else into a chunk of its own.
Result<uint64_t> DecodeWhole(const CodecChain& chain, ByteView bytes) {
  if (!chain.CanDecodeInto()) {
    TZ_ASSIGN_OR_RETURN(ChunkArray chunk, chain.Decode(bytes));
    return DecodedSize(chunk);
  }
  const size_t n = static_cast<size_t>(chain.spec().num_elements()) * chain.spec().dtype.size();
  Buffer own;
  Buffer& out = n > kKeepThreadBufferBytes ? own : ThreadBuffer<CheckedChunk>();
  out.Resize(n);
  TZ_RETURN_NOT_OK(chain.DecodeInto(bytes, out.mutable_view()));
  return n;
}

// Problems of one shard, from many threads, listed in inner-chunk order.
class ShardProblems {
 public:
  void Add(int64_t order, std::string message) {
    std::lock_guard<std::mutex> lock(mu_);
    found_.emplace_back(order, std::move(message));
  }
  void MoveInto(ChunkCheck& out) {
    std::sort(found_.begin(), found_.end());
    for (auto& [order, message] : found_) out.problems.push_back(std::move(message));
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<int64_t, std::string>> found_;
};

void CheckShard(const ShardedChain& sharding, const std::string& name, ByteView bytes,
                ThreadPool& pool, ChunkCheck& out);

// Where each stored inner chunk lies, sorted by offset; problems for ranges
// that overlap (DecodeIndex has already kept them inside the shard's data).
std::vector<std::pair<ByteSpan, int64_t>> SortedRanges(const ShardStore& shard,
                                                       const std::string& name,
                                                       ChunkCheck& out) {
  std::vector<std::pair<ByteSpan, int64_t>> ranges;
  const int64_t n = shard.sharding().num_inner_chunks();
  for (int64_t i = 0; i < n; ++i) {
    if (std::optional<ByteSpan> span = shard.Locate(i)) ranges.emplace_back(*span, i);
  }
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) {
    return a.first.offset != b.first.offset ? a.first.offset < b.first.offset
                                            : a.second < b.second;
  });
  auto span_text = [](const ByteSpan& s) {
    return "[" + std::to_string(s.offset) + ", +" + std::to_string(s.length) + ")";
  };
  // The range reaching furthest so far: one long range may overlap many.
  size_t furthest = 0;
  for (size_t k = 1; k < ranges.size(); ++k) {
    const auto& [prev, prev_linear] = ranges[furthest];
    const auto& [span, linear] = ranges[k];
    if (span.offset < prev.offset + prev.length && span.length > 0 && prev.length > 0) {
      out.problems.push_back(name + ": " + shard.sharding().InnerChunkName(linear) +
                             " at bytes " + span_text(span) + " overlaps " +
                             shard.sharding().InnerChunkName(prev_linear) + " at bytes " +
                             span_text(prev) + " (the shard index is damaged)");
    }
    if (span.offset + span.length > prev.offset + prev.length) furthest = k;
  }
  return ranges;
}

void CheckShard(const ShardedChain& sharding, const std::string& name, ByteView bytes,
                ThreadPool& pool, ChunkCheck& out) {
  ShardStore::Location where;
  where.name = name;
  Result<std::shared_ptr<ShardStore>> shard = ShardStore::OverBytes(where, sharding, bytes);
  if (!shard.ok()) {
    out.problems.push_back(shard.status().message());
    return;
  }
  const std::vector<std::pair<ByteSpan, int64_t>> ranges = SortedRanges(**shard, name, out);
  const CodecChain& inner = sharding.inner_chain();
  const std::optional<ShardedChain> nested = ShardedChain::Of(inner);
  ShardProblems problems;
  std::atomic<uint64_t> decoded{0};
  std::atomic<size_t> failed{0};
  Status s = pool.ParallelFor(static_cast<int64_t>(ranges.size()), [&](int64_t k) -> Status {
    const auto& [span, linear] = ranges[static_cast<size_t>(k)];
    const ByteView part = bytes.subspan(span.offset, span.length);
    const std::string inner_name = name + ", " + sharding.InnerChunkName(linear);
    if (nested) {
      ChunkCheck sub;
      CheckShard(*nested, inner_name, part, pool, sub);
      decoded += sub.decoded_bytes;
      for (std::string& p : sub.problems) problems.Add(linear, std::move(p));
      if (!sub.problems.empty()) ++failed;
      return Status::OK();
    }
    Result<uint64_t> n = DecodeWhole(inner, part);
    if (n.ok()) {
      decoded += *n;
    } else if (failed++ < kMaxProblemsPerChunk) {
      problems.Add(linear, inner_name + ": " + n.status().message());
    }
    return Status::OK();
  });
  (void)s;  // the items never fail: their problems are findings
  out.decoded_bytes += decoded.load();
  problems.MoveInto(out);
  if (failed > kMaxProblemsPerChunk && !nested) {
    out.problems.push_back(name + ": " + std::to_string(failed.load()) + " of " +
                           std::to_string(ranges.size()) +
                           " stored inner chunks fail to decode (the first " +
                           std::to_string(kMaxProblemsPerChunk) + " listed)");
  }
}

}  // namespace

ChunkCheck CheckStoredChunk(const CodecChain& chain, ByteView bytes, ThreadPool& pool) {
  ChunkCheck out;
  if (const std::optional<ShardedChain> sharding = ShardedChain::Of(chain)) {
    CheckShard(*sharding, "shard", bytes, pool, out);
    return out;
  }
  Result<uint64_t> n = DecodeWhole(chain, bytes);
  if (n.ok()) {
    out.decoded_bytes = *n;
  } else {
    out.problems.push_back(n.status().message());
  }
  return out;
}

}  // namespace turbozarr::internal
