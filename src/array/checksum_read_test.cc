// A chunk damaged under a checksum (AddChecksum, turbozarr/checksum.h) is
// Corruption naming its key on every read path the engine has: a whole
// read, a region inside the chunk, a gather (ReadMany), streamed blocks
// (BlockIterator), a copy to another array, and the sharded partial reads of
// one inner chunk; the chunks it does not touch still read. Each layout's
// chain is one that turbozarr chooses (v3 crc32c last, v2 zstd's content
// checksum, v2 numcodecs crc32c behind blosc), and raw chunks (bytes +
// crc32c), whose partial reads could take elements straight from the
// stored bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/array_copy.h"
#include "turbozarr/array_read_many.h"
#include "turbozarr/block_iterator.h"
#include "turbozarr/checksum.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

constexpr int64_t kSide = 64;

struct Layout {
  const char* name;
  ArrayMetadata metadata;
  std::string damaged_key;  // the stored value that is damaged
};

std::vector<Layout> Layouts() {
  std::vector<Layout> out;
  auto add = [&](const char* name, ArrayMetadata m, std::string key) {
    AddChecksum(m);
    EXPECT_TRUE(HasChecksum(m)) << name;
    out.push_back({name, std::move(m), std::move(key)});
  };
  add("V3Zstd", Int32Metadata({kSide, kSide}, {16, 16}, json::array({kLittle, kZstd})),
      "a/c/1/2");
  add("V3Raw", Int32Metadata({kSide, kSide}, {16, 16}, json::array({kLittle})), "a/c/1/2");
  add("V3Sharded",
      Int32Metadata({kSide, kSide}, {32, 32},
                    Sharded({8, 8}, json::array({kLittle, kZstd}), "end")),
      "a/c/0/1");
  ArrayMetadata v2 = Int32Metadata({kSide, kSide}, {16, 16}, json::array());
  v2.zarr_format = 2;
  v2.chunk_key_encoding.kind = ChunkKeyEncoding::Kind::kV2;
  v2.chunk_key_encoding.separator = '.';
  v2.v2_compressor = {{"id", "zstd"}, {"level", 1}};
  add("V2Zstd", v2, "a/1.2");
  v2.v2_compressor = {{"id", "blosc"}, {"cname", "lz4"}, {"clevel", 5}, {"shuffle", 1},
                      {"blocksize", 0}};
  add("V2Blosc", v2, "a/1.2");
  return out;
}

class ChecksumReadTest : public ::testing::TestWithParam<int> {};

// Flips one bit in the middle of the stored value of `key`.
void FlipABit(Store& store, const std::string& key) {
  Result<std::optional<Buffer>> value = store.Get(key);
  ASSERT_TRUE(value.ok() && value->has_value()) << key;
  Buffer bytes = std::move(**value);
  bytes.data()[bytes.size() / 2] ^= std::byte{0x08};
  ASSERT_TRUE(store.Set(key, bytes.view()).ok());
}

void ExpectCorruptionNaming(const Status& s, const std::string& key, const char* path) {
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << path << ": " << s.ToString();
  // The key relative to the array, as every error names it.
  EXPECT_NE(s.message().find(key.substr(2)), std::string::npos) << path << ": " << s.ToString();
}

TEST_P(ChecksumReadTest, EveryReadPathFindsTheDamage) {
  const Layout layout = Layouts()[static_cast<size_t>(GetParam())];
  SCOPED_TRACE(layout.name);
  std::shared_ptr<Store> store = MakeMemoryStore();
  Result<std::shared_ptr<Array>> created = Array::Create(store, "a", layout.metadata);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::vector<int32_t> model = Pattern(kSide * kSide);
  const Selection all = Selection::All({kSide, kSide});
  ASSERT_TRUE((*created)->Write(all, model.data()).ok());
  FlipABit(*store, layout.damaged_key);

  Result<std::shared_ptr<Array>> opened = Array::Open(store, "a");
  ASSERT_TRUE(opened.ok());
  const Array& array = **opened;
  std::vector<int32_t> out(model.size());
  ExpectCorruptionNaming(array.Read(all, out), layout.damaged_key, "whole");

  // The element at the middle of the damaged chunk (or inner chunk): rows
  // 16-31, columns 32-47 for the chunked layouts, inside shard (0, 1) for
  // the sharded one. A region of one element must still be verified.
  const bool sharded = std::string(layout.name) == "V3Sharded";
  const Selection inside = sharded ? Selection({{8, 16, 1}, {40, 48, 1}})
                                   : Selection({{20, 21, 1}, {40, 41, 1}});
  std::vector<int32_t> small(static_cast<size_t>(inside.num_elements()));
  const Status partial = array.Read(inside, small);
  if (sharded) {
    // Which inner chunk the flipped bit lands in depends on their sizes;
    // every inner chunk of the shard, read alone, is right or Corruption.
    EXPECT_TRUE(partial.ok() || partial.code() == StatusCode::kCorruption) << partial.ToString();
  } else {
    ExpectCorruptionNaming(partial, layout.damaged_key, "one element");
  }
  const Selection elsewhere({{0, 16, 1}, {0, 16, 1}});
  std::vector<int32_t> fine(256);
  ASSERT_TRUE(array.Read(elsewhere, fine).ok());
  for (int64_t r = 0; r < 16; ++r) {
    for (int64_t c = 0; c < 16; ++c) ASSERT_EQ(fine[r * 16 + c], model[r * kSide + c]);
  }

  const std::vector<Selection> selections = {elsewhere, all};
  std::vector<int32_t> first(256), second(model.size());
  const std::vector<ElementSpan> outs = {ElementSpan(first), ElementSpan(second)};
  ExpectCorruptionNaming(ReadMany(array, selections, outs), layout.damaged_key, "gather");

  Result<BlockIterator> blocks = BlockIterator::Make(*opened, all);
  ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
  Status streamed = Status::OK();
  while (streamed.ok()) {
    Result<std::optional<Block>> block = blocks->Next();
    if (!block.ok()) {
      streamed = block.status();
    } else if (!block->has_value()) {
      break;
    }
  }
  ExpectCorruptionNaming(streamed, layout.damaged_key, "blocks");

  ArrayMetadata copy_metadata = layout.metadata;
  Result<std::shared_ptr<Array>> dest = Array::Create(store, "copy", copy_metadata);
  ASSERT_TRUE(dest.ok());
  ExpectCorruptionNaming(CopyArray(array, **dest).status(), layout.damaged_key, "copy");

  // Every inner chunk of the damaged shard read alone: the one holding the
  // flipped bit is Corruption, every other one its values.
  if (sharded) {
    int damaged = 0;
    for (int64_t r = 0; r < 32; r += 8) {
      for (int64_t c = 32; c < 64; c += 8) {
        std::vector<int32_t> inner(64);
        const Status s = array.Read(Selection({{r, r + 8, 1}, {c, c + 8, 1}}), inner);
        if (!s.ok()) {
          ExpectCorruptionNaming(s, layout.damaged_key, "inner chunk");
          ++damaged;
          continue;
        }
        for (int64_t i = 0; i < 64; ++i) {
          ASSERT_EQ(inner[i], model[(r + i / 8) * kSide + c + i % 8]);
        }
      }
    }
    EXPECT_EQ(damaged, 1);
  }
}

// Uncompressed chunks with a crc32c are read straight into the result, with
// the sum read beside them and checked over the result: two reads of the
// store per chunk and no buffer; a damaged, longer or shorter value is
// Corruption all the same.
TEST(ChecksumReadTest, RawChunksWithACrcAreReadStraightAndChecked) {
  std::shared_ptr<Store> memory = MakeMemoryStore();
  std::shared_ptr<MetricsStore> store = MakeMetricsStore(memory);
  ArrayMetadata m = Int32Metadata({kSide, kSide}, {16, kSide}, json::array({kLittle}));
  AddChecksum(m);
  Result<std::shared_ptr<Array>> array = Array::Create(store, "a", m);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  const std::vector<int32_t> model = Pattern(kSide * kSide, 3);
  const Selection all = Selection::All({kSide, kSide});
  ASSERT_TRUE((*array)->Write(all, model.data()).ok());
  store->ResetMetrics();
  std::vector<int32_t> out(model.size());
  ASSERT_TRUE((*array)->Read(all, out).ok());
  EXPECT_EQ(out, model);
  EXPECT_EQ(store->metrics().gets, 8u);  // 4 chunks: elements, then sum
  EXPECT_EQ(store->metrics().bytes_read, model.size() * 4 + 4 * 4);

  const std::string key = "a/c/1/0";
  Result<std::optional<Buffer>> stored = memory->Get(key);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  const Buffer pristine = std::move(**stored);
  auto read_with = [&](std::vector<std::byte> value) {
    EXPECT_TRUE(memory->Set(key, ByteView(value.data(), value.size())).ok());
    std::vector<int32_t> again(model.size());
    return (*array)->Read(all, again);
  };
  std::vector<std::byte> bytes(pristine.data(), pristine.data() + pristine.size());
  std::vector<std::byte> flipped = bytes;
  flipped[100] ^= std::byte{1};
  ExpectCorruptionNaming(read_with(flipped), "a/c/1/0", "flipped");
  std::vector<std::byte> sum_flipped = bytes;
  sum_flipped.back() ^= std::byte{0x80};
  ExpectCorruptionNaming(read_with(sum_flipped), "a/c/1/0", "sum flipped");
  std::vector<std::byte> longer = bytes;
  longer.push_back(std::byte{0});
  ExpectCorruptionNaming(read_with(longer), "a/c/1/0", "longer");
  std::vector<std::byte> shorter(bytes.begin(), bytes.end() - 1);
  ExpectCorruptionNaming(read_with(shorter), "a/c/1/0", "shorter");
  EXPECT_TRUE(read_with(bytes).ok());
}

INSTANTIATE_TEST_SUITE_P(Layouts, ChecksumReadTest, ::testing::Range(0, 5),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(Layouts()[info.param].name);
                         });

}  // namespace
}  // namespace turbozarr
