#include "codec/sharding/shard_store.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "testing/codec_fixtures.h"
#include "testing/read_checks.h"
#include "testing/shard_fixtures.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ShardingJson;
const json& kLittle = testing::kLittleBytes;
const json& kCrc = testing::kCrc32cCodec;

template <typename T>
std::vector<T> Elements(const std::optional<Buffer>& b) {
  std::vector<T> v(b ? b->size() / sizeof(T) : 0);
  if (b && !v.empty()) std::memcpy(v.data(), b->data(), b->size());
  return v;
}

// The shards of kShardEnd / kShardStart: uint16 (4, 4) = arange(16) + 1 with
// inner chunk [0, 0] all fill (not stored), inner chunks (2, 2).
class ShardStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto chain = CodecChain::FromJson(
        json::array({ShardingJson({2, 2}, json::array({kLittle}), GetParam())}),
        MakeSpec({4, 4}, DataType(DataTypeId::kUInt16)));
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    chain_ = std::move(*chain);
    ASSERT_TRUE(ShardedChain::Of(chain_).has_value());
    ASSERT_TRUE(memory_
                    ->Set("a/c/0", FromHex(GetParam() == "end" ? testing::kShardEnd
                                                               : testing::kShardStart))
                    .ok());
  }

  ShardedChain sharding() const { return *ShardedChain::Of(chain_); }

  std::shared_ptr<ShardStore> OpenOrDie() {
    auto opened = ShardStore::Open(ShardStore::At(metrics_, "a/c/0"), sharding());
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? *opened : nullptr;
  }

  CodecChain chain_;
  std::shared_ptr<Store> memory_ = MakeMemoryStore();
  std::shared_ptr<MetricsStore> metrics_ = MakeMetricsStore(memory_);
};

TEST_P(ShardStoreTest, InnerChunksAreKeysOfTheStoredBytes) {
  auto shard = OpenOrDie();
  ASSERT_NE(shard, nullptr);
  // Opening read the index alone: 4 entries of 16 bytes and a checksum.
  EXPECT_EQ(metrics_->metrics().gets, 1u);
  EXPECT_EQ(metrics_->metrics().bytes_read, 68u);
  EXPECT_EQ(sharding().index_size(), 68u);

  auto get = [&](std::string_view key, ByteRange range = ByteRange::Full()) {
    auto got = shard->Get(key, range);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? Elements<uint16_t>(*got) : std::vector<uint16_t>{99};
  };
  auto absent = shard->Get("c/0/0", ByteRange::Full());
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  EXPECT_EQ(get("c/0/1"), (std::vector<uint16_t>{3, 4, 7, 8}));
  EXPECT_EQ(get("c/1/0"), (std::vector<uint16_t>{9, 10, 13, 14}));
  EXPECT_EQ(get("c/1/1"), (std::vector<uint16_t>{11, 12, 15, 16}));
  EXPECT_EQ(get("c/1/0", ByteRange::Of(2, 4)), (std::vector<uint16_t>{10, 13}));
  EXPECT_EQ(get("c/1/0", ByteRange::Suffix(2)), (std::vector<uint16_t>{14}));
  EXPECT_EQ(get("c/1/0", ByteRange::Of(6, 100)), (std::vector<uint16_t>{14}));

  auto size = shard->Size("c/1/1");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, std::optional<uint64_t>(8));
  EXPECT_EQ(*shard->Size("c/0/0"), std::nullopt);
  EXPECT_EQ(*shard->List(""), (std::vector<std::string>{"c/0/1", "c/1/0", "c/1/1"}));
  EXPECT_EQ(*shard->List("c/1"), (std::vector<std::string>{"c/1/0", "c/1/1"}));
  EXPECT_TRUE(shard->AnyStored());
  EXPECT_FALSE(shard->Locate(0).has_value());

  // Straight into caller memory.
  std::vector<uint16_t> out(4);
  auto into = shard->GetInto("c/0/1", ByteRange::Full(),
                             {reinterpret_cast<std::byte*>(out.data()), 8});
  ASSERT_TRUE(into.ok());
  EXPECT_EQ(*into, std::optional<uint64_t>(8));
  EXPECT_EQ(out, (std::vector<uint16_t>{3, 4, 7, 8}));
}

// The inner chunks of the test shard as the strings their bytes are.
std::map<std::string, std::string> InnerChunkContents() {
  auto chars = [](std::vector<uint16_t> v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 2);
  };
  return {{"c/0/1", chars({3, 4, 7, 8})},
          {"c/1/0", chars({9, 10, 13, 14})},
          {"c/1/1", chars({11, 12, 15, 16})}};
}

TEST_P(ShardStoreTest, ReadServesEveryTargetAndRange) {
  auto shard = OpenOrDie();
  ASSERT_NE(shard, nullptr);
  testing_reads::ExpectEveryReadTarget(*shard, InnerChunkContents(), "c/0/0");
  auto bytes = memory_->Get("a/c/0", ByteRange::Full());
  ASSERT_TRUE(bytes.ok() && bytes->has_value());
  auto held =
      ShardStore::FromBytes(ShardStore::At(metrics_, "a/c/0"), sharding(), **bytes);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  testing_reads::ExpectEveryReadTarget(**held, InnerChunkContents(), "c/0/0");
}

TEST_P(ShardStoreTest, GetManyMergesNeighbouringInnerChunksIntoOneRead) {
  auto shard = OpenOrDie();
  ASSERT_NE(shard, nullptr);
  metrics_->ResetMetrics();
  const std::vector<KeyRange> reads = {{"c/1/1", ByteRange::Full()},
                                       {"c/0/0", ByteRange::Full()},
                                       {"c/0/1", ByteRange::Full()},
                                       {"c/1/0", ByteRange::Of(4, 4)}};
  auto got = shard->GetMany(reads);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 4u);
  EXPECT_EQ(Elements<uint16_t>((*got)[0]), (std::vector<uint16_t>{11, 12, 15, 16}));
  EXPECT_FALSE((*got)[1].has_value());
  EXPECT_EQ(Elements<uint16_t>((*got)[2]), (std::vector<uint16_t>{3, 4, 7, 8}));
  EXPECT_EQ(Elements<uint16_t>((*got)[3]), (std::vector<uint16_t>{13, 14}));
  // Three stored inner chunks side by side: one read of the shard's data.
  EXPECT_EQ(metrics_->metrics().get_many_calls, 0u);  // a batch of one read
  EXPECT_EQ(metrics_->metrics().gets, 1u);
  EXPECT_LE(metrics_->metrics().bytes_read, 24u);
}

TEST_P(ShardStoreTest, HeldShardAnswersWithoutTheStore) {
  auto bytes = memory_->Get("a/c/0", ByteRange::Full());
  ASSERT_TRUE(bytes.ok() && bytes->has_value());
  auto shard =
      ShardStore::FromBytes(ShardStore::At(metrics_, "a/c/0"), sharding(), **bytes);
  ASSERT_TRUE(shard.ok()) << shard.status().ToString();
  EXPECT_EQ(Elements<uint16_t>(*(*shard)->Get("c/1/1", ByteRange::Full())),
            (std::vector<uint16_t>{11, 12, 15, 16}));
  auto many = (*shard)->GetMany(std::vector<KeyRange>{{"c/0/1", ByteRange::Full()}});
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(Elements<uint16_t>((*many)[0]), (std::vector<uint16_t>{3, 4, 7, 8}));
  const std::optional<ByteView> held = (*shard)->HeldBytes(2);
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(Elements<uint16_t>(Buffer(*held)), (std::vector<uint16_t>{9, 10, 13, 14}));
  EXPECT_EQ(metrics_->metrics().gets, 0u);
  EXPECT_EQ((*shard)->Capabilities().requests_in_flight, 0);
}

TEST_P(ShardStoreTest, AbsentShardOpensAsNull) {
  auto opened = ShardStore::Open(ShardStore::At(metrics_, "a/c/9"), sharding());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(*opened, nullptr);
}

TEST_P(ShardStoreTest, BadKeysAndWritesAreRefused) {
  auto shard = OpenOrDie();
  ASSERT_NE(shard, nullptr);
  for (const char* key : {"c/2/0", "c/0", "c/0/0/0", "x/0/0", "c/-1/0", "c/0/a", "c"}) {
    auto got = shard->Get(key, ByteRange::Full());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(got.status().message().find(key), std::string::npos)
        << got.status().message();
  }
  EXPECT_FALSE(shard->Capabilities().writable);
  Status set = shard->Set("c/0/1", ByteView());
  EXPECT_EQ(set.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(set.message().find("'a/c/0'"), std::string::npos) << set.message();
  EXPECT_EQ(shard->Erase("c/0/1").code(), StatusCode::kInvalidArgument);
}

TEST_P(ShardStoreTest, CorruptIndexesNameTheShard) {
  Buffer good = FromHex(GetParam() == "end" ? testing::kShardEnd : testing::kShardStart);
  // Shorter than its index.
  ASSERT_TRUE(memory_->Set("a/c/0", good.view().first(10)).ok());
  auto opened = ShardStore::Open(ShardStore::At(memory_, "a/c/0"), sharding());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption);
  EXPECT_NE(opened.status().message().find("chunk 'a/c/0': shard of 10 bytes is smaller "
                                           "than its 68-byte index"),
            std::string::npos)
      << opened.status().message();
  // A flipped bit in the index fails its checksum.
  Buffer bad = good;
  const size_t index_at = GetParam() == "end" ? good.size() - 68 : 0;
  bad.data()[index_at + 20] ^= std::byte{1};
  ASSERT_TRUE(memory_->Set("a/c/0", bad.view()).ok());
  opened = ShardStore::Open(ShardStore::At(memory_, "a/c/0"), sharding());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption);
  EXPECT_NE(opened.status().message().find("chunk 'a/c/0': shard index"),
            std::string::npos)
      << opened.status().message();
  // Held whole, entries are checked against the shard's size.
  opened = ShardStore::FromBytes(ShardStore::At(memory_, "a/c/0"), sharding(),
                                 good.view().first(70));
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption)
      << opened.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(IndexLocations, ShardStoreTest,
                         ::testing::Values("end", "start"));

TEST(NestedShardStoreTest, InnerShardsReadOnlyTheBytesTheyNeed) {
  // kShardNested: uint8 (8, 8) = arange(64) in inner chunks (4, 4) that are
  // shards of (2, 2) chunks.
  const json inner = ShardingJson({2, 2}, json::array({{{"name", "bytes"}}}), "end");
  auto chain = CodecChain::FromJson(
      json::array({ShardingJson({4, 4}, json::array({inner}), "end")}),
      MakeSpec({8, 8}, DataType(DataTypeId::kUInt8)));
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  const ShardedChain outer = *ShardedChain::Of(*chain);
  const std::optional<ShardedChain> nested = ShardedChain::Of(outer.inner_chain());
  ASSERT_TRUE(nested.has_value());
  auto memory = MakeMemoryStore();
  ASSERT_TRUE(memory->Set("n/c/0/0", FromHex(testing::kShardNested)).ok());
  auto metrics = MakeMetricsStore(memory);

  auto shard = ShardStore::Open(ShardStore::At(metrics, "n/c/0/0"), outer);
  ASSERT_TRUE(shard.ok() && *shard) << shard.status().ToString();
  // Inner chunk [1, 1] of the outer shard: rows 4-7, columns 4-7.
  const std::optional<ShardStore::Location> where = (*shard)->InnerLocation(3);
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->name, "chunk 'n/c/0/0', inner chunk [1, 1]");
  EXPECT_EQ(where->key, "n/c/0/0");
  auto inner_shard = ShardStore::Open(*where, *nested);
  ASSERT_TRUE(inner_shard.ok() && *inner_shard) << inner_shard.status().ToString();
  // Its inner chunk [1, 0]: rows 6-7, columns 4-5.
  auto got = (*inner_shard)->Get("c/1/0", ByteRange::Full());
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(Elements<uint8_t>(*got), (std::vector<uint8_t>{52, 53, 60, 61}));
  // Two indexes of 4 entries and a checksum each, and the 4 bytes wanted.
  EXPECT_EQ(metrics->metrics().gets, 3u);
  EXPECT_EQ(metrics->metrics().bytes_read, 68u + 68u + 4u);

  // The same from the outer shard held in memory: nothing more is read.
  metrics->ResetMetrics();
  auto held = ShardStore::FromBytes(ShardStore::At(metrics, "n/c/0/0"), outer,
                                    FromHex(testing::kShardNested));
  ASSERT_TRUE(held.ok());
  auto held_inner = ShardStore::Open(*(*held)->InnerLocation(3), *nested);
  ASSERT_TRUE(held_inner.ok() && *held_inner);
  EXPECT_EQ(Elements<uint8_t>(*(*held_inner)->Get("c/1/0", ByteRange::Full())),
            (std::vector<uint8_t>{52, 53, 60, 61}));
  EXPECT_EQ(metrics->metrics().gets, 0u);

  // A damaged index of an inner shard is Corruption naming that inner shard.
  Buffer bad = FromHex(testing::kShardNested);
  const ByteSpan span = *(*shard)->Locate(0);
  const uint64_t past = 200;
  std::memcpy(bad.data() + span.offset + span.length - 68 + 16, &past, 8);
  ASSERT_TRUE(memory->Set("n/c/0/0", bad.view()).ok());
  auto reopened = ShardStore::Open(ShardStore::At(memory, "n/c/0/0"), outer);
  ASSERT_TRUE(reopened.ok() && *reopened);
  auto broken = ShardStore::Open(*(*reopened)->InnerLocation(0), *nested);
  EXPECT_EQ(broken.status().code(), StatusCode::kCorruption);
  EXPECT_NE(broken.status().message().find("chunk 'n/c/0/0', inner chunk [0, 0]"),
            std::string::npos)
      << broken.status().message();
}

}  // namespace
}  // namespace turbozarr
