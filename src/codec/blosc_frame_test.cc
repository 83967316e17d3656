#include "codec/blosc_frame.h"

#include <blosc.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codec/bit_unshuffle.h"

namespace turbozarr::internal {
namespace {

// Bitshuffle by its definition: bit k of byte j of plane b is bit b of
// item 8j+k.
std::vector<uint8_t> BitShuffleByDefinition(const std::vector<uint8_t>& items) {
  const size_t plane = items.size() / 8;
  std::vector<uint8_t> out(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    for (int b = 0; b < 8; ++b) {
      if (items[i] >> b & 1) out[b * plane + i / 8] |= static_cast<uint8_t>(1 << (i % 8));
    }
  }
  return out;
}

// Items as a VCF Zarr genotype array has them: mostly 0, some 1, a few -1.
std::vector<uint8_t> Genotypes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) {
    const uint32_t r = rng() % 100;
    x = r < 85 ? 0 : r < 97 ? 1 : r < 99 ? 2 : 0xFF;
  }
  return v;
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

TEST(BitUnshuffleTest, EveryKernelUndoesTheShuffle) {
  for (BitUnshuffleKernel kernel : AvailableBitUnshuffleKernels()) {
    SCOPED_TRACE(std::string(BitUnshuffleKernelName(kernel)));
    // Sizes around each kernel's step (8, 32 and 64 items) and a block.
    for (size_t n : {size_t{0}, size_t{8}, size_t{16}, size_t{24}, size_t{56}, size_t{64},
                     size_t{72}, size_t{120}, size_t{128}, size_t{136}, size_t{1000},
                     size_t{4104}, size_t{512} * 1024}) {
      const std::vector<uint8_t> items = RandomBytes(n, static_cast<uint32_t>(n));
      const std::vector<uint8_t> shuffled = BitShuffleByDefinition(items);
      std::vector<uint8_t> out(n + 1, 0xAB);
      BitUnshuffleBytesWith(kernel, shuffled.data(), out.data(), n);
      EXPECT_TRUE(std::equal(items.begin(), items.end(), out.begin())) << n << " items";
      EXPECT_EQ(out[n], 0xAB) << "wrote past " << n << " items";
    }
  }
}

// c-blosc's own encoding of `items`, bitshuffled one-byte items.
std::vector<std::byte> BloscEncode(const std::vector<uint8_t>& items, const char* compressor,
                                   int level, size_t block_size) {
  std::vector<std::byte> out(items.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(level, BLOSC_BITSHUFFLE, 1, items.size(), items.data(),
                                   out.data(), out.size(), compressor, block_size, 1);
  EXPECT_GT(n, 0);
  out.resize(static_cast<size_t>(std::max(n, 0)));
  return out;
}

std::vector<uint8_t> BloscDecode(const std::vector<std::byte>& frame, size_t n, int* rc) {
  std::vector<uint8_t> out(n);
  *rc = blosc_decompress_ctx(frame.data(), out.data(), n, 1);
  return out;
}

TEST(BitshuffledBytesFrameTest, DecodesWhatBloscEncodes) {
  // Block sizes that leave a last block shorter than the others, and one
  // whose length is not a multiple of 8 (which blosc stores unshuffled).
  for (const char* compressor : {"zstd", "lz4", "lz4hc"}) {
    for (size_t n : {size_t{64}, size_t{1000}, size_t{100003}, size_t{2} << 20}) {
      for (size_t block : {size_t{0}, size_t{4096}, size_t{65536} + 8}) {
        SCOPED_TRACE(std::string(compressor) + " " + std::to_string(n) + " items, block " +
                     std::to_string(block));
        // Genotypes, then noise that compresses worse than it is long (a
        // block stored raw).
        std::vector<uint8_t> items = Genotypes(n, static_cast<uint32_t>(n + block));
        const std::vector<uint8_t> noise = RandomBytes(n / 3, 7);
        std::copy(noise.begin(), noise.end(), items.begin() + static_cast<ptrdiff_t>(n / 2));
        const std::vector<std::byte> frame = BloscEncode(items, compressor, 5, block);
        if (n < 128) {
          // Below 128 bytes blosc stores the items raw.
          EXPECT_FALSE(IsBitshuffledBytesFrame(frame));
          continue;
        }
        ASSERT_TRUE(IsBitshuffledBytesFrame(frame));
        for (int threads : {1, 2, 3}) {
          std::vector<uint8_t> out(n);
          const Status s = DecodeBitshuffledBytes(
              frame, MutableByteView(reinterpret_cast<std::byte*>(out.data()), n), threads);
          ASSERT_TRUE(s.ok()) << s.ToString();
          EXPECT_TRUE(out == items) << threads << " threads";
        }
      }
    }
  }
}

TEST(BitshuffledBytesFrameTest, LeavesOtherFramesToBlosc) {
  const std::vector<uint8_t> items = Genotypes(4096, 1);
  EXPECT_TRUE(IsBitshuffledBytesFrame(BloscEncode(items, "zstd", 5, 0)));
  // Stored raw (level 0), another compressor, another shuffle, wider items.
  EXPECT_FALSE(IsBitshuffledBytesFrame(BloscEncode(items, "zstd", 0, 0)));
  EXPECT_FALSE(IsBitshuffledBytesFrame(BloscEncode(items, "blosclz", 5, 0)));
  EXPECT_FALSE(IsBitshuffledBytesFrame(BloscEncode(items, "zlib", 5, 0)));
  std::vector<std::byte> shuffled(items.size() + BLOSC_MAX_OVERHEAD);
  ASSERT_GT(blosc_compress_ctx(5, BLOSC_SHUFFLE, 1, items.size(), items.data(), shuffled.data(),
                               shuffled.size(), "zstd", 0, 1), 0);
  EXPECT_FALSE(IsBitshuffledBytesFrame(shuffled));
  std::vector<std::byte> wide(items.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(5, BLOSC_BITSHUFFLE, 2, items.size(), items.data(),
                                   wide.data(), wide.size(), "zstd", 0, 1);
  ASSERT_GT(n, 0);
  wide.resize(static_cast<size_t>(n));
  EXPECT_FALSE(IsBitshuffledBytesFrame(wide));
  EXPECT_FALSE(IsBitshuffledBytesFrame(std::vector<std::byte>(15)));
}

// Damage anywhere in a frame: where c-blosc refuses it, so does this
// decoder; where c-blosc decodes it, this decoder decodes the same bytes or
// refuses it (it never reads or writes outside the frame and the output).
TEST(BitshuffledBytesFrameTest, DamageIsRefusedAsBloscRefusesIt) {
  const size_t n = 300000;
  std::vector<uint8_t> items = Genotypes(n, 3);
  for (const char* compressor : {"zstd", "lz4"}) {
    const std::vector<std::byte> good = BloscEncode(items, compressor, 5, 16384);
    std::mt19937 rng(11);
    int refused = 0;
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<std::byte> bad = good;
      // Mostly the header and the block offsets, where a flip changes sizes.
      const size_t at = trial % 2 ? rng() % std::min<size_t>(bad.size(), 200) : rng() % bad.size();
      bad[at] ^= static_cast<std::byte>(1u << (rng() % 8));
      if (trial % 7 == 0) bad.resize(rng() % bad.size());
      if (!IsBitshuffledBytesFrame(bad)) continue;
      int rc = 0;
      const std::vector<uint8_t> expected = BloscDecode(bad, n, &rc);
      std::vector<uint8_t> out(n);
      int32_t size_in_header;
      std::memcpy(&size_in_header, bad.data() + 4, 4);
      const Status s = DecodeBitshuffledBytes(
          bad, MutableByteView(reinterpret_cast<std::byte*>(out.data()), n), 1);
      if (!s.ok()) {
        ++refused;
        EXPECT_NE(s.ToString().find("codec blosc"), std::string::npos) << s.ToString();
        continue;
      }
      // Truncated data: c-blosc cannot tell (it is not given the length),
      // so compare only whole frames.
      if (bad.size() < good.size()) continue;
      EXPECT_EQ(rc, static_cast<int>(n)) << "accepted what c-blosc refuses, flip at " << at;
      EXPECT_TRUE(out == expected) << "decoded otherwise than c-blosc, flip at " << at;
    }
    EXPECT_GT(refused, 100) << compressor;
  }
}

}  // namespace
}  // namespace turbozarr::internal
