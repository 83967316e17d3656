// Buffer (turbozarr/buffer.h): growth keeps the contents, Clear keeps the
// memory, and the data always starts on a kBufferAlignment boundary.
#include "turbozarr/buffer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace turbozarr {
namespace {

bool Aligned(const std::byte* p) {
  return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0;
}

TEST(BufferTest, DataStartsOnTheAlignmentBoundary) {
  for (size_t n : {size_t{1}, size_t{17}, size_t{4096}, size_t{5} << 20}) {
    Buffer b(n);
    EXPECT_TRUE(Aligned(b.data())) << n;
    b.Reserve(3 * n + 5);
    EXPECT_TRUE(Aligned(b.data())) << n;
    Buffer copy(b.view());
    EXPECT_TRUE(Aligned(copy.data())) << n;
  }
}

TEST(BufferTest, GrowthKeepsContentsAndClearKeepsMemory) {
  Buffer b = Buffer::FromString("abc");
  b.Append(AsBytes("defgh"));
  EXPECT_EQ(b.chars(), "abcdefgh");
  b.Reserve(1000);
  EXPECT_EQ(b.chars(), "abcdefgh");
  const std::byte* memory = b.data();
  b.Clear();
  EXPECT_TRUE(b.empty());
  b.Assign(AsBytes("xyz"));
  EXPECT_EQ(b.chars(), "xyz");
  EXPECT_EQ(b.data(), memory);
  Buffer moved = std::move(b);
  EXPECT_EQ(moved.chars(), "xyz");
  EXPECT_EQ(moved.data(), memory);
}

}  // namespace
}  // namespace turbozarr
