#include "codec/packbits_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ChunkFromHex;
using testing::ExpectFilterBytes;

const DataType kBool(DataTypeId::kBool), kU8(DataTypeId::kUInt8);

TEST(PackBitsCodecTest, PacksAsNumcodecs) {
  ExpectFilterBytes({{"id", "packbits"}}, kBool, testing::kPackBits10In,
                    testing::kPackBits10Out);
  ExpectFilterBytes({{"name", "numcodecs.packbits"}}, kBool, testing::kPackBits16In,
                    testing::kPackBits16Out);
}

TEST(PackBitsCodecTest, EncodedSpecIsTheFlatByteArray) {
  auto f = testing::MakeFilter({{"id", "packbits"}}, testing::MakeSpec({3, 3}, kBool));
  ASSERT_NE(f, nullptr);
  auto spec = f->EncodedSpec(testing::MakeSpec({3, 3}, kBool));
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->shape, std::vector<int64_t>({3}));  // 1 + ceil(9 / 8)
  EXPECT_TRUE(spec->dtype == kU8);
}

TEST(PackBitsCodecTest, WrongSizeOrPaddingIsCorruption) {
  const ArraySpec spec = testing::MakeSpec({10}, kBool);
  auto f = testing::MakeFilter({{"id", "packbits"}}, spec);
  ASSERT_NE(f, nullptr);
  auto r = f->Decode(ChunkFromHex("069d", kU8), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  r = f->Decode(ChunkFromHex("059d40", kU8), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      "codec packbits: 5 padding bits recorded, 6 expected for a chunk of 10 elements");
}

TEST(PackBitsCodecTest, OnlyBooleans) {
  auto r = MakeV2Codec({{"id", "packbits"}}, testing::MakeSpec({4}, kU8));
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(r.status().message(),
            "codec packbits: the array's data type uint8 is not bool");
  r = MakeV2Codec({{"id", "packbits"}, {"bits", 1}}, testing::MakeSpec({4}, kBool));
  EXPECT_EQ(r.status().message(),
            "codec packbits: field \"bits\": unknown field (value 1)");
}

}  // namespace
}  // namespace turbozarr
