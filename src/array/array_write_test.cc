// The write pipeline: every encode route stores the bytes CodecChain::Encode
// gives, sharded writes store the bytes ShardingCodec::Encode gives, partial
// shard writes keep untouched inner chunks' bytes, and what each write costs
// in store calls, with empty chunks and failures.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "array/chunk_encode.h"
#include "array/chunk_region.h"
#include "array/shard_plan.h"
#include "codec/sharding/shard_store.h"
#include "codec/sharding/shard_writer.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"

namespace turbozarr {
namespace {

using internal::EncodeRoute;
using nlohmann::json;
using namespace fixtures;  // NOLINT: the shared test fixtures

const json kZstdChecked = {{"name", "zstd"},
                           {"configuration", {{"level", 1}, {"checksum", true}}}};

// Every chain shape the write path distinguishes.
std::vector<json> Chains() {
  return {json::array({kLittle}),
          json::array({kBig}),
          json::array({kLittle, kCrc}),
          json::array({kBig, kZstd, kCrc}),
          json::array({kLittle, kGzip}),
          json::array({kLittle, kBlosc}),
          json::array({kTranspose, kLittle, kZstd})};
}

// Calls fn(offset in an array of `shape`, position in the block) for every
// element `sel` selects, in order.
template <typename Fn>
void ForEachSelected(const Selection& sel, const std::vector<int64_t>& shape, Fn fn) {
  std::vector<int64_t> idx(sel.rank(), 0);
  const int64_t n = sel.num_elements();
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < sel.rank(); ++d) {
      off = off * shape[d] + sel.dims()[d].start + idx[d] * sel.dims()[d].step;
    }
    fn(off, k);
    for (size_t d = sel.rank(); d-- > 0;) {
      if (++idx[d] < sel.dims()[d].count()) break;
      idx[d] = 0;
    }
  }
}

// Writes `values` into `sel` of the dense C-order `model` of `shape`.
void Apply(std::vector<int32_t>& model, const std::vector<int64_t>& shape,
           const Selection& sel, const std::vector<int32_t>& values) {
  ForEachSelected(sel, shape, [&](int64_t off, int64_t k) { model[off] = values[k]; });
}

Selection RandomSelection(std::mt19937& rng, const std::vector<int64_t>& shape) {
  std::vector<DimRange> dims;
  for (int64_t extent : shape) {
    int64_t a = std::uniform_int_distribution<int64_t>(0, extent - 1)(rng);
    int64_t b = std::uniform_int_distribution<int64_t>(0, extent - 1)(rng);
    int64_t step = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    dims.push_back({std::min(a, b), std::max(a, b) + 1, step});
  }
  return Selection(dims);
}

// A memory store that counts the calls it serves and can be told to fail
// the reads or writes of one key.
class CountingStore final : public Store {
 public:
  CountingStore() : inner_(MakeMemoryStore()) {}
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    for (const ReadRequest& r : requests) {
      ++gets_;
      if (r.key == fail_get_) return Status::IOError("injected read failure");
    }
    return inner_->Read(requests, answers);
  }
  Status Set(std::string_view key, ByteView value) override {
    ++sets_;
    if (key == fail_set_) return Status::IOError("injected write failure");
    return inner_->Set(key, value);
  }
  Status Erase(std::string_view key) override {
    ++erases_;
    return inner_->Erase(key);
  }
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    return inner_->List(prefix);
  }
  std::string Describe() const override { return "counting://"; }

  void Reset() { gets_ = sets_ = erases_ = 0; }
  int64_t gets() const { return gets_; }
  int64_t sets() const { return sets_; }
  int64_t erases() const { return erases_; }
  std::string fail_get_, fail_set_;

 private:
  std::shared_ptr<Store> inner_;
  std::atomic<int64_t> gets_{0}, sets_{0}, erases_{0};
};

std::optional<Buffer> Stored(Store& store, const std::string& key) {
  auto got = store.Get(key, ByteRange::Full());
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? std::move(*got) : std::nullopt;
}

// Restores the default pool's size after a test that changes it.
class PoolSize {
 public:
  ~PoolSize() { EXPECT_TRUE(SetThreads(2).ok()); }
};

// ---------------------------------------------------------------------------
// One chunk, encoded by each route.

struct RouteCase {
  const char* what;
  std::vector<int64_t> array_shape;
  Selection sel;
  std::vector<int64_t> chunk_coords;
  bool with_old;
};

TEST(EncodeChunkFromBlockTest, EveryRouteGivesTheBytesEncodeGives) {
  const std::vector<int64_t> chunk_shape = {4, 6};
  const std::vector<RouteCase> cases = {
      {"whole, contiguous", {4, 6}, Selection::All({4, 6}), {0, 0}, false},
      {"whole, inside a wider block", {8, 12}, Selection::All({8, 12}), {1, 1}, false},
      {"part, old chunk", {8, 12}, Selection({{1, 7, 1}, {2, 9, 1}}), {0, 1}, true},
      {"part, no old chunk", {8, 12}, Selection({{1, 7, 1}, {2, 9, 1}}), {0, 1}, false},
      {"strided part, old chunk",
       {8, 12},
       Selection({{0, 8, 3}, {1, 12, 2}}),
       {1, 0},
       true},
      {"clipped by the edge", {6, 9}, Selection::All({6, 9}), {1, 1}, false},
  };
  for (const json& codecs : Chains()) {
    ArraySpec spec{chunk_shape, DataType(DataTypeId::kInt32), {}};
    spec.fill_value = DefaultFillValue(spec.dtype);
    std::memcpy(spec.fill_value.bytes.data(), &kFill, 4);
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    for (const RouteCase& c : cases) {
      SCOPED_TRACE(codecs.dump() + ": " + c.what);
      const std::vector<int64_t> block_shape = c.sel.shape();
      const std::vector<int32_t> block = Pattern(c.sel.num_elements(), 3);
      const std::vector<int32_t> old_values = Pattern(24, 40);
      ChunkArray old_chunk{chunk_shape, spec.dtype, {}, {}};
      old_chunk.bytes.Assign({reinterpret_cast<const std::byte*>(old_values.data()), 96});
      auto old_bytes = chain->Encode(old_chunk);
      ASSERT_TRUE(old_bytes.ok());

      ChunkProjection p;
      for (const ChunkProjection& q : PlanChunks(c.sel, c.array_shape, chunk_shape)) {
        if (q.chunk_coords == c.chunk_coords) p = q;
      }
      ASSERT_EQ(p.chunk_coords, c.chunk_coords);
      // The chunk element by element: old or fill, then the block's share.
      std::vector<int32_t> expected(24, kFill);
      if (c.with_old && !p.covers_chunk) expected = old_values;
      for (int64_t k = 0; k < NumElements(p.count); ++k) {
        const int64_t i = k / p.count[1], j = k % p.count[1];
        const int64_t row = p.chunk_start[0] + i * p.step[0];
        const int64_t col = p.chunk_start[1] + j * p.step[1];
        const int64_t out = (p.out_start[0] + i) * block_shape[1] + p.out_start[1] + j;
        expected[row * 6 + col] = block[out];
      }
      ChunkArray want{chunk_shape, spec.dtype, {}, {}};
      want.bytes.Assign({reinterpret_cast<const std::byte*>(expected.data()), 96});
      auto want_bytes = chain->Encode(want);
      ASSERT_TRUE(want_bytes.ok());

      internal::EncodedChunk got;
      ASSERT_TRUE(
          internal::EncodeChunkFromBlock(
              *chain, p, block_shape, block.data(),
              c.with_old ? std::optional<ByteView>(old_bytes->view()) : std::nullopt,
              false, got)
              .ok());
      EXPECT_FALSE(got.empty);
      EXPECT_TRUE(std::equal(got.bytes.begin(), got.bytes.end(),
                             want_bytes->view().begin(), want_bytes->view().end()));
    }
  }
}

TEST(EncodeChunkFromBlockTest, RoutesFollowTheChainAndTheBlock) {
  ArraySpec spec{{4, 6},
                 DataType(DataTypeId::kInt32),
                 DefaultFillValue(DataType(DataTypeId::kInt32))};
  auto plain = CodecChain::FromJson(json::array({kBig, kZstd}), spec);
  auto transposed = CodecChain::FromJson(json::array({kTranspose, kLittle}), spec);
  ASSERT_TRUE(plain.ok() && transposed.ok());
  auto projection = [&](const std::vector<int64_t>& shape, const Selection& sel) {
    return PlanChunks(sel, shape, {4, 6}).front();
  };
  // A whole chunk that is one run of the block: rows of the full width.
  ChunkProjection whole = projection({8, 6}, Selection::All({8, 6}));
  EXPECT_EQ(internal::ChooseEncodeRoute(*plain, whole, {8, 6}), EncodeRoute::kFromBlock);
  EXPECT_EQ(internal::ChooseEncodeRoute(*transposed, whole, {8, 6}),
            EncodeRoute::kChunkArray);
  // A whole chunk of a wider block is not one run; nor is part of a chunk.
  ChunkProjection wide = projection({4, 12}, Selection::All({4, 12}));
  EXPECT_EQ(internal::ChooseEncodeRoute(*plain, wide, {4, 12}), EncodeRoute::kScratch);
  ChunkProjection part = projection({4, 6}, Selection({{0, 4, 1}, {0, 5, 1}}));
  EXPECT_EQ(internal::ChooseEncodeRoute(*plain, part, {4, 5}), EncodeRoute::kScratch);
}

TEST(EncodeChunkFromBlockTest, FillChunksAreEmptyUnlessAsked) {
  ArraySpec spec{{4, 6}, DataType(DataTypeId::kInt32), {}};
  spec.fill_value = DefaultFillValue(spec.dtype);
  std::memcpy(spec.fill_value.bytes.data(), &kFill, 4);
  const std::vector<int32_t> fill(24, kFill);
  for (const json& codecs : Chains()) {
    SCOPED_TRACE(codecs.dump());
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok());
    const ChunkProjection p = PlanChunks(Selection::All({4, 6}), {4, 6}, {4, 6}).front();
    internal::EncodedChunk got;
    ASSERT_TRUE(internal::EncodeChunkFromBlock(*chain, p, {4, 6}, fill.data(),
                                               std::nullopt, false, got)
                    .ok());
    EXPECT_TRUE(got.empty);
    ASSERT_TRUE(internal::EncodeChunkFromBlock(*chain, p, {4, 6}, fill.data(),
                                               std::nullopt, true, got)
                    .ok());
    EXPECT_FALSE(got.empty);
    auto want = chain->Encode(ChunkArray::Filled(spec));
    ASSERT_TRUE(want.ok());
    EXPECT_TRUE(std::equal(got.bytes.begin(), got.bytes.end(), want->view().begin(),
                           want->view().end()));
  }
}

TEST(EncodeChunkFromBlockTest, RawChunkIsTheCallersMemory) {
  ArraySpec spec{{4, 6},
                 DataType(DataTypeId::kInt32),
                 DefaultFillValue(DataType(DataTypeId::kInt32))};
  auto chain = CodecChain::FromJson(json::array({kLittle}), spec);
  ASSERT_TRUE(chain.ok());
  const std::vector<int32_t> block = Pattern(48);
  // The second chunk of an 8 x 6 block: rows 4..7.
  const ChunkProjection p = PlanChunks(Selection::All({8, 6}), {8, 6}, {4, 6})[1];
  internal::EncodedChunk got;
  ASSERT_TRUE(internal::EncodeChunkFromBlock(*chain, p, {8, 6}, block.data(),
                                             std::nullopt, false, got)
                  .ok());
  EXPECT_EQ(got.bytes.data(), reinterpret_cast<const std::byte*>(block.data() + 24));
  EXPECT_EQ(got.bytes.size(), 96u);
}

// ---------------------------------------------------------------------------
// Unsharded arrays.

TEST(ArrayWriteTest, RandomWritesOfEveryChainMatchTheModel) {
  PoolSize restore;
  const std::vector<int64_t> shape = {23, 17};
  for (const json& codecs : Chains()) {
    SCOPED_TRACE(codecs.dump());
    auto store = MakeMemoryStore();
    auto a = Array::Create(store, "w", Int32Metadata(shape, {5, 4}, codecs));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    std::vector<int32_t> model(NumElements(shape), kFill);
    std::mt19937 rng(7);
    for (int round = 0; round < 12; ++round) {
      EXPECT_TRUE(SetThreads(round % 2 ? 3 : 1).ok());
      Selection sel = round == 0 ? Selection::All(shape) : RandomSelection(rng, shape);
      std::vector<int32_t> values = Pattern(sel.num_elements(), round);
      if (round % 4 == 3) values.assign(values.size(), kFill);
      ASSERT_TRUE((*a)->Write(sel, values.data()).ok()) << sel.ToString();
      Apply(model, shape, sel, values);
    }
    std::vector<int32_t> all(model.size());
    ASSERT_TRUE((*a)->Read(Selection::All(shape), all).ok());
    EXPECT_EQ(all, model);
    // Every stored chunk is what the chain encodes; all-fill chunks are absent.
    for (int64_t r = 0; r < 5; ++r) {
      for (int64_t c = 0; c < 5; ++c) {
        std::vector<int32_t> chunk(20, kFill);
        bool all_fill = true;
        for (int64_t i = 0; i < 5; ++i) {
          for (int64_t j = 0; j < 4; ++j) {
            if (r * 5 + i < shape[0] && c * 4 + j < shape[1]) {
              chunk[i * 4 + j] = model[(r * 5 + i) * shape[1] + c * 4 + j];
              all_fill = all_fill && chunk[i * 4 + j] == kFill;
            }
          }
        }
        const std::optional<Buffer> stored = Stored(*store, (*a)->ChunkKey({r, c}));
        ASSERT_EQ(stored.has_value(), !all_fill) << r << ", " << c;
        if (!stored) continue;
        ChunkArray want{{5, 4}, DataType(DataTypeId::kInt32), {}, {}};
        want.bytes.Assign({reinterpret_cast<const std::byte*>(chunk.data()), 80});
        auto bytes = (*a)->codec_chain().Encode(want);
        ASSERT_TRUE(bytes.ok());
        EXPECT_TRUE(*stored == *bytes) << r << ", " << c;
      }
    }
  }
}

// Masked writes (WriteOptions::mask) change only the masked elements, on
// every chain, chunked and sharded (raw and compressed inner chunks, and
// string elements), whatever else the selection's box holds.
TEST(ArrayWriteTest, MaskedWritesChangeOnlyTheMaskedElements) {
  PoolSize restore;
  const std::vector<int64_t> shape = {23, 17};
  std::vector<std::pair<std::string, ArrayMetadata>> layouts;
  for (const json& codecs : Chains()) {
    layouts.emplace_back(codecs.dump(), Int32Metadata(shape, {5, 4}, codecs));
  }
  layouts.emplace_back("sharded raw", Int32Metadata(shape, {10, 8},
                                                    Sharded({5, 4}, json::array({kLittle}),
                                                            "end")));
  layouts.emplace_back("sharded zstd", Int32Metadata(shape, {10, 8},
                                                     Sharded({5, 4},
                                                             json::array({kLittle, kZstd}),
                                                             "start")));
  for (const auto& [name, metadata] : layouts) {
    SCOPED_TRACE(name);
    auto a = Array::Create(MakeMemoryStore(), "w", metadata);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    std::vector<int32_t> model(NumElements(shape), kFill);
    std::mt19937 rng(11);
    for (int round = 0; round < 12; ++round) {
      EXPECT_TRUE(SetThreads(round % 2 ? 3 : 1).ok());
      Selection sel = round == 0 ? Selection::All(shape) : RandomSelection(rng, shape);
      std::vector<int32_t> values = Pattern(sel.num_elements(), round + 1);
      std::vector<uint8_t> mask(values.size());
      for (uint8_t& m : mask) m = (rng() % 3 == 0) ? 1 : 0;
      WriteOptions options;
      options.mask = mask.data();
      ASSERT_TRUE((*a)->Write(sel, values.data(), options).ok()) << sel.ToString();
      ForEachSelected(sel, shape, [&](int64_t off, int64_t k) {
        if (mask[k]) model[off] = values[k];
      });
    }
    std::vector<int32_t> all(model.size());
    ASSERT_TRUE((*a)->Read(Selection::All(shape), all).ok());
    EXPECT_EQ(all, model);
  }
}

TEST(ArrayWriteTest, MaskedWritesOfStrings) {
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = {6, 5};
  m.chunk_shape = {4, 4};
  m.dtype = DataType(DataTypeId::kString);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = json::array({{{"name", "vlen-utf8"}}});
  auto a = Array::Create(MakeMemoryStore(), "s", m);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<std::string> first(30);
  for (size_t i = 0; i < first.size(); ++i) first[i] = "v" + std::to_string(i);
  ASSERT_TRUE((*a)->Write(Selection::All({6, 5}), first.data()).ok());
  std::vector<std::string> second(30, "new");
  std::vector<uint8_t> mask(30, 0);
  mask[0] = mask[7] = mask[29] = 1;
  WriteOptions options;
  options.mask = mask.data();
  ASSERT_TRUE((*a)->Write(Selection::All({6, 5}), second.data(), options).ok());
  std::vector<std::string> got(30);
  ASSERT_TRUE((*a)->Read(Selection::All({6, 5}), got).ok());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], mask[i] ? "new" : first[i]) << i;
}

// Two threads writing the same boxes, each masked to its own elements (the
// even and the odd columns): with the merge under each chunk's update,
// neither undoes the other.
TEST(ArrayWriteTest, InterleavedMaskedWritersLoseNothing) {
  PoolSize restore;
  EXPECT_TRUE(SetThreads(2).ok());
  const std::vector<int64_t> shape = {16, 16};
  for (const ArrayMetadata& metadata :
       {Int32Metadata(shape, {8, 8}, json::array({kLittle, kZstd})),
        Int32Metadata(shape, {16, 16}, Sharded({4, 4}, json::array({kLittle}), "end"))}) {
    auto a = Array::Create(MakeMemoryStore(), "w", metadata);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    const int kRounds = 200;
    auto writer = [&](int parity) {
      std::vector<uint8_t> mask(256);
      for (size_t i = 0; i < mask.size(); ++i) mask[i] = (i % 2) == static_cast<size_t>(parity);
      for (int round = 1; round <= kRounds; ++round) {
        std::vector<int32_t> values(256, round * 2 + parity);
        WriteOptions options;
        options.mask = mask.data();
        EXPECT_TRUE((*a)->Write(Selection::All(shape), values.data(), options).ok());
      }
    };
    std::thread even(writer, 0), odd(writer, 1);
    even.join();
    odd.join();
    std::vector<int32_t> all(256);
    ASSERT_TRUE((*a)->Read(Selection::All(shape), all).ok());
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(all[i], kRounds * 2 + static_cast<int32_t>(i % 2)) << i;
    }
  }
}

TEST(ArrayWriteTest, CoveredChunksAreNotRead) {
  auto store = std::make_shared<CountingStore>();
  auto a = Array::Create(store, "",
                         Int32Metadata({8, 8}, {4, 4}, json::array({kLittle, kZstd})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> data = Pattern(64);
  store->Reset();
  ASSERT_TRUE((*a)->Write(Selection::All({8, 8}), data.data()).ok());
  EXPECT_EQ(store->gets(), 0);
  EXPECT_EQ(store->sets(), 4);
  store->Reset();
  ASSERT_TRUE((*a)->Write(Selection({{0, 8, 1}, {0, 6, 1}}), data.data()).ok());
  EXPECT_EQ(store->gets(), 2);  // the two chunks of columns 4..7
  EXPECT_EQ(store->sets(), 4);
}

// ---------------------------------------------------------------------------
// Sharded arrays.

// The shard at `coords` of `model` (C order, `shape`) as the ChunkArray
// ShardingCodec::Encode takes: the part outside the array is fill value.
ChunkArray ShardContent(const std::vector<int32_t>& model,
                        const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& shard_shape,
                        const std::vector<int64_t>& coords, bool* all_fill) {
  std::vector<int32_t> values(NumElements(shard_shape), kFill);
  *all_fill = true;
  for (int64_t i = 0; i < shard_shape[0]; ++i) {
    for (int64_t j = 0; j < shard_shape[1]; ++j) {
      const int64_t r = coords[0] * shard_shape[0] + i,
                    c = coords[1] * shard_shape[1] + j;
      if (r < shape[0] && c < shape[1]) {
        values[i * shard_shape[1] + j] = model[r * shape[1] + c];
        *all_fill = *all_fill && values[i * shard_shape[1] + j] == kFill;
      }
    }
  }
  ChunkArray a{shard_shape, DataType(DataTypeId::kInt32), {}, {}};
  a.bytes.Assign({reinterpret_cast<const std::byte*>(values.data()), values.size() * 4});
  return a;
}

// Every shard in the store is byte for byte what ShardingCodec::Encode makes
// of the model's shard, and shards of nothing but fill are absent.
void ExpectShardsMatchSerialEncoding(Store& store, const Array& a,
                                     const std::vector<int32_t>& model) {
  const ArrayMetadata& m = a.metadata();
  ASSERT_TRUE(ShardedChain::Of(a.codec_chain()).has_value());
  const auto& codec = a.codec_chain().array_to_bytes();
  const std::vector<int64_t> grid = ChunkGridShape(m.shape, m.chunk_shape);
  for (int64_t r = 0; r < grid[0]; ++r) {
    for (int64_t c = 0; c < grid[1]; ++c) {
      bool all_fill = false;
      ChunkArray shard = ShardContent(model, m.shape, m.chunk_shape, {r, c}, &all_fill);
      const std::optional<Buffer> stored = Stored(store, a.ChunkKey({r, c}));
      ASSERT_EQ(stored.has_value(), !all_fill) << "shard " << r << ", " << c;
      if (!stored) continue;
      auto want = codec->Encode(shard, m.ChunkSpec());
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      EXPECT_TRUE(*stored == *want) << "shard " << r << ", " << c;
    }
  }
}

struct ShardCase {
  std::string location;
  json inner_codecs;
  json index_codecs;
};

class ShardedWriteTest : public ::testing::TestWithParam<ShardCase> {};

TEST_P(ShardedWriteTest, WritesStoreTheBytesOfSerialShardEncoding) {
  PoolSize restore;
  // 3 x 2 shards of 8 x 12, the last row and column clipped; inner 4 x 3.
  const std::vector<int64_t> shape = {21, 19};
  const ShardCase& c = GetParam();
  for (int threads : {1, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    EXPECT_TRUE(SetThreads(threads).ok());
    auto store = MakeMemoryStore();
    auto a = Array::Create(
        store, "s",
        Int32Metadata(shape, {8, 12},
                      Sharded({4, 3}, c.inner_codecs, c.location, c.index_codecs)));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    // Inner chunks of fill, and shard (2, 1) all fill.
    std::vector<int32_t> model(NumElements(shape), kFill);
    const std::vector<int32_t> values = Pattern(NumElements(shape), 11);
    for (int64_t r = 0; r < shape[0]; ++r) {
      for (int64_t col = 0; col < shape[1]; ++col) {
        if (!(r >= 16 && col >= 12) && (r / 4 + col / 3) % 3 != 0) {
          model[r * shape[1] + col] = values[r * shape[1] + col];
        }
      }
    }
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    ExpectShardsMatchSerialEncoding(*store, **a, model);
    std::mt19937 rng(threads);
    for (int round = 0; round < 10; ++round) {
      Selection sel = RandomSelection(rng, shape);
      std::vector<int32_t> update = Pattern(sel.num_elements(), 100 + round);
      if (round % 3 == 2) update.assign(update.size(), kFill);
      ASSERT_TRUE((*a)->Write(sel, update.data()).ok()) << sel.ToString();
      Apply(model, shape, sel, update);
      ExpectShardsMatchSerialEncoding(*store, **a, model);
    }
    std::vector<int32_t> all(model.size());
    ASSERT_TRUE((*a)->Read(Selection::All(shape), all).ok());
    EXPECT_EQ(all, model);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, ShardedWriteTest,
    ::testing::Values(
        ShardCase{"end", json::array({kLittle}), json::array({kLittle, kCrc})},
        ShardCase{"start", json::array({kLittle}), json::array({kLittle})},
        ShardCase{"end", json::array({kBig, kZstd, kCrc}), json::array({kLittle, kCrc})},
        ShardCase{"start", json::array({kLittle, kBlosc}), json::array({kBig, kCrc})},
        ShardCase{"end", json::array({kLittle, kGzip}), json::array({kLittle})},
        ShardCase{"start", json::array({kTranspose, kLittle, kCrc}),
                  json::array({kLittle, kCrc})}),
    [](const auto& info) {
      return info.param.location + "_" + std::to_string(info.index);
    });

// Shards that a write covers, of inner chunks stored as they are, are built
// in place (each inner chunk straight into its slot); with every inner chunk
// stored, and with some left out as all fill value (laid out afresh), the
// bytes are those of serial encoding, index at either end, edges clipped.
TEST(ShardedWriteTest, CoveredShardsOfRawInnerChunksMatchSerialEncoding) {
  PoolSize restore;
  const std::vector<int64_t> shape = {21, 19};
  for (const char* location : {"start", "end"}) {
    for (int threads : {1, 3}) {
      SCOPED_TRACE(std::string(location) + ", " + std::to_string(threads) + " threads");
      EXPECT_TRUE(SetThreads(threads).ok());
      auto store = MakeMemoryStore();
      auto a =
          Array::Create(store, "s",
                        Int32Metadata(shape, {8, 12},
                                      Sharded({4, 3}, json::array({kLittle}), location,
                                              json::array({kLittle, kCrc}))));
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      std::vector<int32_t> model = Pattern(NumElements(shape), 5);
      for (int32_t& v : model) v = v == kFill ? kFill + 1 : v;  // no fill anywhere
      ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
      ExpectShardsMatchSerialEncoding(*store, **a, model);
      // Inner chunk (1, 2) of shard (0, 0) all fill: left out of its shard.
      for (int64_t r = 4; r < 8; ++r) {
        for (int64_t c = 6; c < 9; ++c) model[r * shape[1] + c] = kFill;
      }
      ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
      ExpectShardsMatchSerialEncoding(*store, **a, model);
      std::vector<int32_t> all(model.size());
      ASSERT_TRUE((*a)->Read(Selection::All(shape), all).ok());
      EXPECT_EQ(all, model);
    }
  }
}

// One shard of 2 x 2 inner chunks of 4 x 4 (zstd level 1), in a 16 x 8 array
// of two shards.
class ShardedWriteCostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<CountingStore>();
    auto a = Array::Create(
        store_, "a",
        Int32Metadata({16, 8}, {8, 8},
                      Sharded({4, 4}, json::array({kLittle, kZstd}), "end")));
    ASSERT_TRUE(a.ok());
    array_ = *a;
    sharding_ = ShardedChain::Of(array_->codec_chain());
    ASSERT_TRUE(sharding_.has_value());
  }

  // Where each inner chunk of stored shard `key` lies, as its index says.
  struct IndexEntry {
    uint64_t offset = 0;
    uint64_t nbytes = 0;
    bool is_missing = true;
    bool missing() const { return is_missing; }
  };
  std::vector<IndexEntry> Index(const std::string& key) {
    std::optional<Buffer> shard = Stored(*store_, key);
    if (!shard) return {};
    auto opened =
        ShardStore::FromBytes(ShardStore::At(store_, key), *sharding_, std::move(*shard));
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!opened.ok()) return {};
    std::vector<IndexEntry> entries(static_cast<size_t>(sharding_->num_inner_chunks()));
    for (size_t i = 0; i < entries.size(); ++i) {
      if (const auto span = (*opened)->Locate(static_cast<int64_t>(i))) {
        entries[i] = {span->offset, span->length, false};
      }
    }
    return entries;
  }

  std::vector<int32_t> ReadAll() {
    std::vector<int32_t> out(128);
    EXPECT_TRUE(array_->Read(Selection::All({16, 8}), out).ok());
    return out;
  }

  std::shared_ptr<CountingStore> store_;
  std::shared_ptr<Array> array_;
  std::optional<ShardedChain> sharding_;
};

TEST_F(ShardedWriteCostTest, OneSetPerShardAndReadsOnlyForPartialShards) {
  PoolSize restore;
  for (int threads : {1, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    EXPECT_TRUE(SetThreads(threads).ok());
    ASSERT_TRUE(store_->ErasePrefix("a/c").ok());
    std::vector<int32_t> model(128, kFill);
    const std::vector<int32_t> data = Pattern(128, threads);

    // One whole shard: no read, one Set.
    store_->Reset();
    ASSERT_TRUE(array_->Write(Selection({{0, 8, 1}, {0, 8, 1}}), data.data()).ok());
    Apply(model, {16, 8}, Selection({{0, 8, 1}, {0, 8, 1}}), data);
    EXPECT_EQ(store_->gets(), 0);
    EXPECT_EQ(store_->sets(), 1);
    EXPECT_EQ(store_->erases(), 0);

    // The whole array: no read, one Set per shard.
    store_->Reset();
    ASSERT_TRUE(array_->Write(Selection::All({16, 8}), data.data()).ok());
    model = data;
    EXPECT_EQ(store_->gets(), 0);
    EXPECT_EQ(store_->sets(), 2);

    // Part of one inner chunk of an existing shard: one Get, one Set.
    const Selection part({{9, 11, 1}, {5, 7, 1}});
    const std::vector<int32_t> four = {7, 8, 9, 10};
    store_->Reset();
    ASSERT_TRUE(array_->Write(part, four.data()).ok());
    Apply(model, {16, 8}, part, four);
    EXPECT_EQ(store_->gets(), 1);
    EXPECT_EQ(store_->sets(), 1);
    EXPECT_EQ(ReadAll(), model);

    // A shard written with nothing but fill is erased without being read.
    const std::vector<int32_t> fill(64, kFill);
    store_->Reset();
    ASSERT_TRUE(array_->Write(Selection({{8, 16, 1}, {0, 8, 1}}), fill.data()).ok());
    Apply(model, {16, 8}, Selection({{8, 16, 1}, {0, 8, 1}}), fill);
    EXPECT_EQ(store_->gets(), 0);
    EXPECT_EQ(store_->sets(), 0);
    EXPECT_EQ(store_->erases(), 1);
    EXPECT_FALSE(Stored(*store_, "a/c/1/0").has_value());

    // Part of a missing shard: one Get (finding nothing), one Set.
    store_->Reset();
    ASSERT_TRUE(array_->Write(part, four.data()).ok());
    Apply(model, {16, 8}, part, four);
    EXPECT_EQ(store_->gets(), 1);
    EXPECT_EQ(store_->sets(), 1);
    const auto entries = Index("a/c/1/0");
    ASSERT_EQ(entries.size(), 4u);
    EXPECT_TRUE(entries[0].missing() && entries[2].missing() && entries[3].missing());
    EXPECT_FALSE(entries[1].missing());

    // Fill over the only stored inner chunk: the shard is erased.
    store_->Reset();
    ASSERT_TRUE(array_->Write(Selection({{8, 12, 1}, {4, 8, 1}}), fill.data()).ok());
    Apply(model, {16, 8}, Selection({{8, 12, 1}, {4, 8, 1}}), fill);
    EXPECT_EQ(store_->gets(), 1);
    EXPECT_EQ(store_->sets(), 0);
    EXPECT_EQ(store_->erases(), 1);
    EXPECT_FALSE(Stored(*store_, "a/c/1/0").has_value());

    // Fill into a missing shard: one Get, nothing written or erased.
    store_->Reset();
    ASSERT_TRUE(array_->Write(part, fill.data()).ok());
    EXPECT_EQ(store_->gets(), 1);
    EXPECT_EQ(store_->sets() + store_->erases(), 0);
    EXPECT_EQ(ReadAll(), model);
  }
}

TEST_F(ShardedWriteCostTest, PartialWriteKeepsUntouchedInnerChunksBytes) {
  // Store shard 0 with inner chunks in zstd frames that carry a checksum:
  // bytes the array's own chain (no checksum) decodes but would not make.
  const std::vector<int32_t> data = Pattern(64, 5);
  ArraySpec inner_spec = sharding_->inner_chain().spec();
  auto checked = CodecChain::FromJson(json::array({kLittle, kZstdChecked}), inner_spec);
  ASSERT_TRUE(checked.ok());
  std::vector<Buffer> inner(4);
  std::vector<std::optional<ByteView>> views(4);
  for (int64_t i = 0; i < 4; ++i) {
    std::vector<int32_t> values(16);
    for (int64_t k = 0; k < 16; ++k) {
      values[k] = data[((i / 2) * 4 + k / 4) * 8 + (i % 2) * 4 + k % 4];
    }
    ChunkArray chunk{{4, 4}, DataType(DataTypeId::kInt32), {}, {}};
    chunk.bytes.Assign({reinterpret_cast<const std::byte*>(values.data()), 64});
    auto encoded = checked->Encode(chunk);
    ASSERT_TRUE(encoded.ok());
    auto own = sharding_->inner_chain().Encode(chunk);
    ASSERT_TRUE(own.ok());
    ASSERT_FALSE(*encoded == *own) << "the test needs bytes the array would not make";
    inner[i] = std::move(*encoded);
    views[i] = inner[i].view();
  }
  ShardWriter writer(*sharding_, nullptr);
  for (int64_t i = 0; i < 4; ++i) writer.Set(i, views[i]);
  auto shard = writer.Finish();
  ASSERT_TRUE(shard.ok() && shard->has_value());
  ASSERT_TRUE(store_->Set("a/c/0/0", (*shard)->view()).ok());

  // Two elements of inner chunk [1, 0].
  const std::vector<int32_t> two = {-7, -8};
  store_->Reset();
  ASSERT_TRUE(array_->Write(Selection({{5, 6, 1}, {1, 3, 1}}), two.data()).ok());
  EXPECT_EQ(store_->gets(), 1);
  EXPECT_EQ(store_->sets(), 1);
  std::optional<Buffer> after = Stored(*store_, "a/c/0/0");
  ASSERT_TRUE(after.has_value());
  const auto entries = Index("a/c/0/0");
  ASSERT_EQ(entries.size(), 4u);
  for (int64_t i : {0, 1, 3}) {
    const ByteView kept = after->view().subspan(entries[i].offset, entries[i].nbytes);
    EXPECT_TRUE(std::equal(kept.begin(), kept.end(), inner[i].view().begin(),
                           inner[i].view().end()))
        << "inner chunk " << i;
  }
  std::vector<int32_t> model(128, kFill);
  std::copy(data.begin(), data.end(), model.begin());
  model[5 * 8 + 1] = -7;
  model[5 * 8 + 2] = -8;
  EXPECT_EQ(ReadAll(), model);
}

TEST_F(ShardedWriteCostTest, WriteEmptyChunksStoresFillInnerChunks) {
  const std::vector<int32_t> fill(64, kFill);
  WriteOptions keep;
  keep.write_empty_chunks = true;
  ASSERT_TRUE(array_->Write(Selection({{0, 8, 1}, {0, 8, 1}}), fill.data(), keep).ok());
  const auto entries = Index("a/c/0/0");
  ASSERT_EQ(entries.size(), 4u);
  for (const auto& e : entries) EXPECT_FALSE(e.missing());
  EXPECT_EQ(ReadAll(), std::vector<int32_t>(128, kFill));
  ASSERT_TRUE(array_->Write(Selection({{0, 8, 1}, {0, 8, 1}}), fill.data()).ok());
  EXPECT_FALSE(Stored(*store_, "a/c/0/0").has_value());
}

TEST_F(ShardedWriteCostTest, FailuresLeaveNoShardHalfWritten) {
  PoolSize restore;
  const std::vector<int32_t> data = Pattern(128, 9);
  ASSERT_TRUE(array_->Write(Selection::All({16, 8}), data.data()).ok());
  std::optional<Buffer> before = Stored(*store_, "a/c/0/0");
  ASSERT_TRUE(before.has_value());
  const auto entries = Index("a/c/0/0");
  for (int threads : {1, 3}) {
    EXPECT_TRUE(SetThreads(threads).ok());
    // A corrupt inner chunk [1, 1] of shard 0; a write that changes inner
    // chunks [0, 0] whole and [1, 1] in part must fail naming both, and leave
    // shard 0 as it was, even though [0, 0] encoded fine.
    Buffer bad = *before;
    bad.data()[entries[3].offset + 1] ^= std::byte{0x5A};  // the zstd frame magic
    ASSERT_TRUE(store_->Set("a/c/0/0", bad.view()).ok());
    const Selection sel({{0, 7, 1}, {0, 7, 1}});
    const std::vector<int32_t> update = Pattern(49, 77);
    Status s = array_->Write(sel, update.data());
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
    EXPECT_NE(s.message().find("array 'a'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'a/c/0/0'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("inner chunk [1, 1]"), std::string::npos) << s.message();
    EXPECT_TRUE(*Stored(*store_, "a/c/0/0") == bad);

    // A store that fails to write one shard: the error names it, it keeps
    // its old bytes.
    ASSERT_TRUE(store_->Set("a/c/0/0", before->view()).ok());
    std::optional<Buffer> shard1 = Stored(*store_, "a/c/1/0");
    store_->fail_set_ = "a/c/1/0";
    const std::vector<int32_t> other = Pattern(128, 1000 + threads);
    s = array_->Write(Selection::All({16, 8}), other.data());
    store_->fail_set_.clear();
    EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
    EXPECT_NE(s.message().find("'a/c/1/0'"), std::string::npos) << s.message();
    EXPECT_TRUE(*Stored(*store_, "a/c/1/0") == *shard1);

    // A failed read of the old shard: nothing written to it.
    store_->fail_get_ = "a/c/1/0";
    s = array_->Write(Selection({{9, 10, 1}, {0, 8, 1}}), other.data());
    store_->fail_get_.clear();
    EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
    EXPECT_NE(s.message().find("'a/c/1/0'"), std::string::npos) << s.message();
    EXPECT_TRUE(*Stored(*store_, "a/c/1/0") == *shard1);
    ASSERT_TRUE(store_->Set("a/c/0/0", before->view()).ok());
  }
}

TEST(ShardedWriteTest, CorruptIndexOfAShardBeingChangedIsCorruption) {
  auto store = MakeMemoryStore();
  auto a = Array::Create(
      store, "x", Int32Metadata({8}, {8}, Sharded({2}, json::array({kLittle}), "end")));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> data = Pattern(8);
  ASSERT_TRUE((*a)->Write(Selection::All({8}), data.data()).ok());
  Buffer shard = *Stored(*store, "x/c/0");
  shard.data()[shard.size() - 6] ^= std::byte{1};
  ASSERT_TRUE(store->Set("x/c/0", shard.view()).ok());
  Status s = (*a)->Write(Selection({{3, 4, 1}}), data.data());
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("'x/c/0'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("shard index"), std::string::npos) << s.message();
  // Overwriting the shard whole does not need its old bytes.
  EXPECT_TRUE((*a)->Write(Selection::All({8}), data.data()).ok());
}

TEST(ShardedWriteTest, VariableLengthStringsAndNestedSharding) {
  PoolSize restore;
  EXPECT_TRUE(SetThreads(3).ok());
  auto store = MakeMemoryStore();
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = {7};
  m.chunk_shape = {4};
  m.dtype = DataType(DataTypeId::kString);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = Sharded({2}, json::array({json{{"name", "vlen-utf8"}}}), "end");
  auto a = Array::Create(store, "s", m);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<std::string> data = {"a", "", "", "dd", "eee", "", "g"};
  ASSERT_TRUE((*a)->Write(Selection::All({7}), data.data()).ok());
  std::vector<std::string> two = {"x", "y"};
  ASSERT_TRUE((*a)->Write(Selection({{1, 6, 4}}), two.data()).ok());
  data[1] = "x";
  data[5] = "y";
  std::vector<std::string> all(7);
  ASSERT_TRUE((*a)->Read(Selection::All({7}), all).ok());
  EXPECT_EQ(all, data);

  const json nested =
      Sharded({4, 5}, Sharded({2, 5}, json::array({kLittle, kZstd}), "start"), "end");
  auto n = Array::Create(store, "n", Int32Metadata({12, 10}, {8, 10}, nested));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  std::vector<int32_t> model = Pattern(120, 4);
  ASSERT_TRUE((*n)->Write(Selection::All({12, 10}), model.data()).ok());
  const Selection sel({{3, 11, 2}, {1, 9, 3}});
  const std::vector<int32_t> update = Pattern(sel.num_elements(), 50);
  ASSERT_TRUE((*n)->Write(sel, update.data()).ok());
  Apply(model, {12, 10}, sel, update);
  std::vector<int32_t> out(120);
  ASSERT_TRUE((*n)->Read(Selection::All({12, 10}), out).ok());
  EXPECT_EQ(out, model);
  ExpectShardsMatchSerialEncoding(*store, **n, model);
}

}  // namespace
}  // namespace turbozarr
