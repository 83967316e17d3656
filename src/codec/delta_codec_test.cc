// numcodecs' delta filter: encoded and decoded bytes as numcodecs 0.16 gives
// them (integers wrapping around, floats summed in order), its JSON forms,
// and the configurations it refuses.
#include "codec/delta_codec.h"

#include <gtest/gtest.h>

#include "codec/codec_registry.h"
#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using namespace testing;  // NOLINT: FromHex, ToHex, MakeSpec

struct Vector {
  const char* dtype;
  DataType type;
  const char* original;
  const char* encoded;  // numcodecs.Delta(dtype).encode(original)
  const char* decoded;  // numcodecs.Delta(dtype).decode(encoded)
};

TEST(DeltaCodecTest, MatchesNumcodecsBytes) {
  const Vector vectors[] = {
      {"<i2", DataType(DataTypeId::kInt16), "6400660062000080ff7f0000",
       "64000200fcff9e7fffff0180", "6400660062000080ff7f0000"},
      {"|u1", DataType(DataTypeId::kUInt8), "fa0503ff", "fa0bfefc", "fa0503ff"},
      {"<f8", DataType(DataTypeId::kFloat64),
       "9a9999999999b93f9a9999999999c93f666666666666e63f9c7500883ce4377e9c7500883ce437fe"
       "0000000000000c40",
       "9a9999999999b93f9a9999999999b93fffffffffffffdf3f9c7500883ce4377e9c7500883ce447fe"
       "9c7500883ce4377e",
       "9a9999999999b93f9a9999999999c93f666666666666e63f9c7500883ce4377e9c7500883ce437fe"
       "0000000000000000"},
      {"<f4", DataType(DataTypeId::kFloat32), "cdcccc3d9a99993e6f12833a0000e040",
       "cdcccc3dcecc4c3e881699becff7df40", "cdcccc3d9a99993e0012833a0000e040"},
  };
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.dtype);
    const Buffer original = FromHex(v.original);
    const int64_t n = static_cast<int64_t>(original.size() / v.type.size());
    ArraySpec spec = MakeSpec({n}, v.type);
    auto codec = MakeV2Codec({{"id", "delta"}, {"dtype", v.dtype}}, spec);
    ASSERT_TRUE(codec.ok()) << codec.status().ToString();
    auto delta = std::dynamic_pointer_cast<const ArrayToArrayCodec>(*codec);
    ASSERT_NE(delta, nullptr);

    ChunkArray a;
    a.shape = {n};
    a.dtype = v.type;
    a.bytes = original;
    auto encoded = delta->Encode(std::move(a));
    ASSERT_TRUE(encoded.ok());
    EXPECT_EQ(ToHex(encoded->bytes.view()), v.encoded);

    ChunkArray e;
    e.shape = {n};
    e.dtype = v.type;
    e.bytes = FromHex(v.encoded);
    auto decoded = delta->Decode(std::move(e), spec);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(ToHex(decoded->bytes.view()), v.decoded);
  }
}

TEST(DeltaCodecTest, JsonFormsInBothFormats) {
  ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kInt32));
  auto v2 = MakeV2Codec({{"id", "delta"}, {"dtype", "<i4"}, {"astype", "<i4"}}, spec);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(*ToV2Json(**v2), json({{"id", "delta"}, {"dtype", "<i4"}, {"astype", "<i4"}}));
  auto v3 = MakeCodec({{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<i4"}}}},
                      spec);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ((*v3)->ToJson(), json({{"name", "numcodecs.delta"},
                                   {"configuration", {{"dtype", "<i4"}, {"astype", "<i4"}}}}));
}

TEST(DeltaCodecTest, RefusesWhatItCannotReproduce) {
  ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kInt32));
  struct Case {
    json config;
    StatusCode code;
    const char* says;
  };
  const Case cases[] = {
      {{{"id", "delta"}, {"dtype", "<i4"}, {"astype", "<i2"}}, StatusCode::kUnsupported,
       "astype"},
      {{{"id", "delta"}, {"dtype", "<i8"}}, StatusCode::kUnsupported, "data type"},
      {{{"id", "delta"}}, StatusCode::kInvalidArgument, "dtype"},
      {{{"id", "delta"}, {"dtype", "<i4"}, {"level", 1}}, StatusCode::kInvalidArgument,
       "level"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.config.dump());
    auto codec = MakeV2Codec(c.config, spec);
    ASSERT_FALSE(codec.ok());
    EXPECT_EQ(codec.status().code(), c.code) << codec.status().ToString();
    EXPECT_NE(codec.status().ToString().find(c.says), std::string::npos)
        << codec.status().ToString();
  }
  ArraySpec text = MakeSpec({4}, DataType(DataTypeId::kString));
  EXPECT_EQ(MakeV2Codec({{"id", "delta"}, {"dtype", "|O"}}, text).status().code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace turbozarr
