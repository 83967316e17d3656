#include "codec/zfpy_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::ToHex;

struct Case {
  const char* what;
  json config;  // numcodecs', without the id
  std::vector<int64_t> shape;
  DataTypeId type;
  const char* in;
  const char* out;
  const char* dec;
};

std::vector<Case> Cases() {
  return {
      {"accuracy f8 2-d", {{"mode", 4}, {"tolerance", 1e-3}}, {4, 5}, DataTypeId::kFloat64,
       testing::kZfpyF8AccuracyIn, testing::kZfpyF8AccuracyOut, testing::kZfpyF8AccuracyDec},
      {"rate f4 3-d", {{"mode", 2}, {"rate", 12}}, {2, 3, 5}, DataTypeId::kFloat32,
       testing::kZfpyF4RateIn, testing::kZfpyF4RateOut, testing::kZfpyF4RateDec},
      {"precision i4 1-d", {{"mode", 3}, {"precision", 20}}, {13}, DataTypeId::kInt32,
       testing::kZfpyI4PrecisionIn, testing::kZfpyI4PrecisionOut,
       testing::kZfpyI4PrecisionDec},
      {"reversible i8 4-d", {{"mode", 4}}, {2, 2, 3, 4}, DataTypeId::kInt64,
       testing::kZfpyI8ReversibleIn, testing::kZfpyI8ReversibleOut,
       testing::kZfpyI8ReversibleDec},
  };
}

std::shared_ptr<const ArrayToBytesCodec> Make(const json& config, const ArraySpec& spec,
                                              bool v3) {
  json j = config;
  Result<std::shared_ptr<const Codec>> codec =
      v3 ? MakeCodec({{"name", "numcodecs.zfpy"}, {"configuration", config}}, spec)
         : MakeV2Codec((j["id"] = "zfpy", j), spec);
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? std::dynamic_pointer_cast<const ArrayToBytesCodec>(*codec) : nullptr;
}

TEST(ZfpyCodecTest, EncodesAndDecodesAsNumcodecsZfpy) {
  for (const Case& c : Cases()) {
    for (bool v3 : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (v3 ? " (v3)" : " (v2)"));
      const ArraySpec spec = testing::MakeSpec(c.shape, DataType(c.type));
      auto codec = Make(c.config, spec, v3);
      ASSERT_NE(codec, nullptr);
      ChunkArray in;
      in.shape = c.shape;
      in.dtype = spec.dtype;
      in.bytes = FromHex(c.in);
      Result<Buffer> out = codec->Encode(in, spec);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ(ToHex(*out), c.out);
      Result<ChunkArray> dec = codec->Decode(FromHex(c.out), spec);
      ASSERT_TRUE(dec.ok()) << dec.status().ToString();
      EXPECT_EQ(ToHex(dec->bytes), c.dec);
    }
  }
}

TEST(ZfpyCodecTest, WritesItsConfigurationAsNumcodecsAndZarrPythonDo) {
  const ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kFloat64));
  auto v2 = Make({{"mode", 2}, {"rate", 8}}, spec, false);
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(*ToV2Json(*v2), json({{"id", "zfpy"},
                                {"mode", 2},
                                {"compression_kwargs", {{"rate", 8}}},
                                {"tolerance", -1},
                                {"rate", 8},
                                {"precision", -1}}));
  auto v3 = Make({{"mode", 2}, {"rate", 8}}, spec, true);
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(v3->ToJson(), json({{"name", "numcodecs.zfpy"},
                               {"configuration", {{"mode", 2}, {"rate", 8}}}}));
}

TEST(ZfpyCodecTest, DamagedOrForeignStreamsAreCorruptionNeverACrash) {
  const ArraySpec spec = testing::MakeSpec({4, 5}, DataType(DataTypeId::kFloat64));
  auto codec = Make({{"mode", 4}, {"tolerance", 1e-3}}, spec, false);
  ASSERT_NE(codec, nullptr);
  const Buffer good = FromHex(testing::kZfpyF8AccuracyOut);
  // Every cut of the stream, and every byte flipped.
  for (size_t n = 0; n < good.size(); ++n) {
    Buffer cut = good;
    cut.Resize(n);
    Result<ChunkArray> r = codec->Decode(cut, spec);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << n;
    }
  }
  for (size_t i = 0; i < good.size(); ++i) {
    Buffer bad = good;
    bad.data()[i] ^= std::byte{0xff};
    Result<ChunkArray> r = codec->Decode(bad, spec);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << i;
    }
  }
  // A stream of another shape or type than the chunk's.
  const ArraySpec other = testing::MakeSpec({5, 4}, DataType(DataTypeId::kFloat64));
  EXPECT_EQ(codec->Decode(good, other).status().code(), StatusCode::kCorruption);
  const ArraySpec f4 = testing::MakeSpec({4, 5}, DataType(DataTypeId::kFloat32));
  EXPECT_EQ(codec->Decode(good, f4).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(codec->Decode(Buffer(), spec).status().code(), StatusCode::kCorruption);
}

TEST(ZfpyCodecTest, WhatZfpCannotCompressIsRefusedByName) {
  const ArraySpec u2 = testing::MakeSpec({4}, DataType(DataTypeId::kUInt16));
  auto r = MakeV2Codec({{"id", "zfpy"}, {"mode", 4}, {"tolerance", 0.1}}, u2);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("not uint16"), std::string::npos) << r.status().ToString();
  const ArraySpec five = testing::MakeSpec({2, 2, 2, 2, 2}, DataType(DataTypeId::kFloat32));
  r = MakeV2Codec({{"id", "zfpy"}, {"mode", 4}}, five);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  const ArraySpec f8 = testing::MakeSpec({4}, DataType(DataTypeId::kFloat64));
  r = MakeV2Codec({{"id", "zfpy"}, {"mode", 5}}, f8);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("field \"mode\""), std::string::npos);
  r = MakeV2Codec({{"id", "zfpy"}, {"mode", 4}, {"tolerance", "small"}}, f8);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace turbozarr
