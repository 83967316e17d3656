// Reads that hint the store ahead of themselves: which chunks are hinted and
// when, and that reads through hints give exactly the stored values, the
// fill value for missing chunks, and errors naming the chunk, also from a
// local store whose files must come from the disk.
#include "array/chunk_prefetch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <span>

#include "store/forwarding_store.h"
#include "testing/open_descriptors.h"
#include "testing/int32_array_fixtures.h"
#include "testing/page_cache.h"
#include "turbozarr/array.h"
#include "turbozarr/block_iterator.h"
#include "turbozarr/config.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace fixtures;  // NOLINT: the shared test fixtures

const json kLz4 = {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}};

// Passes hints on and records them; `force` makes it want hints whatever
// the inner store says.
class HintRecordingStore final : public internal::ForwardingStore {
 public:
  HintRecordingStore(std::shared_ptr<Store> inner, bool force)
      : ForwardingStore(std::move(inner)), force_(force) {}

  bool WantsPrefetch() const override {
    return force_ || ForwardingStore::WantsPrefetch();
  }
  void Prefetch(std::span<const std::string> keys) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++calls_;
      for (const std::string& key : keys) ++hints_[key];
    }
    ForwardingStore::Prefetch(keys);
  }
  // How often each key was hinted.
  std::map<std::string, int> hints() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hints_;
  }
  // Prefetch calls (batches of hints).
  int calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  const bool force_;
  mutable std::mutex mu_;
  std::map<std::string, int> hints_;
  int calls_ = 0;
};

// A fresh directory under $TMPDIR (or /tmp).
std::string MakeScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tz-prefetch-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern;
  return pattern;
}


// Restores the default pool's size after a test that changes it.
class PoolSize {
 public:
  ~PoolSize() { EXPECT_TRUE(SetThreads(2).ok()); }
};

// The model with the chunks at `missing` (row-major chunk indices of a
// `chunks` grid over `shape`) replaced by the fill value.
std::vector<int32_t> WithFill(std::vector<int32_t> model,
                              const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& chunks,
                              const std::set<std::vector<int64_t>>& missing) {
  for (int64_t r = 0; r < shape[0]; ++r) {
    for (int64_t c = 0; c < shape[1]; ++c) {
      if (missing.count({r / chunks[0], c / chunks[1]})) model[r * shape[1] + c] = kFill;
    }
  }
  return model;
}

TEST(ChunkPrefetchTest, DepthHoldsFewerBigChunksThanSmallOnes) {
  using internal::ChunkPrefetch;
  const int small = ChunkPrefetch::DepthFor(8 << 10, 2);
  const int big = ChunkPrefetch::DepthFor(5 << 20, 2);
  EXPECT_GT(small, big);
  EXPECT_LE(small, 64);
  EXPECT_GE(big, 2);
  EXPECT_EQ(ChunkPrefetch::DepthFor(uint64_t{1} << 40, 2), 2) << "two at least";
  EXPECT_EQ(ChunkPrefetch::DepthFor(0, 2), small);
  // The bytes are shared among the readers.
  EXPECT_GE(ChunkPrefetch::DepthFor(5 << 20, 1), ChunkPrefetch::DepthFor(5 << 20, 8));
  EXPECT_GT(ChunkPrefetch::DepthFor(1 << 20, 1), ChunkPrefetch::DepthFor(1 << 20, 64));
}

TEST(ChunkPrefetchTest, HintsGoOutInBatchesEachChunkOnce) {
  auto memory = MakeMemoryStore();
  HintRecordingStore wanting(memory, /*force=*/true);
  auto key = [](int64_t j) { return "k" + std::to_string(j); };
  const uint64_t huge = uint64_t{1} << 40;  // two chunks ahead
  internal::ChunkPrefetch prefetch(wanting, 8, huge, 2, key);
  ASSERT_EQ(prefetch.depth(), 2);
  std::map<std::string, int> expected;
  auto expect_hinted = [&](int from, int to) {
    for (int j = from; j <= to; ++j) expected[key(j)] = 1;
    EXPECT_EQ(wanting.hints(), expected);
  };
  prefetch.Ahead(0);
  expect_hinted(1, 2);
  prefetch.Ahead(1);  // chunk 2 still hinted ahead of the next read
  expect_hinted(1, 2);
  EXPECT_EQ(wanting.calls(), 1);
  prefetch.Ahead(2);  // none left: the next batch
  expect_hinted(3, 4);
  EXPECT_EQ(wanting.calls(), 2);
  prefetch.Ahead(6);  // a reader starting further on: its own batch
  expect_hinted(7, 7);
  EXPECT_EQ(wanting.calls(), 3);
  prefetch.Ahead(7);  // the last chunk: nothing after it
  EXPECT_EQ(wanting.calls(), 3);
  prefetch.Ahead(5);  // 6 and 7 were reached or hinted already
  expect_hinted(8, 7);
  EXPECT_EQ(wanting.calls(), 3);

  HintRecordingStore unwanting(memory, /*force=*/false);
  internal::ChunkPrefetch idle(unwanting, 8, huge, 2, key);
  for (int i = 0; i < 8; ++i) idle.Ahead(i);
  EXPECT_TRUE(unwanting.hints().empty());
  EXPECT_EQ(unwanting.calls(), 0);
}

// Full and partial reads with hints on: values, fill for missing chunks,
// each chunk hinted at most once, and only chunks of the read.
TEST(ChunkPrefetchTest, ReadsWithHintsMatchTheModel) {
  PoolSize restore;
  const std::vector<int64_t> shape = {60, 50};
  const std::vector<int32_t> model = Pattern(NumElements(shape), 5);
  struct Layout {
    std::vector<int64_t> chunks;
    json codecs;
  };
  // Raw chunks read into place from the stored bytes, raw rows of chunks
  // read straight into the result, compressed chunks.
  for (const Layout& layout :
       {Layout{{6, 5}, json::array({kLittle})}, Layout{{3, 50}, json::array({kLittle})},
        Layout{{6, 5}, json::array({kLittle, kLz4})}}) {
    auto memory = MakeMemoryStore();
    auto a =
        Array::Create(memory, "a", Int32Metadata(shape, layout.chunks, layout.codecs));
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    const std::set<std::vector<int64_t>> missing = {{0, 1}, {3, 0}, {5, 0}, {9, 0}};
    for (const auto& c : missing) ASSERT_TRUE(memory->Erase((*a)->ChunkKey(c)).ok());
    const std::vector<int32_t> want = WithFill(model, shape, layout.chunks, missing);
    const int64_t chunks = (shape[0] / layout.chunks[0]) * (shape[1] / layout.chunks[1]);

    for (int threads : {1, 2, 3}) {
      ASSERT_TRUE(SetThreads(threads).ok());
      auto hinting = std::make_shared<HintRecordingStore>(memory, /*force=*/true);
      auto b = Array::Open(hinting, "a");
      ASSERT_TRUE(b.ok());
      std::vector<int32_t> out(want.size(), 12345);
      ASSERT_TRUE((*b)->Read(Selection::All(shape), out).ok());
      EXPECT_EQ(out, want) << threads << " threads";
      const std::map<std::string, int> hints = hinting->hints();
      for (const auto& [key, times] : hints) {
        EXPECT_EQ(times, 1) << key;
        EXPECT_TRUE(key.starts_with("a/c/")) << key;
      }
      // Serially, every chunk but the first is hinted before it is read,
      // in a few batches.
      if (threads == 1) {
        EXPECT_EQ(static_cast<int64_t>(hints.size()), chunks - 1);
        EXPECT_LE(hinting->calls(), 4);
      }
      EXPECT_GE(static_cast<int64_t>(hints.size()), chunks / 2) << threads << " threads";

      // A strided part of the array: the hints stay within its chunks.
      const Selection part({{7, 40, 3}, {11, 50, 2}});
      std::vector<int32_t> got(static_cast<size_t>(part.num_elements()), 12345);
      auto fresh = std::make_shared<HintRecordingStore>(memory, /*force=*/true);
      auto c = Array::Open(fresh, "a");
      ASSERT_TRUE(c.ok());
      ASSERT_TRUE((*c)->Read(part, got).ok());
      size_t k = 0;
      for (int64_t r = 7; r < 40; r += 3) {
        for (int64_t col = 11; col < 50; col += 2) {
          ASSERT_EQ(got[k++], want[r * shape[1] + col]) << r << "," << col;
        }
      }
      for (const auto& [key, times] : fresh->hints()) {
        // Chunk rows 0 and 7..9 and chunk column 0..1 are outside the part.
        const std::string first = key.substr(4, key.find('/', 4) - 4);
        const int64_t row = std::stoll(first);
        EXPECT_GE(row * layout.chunks[0] + layout.chunks[0], 8) << key;
        EXPECT_LT(row * layout.chunks[0], 40) << key;
        EXPECT_EQ(times, 1) << key;
      }
    }
  }
}

// A local store whose chunk files were dropped from the page cache, as after
// `echo 3 > /proc/sys/vm/drop_caches`: the read turns hints on by itself.
class ColdLocalReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = MakeScratchDir();
    descriptors_ = testing::OpenDescriptors();
    auto store = MakeLocalStore(scratch_ + "/s");
    ASSERT_TRUE(store.ok());
    local_ = *store;
    model_ = Pattern(NumElements(shape_), 9);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  // Writes the array, removes the chunks at `missing`, drops every chunk
  // file from the page cache (skipping the test where that cannot be done).
  std::shared_ptr<Array> Make(const json& codecs,
                              const std::set<std::vector<int64_t>>& missing) {
    auto a = Array::Create(local_, "a", Int32Metadata(shape_, chunks_, codecs));
    EXPECT_TRUE(a.ok());
    if (!a.ok()) return nullptr;
    EXPECT_TRUE((*a)->Write(Selection::All(shape_), model_.data()).ok());
    for (const auto& c : missing) EXPECT_TRUE(local_->Erase((*a)->ChunkKey(c)).ok());
    EvictChunks();
    return *a;
  }

  void EvictChunks() {
    for (const auto& e : fs::recursive_directory_iterator(scratch_ + "/s/a/c")) {
      if (e.is_regular_file() && !EvictFromPageCache(e.path().string())) {
        evicted_ = false;
      }
    }
  }

  // Reads chunk (0, 0) from the disk until a read has to wait for it, which
  // turns the store's hints on (a virtual disk whose host has the data
  // cached may answer some reads before they look).
  bool TurnHintsOn() {
    const std::string key = "a/c/0/0";
    for (int attempt = 0; attempt < 50 && !local_->WantsPrefetch(); ++attempt) {
      if (!EvictFromPageCache(scratch_ + "/s/" + key)) return false;
      EXPECT_TRUE(local_->Get(key).ok());
    }
    return local_->WantsPrefetch();
  }

  // Reads the whole array with the store's hints on; the read must fail
  // with `code`, naming chunk `key`, while hints are in flight.
  // When no read waits for the disk (a virtual disk whose host answers from
  // its own cache every time), the store's hints stay off: the array's hints
  // are then forced at the wrapper, so the read still runs with hints going
  // out, which the local store drops.
  void ExpectReadFails(const std::string& key, StatusCode code) {
    const bool store_hints = TurnHintsOn();
    auto hinting = std::make_shared<HintRecordingStore>(local_, /*force=*/!store_hints);
    auto b = Array::Open(hinting, "a");
    ASSERT_TRUE(b.ok());
    std::vector<int32_t> out(model_.size());
    Status s = (*b)->Read(Selection::All(shape_), out);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), code) << s.ToString();
    EXPECT_NE(s.message().find("chunk '" + key + "'"), std::string::npos) << s.message();
    EXPECT_GT(hinting->hints().size(), 0u);
  }

  // Closes the store, which waits for its background threads, and checks
  // that no descriptor is left open. REQUIRES: nothing else holds the store.
  void ExpectNothingLeftOpen() {
    EXPECT_EQ(local_.use_count(), 1);
    local_.reset();
    EXPECT_EQ(testing::OpenDescriptors(), descriptors_);
  }

  const std::vector<int64_t> shape_ = {240, 2000};
  const std::vector<int64_t> chunks_ = {12, 400};  // 20 x 5 chunks of 19 KB
  std::string scratch_;
  std::shared_ptr<Store> local_;
  std::vector<int32_t> model_;
  int descriptors_ = 0;
  bool evicted_ = true;
};

TEST_F(ColdLocalReadTest, ColdReadsAreExactAndHinted) {
  for (const json& codecs : {json::array({kLittle}), json::array({kLittle, kLz4})}) {
    const std::set<std::vector<int64_t>> missing = {{0, 3}, {7, 4}, {19, 1}};
    std::shared_ptr<Array> a = Make(codecs, missing);
    ASSERT_NE(a, nullptr);
    if (!evicted_) {
      GTEST_SKIP() << "the page cache of " << scratch_ << " cannot be dropped";
    }
    const std::vector<int32_t> want = WithFill(model_, shape_, chunks_, missing);
    // A virtual disk whose host has the data cached may answer reads before
    // they look; some read of a cold array still has to wait.
    size_t hinted = 0;
    for (int attempt = 0; attempt < 5 && hinted == 0; ++attempt) {
      if (attempt > 0) EvictChunks();
      auto hinting = std::make_shared<HintRecordingStore>(local_, /*force=*/false);
      auto b = Array::Open(hinting, "a");
      ASSERT_TRUE(b.ok());
      std::vector<int32_t> out(model_.size(), 12345);
      ASSERT_TRUE((*b)->Read(Selection::All(shape_), out).ok());
      EXPECT_EQ(out, want) << codecs.dump();
      hinted = hinting->hints().size();
      // Read again, now cached: the same values.
      std::fill(out.begin(), out.end(), 12345);
      ASSERT_TRUE((*b)->Read(Selection::All(shape_), out).ok());
      EXPECT_EQ(out, want) << codecs.dump();
    }
    EXPECT_GT(hinted, 0u) << "no read of a cold array turned hints on";
    ASSERT_TRUE(local_->ErasePrefix("a").ok());
  }
  ExpectNothingLeftOpen();
}

TEST_F(ColdLocalReadTest, AnUnreadableChunkFailsTheReadNamingIt) {
  std::shared_ptr<Array> a = Make(json::array({kLittle, kLz4}), {});
  ASSERT_NE(a, nullptr);
  if (!evicted_) GTEST_SKIP() << "the page cache of " << scratch_ << " cannot be dropped";
  // A chunk file that cannot be opened (a link to itself), well into the read.
  const std::string key = a->ChunkKey({12, 4});
  const std::string path = scratch_ + "/s/" + key;
  fs::remove(path);
  fs::create_symlink(fs::path(path).filename(), path);
  ExpectReadFails(key, StatusCode::kIOError);
  a.reset();
  ExpectNothingLeftOpen();
}

TEST_F(ColdLocalReadTest, ACorruptChunkFailsTheReadNamingIt) {
  std::shared_ptr<Array> a = Make(json::array({kLittle, kLz4}), {});
  ASSERT_NE(a, nullptr);
  const std::string key = a->ChunkKey({15, 2});
  ASSERT_TRUE(local_->Set(key, AsBytes("not an lz4 chunk")).ok());
  if (!evicted_ || !EvictFromPageCache(scratch_ + "/s/" + key)) {
    GTEST_SKIP() << "the page cache of " << scratch_ << " cannot be dropped";
  }
  ExpectReadFails(key, StatusCode::kCorruption);
  a.reset();
  ExpectNothingLeftOpen();
}

// Streaming reads stopped after the first block: the reads in flight, and
// their hints, end with the iterator.
TEST_F(ColdLocalReadTest, AStreamStoppedEarlyLeavesNothingBehind) {
  std::shared_ptr<Array> a = Make(json::array({kLittle, kLz4}), {});
  ASSERT_NE(a, nullptr);
  if (!evicted_) GTEST_SKIP() << "the page cache of " << scratch_ << " cannot be dropped";
  if (!TurnHintsOn()) {
    GTEST_SKIP() << "no read of " << scratch_ << " waited for the disk, so the store's "
                 << "hints (and their reads in flight) stay off";
  }
  {
    IterateOptions options;
    options.block_shape = {24, 2000};  // 10 blocks of 10 chunks
    auto it = BlockIterator::Make(a, Selection::All(shape_), options);
    ASSERT_TRUE(it.ok()) << it.status().ToString();
    auto first = it->Next();
    ASSERT_TRUE(first.ok() && first->has_value());
    std::vector<int32_t> want(model_.begin(), model_.begin() + 24 * 2000);
    ASSERT_EQ((*first)->data.size(), want.size() * sizeof(int32_t));
    EXPECT_EQ(std::memcmp((*first)->data.data(), want.data(), (*first)->data.size()), 0);
  }
  a.reset();
  ExpectNothingLeftOpen();
}

}  // namespace
}  // namespace turbozarr
