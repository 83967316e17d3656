#include "codec/sharding/shard_writer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "testing/codec_fixtures.h"
#include "testing/shard_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ShardingJson;
const json& kLittle = testing::kLittleBytes;
using testing::ToHex;

// uint16 (4, 4) shards of (2, 2) inner chunks stored as they are, the index
// at `location`: the layout of kShardEnd and kShardStart.
CodecChain Chain(const std::string& location) {
  auto chain = CodecChain::FromJson(
      json::array({ShardingJson({2, 2}, json::array({kLittle}), location)}),
      MakeSpec({4, 4}, DataType(DataTypeId::kUInt16)));
  EXPECT_TRUE(chain.ok()) << chain.status().ToString();
  return std::move(chain).value();
}

Buffer U16(std::vector<uint16_t> v) {
  return Buffer(ByteView(reinterpret_cast<const std::byte*>(v.data()), v.size() * 2));
}

// The inner chunks of kShardEnd: [0, 0] all fill (not stored), then the
// others' elements.
const std::vector<std::vector<uint16_t>> kInner = {
    {}, {3, 4, 7, 8}, {9, 10, 13, 14}, {11, 12, 15, 16}};

class ShardWriterTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string Expected() const {
    return ToHex(
        FromHex(GetParam() == "end" ? testing::kShardEnd : testing::kShardStart));
  }
  CodecChain chain_ = Chain(GetParam());
  ShardedChain sharding_ = *ShardedChain::Of(chain_);
};

TEST_P(ShardWriterTest, LaysInnerChunksOutAsZarrPythonDoes) {
  std::vector<Buffer> bytes;
  for (const auto& v : kInner) bytes.push_back(U16(v));
  ShardWriter writer(sharding_, nullptr);
  writer.Set(0, std::nullopt);
  for (int64_t i = 1; i < 4; ++i) writer.Set(i, bytes[i].view());
  auto shard = writer.Finish();
  ASSERT_TRUE(shard.ok()) << shard.status().ToString();
  ASSERT_TRUE(shard->has_value());
  EXPECT_EQ(ToHex(**shard), Expected());
}

TEST_P(ShardWriterTest, BuildsInPlaceAndFallsBackWhenAnInnerChunkIsLeftOut) {
  const std::vector<int64_t> all = {0, 1, 2, 3};
  // Every place built: the placed buffer is the shard, as Assemble lays it.
  ShardWriter whole(sharding_, nullptr);
  whole.LayOutInPlace(all, 8);
  std::vector<Buffer> expected_inner;
  for (int64_t i : all) {
    Buffer b = U16(i == 0 ? std::vector<uint16_t>{1, 2, 5, 6} : kInner[i]);
    MutableByteView place = whole.Place(i);
    ASSERT_EQ(place.size(), 8u);
    std::memcpy(place.data(), b.data(), 8);
    whole.Set(i, place);
    expected_inner.push_back(std::move(b));
  }
  auto built = whole.Finish();
  ASSERT_TRUE(built.ok() && built->has_value());
  ShardWriter apart(sharding_, nullptr);
  for (int64_t i : all) apart.Set(i, expected_inner[i].view());
  auto assembled = apart.Finish();
  ASSERT_TRUE(assembled.ok() && assembled->has_value());
  EXPECT_EQ(ToHex(**built), ToHex(**assembled));

  // Inner chunk [0, 0] left out (all fill): laid out afresh without it.
  ShardWriter partial(sharding_, nullptr);
  partial.LayOutInPlace(all, 8);
  partial.Set(0, std::nullopt);
  for (int64_t i = 1; i < 4; ++i) {
    MutableByteView place = partial.Place(i);
    std::memcpy(place.data(), U16(kInner[i]).data(), 8);
    partial.Set(i, place);
  }
  auto shard = partial.Finish();
  ASSERT_TRUE(shard.ok() && shard->has_value());
  EXPECT_EQ(ToHex(**shard), Expected());
}

TEST_P(ShardWriterTest, KeepsTheOldShardsUntouchedInnerChunks) {
  auto old = ShardStore::FromBytes(ShardStore::At(MakeMemoryStore(), "s"), sharding_,
                                   FromHex(Expected()));
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  // Replace inner chunk [1, 1], drop [0, 1], add [0, 0]; [1, 0] is kept.
  const Buffer added = U16({1, 2, 5, 6});
  const Buffer changed = U16({0, 0, 0, 7});
  ShardWriter writer(sharding_, *old);
  writer.Set(0, added.view());
  writer.Set(1, std::nullopt);
  writer.Set(3, changed.view());
  auto shard = writer.Finish();
  ASSERT_TRUE(shard.ok() && shard->has_value());
  auto reread =
      ShardStore::FromBytes(ShardStore::At(MakeMemoryStore(), "s"), sharding_, **shard);
  ASSERT_TRUE(reread.ok()) << reread.status().ToString();
  EXPECT_EQ(ToHex(Buffer(*(*reread)->HeldBytes(0))), ToHex(added));
  EXPECT_FALSE((*reread)->HeldBytes(1).has_value());
  EXPECT_EQ(ToHex(Buffer(*(*reread)->HeldBytes(2))), ToHex(U16(kInner[2])));
  EXPECT_EQ(ToHex(Buffer(*(*reread)->HeldBytes(3))), ToHex(changed));

  // Nothing left: no shard to store.
  ShardWriter empty(sharding_, *old);
  for (int64_t i = 0; i < 4; ++i) empty.Set(i, std::nullopt);
  auto none = empty.Finish();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

INSTANTIATE_TEST_SUITE_P(IndexLocations, ShardWriterTest,
                         ::testing::Values("end", "start"));

}  // namespace
}  // namespace turbozarr
