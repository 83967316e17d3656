#include "array/verify_chunks.h"

#include <algorithm>
#include <utility>

#include "array/chunk_check.h"
#include "array/thread_buffers.h"
#include "array/windowed_fetch.h"
#include "codec/sharding/sharded_chain.h"

namespace turbozarr::internal {
namespace {

constexpr auto kReportEvery = std::chrono::milliseconds(100);

// Shards of more decoded bytes than this are read one at a time.
constexpr uint64_t kLargeShardBytes = uint64_t{64} << 20;

// Stored chunks as read from a local store (thread_buffers.h).
struct ReadChunk;

// What ends a ParallelFor early when the walk stops; never returned from
// Verify (a cancelled run answers Cancelled of its own).
Status Stopped() { return Status::Cancelled("verify stopped"); }

// Findings of one array from many threads, listed in key order.
class ArrayFindings {
 public:
  void Add(size_t item, const std::string& key, std::string message) {
    std::lock_guard<std::mutex> lock(mu_);
    found_.push_back({item, {key, std::move(message)}});
  }
  void MoveInto(std::vector<VerifyFinding>& out) {
    std::stable_sort(found_.begin(), found_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [item, finding] : found_) out.push_back(std::move(finding));
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<size_t, VerifyFinding>> found_;
};

// One array's chunks being checked: the counts and findings its threads add to.
struct ArrayCheck {
  ArrayCheck(Store& store, ArrayTarget& target, ThreadPool& pool, VerifyRun& run)
      : store(store), target(target), pool(pool), run(run) {}

  Store& store;
  ArrayTarget& target;
  ThreadPool& pool;
  VerifyRun& run;
  ArrayFindings findings;
  std::atomic<uint64_t> checked{0}, stored{0}, decoded{0};

  void Problem(size_t i, std::string message) {
    findings.Add(i, target.chunk_keys[i], std::move(message));
    run.Found();
  }

  // Checks item i, whose stored bytes are `bytes`.
  void Check(size_t i, ByteView bytes) {
    Result<const CodecChain*> chain = target.array->ChunkChain(target.chunk_coords[i]);
    ChunkCheck c;
    if (chain.ok()) {
      c = CheckStoredChunk(**chain, bytes, pool);
    } else {
      c.problems.push_back(chain.status().message());
    }
    ++checked;
    stored += bytes.size();
    decoded += c.decoded_bytes;
    for (std::string& p : c.problems) Problem(i, std::move(p));
    run.ChunkDone(bytes.size());
  }

  // Item i read from a local store by the thread that checks it.
  Status ReadAndCheck(size_t i) {
    if (run.stopping()) return Stopped();
    Buffer& bytes = ThreadBuffer<ReadChunk>();
    Result<bool> found = store.GetReusing(target.chunk_keys[i], ByteRange::Full(), bytes);
    if (!found.ok()) {
      // A local read error is the disk's damage, worth a finding.
      Problem(i, "could not be read: " + found.status().message());
      run.ChunkDone(0);
    } else if (*found) {
      Check(i, bytes.view());
    } else {
      run.ChunkDone(0);  // erased since the listing: it reads as the fill value
    }
    TrimThreadBuffer(bytes);
    return Status::OK();
  }

  Status CheckLocal() {
    const size_t n = target.chunk_keys.size();
    // Few shards, or large ones: one at a time, each one's inner chunks on
    // every thread, so that one shard is in memory rather than one per
    // thread.
    const ArraySpec& spec = target.array->codec_chain().spec();
    const uint64_t shard_bytes =
        static_cast<uint64_t>(spec.num_elements()) * std::max<size_t>(1, spec.dtype.size());
    if (ShardedChain::Of(target.array->codec_chain()) &&
        (n < static_cast<size_t>(pool.concurrency()) || shard_bytes > kLargeShardBytes)) {
      for (size_t i = 0; i < n; ++i) TZ_RETURN_NOT_OK(ReadAndCheck(i));
      return Status::OK();
    }
    return pool.ParallelFor(static_cast<int64_t>(n),
                            [&](int64_t i) { return ReadAndCheck(static_cast<size_t>(i)); });
  }

  Status CheckRemote(int in_flight) {
    const ArraySpec& spec = target.array->codec_chain().spec();
    const uint64_t chunk_bytes =
        static_cast<uint64_t>(spec.num_elements()) * std::max<size_t>(1, spec.dtype.size());
    const size_t window = WindowFor(static_cast<size_t>(in_flight), chunk_bytes);
    return FetchInWindows(
        store, target.chunk_keys.size(), window,
        [&](size_t i) { return KeyRange(target.chunk_keys[i], ByteRange::Full()); },
        [&](size_t first, const std::vector<KeyRange>& reads, WindowAnswers& got) {
          if (run.stopping()) return Stopped();
          return pool.ParallelFor(static_cast<int64_t>(reads.size()), [&](int64_t k) {
            if (run.stopping()) return Stopped();
            const std::optional<Buffer>& value = got.values[static_cast<size_t>(k)];
            if (value) {
              Check(first + static_cast<size_t>(k), value->view());
            } else {
              run.ChunkDone(0);
            }
            return Status::OK();
          });
        },
        target.array->Describe());
  }
};

}  // namespace

VerifyRun::VerifyRun(const VerifyOptions& options, uint64_t chunks_total)
    : options_(options), total_(chunks_total) {}

void VerifyRun::ChunkDone(uint64_t stored_bytes) {
  chunks_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(stored_bytes, std::memory_order_relaxed);
  Report(false);
}

void VerifyRun::Found() {
  if (options_.stop_at_first_finding) stop_.store(true, std::memory_order_relaxed);
}

void VerifyRun::Finish() { Report(true); }

void VerifyRun::Report(bool final) {
  if (!options_.progress) return;
  std::unique_lock<std::mutex> lock(report_mu_, std::defer_lock);
  // A thread that finds another reporting goes back to work.
  if (final) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!final && now - last_report_ < kReportEvery) return;
  last_report_ = now;
  const VerifyProgress progress{chunks_.load(), total_, bytes_.load()};
  if (!options_.progress(progress)) {
    cancelled_.store(true);
    stop_.store(true);
  }
}

Status CheckArrayChunks(Store& store, ArrayTarget& target, ThreadPool& pool, VerifyRun& run) {
  ArrayCheck check(store, target, pool, run);
  const int in_flight = store.Capabilities().requests_in_flight;
  Status s = in_flight > 0 ? check.CheckRemote(in_flight) : check.CheckLocal();
  ArrayVerifyReport& report = target.report;
  report.chunks_checked += check.checked.load();
  report.stored_bytes += check.stored.load();
  report.decoded_bytes += check.decoded.load();
  check.findings.MoveInto(report.findings);
  if (!s.ok() && run.stopping() && s.code() == StatusCode::kCancelled) return Status::OK();
  return s;
}

}  // namespace turbozarr::internal
