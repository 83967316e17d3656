#include "util/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace turbozarr {
namespace {

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(Crc32c(AsBytes("123456789")), 0xE3069283u);
  EXPECT_EQ(Crc32c(AsBytes("")), 0x00000000u);
  EXPECT_EQ(Crc32c(AsBytes("a")), 0xC1D04330u);
  // RFC 3720 (iSCSI) B.4 test patterns.
  std::string zeros(32, '\0');
  EXPECT_EQ(Crc32c(AsBytes(zeros)), 0x8A9136AAu);
  std::string ones(32, '\xFF');
  EXPECT_EQ(Crc32c(AsBytes(ones)), 0x62A8AB43u);
  std::string inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  EXPECT_EQ(Crc32c(AsBytes(inc)), 0x46DD794Eu);
  std::string dec(32, '\0');
  for (int i = 0; i < 32; ++i) dec[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Crc32c(AsBytes(dec)), 0x113FDB5Cu);
}

TEST(Crc32cTest, PortableMatchesKnownVector) {
  std::string s = "123456789";
  EXPECT_EQ(
      internal::Crc32cPortable(0, reinterpret_cast<const uint8_t*>(s.data()), s.size()),
      0xE3069283u);
}

TEST(Crc32cTest, ImplementationsAgreeOnAllLengthsAndAlignments) {
  if (!internal::Crc32cHardwareAvailable()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937 rng(42);
  std::vector<uint8_t> data(4096 + 16);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n : {0, 1, 3, 7, 8, 9, 31, 32, 33, 63, 100, 1000, 4096}) {
      uint32_t sw = internal::Crc32cPortable(0, data.data() + offset, n);
      uint32_t hw = internal::Crc32cHardware(0, data.data() + offset, n);
      ASSERT_EQ(sw, hw) << "offset " << offset << " length " << n;
    }
  }
}

TEST(Crc32cTest, ImplementationsAgreeAcrossTheThreeStreamBlocks) {
  // The hardware path sums blocks of 3 x 4096 bytes as three chains joined
  // after: lengths around one, two and several blocks, any alignment, and
  // a start from a running CRC.
  if (!internal::Crc32cHardwareAvailable()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937 rng(7);
  std::vector<uint8_t> data(5 * 12288 + 64);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t offset : {0, 3, 8}) {
    for (size_t n : {12287, 12288, 12289, 12295, 24576, 24583, 36864 + 100, 5 * 12288 + 7}) {
      for (uint32_t start : {0u, 0x12345678u}) {
        uint32_t sw = internal::Crc32cPortable(start, data.data() + offset, n);
        uint32_t hw = internal::Crc32cHardware(start, data.data() + offset, n);
        ASSERT_EQ(sw, hw) << "offset " << offset << " length " << n << " start " << start;
      }
    }
  }
  std::vector<uint8_t> zeros(3 * 12288, 0);
  EXPECT_EQ(internal::Crc32cHardware(0, zeros.data(), zeros.size()),
            internal::Crc32cPortable(0, zeros.data(), zeros.size()));
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::string a = "The quick brown fox ";
  std::string b = "jumps over the lazy dog";
  EXPECT_EQ(Crc32cExtend(Crc32c(AsBytes(a)), AsBytes(b)), Crc32c(AsBytes(a + b)));
  EXPECT_EQ(Crc32c(AsBytes(a + b)), 0x22620404u);
}

}  // namespace
}  // namespace turbozarr
