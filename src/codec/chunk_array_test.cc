#include <gtest/gtest.h>

#include <cstring>

#include "codec/raw_bytes.h"
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

TEST(RawBytesTest, AllElementsEqualComparesEveryElement) {
  const std::vector<uint32_t> same(1000, 0xDEADBEEF);
  const uint32_t element = 0xDEADBEEF;
  const ByteView one(reinterpret_cast<const std::byte*>(&element), 4);
  auto view = [](const std::vector<uint32_t>& v) {
    return ByteView(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4);
  };
  EXPECT_TRUE(internal::AllElementsEqual(view(same), one));
  EXPECT_TRUE(internal::AllElementsEqual(ByteView(), one));
  for (size_t at : {size_t{0}, size_t{1}, size_t{500}, size_t{999}}) {
    std::vector<uint32_t> other = same;
    other[at] ^= 0x100;
    EXPECT_FALSE(internal::AllElementsEqual(view(other), one)) << at;
  }
  EXPECT_FALSE(
      internal::AllElementsEqual(view(same).first(6), one));  // not whole elements
  EXPECT_FALSE(internal::AllElementsEqual(view(same), ByteView()));
}

TEST(RawBytesTest, FillElementsRepeatsTheElement) {
  for (uint64_t value :
       {uint64_t{0}, uint64_t{0x0101010101010101}, uint64_t{0x0102030405060708}}) {
    std::vector<uint64_t> out(37, 99);
    internal::FillElements(
        MutableByteView(reinterpret_cast<std::byte*>(out.data()), out.size() * 8),
        ByteView(reinterpret_cast<const std::byte*>(&value), 8));
    EXPECT_EQ(out, std::vector<uint64_t>(37, value));
  }
}

}  // namespace
}  // namespace turbozarr
