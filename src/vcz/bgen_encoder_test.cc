#include "vcz/bgen_encoder.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

namespace turbozarr::vcz::internal {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s.push_back(static_cast<char>(v));
  return s;
}

std::string Inflate(const std::string& stream, size_t size) {
  std::string out(size, '\0');
  uLongf length = size;
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(out.data()), &length,
                       reinterpret_cast<const Bytef*>(stream.data()), stream.size()),
            Z_OK);
  out.resize(length);
  return out;
}

TEST(BgenEncoder, UnphasedDiploidCallsAreTwoProbabilitiesAndMissingSetsThePloidyBit) {
  const std::vector<int8_t> calls = {0, 0, 0, 1, 1, 1, -1, -1, 1, 0};
  std::string block;
  ASSERT_TRUE(AppendBgenGenotypes(calls.data(), 5, false, block).ok());
  EXPECT_EQ(block, Bytes({5, 0, 0, 0, 2, 0, 2, 2,             // N, K, Pmin, Pmax
                          2, 2, 2, 0x82, 2,                   // ploidy (missing: 0x82)
                          0, 8,                               // unphased, 8 bits
                          0xFF, 0, 0, 0xFF, 0, 0, 0, 0, 0, 0xFF}));
  EXPECT_EQ(block.size(), BgenGenotypeBlockSize(5, 2));
}

TEST(BgenEncoder, RunsOfFourReferenceCallsEncodeAsEachCallAlone) {
  // Nine samples: four at 0/0 (taken at once), a het, three at 0/0 and a
  // haploid sample whose padding must keep those four from being taken so.
  const std::vector<int8_t> calls = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, -2};
  for (bool phased : {false, true}) {
    std::string together;
    ASSERT_TRUE(AppendBgenGenotypes(calls.data(), 9, phased, together).ok());
    std::string alone;  // sample by sample, through blocks of one
    std::string ploidy, probabilities;
    for (size_t s = 0; s < 9; ++s) {
      std::string one;
      ASSERT_TRUE(AppendBgenGenotypes(calls.data() + 2 * s, 1, phased, one).ok());
      ploidy += one[8];
      probabilities += one.substr(11);
    }
    EXPECT_EQ(together.substr(8, 9), ploidy);
    EXPECT_EQ(together.substr(19), probabilities);
    EXPECT_EQ(together.substr(6, 2), Bytes({1, 2}));  // the haploid sample: Pmin 1
  }
}

TEST(BgenEncoder, PhasedCallsGiveEachHaplotypesFirstAlleleProbability) {
  const std::vector<int8_t> calls = {0, 1, 1, 0};
  std::string block;
  ASSERT_TRUE(AppendBgenGenotypes(calls.data(), 2, true, block).ok());
  EXPECT_EQ(block, Bytes({2, 0, 0, 0, 2, 0, 2, 2, 2, 2, 1, 8, 0xFF, 0, 0, 0xFF}));
}

TEST(BgenEncoder, HaploidCallsHaveOneProbabilityAndPloidyOne) {
  const std::vector<int8_t> calls = {0, -2, 1, -2, -1, -2};
  std::string block;
  ASSERT_TRUE(AppendBgenGenotypes(calls.data(), 3, false, block).ok());
  EXPECT_EQ(block, Bytes({3, 0, 0, 0, 2, 0, 1, 1, 1, 1, 0x81, 0, 8, 0xFF, 0, 0}));
  EXPECT_EQ(block.size(), BgenGenotypeBlockSize(3, 1));
  // Mixed ploidy: Pmin 1, Pmax 2. No samples: 2 and 2.
  const std::vector<int8_t> mixed = {0, -2, 0, 1};
  block.clear();
  ASSERT_TRUE(AppendBgenGenotypes(mixed.data(), 2, false, block).ok());
  EXPECT_EQ(block.substr(6, 2), Bytes({1, 2}));
  block.clear();
  ASSERT_TRUE(AppendBgenGenotypes(nullptr, 0, false, block).ok());
  EXPECT_EQ(block, Bytes({0, 0, 0, 0, 2, 0, 2, 2, 0, 8}));
}

TEST(BgenEncoder, ValuesABiallelicCallCannotHaveAreRefused) {
  std::string block;
  const std::vector<int8_t> third_allele = {0, 2};
  Status s = AppendBgenGenotypes(third_allele.data(), 1, false, block);
  EXPECT_TRUE(s.code() == StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("expects values in {-2, -1, 0, 1}"), std::string::npos);
  const std::vector<int8_t> no_ploidy = {-2, -2};
  s = AppendBgenGenotypes(no_ploidy.data(), 1, false, block);
  EXPECT_NE(s.message().find("-2 in genotype slot 0"), std::string::npos);
}

TEST(BgenEncoder, HeaderCarriesCountsFlagsAndTheSampleBlock) {
  auto samples = BgenSampleIdBlock({"a", "bc"});
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(*samples, Bytes({15, 0, 0, 0, 2, 0, 0, 0, 1, 0, 'a', 2, 0, 'b', 'c'}));
  const std::string header = BgenHeader(7, 2, *samples);
  EXPECT_EQ(header.substr(0, 24), Bytes({35, 0, 0, 0, 20, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0,
                                         'b', 'g', 'e', 'n', 9, 0, 0, 0x80}));
  EXPECT_EQ(header.substr(24), *samples);
  // Without sample IDs the flag is clear and the offset is the header's.
  EXPECT_EQ(BgenHeader(7, 2, ""), Bytes({20, 0, 0, 0, 20, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0,
                                         'b', 'g', 'e', 'n', 9, 0, 0, 0}));
  EXPECT_TRUE(BgenSampleIdBlock({std::string(70000, 'x')}).status().code() == StatusCode::kInvalidArgument);
}

TEST(BgenEncoder, StoredStreamsHaveAFixedSizeAndInflateBack) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{65535}, size_t{65536}, size_t{200000}}) {
    std::string data(size, '\0');
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>(i * 7);
    std::string stream;
    AppendZlibStored(data, stream);
    EXPECT_EQ(stream.size(), ZlibStoredSize(size)) << size;
    EXPECT_EQ(Inflate(stream, size), data) << size;
  }
}

TEST(BgenEncoder, ZlibStreamsAtEveryLevelInflateBack) {
  // Larger than the first output block of 32 KiB, so that level 0 is cut
  // into stored blocks as the output sizes decide.
  std::string data(100000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i % 3) ? 0 : 0xFF);
  for (int level = -1; level <= 9; ++level) {
    std::string stream = "x";  // appended after what is there
    ASSERT_TRUE(AppendZlib(data, level, stream).ok()) << level;
    EXPECT_EQ(Inflate(stream.substr(1), data.size()), data) << level;
  }
  std::string stream;
  EXPECT_TRUE(AppendZlib(data, 10, stream).code() == StatusCode::kInvalidArgument);
}

TEST(BgenEncoder, VariantBlockLaysOutTheIdentifyingData) {
  std::string out;
  AppendBgenVariant({"v", "rs1", "chr2", "A", "GT", 258}, "zz", 9, out);
  EXPECT_EQ(out, Bytes({1, 0, 'v', 3, 0, 'r', 's', '1', 4, 0, 'c', 'h', 'r', '2',
                        2, 1, 0, 0,        // position 258
                        2, 0,              // K
                        1, 0, 0, 0, 'A', 2, 0, 0, 0, 'G', 'T',
                        6, 0, 0, 0, 9, 0, 0, 0, 'z', 'z'}));
}

}  // namespace
}  // namespace turbozarr::vcz::internal
