// Buffer (turbozarr/buffer.h): growth keeps the contents, Clear keeps the
// memory, and the data always starts on a kBufferAlignment boundary.
#include "turbozarr/buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

// Large blocks go back to a cache and serve the next Buffer of their size
// class, already paged in (not under AddressSanitizer, which must see every
// use after free).
TEST(BufferTest, LargeBlocksAreReusedThroughTheCache) {
  if (internal::CachedBufferBytes() == 0) {
    Buffer probe(internal::kPooledBufferBytes);
    probe = Buffer();
    if (internal::CachedBufferBytes() == 0) GTEST_SKIP() << "no cache in this build";
  }
  const size_t n = (size_t{5} << 20) + 3;
  Buffer first(n);
  EXPECT_GE(first.capacity(), n);
  EXPECT_LE(first.capacity(), n + n / 8);
  const std::byte* memory = first.data();
  const size_t cached = internal::CachedBufferBytes();
  first = Buffer();
  EXPECT_EQ(internal::CachedBufferBytes(), cached + (size_t{5} << 20) + (size_t{1} << 19));
  Buffer second((size_t{5} << 20) + 100);  // the same size class
  EXPECT_EQ(second.data(), memory);
  EXPECT_TRUE(Aligned(second.data()));
  EXPECT_EQ(internal::CachedBufferBytes(), cached);
  // Small buffers are not cached.
  Buffer small(1000);
  small = Buffer();
  EXPECT_EQ(internal::CachedBufferBytes(), cached);
}

TEST(BufferTest, TheCacheHoldsAtMostItsBound) {
  std::vector<Buffer> many;
  for (size_t held = 0; held < internal::kBufferCacheBytes + (size_t{64} << 20);
       held += size_t{16} << 20) {
    many.emplace_back(size_t{16} << 20);
  }
  many.clear();
  EXPECT_LE(internal::CachedBufferBytes(), internal::kBufferCacheBytes);
}

}  // namespace
}  // namespace turbozarr
