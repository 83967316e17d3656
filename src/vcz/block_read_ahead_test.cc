#include "vcz/block_read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace turbozarr::vcz::internal {
namespace {

// A block told apart from its neighbours by how many (empty) fields it has.
Result<BlockReadAhead::Fields> Numbered(size_t i) {
  return BlockReadAhead::Fields(i % 3 + 1);
}

TEST(BlockReadAheadTest, HandsBlocksOverInOrderWhateverOrderTheyFinishIn) {
  for (size_t ahead : {0, 1, 2, 4}) {
    std::atomic<int> reading{0}, most_reading{0};
    BlockReadAhead blocks(20, ahead, [&](size_t i) -> Result<BlockReadAhead::Fields> {
      const int now = ++reading;
      int seen = most_reading.load();
      while (now > seen && !most_reading.compare_exchange_weak(seen, now)) {
      }
      // Later blocks finish first now and then.
      std::this_thread::sleep_for(std::chrono::microseconds(i % 2 == 0 ? 300 : 50));
      --reading;
      return Numbered(i);
    });
    for (size_t i = 0; i < 20; ++i) {
      Result<BlockReadAhead::Fields> got = blocks.Next();
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->size(), i % 3 + 1) << "block " << i << ", ahead " << ahead;
    }
    EXPECT_LE(most_reading.load(), static_cast<int>(std::max<size_t>(ahead, 1)));
  }
}

TEST(BlockReadAheadTest, ReadsNoMoreThanAheadPastTheLastHandedOver) {
  std::mutex mu;
  size_t highest = 0;
  BlockReadAhead blocks(50, 3, [&](size_t i) -> Result<BlockReadAhead::Fields> {
    std::lock_guard lock(mu);
    highest = std::max(highest, i);
    return Numbered(i);
  });
  ASSERT_TRUE(blocks.Next().ok());  // block 0 handed over: 1, 2 and 3 may be read
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::lock_guard lock(mu);
  EXPECT_EQ(highest, 3u);
}

TEST(BlockReadAheadTest, AFailedReadIsReturnedForItsBlockAndStoppingWaitsForLanes) {
  std::atomic<int> reads{0};
  {
    BlockReadAhead blocks(100, 2, [&](size_t i) -> Result<BlockReadAhead::Fields> {
      ++reads;
      if (i == 2) return Status::Corruption("block 2 is bad");
      return Numbered(i);
    });
    EXPECT_TRUE(blocks.Next().ok());
    EXPECT_TRUE(blocks.Next().ok());
    Result<BlockReadAhead::Fields> bad = blocks.Next();
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().message(), "block 2 is bad");
  }  // the lanes stop here, with blocks left unread
  EXPECT_LE(reads.load(), 5);
}

}  // namespace
}  // namespace turbozarr::vcz::internal
