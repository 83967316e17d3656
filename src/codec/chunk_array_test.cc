#include <gtest/gtest.h>

#include <cstring>

#include "testing/codec_fixtures.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

using testing::MakeSpec;

TEST(ChunkArrayTest, ElementCounts) {
  EXPECT_EQ(MakeSpec({}, DataType(DataTypeId::kInt8)).num_elements(), 1);
  EXPECT_EQ(MakeSpec({0, 5}, DataType(DataTypeId::kInt8)).num_elements(), 0);
  EXPECT_EQ(MakeSpec({3, 4, 5}, DataType(DataTypeId::kInt8)).num_elements(), 60);
  ChunkArray c;
  c.shape = {2, 7};
  EXPECT_EQ(c.num_elements(), 14);
}

TEST(ChunkArrayTest, FilledRepeatsTheFillValue) {
  ArraySpec spec = MakeSpec({3, 5}, DataType(DataTypeId::kFloat64));
  double fill = 1.5;
  spec.fill_value.bytes.Assign({reinterpret_cast<const std::byte*>(&fill), 8});
  ChunkArray c = ChunkArray::Filled(spec);
  ASSERT_EQ(c.bytes.size(), 15u * 8u);
  for (int i = 0; i < 15; ++i) {
    double v;
    std::memcpy(&v, c.bytes.data() + 8 * i, 8);
    EXPECT_EQ(v, 1.5) << i;
  }
  EXPECT_TRUE(c.IsAll(spec.fill_value));
  EXPECT_FALSE(c.IsAll(DefaultFillValue(spec.dtype)));
  c.bytes.data()[8 * 14 + 3] ^= std::byte{1};
  EXPECT_FALSE(c.IsAll(spec.fill_value));
}

TEST(ChunkArrayTest, ZeroFillAndEmptyChunks) {
  ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kInt32));
  ChunkArray c = ChunkArray::Filled(spec);
  EXPECT_EQ(testing::ToHex(c.bytes), std::string(32, '0'));
  EXPECT_TRUE(c.IsAll(spec.fill_value));
  c.bytes.data()[0] = std::byte{1};
  EXPECT_FALSE(c.IsAll(spec.fill_value));
  ChunkArray empty = ChunkArray::Filled(MakeSpec({0}, DataType(DataTypeId::kInt32)));
  EXPECT_TRUE(empty.bytes.empty());
  EXPECT_TRUE(empty.IsAll(spec.fill_value));
}

TEST(ChunkArrayTest, StringsFillAndCompare) {
  ArraySpec spec = MakeSpec({3}, DataType(DataTypeId::kString));
  spec.fill_value.bytes = Buffer::FromString("na");
  ChunkArray c = ChunkArray::Filled(spec);
  EXPECT_EQ(c.strings, (std::vector<std::string>{"na", "na", "na"}));
  EXPECT_TRUE(c.IsAll(spec.fill_value));
  c.strings[1] = "";
  EXPECT_FALSE(c.IsAll(spec.fill_value));
}

}  // namespace
}  // namespace turbozarr
