// Hostile input: metadata and chunks written to make a reader crash, hang or
// allocate without bound. Each must be a clean error that names what is
// wrong (InvalidArgument, Corruption or Unsupported), from opening or from
// a read, and never a crash or a huge allocation (make test-sanitize runs
// these under AddressSanitizer, whose allocator refuses absurd sizes).
#include <gtest/gtest.h>
#include <zstd.h>

#include <string>
#include <vector>

#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

std::string V3(const std::string& shape, const std::string& chunks,
               const std::string& codecs = R"([{"name":"bytes","configuration":{"endian":"little"}}])") {
  return R"({"zarr_format":3,"node_type":"array","shape":)" + shape +
         R"(,"data_type":"int32","chunk_grid":{"name":"regular","configuration":{"chunk_shape":)" +
         chunks +
         R"(}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,"codecs":)" +
         codecs + "}";
}

// Opens "a" with `document` as its zarr.json: answers the status of the
// open, or of reading element 0 when the open succeeds.
Status OpenAndRead(const std::string& document, std::shared_ptr<Store> store = nullptr) {
  if (store == nullptr) store = MakeMemoryStore();
  EXPECT_TRUE(store->Set("a/zarr.json", AsBytes(document)).ok());
  auto a = Array::Open(store, "a");
  if (!a.ok()) return a.status();
  std::vector<int32_t> one(1);
  std::vector<DimRange> first;
  for (size_t d = 0; d < (*a)->shape().size(); ++d) first.push_back({0, 1, 1});
  return (*a)->Read(Selection(first), one);
}

bool Clean(const Status& s) {
  return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kCorruption ||
         s.code() == StatusCode::kUnsupported;
}

TEST(HostileInputTest, ShapesWhoseSizesOverflowAreRefused) {
  // Elements past 2^63, chunks past 2^63, one chunk of 2^62 elements.
  for (const auto& [shape, chunks] : std::vector<std::pair<std::string, std::string>>{
           {"[4611686018427387904, 4611686018427387904]", "[1, 1]"},
           {"[9223372036854775807, 9223372036854775807, 9223372036854775807]", "[1, 1, 1]"},
           {"[4611686018427387904]", "[4611686018427387904]"},
           {"[-5]", "[1]"},
           {"[10]", "[0]"}}) {
    Status s = OpenAndRead(V3(shape, chunks));
    EXPECT_FALSE(s.ok()) << shape << " / " << chunks;
    EXPECT_TRUE(Clean(s)) << shape << " / " << chunks << ": " << s.ToString();
  }
}

TEST(HostileInputTest, V2ChunksWhoseSizesOverflowAreRefusedBeforeTheCodecsAreBuilt) {
  // The v2 reader derives the v3 codecs from the compressor, which multiplies
  // the chunk shape out: the sizes must be checked first (the overflow it
  // would meet otherwise shows under the sanitizer build).
  for (const char* compressor :
       {"null", R"({"id":"blosc","cname":"lz4","clevel":5,"shuffle":1})",
        R"({"id":"zstd","level":1})"}) {
    const std::string zarray =
        R"({"zarr_format":2,"shape":[1000,1000],"chunks":[1066666666666666660,100],)"
        R"("dtype":">u4","compressor":)" +
        std::string(compressor) + R"(,"fill_value":0,"filters":null,"order":"C"})";
    auto store = MakeMemoryStore();
    ASSERT_TRUE(store->Set("a/.zarray", AsBytes(zarray)).ok());
    auto a = Array::Open(store, "a");
    ASSERT_FALSE(a.ok()) << compressor;
    EXPECT_EQ(a.status().code(), StatusCode::kCorruption) << a.status().ToString();
    EXPECT_NE(a.status().message().find("chunks of more than 2^63 bytes"), std::string::npos)
        << a.status().ToString();
  }
}

TEST(HostileInputTest, CreatingAnArrayTooLargeToAddressIsInvalidArgument) {
  ArrayMetadata m = Int32Metadata({int64_t{1} << 62, 8}, {1, 1}, json::array({kLittle}));
  auto a = Array::Create(MakeMemoryStore(), "a", m);
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument) << a.status().ToString();
  EXPECT_NE(a.status().message().find("more than 2^63 elements"), std::string::npos)
      << a.status().ToString();
  m = Int32Metadata({8}, {int64_t{1} << 62}, json::array({kLittle}));
  a = Array::Create(MakeMemoryStore(), "a", m);
  EXPECT_NE(a.status().message().find("chunks of more than 2^63 bytes"), std::string::npos)
      << a.status().ToString();
}

TEST(HostileInputTest, DeeplyNestedJsonIsRefused) {
  // Attributes a million levels deep, and as the whole document.
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  std::string doc = V3("[4]", "[4]");
  doc.insert(doc.size() - 1, R"(,"attributes":{"x":)" + deep + "}");
  Status s = OpenAndRead(doc);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Clean(s)) << s.ToString();
  Status whole = OpenAndRead(deep);
  EXPECT_FALSE(whole.ok());
  EXPECT_TRUE(Clean(whole)) << whole.ToString();
}

// A zstd frame whose header claims far more than the chunk holds: bounded
// by the chunk's size, a Corruption error naming the chunk.
TEST(HostileInputTest, AChunkClaimingAHugeDecodedSizeIsCorruption) {
  auto store = MakeMemoryStore();
  std::vector<char> big(1 << 20, 0);  // 1 MiB of zeros: compresses to a few bytes
  std::vector<char> frame(ZSTD_compressBound(big.size()));
  frame.resize(ZSTD_compress(frame.data(), frame.size(), big.data(), big.size(), 1));
  const std::string codecs =
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1,"checksum":false}}])";
  ASSERT_TRUE(store->Set("a/c/0", ByteView(reinterpret_cast<const std::byte*>(frame.data()),
                                           frame.size()))
                  .ok());
  Status s = OpenAndRead(V3("[16]", "[16]", codecs), store);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("c/0"), std::string::npos) << s.ToString();
}

// Shard indexes that point past the end of the shard, at ranges whose end
// overflows, or at a chunk of the wrong size: Corruption naming the shard.
TEST(HostileInputTest, ShardIndexesThatLieAreCorruption) {
  const std::string codecs =
      R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_location":"end"}}])";
  // Two inner chunks of 8 bytes each, then the index: (offset, nbytes) x 2.
  auto shard = [](uint64_t o0, uint64_t n0, uint64_t o1, uint64_t n1) {
    std::string s(16, '\x01');
    for (uint64_t v : {o0, n0, o1, n1}) s.append(reinterpret_cast<const char*>(&v), 8);
    return s;
  };
  const struct {
    const char* what;
    std::string bytes;
  } cases[] = {
      {"past the end", shard(0, 8, 8, 4096)},
      {"overflowing", shard(0, 8, UINT64_MAX - 2, 8)},
      {"wrong size", shard(0, 3, 8, 8)},
  };
  for (const auto& c : cases) {
    auto store = MakeMemoryStore();
    ASSERT_TRUE(store->Set("a/c/0", AsBytes(c.bytes)).ok());
    ASSERT_TRUE(store->Set("a/zarr.json", AsBytes(V3("[4]", "[4]", codecs))).ok());
    auto a = Array::Open(store, "a");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    std::vector<int32_t> all(4);
    Status s = (*a)->Read(Selection({{0, 4, 1}}), all);
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << c.what << ": " << s.ToString();
    EXPECT_NE(s.message().find("c/0"), std::string::npos) << c.what << ": " << s.ToString();
  }
}

}  // namespace
}  // namespace turbozarr
