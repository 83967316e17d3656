#include "codec/sharding/sharding_codec.h"

#include <gtest/gtest.h>

#include <cstring>

#include "codec/raw_bytes.h"
#include "testing/codec_fixtures.h"
#include "testing/shard_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ShardingJson;
const json& kLittle = testing::kLittleBytes;
const json& kCrc = testing::kCrc32cCodec;
using testing::ToHex;
using testing::kShard6x2;
using testing::kShardEnd;
using testing::kShardNested;
using testing::kShardStart;



std::shared_ptr<const ShardingCodec> Make(const json& j, const ArraySpec& spec) {
  auto c = MakeCodec(j, spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::dynamic_pointer_cast<const ShardingCodec>(*c) : nullptr;
}

template <typename T>
ChunkArray Values(const ArraySpec& spec, const std::vector<T>& v) {
  ChunkArray c;
  c.shape = spec.shape;
  c.dtype = spec.dtype;
  c.bytes.Assign({reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(T)});
  return c;
}

std::vector<uint16_t> Fixture4x4() {
  std::vector<uint16_t> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<uint16_t>(i + 1);
  for (int i : {0, 1, 4, 5}) v[i] = 0;
  return v;
}

TEST(ShardingCodecTest, MatchesZarrPythonBothIndexLocations) {
  ArraySpec spec = MakeSpec({4, 4}, DataType(DataTypeId::kUInt16));
  ChunkArray expected = Values(spec, Fixture4x4());
  for (auto [location, hex] :
       {std::pair{"end", kShardEnd}, std::pair{"start", kShardStart}}) {
    SCOPED_TRACE(location);
    auto codec = Make(ShardingJson({2, 2}, json::array({kLittle}), location), spec);
    ASSERT_NE(codec, nullptr);
    auto dec = codec->Decode(FromHex(hex), spec);
    ASSERT_TRUE(dec.ok()) << dec.status().ToString();
    EXPECT_TRUE(dec->bytes == expected.bytes);
    auto enc = codec->Encode(expected, spec);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    EXPECT_EQ(ToHex(*enc), ToHex(FromHex(hex)));
  }
}

TEST(ShardingCodecTest, MatchesZarrPythonMortonOrder) {
  ArraySpec spec = MakeSpec({12, 4}, DataType(DataTypeId::kInt32));
  std::vector<int32_t> v(48);
  for (int i = 0; i < 48; ++i) v[i] = 3 * i;
  auto codec = Make(ShardingJson({2, 2}, json::array({kLittle})), spec);
  auto enc = codec->Encode(Values(spec, v), spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(ToHex(*enc), ToHex(FromHex(kShard6x2)));
  auto dec = codec->Decode(*enc, spec);
  ASSERT_TRUE(dec.ok());
  EXPECT_TRUE(dec->bytes == Values(spec, v).bytes);
}

TEST(ShardingCodecTest, MatchesZarrPythonNestedShards) {
  ArraySpec spec = MakeSpec({8, 8}, DataType(DataTypeId::kUInt8));
  std::vector<uint8_t> v(64);
  for (int i = 0; i < 64; ++i) v[i] = static_cast<uint8_t>(i);
  json inner = ShardingJson({2, 2}, json::array({{{"name", "bytes"}}}));
  auto codec = Make(ShardingJson({4, 4}, json::array({inner})), spec);
  ASSERT_NE(codec, nullptr);
  auto dec = codec->Decode(FromHex(kShardNested), spec);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(dec->bytes == Values(spec, v).bytes);
  auto enc = codec->Encode(Values(spec, v), spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(ToHex(*enc), ToHex(FromHex(kShardNested)));
  // ToJson round-trips the nested configuration.
  auto again = Make(codec->ToJson(), spec);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->ToJson(), codec->ToJson());
}

TEST(ShardingCodecTest, PartialReadPieces) {
  ArraySpec spec = MakeSpec({4, 4}, DataType(DataTypeId::kUInt16));
  auto codec = Make(ShardingJson({2, 2}, json::array({kLittle})), spec);
  EXPECT_EQ(codec->chunk_shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(codec->chunks_per_shard(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(codec->num_inner_chunks(), 4);
  EXPECT_EQ(codec->index_size(), 4u * 16u + 4u);
  EXPECT_EQ(codec->index_location(), ShardingCodec::IndexLocation::kEnd);
  Buffer shard = FromHex(kShardEnd);
  auto entries = codec->DecodeIndex(shard.view().last(codec->index_size()), shard.size());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  using E = ShardingCodec::IndexEntry;
  EXPECT_TRUE((*entries)[0].missing());
  EXPECT_EQ((*entries)[1], (E{8, 8}));
  EXPECT_EQ((*entries)[2], (E{0, 8}));
  EXPECT_EQ((*entries)[3], (E{16, 8}));
  // Inner chunk [0, 1] holds rows 0-1, columns 2-3: 3, 4, 7, 8.
  auto inner = codec->DecodeInnerChunk(shard.view().subspan(8, 8));
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(ToHex(inner->bytes), "0300040007000800");
  EXPECT_EQ(codec->InnerChunkName(1), "inner chunk [0, 1]");
  auto index = codec->EncodeIndex(*entries);
  ASSERT_TRUE(index.ok());
  EXPECT_TRUE(*index == Buffer(shard.view().last(codec->index_size())));
}

TEST(ShardingCodecTest, EmptyInnerChunksAreNotStored) {
  ArraySpec spec = MakeSpec({4, 6}, DataType(DataTypeId::kFloat32));
  float fill = -1.0f;
  spec.fill_value.bytes.Assign({reinterpret_cast<const std::byte*>(&fill), 4});
  auto codec = Make(ShardingJson({2, 3}, json::array({kLittle, kCrc})), spec);
  ChunkArray all_fill = ChunkArray::Filled(spec);
  auto enc = codec->Encode(all_fill, spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->size(), codec->index_size());  // nothing but the index
  auto dec = codec->Decode(*enc, spec);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(dec->bytes == all_fill.bytes);
  // One changed element stores one inner chunk; the rest decode as fill.
  ChunkArray one = all_fill;
  float x = 7.0f;
  std::memcpy(one.bytes.data() + 4 * (3 * 6 + 5), &x, 4);  // element [3, 5]
  enc = codec->Encode(one, spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->size(), codec->index_size() + 6 * 4 + 4);
  dec = codec->Decode(*enc, spec);
  ASSERT_TRUE(dec.ok());
  EXPECT_TRUE(dec->bytes == one.bytes);
}

TEST(ShardingCodecTest, RoundTripsWithCompressionTransposeAndStrings) {
  ArraySpec spec = MakeSpec({6, 8}, DataType(DataTypeId::kInt64));
  json codecs =
      json::array({{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                   kLittle,
                   {{"name", "zstd"}, {"configuration", {{"level", 1}}}}});
  for (const char* location : {"start", "end"}) {
    auto codec = Make(ShardingJson({3, 4}, codecs, location), spec);
    ChunkArray c = testing::PatternChunk(spec);
    auto enc = codec->Encode(c, spec);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    auto dec = codec->Decode(*enc, spec);
    ASSERT_TRUE(dec.ok()) << dec.status().ToString();
    EXPECT_TRUE(dec->bytes == c.bytes);
  }
  ArraySpec str = MakeSpec({4, 4}, DataType(DataTypeId::kString));
  auto codec = Make(ShardingJson({2, 2}, json::array({{{"name", "vlen-utf8"}}})), str);
  ASSERT_NE(codec, nullptr);
  ChunkArray c = testing::PatternChunk(str);
  c.strings[0] = c.strings[1] = c.strings[4] = c.strings[5] =
      "";  // inner chunk [0, 0] is fill
  auto enc = codec->Encode(c, str);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  auto entries = codec->DecodeIndex(enc->view().last(codec->index_size()), enc->size());
  ASSERT_TRUE(entries.ok());
  EXPECT_TRUE((*entries)[0].missing());
  auto dec = codec->Decode(*enc, str);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(dec->strings, c.strings);
}

TEST(ShardingCodecTest, CorruptIndexIsCorruption) {
  ArraySpec spec = MakeSpec({4, 4}, DataType(DataTypeId::kUInt16));
  auto codec = Make(ShardingJson({2, 2}, json::array({kLittle})), spec);
  Buffer shard = FromHex(kShardEnd);
  // A flipped bit anywhere in the index fails its checksum.
  for (size_t byte = shard.size() - codec->index_size(); byte < shard.size(); ++byte) {
    Buffer bad = shard;
    bad.data()[byte] ^= std::byte{0x20};
    auto r = codec->Decode(bad, spec);
    ASSERT_FALSE(r.ok()) << byte;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find("shard index: codec crc32c"), std::string::npos)
        << r.status().message();
  }
  // Too short to hold the index.
  auto small = codec->Decode(shard.view().first(10), spec);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(codec->Decode(ByteView(), spec).status().code(), StatusCode::kCorruption);
}

TEST(ShardingCodecTest, IndexEntriesOutsideTheShardAreCorruption) {
  ArraySpec spec = MakeSpec({4, 4}, DataType(DataTypeId::kUInt16));
  auto codec = Make(ShardingJson({2, 2}, json::array({kLittle})), spec);
  Buffer shard = FromHex(kShardEnd);
  const size_t data = shard.size() - codec->index_size();
  using E = ShardingCodec::IndexEntry;
  auto entries =
      *codec->DecodeIndex(shard.view().last(codec->index_size()), shard.size());
  struct Case {
    E entry;
    const char* message;
  };
  for (const Case& c :
       {Case{E{20, 8},
             "inner chunk [1, 0] at bytes [20, +8) lies outside the shard's data"},
        Case{E{data, 1}, "inner chunk [1, 0]"},
        Case{E{~0ull - 4, 8}, "inner chunk [1, 0]"},
        Case{E{E::kMissing, 8}, "inner chunk [1, 0] has offset"},
        Case{E{0, E::kMissing}, "only one is the empty marker"}}) {
    std::vector<E> bad = entries;
    bad[2] = c.entry;
    Buffer rebuilt(shard.view().first(data));
    rebuilt.Append(*codec->EncodeIndex(bad));  // a valid checksum over a bad index
    auto r = codec->Decode(rebuilt, spec);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << r.status().message();
  }
  // Index at the start: data may not overlap the index.
  auto start = Make(ShardingJson({2, 2}, json::array({kLittle}), "start"), spec);
  Buffer s = FromHex(kShardStart);
  auto se = *start->DecodeIndex(s.view().first(start->index_size()), s.size());
  se[1] = E{0, 8};
  Buffer rebuilt = *start->EncodeIndex(se);
  rebuilt.Append(s.view().subspan(start->index_size()));
  auto r = start->Decode(rebuilt, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("inner chunk [0, 1]"), std::string::npos);
}

TEST(ShardingCodecTest, InnerChunkErrorsNameTheChunk) {
  ArraySpec spec = MakeSpec({4, 4}, DataType(DataTypeId::kUInt16));
  auto codec = Make(ShardingJson({2, 2}, json::array({kLittle, kCrc})), spec);
  ChunkArray c = Values(spec, Fixture4x4());
  Buffer enc = *codec->Encode(c, spec);
  auto entries = *codec->DecodeIndex(enc.view().last(codec->index_size()), enc.size());
  enc.data()[entries[3].offset] ^= std::byte{1};
  auto r = codec->Decode(enc, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("inner chunk [1, 1]: codec crc32c"),
            std::string::npos)
      << r.status().message();
}

TEST(ShardingCodecTest, RefusesBadConfiguration) {
  ArraySpec spec = MakeSpec({4, 6}, DataType(DataTypeId::kUInt16));
  struct Bad {
    json codec;
    const char* message;
  };
  json zstd = {{"name", "zstd"}, {"configuration", {{"level", 1}}}};
  for (const Bad& b : {
           Bad{ShardingJson({4, 4}, json::array({kLittle})),
               "does not divide the shard shape"},
           Bad{ShardingJson({2}, json::array({kLittle})), "has 1 dimensions"},
           Bad{ShardingJson({2, 0}, json::array({kLittle})), "positive integers"},
           Bad{ShardingJson({2, 3}, json::array({kLittle}), "middle"), "\"index_location\""},
           Bad{ShardingJson({2, 3}, json::array({kLittle}), "end",
                        json::array({kLittle, zstd})),
               "must have a fixed encoded size"},
           Bad{ShardingJson({2, 3}, json::array({kCrc})), "field \"codecs\""},
       }) {
    auto r = MakeCodec(b.codec, spec);
    ASSERT_FALSE(r.ok()) << b.codec.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(b.message), std::string::npos)
        << r.status().message();
  }
  // Used with a spec it was not built for.
  auto codec = Make(ShardingJson({2, 3}, json::array({kLittle})), spec);
  ArraySpec other = MakeSpec({2, 6}, spec.dtype);
  EXPECT_EQ(codec->Encode(ChunkArray::Filled(other), other).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ShardingCodecTest, DefaultsFollowZarrPython) {
  ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kUInt32));
  auto codec = Make(
      {{"name", "sharding_indexed"}, {"configuration", {{"chunk_shape", {2}}}}}, spec);
  ASSERT_NE(codec, nullptr);
  EXPECT_EQ(codec->ToJson()["configuration"],
            json({{"chunk_shape", {2}},
                  {"codecs", json::array({kLittle})},
                  {"index_codecs", json::array({kLittle, kCrc})},
                  {"index_location", "end"}}));
}

}  // namespace
}  // namespace turbozarr
