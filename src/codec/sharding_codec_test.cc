#include "codec/sharding_codec.h"

#include <gtest/gtest.h>

#include <cstring>

#include "codec/raw_bytes.h"
#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ToHex;

// Shards written by zarr-python 3.1.6 (write_empty_chunks false).
// uint16 (4, 4) = arange(16) + 1 with [0:2, 0:2] = 0 (fill), inner chunks
// (2, 2), codecs [bytes little], index_codecs [bytes little, crc32c], index at the end.
inline constexpr const char* kShardEnd =
    "09000a000d000e0003000400070008000b000c000f001000ffffffffffffffffffffffffffffffff0800"
    "000000000000080000000000000000000000000000000800000000000000100000000000000008000000"
    "000000001ba735a3";

// The same, index at the start.
inline constexpr const char* kShardStart =
    "ffffffffffffffffffffffffffffffff4c00000000000000080000000000000044000000000000000800"
    "00000000000054000000000000000800000000000000785a06f709000a000d000e000300040007000800"
    "0b000c000f001000";

// int32 (12, 4) = arange(48) * 3, inner chunks (2, 2): a 6 x 2 grid, so the
// Morton order is not a plain power-of-two square.
inline constexpr const char* kShard6x2 =
    "00000000030000000c0000000f000000180000001b000000240000002700000006000000090000001200"
    "0000150000001e000000210000002a0000002d00000030000000330000003c0000003f00000048000000"
    "4b0000005400000057000000360000003900000042000000450000004e000000510000005a0000005d00"
    "000060000000630000006c0000006f000000780000007b00000084000000870000006600000069000000"
    "72000000750000007e000000810000008a0000008d000000000000000000000010000000000000002000"
    "000000000000100000000000000010000000000000001000000000000000300000000000000010000000"
    "000000004000000000000000100000000000000060000000000000001000000000000000500000000000"
    "000010000000000000007000000000000000100000000000000080000000000000001000000000000000"
    "a000000000000000100000000000000090000000000000001000000000000000b0000000000000001000"
    "000000000000e0055e71";

// uint8 (8, 8) = arange(64); inner chunks (4, 4) that are themselves shards of
// (2, 2) chunks with codecs [bytes].
inline constexpr const char* kShardNested =
    "000108091011181902030a0b12131a1b0000000000000000040000000000000008000000000000000400"
    "000000000000040000000000000004000000000000000c000000000000000400000000000000adf3c793"
    "202128293031383922232a2b32333a3b0000000000000000040000000000000008000000000000000400"
    "000000000000040000000000000004000000000000000c000000000000000400000000000000adf3c793"
    "04050c0d14151c1d06070e0f16171e1f0000000000000000040000000000000008000000000000000400"
    "000000000000040000000000000004000000000000000c000000000000000400000000000000adf3c793"
    "24252c2d34353c3d26272e2f36373e3f0000000000000000040000000000000008000000000000000400"
    "000000000000040000000000000004000000000000000c000000000000000400000000000000adf3c793"
    "00000000000000005400000000000000a800000000000000540000000000000054000000000000005400"
    "000000000000fc000000000000005400000000000000be305df2";

const json kLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kCrc = {{"name", "crc32c"}};

json Sharding(json chunk_shape, json codecs, std::string location = "end",
              json index_codecs = json::array({kLittle, kCrc})) {
  return {{"name", "sharding_indexed"},
          {"configuration",
           {{"chunk_shape", chunk_shape},
            {"codecs", codecs},
            {"index_codecs", index_codecs},
            {"index_location", location}}}};
}

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
    auto codec = Make(Sharding({2, 2}, json::array({kLittle}), location), spec);
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
  auto codec = Make(Sharding({2, 2}, json::array({kLittle})), spec);
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
  json inner = Sharding({2, 2}, json::array({{{"name", "bytes"}}}));
  auto codec = Make(Sharding({4, 4}, json::array({inner})), spec);
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
  auto codec = Make(Sharding({2, 2}, json::array({kLittle})), spec);
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
  auto codec = Make(Sharding({2, 3}, json::array({kLittle, kCrc})), spec);
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
    auto codec = Make(Sharding({3, 4}, codecs, location), spec);
    ChunkArray c = testing::PatternChunk(spec);
    auto enc = codec->Encode(c, spec);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    auto dec = codec->Decode(*enc, spec);
    ASSERT_TRUE(dec.ok()) << dec.status().ToString();
    EXPECT_TRUE(dec->bytes == c.bytes);
  }
  ArraySpec str = MakeSpec({4, 4}, DataType(DataTypeId::kString));
  auto codec = Make(Sharding({2, 2}, json::array({{{"name", "vlen-utf8"}}})), str);
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
  auto codec = Make(Sharding({2, 2}, json::array({kLittle})), spec);
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
  auto codec = Make(Sharding({2, 2}, json::array({kLittle})), spec);
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
  auto start = Make(Sharding({2, 2}, json::array({kLittle}), "start"), spec);
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
  auto codec = Make(Sharding({2, 2}, json::array({kLittle, kCrc})), spec);
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
           Bad{Sharding({4, 4}, json::array({kLittle})),
               "does not divide the shard shape"},
           Bad{Sharding({2}, json::array({kLittle})), "has 1 dimensions"},
           Bad{Sharding({2, 0}, json::array({kLittle})), "positive integers"},
           Bad{Sharding({2, 3}, json::array({kLittle}), "middle"), "\"index_location\""},
           Bad{Sharding({2, 3}, json::array({kLittle}), "end",
                        json::array({kLittle, zstd})),
               "must have a fixed encoded size"},
           Bad{Sharding({2, 3}, json::array({kCrc})), "field \"codecs\""},
       }) {
    auto r = MakeCodec(b.codec, spec);
    ASSERT_FALSE(r.ok()) << b.codec.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(b.message), std::string::npos)
        << r.status().message();
  }
  // Used with a spec it was not built for.
  auto codec = Make(Sharding({2, 3}, json::array({kLittle})), spec);
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
