// numcodecs' shuffle filter: the bytes numcodecs 0.16 gives, the round trip,
// its JSON forms, and sizes that are not whole elements.
#include "codec/shuffle_codec.h"

#include <gtest/gtest.h>

#include "codec/codec_registry.h"
#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;

const ArraySpec kSpec = testing::MakeSpec({12}, DataType(DataTypeId::kUInt8));

std::shared_ptr<const BytesToBytesCodec> Shuffle(json config) {
  config["id"] = "shuffle";
  auto codec = MakeV2Codec(config, kSpec);
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? std::dynamic_pointer_cast<const BytesToBytesCodec>(*codec) : nullptr;
}

TEST(ShuffleCodecTest, MatchesNumcodecsBytes) {
  const Buffer original = testing::FromHex("000102030405060708090a0b");
  struct Case {
    json config;
    const char* encoded;  // numcodecs.Shuffle(**config).encode(arange(12, u1))
  };
  for (const Case& c : {Case{json::object(), "00040801050902060a03070b"},
                        Case{{{"elementsize", 3}}, "000306090104070a0205080b"},
                        Case{{{"elementsize", 1}}, "000102030405060708090a0b"},
                        Case{{{"elementsize", 0}}, "000102030405060708090a0b"}}) {
    SCOPED_TRACE(c.config.dump());
    auto codec = Shuffle(c.config);
    ASSERT_NE(codec, nullptr);
    auto encoded = codec->Encode(original.view());
    ASSERT_TRUE(encoded.ok());
    EXPECT_EQ(testing::ToHex(encoded->view()), c.encoded);
    auto decoded = codec->Decode(encoded->view(), original.size());
    ASSERT_TRUE(decoded.ok());
    EXPECT_TRUE(*decoded == original);
  }
}

TEST(ShuffleCodecTest, JsonFormsInBothFormats) {
  auto v2 = Shuffle({{"elementsize", 8}});
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(*ToV2Json(*v2), json({{"id", "shuffle"}, {"elementsize", 8}}));
  auto v3 = MakeCodec({{"name", "numcodecs.shuffle"}, {"configuration", json::object()}},
                      kSpec);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ((*v3)->ToJson(), json({{"name", "numcodecs.shuffle"},
                                   {"configuration", {{"elementsize", 4}}}}));
}

TEST(ShuffleCodecTest, RefusesPartialElements) {
  auto codec = Shuffle({{"elementsize", 5}});
  ASSERT_NE(codec, nullptr);
  const Buffer twelve = testing::FromHex("000102030405060708090a0b");
  EXPECT_EQ(codec->Encode(twelve.view()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(codec->Decode(twelve.view(), std::nullopt).status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(codec->Decode(twelve.view(), 10).status().code(), StatusCode::kCorruption);
  EXPECT_FALSE(MakeV2Codec({{"id", "shuffle"}, {"elementsize", -1}}, kSpec).ok());
}

}  // namespace
}  // namespace turbozarr
