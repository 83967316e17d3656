// Concurrent writers of one array lose no update. Threads, and processes made
// by fork(), each make random rectangular writes into one 2-d array (sharded
// and not), on a local directory and on S3 (moto), every write of its own
// value. The array is then read and checked element by element:
//
// - Local directory: against a replay of the same writes in the order the
//   store committed them. A wrapper logs each commit of a chunk or shard,
//   with the write being made, while the key's lock is still held, so the
//   log's order per key is the commit order.
// - Every store: each element holds the value of a write covering it (the
//   fill value if none does); never the value of a write W when another write
//   covering the element started after W had ended (an update lost for
//   certain); and, per chunk, "the write that won this element was committed
//   after the one that lost it" orders the writes without a cycle.
//
// The sizes are small by default; TURBOZARR_CONCURRENT_WRITES=full runs the
// full campaign (8 writers x 1,000 writes over 16 shards), as
// `make test-concurrency` does, also under ThreadSanitizer for the threaded
// cases.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/forwarding_store.h"
#include "testing/int32_array_fixtures.h"
#include "testing/moto_server.h"
#include "turbozarr/array.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures
namespace fs = std::filesystem;

bool Full() {
  const char* v = std::getenv("TURBOZARR_CONCURRENT_WRITES");
  return v != nullptr && std::string(v) == "full";
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// 256 x 256 int32: 16 shards of 64 x 64 with inner chunks of 16 x 16, or
// 16 chunks of 64 x 64.
constexpr int64_t kSide = 256;
constexpr int64_t kChunk = 64;

ArrayMetadata Layout(bool sharded) {
  return Int32Metadata({kSide, kSide}, {kChunk, kChunk},
                       sharded ? Sharded({16, 16}, json::array({kLittle, kZstd}), "end")
                               : json::array({kLittle, kZstd}));
}

// One write: rows [r0, r1) x columns [c0, c1) all set to `value`, made
// between `start` and `end` (steady clock, nanoseconds: one clock for every
// process of the machine).
struct RegionWrite {
  int64_t r0, r1, c0, c1;
  int32_t value;
  int64_t start = 0;
  int64_t end = 0;
  bool Covers(int64_t r, int64_t c) const { return r >= r0 && r < r1 && c >= c0 && c < c1; }
};

// Writer w's writes: rectangles of 1 to 48 elements a side anywhere in the
// array, so that most cross a chunk boundary and many overlap others'.
std::vector<RegionWrite> PlanWrites(int writer, int count) {
  std::mt19937_64 rng(static_cast<uint64_t>(writer) * 7919 + 17);
  std::uniform_int_distribution<int64_t> side(1, 48);
  std::vector<RegionWrite> out;
  for (int i = 0; i < count; ++i) {
    RegionWrite w;
    const int64_t h = side(rng);
    const int64_t wd = side(rng);
    w.r0 = std::uniform_int_distribution<int64_t>(0, kSide - h)(rng);
    w.c0 = std::uniform_int_distribution<int64_t>(0, kSide - wd)(rng);
    w.r1 = w.r0 + h;
    w.c1 = w.c0 + wd;
    w.value = writer * 1'000'000 + i + 1;  // never the fill value, -1
    out.push_back(w);
  }
  return out;
}

Status Apply(Array& array, const RegionWrite& w) {
  std::vector<int32_t> block(static_cast<size_t>((w.r1 - w.r0) * (w.c1 - w.c0)), w.value);
  return array.Write(Selection({{w.r0, w.r1, 1}, {w.c0, w.c1, 1}}), block.data());
}

// Makes `writes` one after the other, recording when each started and
// ended; `before` (if any) runs before each. Answers "" or what failed.
std::string MakeWrites(Array& array, std::vector<RegionWrite>& writes,
                       const std::function<void(const RegionWrite&)>& before = {}) {
  for (RegionWrite& rw : writes) {
    if (before) before(rw);
    rw.start = NowNanos();
    Status s = Apply(array, rw);
    rw.end = NowNanos();
    if (!s.ok()) return "write " + std::to_string(rw.value) + ": " + s.ToString();
  }
  return "";
}

// One commit as logged: the key and the value of the write committing it.
struct CommitRecord {
  char key[40];
  int32_t value;
};

// Logs every chunk or shard stored through it, with the value of the write
// being made, to a file shared by all writers (O_APPEND: each record lands
// whole, in order). Updates of a local directory hold the key's lock and
// commit through this wrapper's Set, so the record is written before any
// other writer can commit the key.
class CommitLogStore final : public internal::ForwardingStore {
 public:
  CommitLogStore(std::shared_ptr<Store> inner, int log_fd)
      : ForwardingStore(std::move(inner)), log_fd_(log_fd) {}

  void Making(int32_t value) { value_ = value; }

  Status Set(std::string_view key, ByteView value) override {
    TZ_RETURN_NOT_OK(ForwardingStore::Set(key, value));
    return Log(key);
  }
  Status SetBuffer(std::string_view key, Buffer value) override {
    TZ_RETURN_NOT_OK(ForwardingStore::SetBuffer(key, std::move(value)));
    return Log(key);
  }

 private:
  Status Log(std::string_view key) {
    if (key.ends_with("zarr.json")) return Status::OK();
    CommitRecord r{};
    if (key.size() >= sizeof r.key) return Status::InvalidArgument("key too long to log");
    std::memcpy(r.key, key.data(), key.size());
    r.value = value_;
    if (::write(log_fd_, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) {
      return Status::IOError("cannot write the commit log");
    }
    return Status::OK();
  }

  const int log_fd_;
  int32_t value_ = 0;
};

// What every check needs: the writes (values index them) and the result.
struct Outcome {
  std::vector<RegionWrite> writes;
  std::vector<int32_t> result;  // kSide x kSide
};

int32_t& At(std::vector<int32_t>& v, int64_t r, int64_t c) {
  return v[static_cast<size_t>(r * kSide + c)];
}

// Expected array from the commit log: per key, in commit order, each
// committing write's rectangle inside that chunk.
std::vector<int32_t> Replay(const Array& array, const std::vector<CommitRecord>& log,
                            const std::map<int32_t, RegionWrite>& by_value,
                            std::string* problem) {
  std::map<std::string, std::pair<int64_t, int64_t>> chunk_of;
  for (int64_t i = 0; i < kSide / kChunk; ++i) {
    for (int64_t j = 0; j < kSide / kChunk; ++j) chunk_of[array.ChunkKey({i, j})] = {i, j};
  }
  std::vector<int32_t> expect(static_cast<size_t>(kSide * kSide), kFill);
  for (const CommitRecord& r : log) {
    auto chunk = chunk_of.find(r.key);
    auto w = by_value.find(r.value);
    if (chunk == chunk_of.end() || w == by_value.end()) {
      *problem = std::string("a commit of an unknown key or write: ") + r.key;
      return expect;
    }
    const auto [ci, cj] = chunk->second;
    const RegionWrite& rw = w->second;
    for (int64_t row = std::max(rw.r0, ci * kChunk); row < std::min(rw.r1, (ci + 1) * kChunk);
         ++row) {
      for (int64_t col = std::max(rw.c0, cj * kChunk);
           col < std::min(rw.c1, (cj + 1) * kChunk); ++col) {
        At(expect, row, col) = rw.value;
      }
    }
  }
  return expect;
}

// The checks that need no log (see the top of the file). Answers the number
// of elements that break them, and describes the first.
int64_t CheckLinearizable(Outcome& o, std::string* first) {
  std::map<int32_t, size_t> index;
  for (size_t i = 0; i < o.writes.size(); ++i) index[o.writes[i].value] = i;
  // Which writes cover each element: a grid of lists.
  std::vector<std::vector<uint32_t>> covering(static_cast<size_t>(kSide * kSide));
  for (size_t i = 0; i < o.writes.size(); ++i) {
    const RegionWrite& w = o.writes[i];
    for (int64_t r = w.r0; r < w.r1; ++r) {
      for (int64_t c = w.c0; c < w.c1; ++c) {
        covering[static_cast<size_t>(r * kSide + c)].push_back(static_cast<uint32_t>(i));
      }
    }
  }
  int64_t bad = 0;
  auto note = [&](const std::string& what) {
    if (bad++ == 0) *first = what;
  };
  // Per chunk, edges loser -> winner.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> edges(
      static_cast<size_t>((kSide / kChunk) * (kSide / kChunk)));
  for (int64_t r = 0; r < kSide; ++r) {
    for (int64_t c = 0; c < kSide; ++c) {
      const auto& cover = covering[static_cast<size_t>(r * kSide + c)];
      const int32_t v = At(o.result, r, c);
      const std::string where = "element (" + std::to_string(r) + ", " + std::to_string(c) +
                                ") holds " + std::to_string(v);
      if (cover.empty()) {
        if (v != kFill) note(where + " but no write covers it");
        continue;
      }
      auto it = index.find(v);
      if (it == index.end() ||
          std::find(cover.begin(), cover.end(), it->second) == cover.end()) {
        note(where + ", the value of no write covering it");
        continue;
      }
      const RegionWrite& winner = o.writes[it->second];
      const size_t chunk = static_cast<size_t>((r / kChunk) * (kSide / kChunk) + c / kChunk);
      for (uint32_t loser : cover) {
        if (loser == it->second) continue;
        if (o.writes[loser].start > winner.end) {
          note(where + ", although write " + std::to_string(o.writes[loser].value) +
               " covering it started after that write ended: an update lost");
          break;
        }
        edges[chunk].emplace_back(loser, static_cast<uint32_t>(it->second));
      }
    }
  }
  // A cycle in a chunk's order: some write's update of the chunk was lost.
  for (size_t chunk = 0; chunk < edges.size(); ++chunk) {
    std::sort(edges[chunk].begin(), edges[chunk].end());
    edges[chunk].erase(std::unique(edges[chunk].begin(), edges[chunk].end()),
                       edges[chunk].end());
    std::map<uint32_t, std::vector<uint32_t>> out;
    std::map<uint32_t, int> in;
    for (auto [a, b] : edges[chunk]) {
      out[a].push_back(b);
      ++in[b];
      in.try_emplace(a, 0);
    }
    std::vector<uint32_t> ready;
    for (auto [n, d] : in) {
      if (d == 0) ready.push_back(n);
    }
    size_t seen = 0;
    while (!ready.empty()) {
      const uint32_t n = ready.back();
      ready.pop_back();
      ++seen;
      for (uint32_t m : out[n]) {
        if (--in[m] == 0) ready.push_back(m);
      }
    }
    if (seen != in.size()) {
      note("chunk " + std::to_string(chunk) + ": the writes that won and lost its elements " +
           "cannot be put in one order (" + std::to_string(in.size() - seen) +
           " writes in a cycle)");
    }
  }
  return bad;
}

std::vector<int32_t> ReadAll(Array& array) {
  std::vector<int32_t> out(static_cast<size_t>(kSide * kSide));
  Status s = array.Read(Selection::All({kSide, kSide}), out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// Shared memory for the writers' timings: every child writes its own slots.
class SharedTimings {
 public:
  explicit SharedTimings(size_t n) : n_(n) {
    void* p = ::mmap(nullptr, n * 2 * sizeof(int64_t), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    slots_ = p == MAP_FAILED ? nullptr : static_cast<int64_t*>(p);
  }
  ~SharedTimings() {
    if (slots_ != nullptr) ::munmap(slots_, n_ * 2 * sizeof(int64_t));
  }
  bool ok() const { return slots_ != nullptr; }
  int64_t* start(size_t i) { return &slots_[2 * i]; }
  int64_t* end(size_t i) { return &slots_[2 * i + 1]; }

 private:
  size_t n_;
  int64_t* slots_;
};

struct Campaign {
  int writers;
  int writes_each;
};

Campaign Sizes(int writers, int writes_each) {
  return Full() ? Campaign{8, 1000} : Campaign{writers, writes_each};
}

// Makes each writer's planned writes in a forked child of its own, with
// `run(w, writes)`, which makes them and records when each started and
// ended (or answers why it failed). Waits for them all; answers every
// write with its times.
std::vector<RegionWrite> InProcesses(
    std::vector<std::vector<RegionWrite>> plans, unsigned deadline_seconds,
    const std::function<std::string(int, std::vector<RegionWrite>&)>& run) {
  size_t total = 0;
  for (const auto& p : plans) total += p.size();
  SharedTimings timings(total);
  EXPECT_TRUE(timings.ok());
  if (!timings.ok()) return {};
  std::fflush(nullptr);  // nothing buffered is written twice
  std::vector<pid_t> children;
  for (size_t w = 0, first = 0; w < plans.size(); first += plans[w].size(), ++w) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(deadline_seconds);
      const std::string failure = run(static_cast<int>(w), plans[w]);
      for (size_t i = 0; i < plans[w].size(); ++i) {
        *timings.start(first + i) = plans[w][i].start;
        *timings.end(first + i) = plans[w][i].end;
      }
      if (!failure.empty()) std::fprintf(stderr, "child: %s\n", failure.c_str());
      ::_exit(failure.empty() ? 0 : 1);
    }
    EXPECT_GT(pid, 0) << "fork failed";
    if (pid > 0) children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
  }
  std::vector<RegionWrite> out;
  for (size_t w = 0, first = 0; w < plans.size(); first += plans[w].size(), ++w) {
    for (size_t i = 0; i < plans[w].size(); ++i) {
      RegionWrite rw = plans[w][i];
      rw.start = *timings.start(first + i);
      rw.end = *timings.end(first + i);
      out.push_back(rw);
    }
  }
  return out;
}

class ConcurrentWriteTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tz_concurrent_" + std::to_string(::getpid()) + "_" + std::to_string(n_++));
    fs::remove_all(dir_);
    log_path_ = dir_.string() + ".log";
    fs::remove(log_path_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    fs::remove(log_path_);
  }

  std::shared_ptr<Array> Create() {
    auto store = MakeLocalStore(dir_.string());
    EXPECT_TRUE(store.ok());
    auto a = Array::Create(*store, "a", Layout(GetParam()));
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? *a : nullptr;
  }

  // Writer `w`'s writes through a store of its own over the directory.
  std::string RunWriter(int w, std::vector<RegionWrite>& writes, int log_fd) {
    auto local = MakeLocalStore(dir_.string());
    if (!local.ok()) return local.status().ToString();
    auto log = std::make_shared<CommitLogStore>(*local, log_fd);
    auto a = Array::Open(log, "a");
    if (!a.ok()) return a.status().ToString();
    const std::string failure =
        MakeWrites(**a, writes, [&](const RegionWrite& rw) { log->Making(rw.value); });
    return failure.empty() ? "" : "writer " + std::to_string(w) + ": " + failure;
  }

  // Reads the result and the log, and checks both ways.
  void Check(Outcome& o) {
    auto a = Array::Open(*MakeLocalStore(dir_.string()), "a");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    o.result = ReadAll(**a);
    std::vector<CommitRecord> log(fs::file_size(log_path_) / sizeof(CommitRecord));
    {
      FILE* f = std::fopen(log_path_.c_str(), "rb");
      ASSERT_NE(f, nullptr);
      ASSERT_EQ(std::fread(log.data(), sizeof(CommitRecord), log.size(), f), log.size());
      std::fclose(f);
    }
    std::map<int32_t, RegionWrite> by_value;
    for (const RegionWrite& w : o.writes) by_value[w.value] = w;
    std::string problem;
    std::vector<int32_t> expect = Replay(**a, log, by_value, &problem);
    EXPECT_EQ(problem, "");
    int64_t differ = 0;
    for (size_t i = 0; i < expect.size(); ++i) differ += expect[i] != o.result[i];
    EXPECT_EQ(differ, 0) << "elements that differ from the replay of " << log.size()
                         << " commits";
    std::string first;
    EXPECT_EQ(CheckLinearizable(o, &first), 0) << first;
  }

  static inline int n_ = 0;
  fs::path dir_;
  std::string log_path_;
};

TEST_P(ConcurrentWriteTest, ThreadsLoseNoUpdate) {
  const Campaign c = Sizes(4, 150);
  ASSERT_NE(Create(), nullptr);
  const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(log_fd, 0);
  std::vector<std::vector<RegionWrite>> plans;
  for (int w = 0; w < c.writers; ++w) plans.push_back(PlanWrites(w, c.writes_each));
  std::vector<std::string> failures(static_cast<size_t>(c.writers));
  std::vector<std::thread> threads;
  for (int w = 0; w < c.writers; ++w) {
    threads.emplace_back(
        [&, w] { failures[static_cast<size_t>(w)] = RunWriter(w, plans[w], log_fd); });
  }
  for (std::thread& t : threads) t.join();
  ::close(log_fd);
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  Outcome o;
  for (auto& p : plans) o.writes.insert(o.writes.end(), p.begin(), p.end());
  Check(o);
}

TEST_P(ConcurrentWriteTest, ProcessesLoseNoUpdate) {
  const Campaign c = Sizes(4, 150);
  ASSERT_NE(Create(), nullptr);  // the parent has used the library: children fork from it
  const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(log_fd, 0);
  std::vector<std::vector<RegionWrite>> plans;
  for (int w = 0; w < c.writers; ++w) plans.push_back(PlanWrites(w, c.writes_each));
  Outcome o;
  o.writes = InProcesses(plans, Full() ? 1200 : 120,
                         [&](int w, std::vector<RegionWrite>& writes) {
                           return RunWriter(w, writes, log_fd);
                         });
  ::close(log_fd);
  Check(o);
}

// The checks are not vacuous: writes made without updates (a Get, then a Set,
// as a store with no read-modify-write would) lose updates that both catch.
TEST_P(ConcurrentWriteTest, TheChecksCatchLostUpdates) {
  auto array = Create();
  ASSERT_NE(array, nullptr);
  // Two writes into one chunk, interleaved by hand: both read the chunk
  // before either stores it.
  RegionWrite first{0, 8, 0, 8, 1};
  RegionWrite second{0, 8, 8, 16, 2};
  auto store = *MakeLocalStore(dir_.string());
  const std::string key = array->ChunkKey({0, 0});
  first.start = NowNanos();
  ASSERT_TRUE(Apply(*array, first).ok());
  first.end = NowNanos();
  auto stale = store->Get(key);
  ASSERT_TRUE(stale.ok() && stale->has_value());
  second.start = NowNanos();
  ASSERT_TRUE(Apply(*array, second).ok());
  second.end = NowNanos();
  ASSERT_TRUE(store->Set(key, (*stale)->view()).ok());  // a stale write-back
  Outcome o;
  o.writes = {first, second};
  o.result = ReadAll(*array);
  std::string problem;
  EXPECT_GT(CheckLinearizable(o, &problem), 0);
  EXPECT_NE(problem.find("no write covering it"), std::string::npos) << problem;
}

INSTANTIATE_TEST_SUITE_P(Layouts, ConcurrentWriteTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Sharded" : "Chunked"; });

// S3: updates commit conditionally (If-Match on the ETag read), so writers
// on different machines lose nothing either. No lock, so no commit log: the
// checks without one.
TEST(ConcurrentS3WriteTest, ProcessesLoseNoUpdate) {
  const Campaign c = Full() ? Campaign{8, 1000} : Campaign{4, 40};
  Result<MotoServer*> moto = SharedMoto();
  ASSERT_TRUE(moto.ok()) << moto.status().ToString();
  const std::string bucket = FreshBucketName();
  ASSERT_TRUE((*moto)->CreateBucket(bucket).ok());
  const S3Options options = (*moto)->Options();
  {
    auto s3 = MakeS3Store(bucket, "concurrent", options);
    ASSERT_TRUE(s3.ok()) << s3.status().ToString();
    ASSERT_TRUE(Array::Create(*s3, "a", Layout(true)).ok());
  }
  std::vector<std::vector<RegionWrite>> plans;
  for (int w = 0; w < c.writers; ++w) plans.push_back(PlanWrites(w, c.writes_each));
  Outcome o;
  o.writes = InProcesses(
      plans, Full() ? 3600 : 300, [&](int, std::vector<RegionWrite>& writes) -> std::string {
        auto s3 = MakeS3Store(bucket, "concurrent", options);
        if (!s3.ok()) return s3.status().ToString();
        auto a = Array::Open(*s3, "a");
        if (!a.ok()) return a.status().ToString();
        return MakeWrites(**a, writes);
      });
  auto s3 = MakeS3Store(bucket, "concurrent", options);
  ASSERT_TRUE(s3.ok());
  auto a = Array::Open(*s3, "a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  o.result = ReadAll(**a);
  std::string first;
  EXPECT_EQ(CheckLinearizable(o, &first), 0) << first;
}

}  // namespace
}  // namespace turbozarr
