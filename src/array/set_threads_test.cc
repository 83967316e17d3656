// SetThreads (turbozarr/config.h) while reads, writes and scans run: an
// operation keeps the pool it started with, the next one takes the new
// count, and every result stays exact while the count changes under it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "store/forwarding_store.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/block_iterator.h"
#include "turbozarr/config.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

// A memory store that records the threads calling Get. While armed, the
// first Gets wait until `need` of them are inside at once and the test has
// released them; after 20 s they give up, so a missing thread fails the
// test rather than hanging it.
class GateStore final : public internal::ForwardingStore {
 public:
  GateStore() : ForwardingStore(MakeMemoryStore()) {}

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      threads_.insert(std::this_thread::get_id());
      if (armed_) {
        ++inside_;
        cv_.notify_all();
        const bool met = cv_.wait_for(lock, std::chrono::seconds(20), [&] {
          return !armed_ || (released_ && inside_ >= need_);
        });
        if (met && armed_) met_ = true;
        armed_ = false;
        cv_.notify_all();
      }
    }
    return ForwardingStore::Read(requests, answers);
  }

  void Arm(int need) {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = true;
    released_ = met_ = false;
    need_ = need;
    inside_ = 0;
  }
  void WaitForFirst() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return inside_ > 0; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  bool met() const {
    std::lock_guard<std::mutex> lock(mu_);
    return met_;
  }
  size_t TakeThreadCount() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(threads_, {}).size();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::thread::id> threads_;
  bool armed_ = false, released_ = false, met_ = false;
  int need_ = 0, inside_ = 0;
};

TEST(SetThreadsTest, AReadKeepsItsPoolAndTheNextReadTakesTheNewCount) {
  ASSERT_TRUE(SetThreads(4).ok());
  auto store = std::make_shared<GateStore>();
  const std::vector<int64_t> shape = {64, 64};  // 64 chunks
  auto a = Array::Create(store, "a",
                         Int32Metadata(shape, {8, 8}, json::array({kLittle, kZstd})));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::vector<int32_t> model = Pattern(NumElements(shape), 3);
  ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
  store->TakeThreadCount();

  // Four threads start on their first chunks; the count drops to one while
  // they wait. They can only meet if the read still runs on its pool of four.
  store->Arm(4);
  std::vector<int32_t> got(model.size());
  Status read;
  std::thread reader([&] { read = (*a)->Read(Selection::All(shape), got); });
  store->WaitForFirst();
  ASSERT_TRUE(SetThreads(1).ok());
  EXPECT_EQ(Threads(), 1);
  store->Release();
  reader.join();
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(got, model);
  EXPECT_TRUE(store->met()) << "the read did not keep its four threads";
  EXPECT_EQ(store->TakeThreadCount(), 4u);

  // The next read runs on the calling thread alone, and on three after that
  // (at most: a worker that wakes late may find nothing left to do).
  std::fill(got.begin(), got.end(), 0);
  ASSERT_TRUE((*a)->Read(Selection::All(shape), got).ok());
  EXPECT_EQ(got, model);
  EXPECT_EQ(store->TakeThreadCount(), 1u);
  ASSERT_TRUE(SetThreads(3).ok());
  ASSERT_TRUE((*a)->Read(Selection::All(shape), got).ok());
  EXPECT_EQ(got, model);
  EXPECT_LE(store->TakeThreadCount(), 3u);
  ASSERT_TRUE(SetThreads(2).ok());
}

// Whether `got` holds `box` of the C-order `model` of `shape` (2-D, step 1).
bool BoxMatches(const std::vector<int32_t>& model, const std::vector<int64_t>& shape,
                const Selection& box, const int32_t* got) {
  const DimRange& r = box.dims()[0];
  const DimRange& c = box.dims()[1];
  for (int64_t i = r.start; i < r.stop; ++i) {
    for (int64_t j = c.start; j < c.stop; ++j) {
      if (*got++ != model[i * shape[1] + j]) return false;
    }
  }
  return true;
}

TEST(SetThreadsTest, ReadsWritesAndScansStayExactWhileTheCountChanges) {
  const std::vector<int64_t> shape = {256, 256};
  auto store = MakeMemoryStore();
  auto plain = Array::Create(
      store, "p", Int32Metadata(shape, {16, 16}, json::array({kLittle, kZstd})));
  auto sharded = Array::Create(
      store, "s",
      Int32Metadata(shape, {128, 128},
                    Sharded({16, 16}, json::array({kLittle, kZstd}), "end")));
  ASSERT_TRUE(plain.ok() && sharded.ok());

  std::atomic<bool> stop{false};
  std::thread setter([&] {
    for (int k = 0; !stop.load(); ++k) {
      EXPECT_TRUE(SetThreads(1 + k % 4).ok());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  const Selection box({{3, 250, 1}, {17, 200, 1}});
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<int32_t> model = Pattern(NumElements(shape), round);
    for (const auto& a : {*plain, *sharded}) {
      ASSERT_TRUE(a->Write(Selection::All(shape), model.data()).ok());
      std::vector<int32_t> all(model.size());
      ASSERT_TRUE(a->Read(Selection::All(shape), all).ok());
      EXPECT_EQ(all, model);
      std::vector<int32_t> part(static_cast<size_t>(box.num_elements()));
      ASSERT_TRUE(a->Read(box, part).ok());
      EXPECT_TRUE(BoxMatches(model, shape, box, part.data()));
    }
    IterateOptions options;
    options.readahead_bytes = 16 * 256 * 4 * 3;  // rows of chunks, a few at once
    auto it = BlockIterator::Make(*plain, box, options);
    ASSERT_TRUE(it.ok()) << it.status().ToString();
    int64_t blocks = 0;
    for (;;) {
      auto block = it->Next();
      ASSERT_TRUE(block.ok()) << block.status().ToString();
      if (!block->has_value()) break;
      ++blocks;
      EXPECT_TRUE(BoxMatches(model, shape, (*block)->selection,
                             reinterpret_cast<const int32_t*>((*block)->data.data())));
    }
    EXPECT_EQ(blocks, it->num_blocks());
  }
  stop = true;
  setter.join();
  ASSERT_TRUE(SetThreads(2).ok());
}

}  // namespace
}  // namespace turbozarr
