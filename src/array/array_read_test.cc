// The read pipeline: decoding in place and through scratch agree, edge
// chunks, and sharded partial reads (values, fill, corruption, and how many
// store reads and bytes they cost).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>

#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "array/shard_read.h"
#include "codec/sharding/shard_store.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"
#include "turbozarr/store_wrappers.h"
#include "util/crc32c.h"

namespace turbozarr {
namespace {

using internal::DecodeRoute;
using nlohmann::json;
using namespace fixtures;  // NOLINT: the shared test fixtures

const json kLz4 = {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}};
const json kBz2 = {{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}};

// Every chain shape the read path distinguishes.
std::vector<json> Chains() {
  return {json::array({kLittle}),
          json::array({kBig}),
          json::array({kLittle, kCrc}),
          json::array({kBig, kZstd, kCrc}),
          json::array({kLittle, kCrc, kZstd}),  // checksum inside the compressor
          json::array({kLittle, kGzip}),
          json::array({kBig, kBlosc}),
          json::array({kLittle, kLz4}),
          json::array({kLittle, kBz2}),
          json::array({kLittle, kZstd, kGzip}),  // two compressors
          json::array({kTranspose, kLittle, kZstd})};
}

// What reading `sel` from a dense C-order `model` of `shape` must give.
std::vector<int32_t> Expected(const std::vector<int32_t>& model,
                              const std::vector<int64_t>& shape, const Selection& sel) {
  std::vector<int32_t> out;
  std::vector<int64_t> idx(sel.rank(), 0);
  const int64_t n = sel.num_elements();
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < sel.rank(); ++d) {
      off = off * shape[d] + sel.dims()[d].start + idx[d] * sel.dims()[d].step;
    }
    out.push_back(model[off]);
    for (size_t d = sel.rank(); d-- > 0;) {
      if (++idx[d] < sel.dims()[d].count()) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::vector<int32_t> ReadOrDie(const Array& a, const Selection& sel) {
  std::vector<int32_t> out(static_cast<size_t>(sel.num_elements()), 12345);
  Status s = a.Read(sel, out);
  EXPECT_TRUE(s.ok()) << sel.ToString() << ": " << s.ToString();
  return out;
}

// Selections that exercise whole chunks in place, partial and clipped
// chunks, strides, single rows, columns and elements.
std::vector<Selection> Selections(const std::vector<int64_t>& shape) {
  const int64_t r = shape[0], c = shape[1];
  return {Selection::All(shape),
          Selection({{0, r, 1}, {0, c, 1}}),
          Selection({{1, r - 1, 1}, {0, c, 1}}),
          Selection({{0, r, 1}, {2, c - 1, 1}}),
          Selection({{0, r, 2}, {1, c, 3}}),
          Selection({{r - 1, r, 1}, {0, c, 1}}),
          Selection({{0, r, 1}, {c - 1, c, 1}}),
          Selection({{r / 2, r / 2 + 1, 1}, {c / 3, c / 3 + 1, 1}}),
          Selection({{3, r, 5}, {0, c, 7}})};
}

// A store that counts the reads it serves, for checking what a read costs.
class CountingStore final : public Store {
 public:
  CountingStore() : inner_(MakeMemoryStore()) {}
  // Every request is a get; those straight into caller memory are
  // get_intos too.
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    Status s = inner_->Read(requests, answers);
    for (size_t i = 0; i < requests.size(); ++i) {
      ++gets_;
      if (requests[i].target == ReadTarget::kCallerMemory) ++get_intos_;
      if (s.ok() && answers[i].found) bytes_ += static_cast<int64_t>(answers[i].length);
    }
    return s;
  }
  Status Set(std::string_view key, ByteView value) override {
    return inner_->Set(key, value);
  }
  Status Erase(std::string_view key) override { return inner_->Erase(key); }
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    return inner_->List(prefix);
  }
  std::string Describe() const override { return "counting://"; }

  void Reset() { gets_ = bytes_ = get_intos_ = 0; }
  int64_t gets() const { return gets_; }
  int64_t bytes() const { return bytes_; }
  int64_t get_intos() const { return get_intos_; }

 private:
  std::shared_ptr<Store> inner_;
  std::atomic<int64_t> gets_{0};
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> get_intos_{0};
};

// ---------------------------------------------------------------------------
// One chunk, decoded by each route.

TEST(DecodeChunkToBlockTest, RoutesAgreeForEveryChain) {
  const std::vector<int64_t> chunk_shape = {4, 6};
  ArraySpec spec;
  spec.shape = chunk_shape;
  spec.dtype = DataType(DataTypeId::kInt32);
  spec.fill_value = DefaultFillValue(spec.dtype);
  const std::vector<int32_t> values = Pattern(24);
  for (const json& codecs : Chains()) {
    SCOPED_TRACE(codecs.dump());
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    ChunkArray chunk;
    chunk.shape = chunk_shape;
    chunk.dtype = spec.dtype;
    chunk.bytes.Assign({reinterpret_cast<const std::byte*>(values.data()), 96});
    auto encoded = chain->Encode(chunk);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    const bool into = codecs.front() != kTranspose;
    EXPECT_EQ(chain->CanDecodeInto(), into);

    // The chunk as rows 4..7 of a 12 x 6 block: one contiguous run.
    ChunkProjection whole{{1, 0}, {0, 0}, {4, 6}, {1, 1}, {4, 0}, true};
    const std::vector<int64_t> tall = {12, 6};
    EXPECT_EQ(internal::ChooseDecodeRoute(*chain, whole, tall),
              into ? DecodeRoute::kInPlace : DecodeRoute::kFullDecode);
    std::vector<int32_t> block(72, 777);
    ASSERT_TRUE(
        internal::DecodeChunkToBlock(*chain, *encoded, whole, tall, block.data()).ok());
    for (int64_t i = 0; i < 72; ++i) {
      const bool inside = i >= 24 && i < 48;
      ASSERT_EQ(block[i], inside ? values[i - 24] : 777) << "element " << i;
    }

    // The same chunk as columns 2..7 of a 4 x 10 block: rows are strided.
    ChunkProjection wide = whole;
    wide.out_start = {0, 2};
    const std::vector<int64_t> wide_shape = {4, 10};
    const bool raw =
        codecs == json::array({kLittle}) || codecs == json::array({kLittle, kCrc});
    EXPECT_EQ(chain->StoresRawElements(), raw);
    EXPECT_EQ(internal::ChooseDecodeRoute(*chain, wide, wide_shape),
              !into ? DecodeRoute::kFullDecode
                    : (raw ? DecodeRoute::kStoredView : DecodeRoute::kScratch));
    std::vector<int32_t> wblock(40, 777);
    ASSERT_TRUE(
        internal::DecodeChunkToBlock(*chain, *encoded, wide, wide_shape, wblock.data())
            .ok());
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t c = 0; c < 10; ++c) {
        const bool inside = c >= 2 && c < 8;
        ASSERT_EQ(wblock[r * 10 + c], inside ? values[r * 6 + c - 2] : 777)
            << r << "," << c;
      }
    }

    // Every other column of rows 1..3: a strided part of the chunk.
    ChunkProjection part{{0, 0}, {1, 1}, {3, 3}, {1, 2}, {0, 0}, false};
    const std::vector<int64_t> small = {3, 3};
    std::vector<int32_t> sblock(9, 777);
    ASSERT_TRUE(
        internal::DecodeChunkToBlock(*chain, *encoded, part, small, sblock.data()).ok());
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t c = 0; c < 3; ++c) {
        ASSERT_EQ(sblock[r * 3 + c], values[(r + 1) * 6 + 1 + 2 * c]) << r << "," << c;
      }
    }
  }
}

TEST(DecodeChunkToBlockTest, ContiguityNeedsAWholeUnclippedChunk) {
  const std::vector<int64_t> chunk = {4, 6};
  // Whole chunk spanning the block's columns: contiguous.
  EXPECT_TRUE(IsContiguousWholeChunk({{0, 0}, {0, 0}, {4, 6}, {1, 1}, {8, 0}, true},
                                     chunk, {20, 6}));
  // A single row of the chunk's shape {1, 6} is contiguous wherever it lands.
  EXPECT_TRUE(IsContiguousWholeChunk({{0}, {0}, {6}, {1}, {3}}, {6}, {20}));
  // Clipped by the array's edge (covers, but fewer rows than the chunk).
  EXPECT_FALSE(IsContiguousWholeChunk({{1, 0}, {0, 0}, {2, 6}, {1, 1}, {4, 0}, true},
                                      chunk, {6, 6}));
  // Narrower than the block.
  EXPECT_FALSE(IsContiguousWholeChunk({{0, 0}, {0, 0}, {4, 6}, {1, 1}, {0, 0}, true},
                                      chunk, {4, 12}));
  // Leading dimensions of count 1 do not matter: a {1, 4, 6} chunk in a
  // {5, 4, 6} block is one run.
  EXPECT_TRUE(IsContiguousWholeChunk(
      {{2, 0, 0}, {0, 0, 0}, {1, 4, 6}, {1, 1, 1}, {2, 0, 0}, true}, {1, 4, 6},
      {5, 4, 6}));
}

// ---------------------------------------------------------------------------
// Whole arrays, through Array::Read.

TEST(ArrayReadTest, EveryChainAndSelectionMatchesTheModel) {
  const std::vector<int64_t> shape = {11, 13};  // edge chunks in both dimensions
  const std::vector<int32_t> model = Pattern(NumElements(shape), 7);
  for (const json& codecs : Chains()) {
    SCOPED_TRACE(codecs.dump());
    auto store = MakeMemoryStore();
    auto a = Array::Create(store, "a", Int32Metadata(shape, {4, 13}, codecs));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    for (const Selection& sel : Selections(shape)) {
      EXPECT_EQ(ReadOrDie(**a, sel), Expected(model, shape, sel)) << sel.ToString();
    }
  }
}

TEST(ArrayReadTest, SerialAndParallelReadsAgree) {
  const std::vector<int64_t> shape = {70, 90};
  const std::vector<int32_t> model = Pattern(NumElements(shape), 3);
  auto store = MakeMemoryStore();
  auto a = Array::Create(store, "a",
                         Int32Metadata(shape, {8, 90}, json::array({kBig, kZstd, kCrc})));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
  for (int threads : {1, 4}) {
    EXPECT_TRUE(SetThreads(threads).ok());
    for (const Selection& sel : Selections(shape)) {
      EXPECT_EQ(ReadOrDie(**a, sel), Expected(model, shape, sel))
          << threads << " threads, " << sel.ToString();
    }
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

TEST(ArrayReadTest, CorruptChunkReadInPlaceIsCorruption) {
  auto store = MakeMemoryStore();
  auto a = Array::Create(store, "a",
                         Int32Metadata({8, 4}, {2, 4}, json::array({kLittle, kZstd})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(32);
  ASSERT_TRUE((*a)->Write(Selection::All({8, 4}), model.data()).ok());
  // A frame for the wrong number of elements, and one cut short.
  auto frame = store->Get("a/c/1/0");
  ASSERT_TRUE(frame.ok() && frame->has_value());
  ASSERT_TRUE(store->Set("a/c/1/0", (*frame)->view().first((*frame)->size() - 3)).ok());
  std::vector<int32_t> out(32);
  Status s = (*a)->Read(Selection::All({8, 4}), out);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("a/c/1/0"), std::string::npos) << s.message();
}

TEST(ArrayReadTest, RawChunksAreReadStraightIntoTheOutput) {
  const std::vector<int64_t> shape = {8, 6};
  const std::vector<int32_t> model = Pattern(48, 5);
  auto store = std::make_shared<CountingStore>();
  auto a =
      Array::Create(store, "a", Int32Metadata(shape, {2, 6}, json::array({kLittle})));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
  ASSERT_TRUE(store->Erase("a/c/2/0").ok());  // reads as the fill value
  std::vector<int32_t> expected = model;
  std::fill(expected.begin() + 24, expected.begin() + 36, kFill);
  EXPECT_EQ(ReadOrDie(**a, Selection::All(shape)), expected);
  EXPECT_EQ(store->get_intos(), 4);  // every chunk, the missing one included
  // Rows 1..6 start mid-chunk: the clipped chunks take the other routes.
  Selection rows({{1, 7, 1}, {0, 6, 1}});
  EXPECT_EQ(ReadOrDie(**a, rows), Expected(expected, shape, rows));
  EXPECT_EQ(store->get_intos(), 4 + 2);  // chunks 1 and 2 (2 absent) only

  // A stored value of the wrong length is Corruption naming the chunk.
  for (size_t bytes : {size_t{47}, size_t{49}}) {
    ASSERT_TRUE(store->Set("a/c/1/0", Buffer(bytes).view()).ok());
    std::vector<int32_t> out(48);
    Status s = (*a)->Read(Selection::All(shape), out);
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
    EXPECT_NE(s.message().find("a/c/1/0"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("needs 48 bytes, got " + std::to_string(bytes)),
              std::string::npos)
        << s.message();
  }
}

TEST(ArrayReadTest, OneHugeRawChunkIsReadInParallelParts) {
  // 32 MiB in one chunk: two 16 MiB ranged reads on two threads.
  const std::vector<int64_t> shape = {2, int64_t{1} << 22};
  const std::vector<int32_t> model = Pattern(NumElements(shape), 9);
  auto store = std::make_shared<CountingStore>();
  auto a = Array::Create(store, "a", Int32Metadata(shape, shape, json::array({kLittle})));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
  EXPECT_TRUE(SetThreads(2).ok());
  EXPECT_EQ(ReadOrDie(**a, Selection::All(shape)), model);
  EXPECT_EQ(store->get_intos(), 2);

  const size_t n = model.size() * 4;
  Buffer stored(n + 1);
  std::memcpy(stored.data(), model.data(), n);
  for (size_t bytes : {n + 1, n - 1, n / 2}) {
    ASSERT_TRUE(store->Set("a/c/0/0", stored.view().first(bytes)).ok());
    std::vector<int32_t> out(model.size());
    Status s = (*a)->Read(Selection::All(shape), out);
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
    const std::string got = bytes > n ? "more" : std::to_string(bytes);
    EXPECT_NE(s.message().find("needs " + std::to_string(n) + " bytes, got " + got),
              std::string::npos)
        << s.message();
  }
  ASSERT_TRUE(store->Erase("a/c/0/0").ok());
  EXPECT_EQ(ReadOrDie(**a, Selection::All(shape)),
            std::vector<int32_t>(model.size(), kFill));
}

TEST(ArrayReadTest, RemoteStoresAreReadInWindowsOfGetMany) {
  // A store that serves 16 requests at once: chunks are asked for in
  // slices of 16 / kSlicesInFlight = 4, 16 in flight.
  ThrottleOptions throttle;
  throttle.connections = 16;
  auto metrics = MakeMetricsStore(MakeThrottledStore(MakeMemoryStore(), throttle));
  ASSERT_EQ(metrics->Capabilities().requests_in_flight, 16);
  const std::vector<int64_t> shape = {32, 34};  // 8 x 9 chunks of 4 x 4, edges clipped
  const std::vector<int32_t> model = Pattern(NumElements(shape), 11);
  for (const json& codecs : {json::array({kLittle}), json::array({kLittle, kZstd})}) {
    SCOPED_TRACE(codecs.dump());
    auto a = Array::Create(metrics, "a", Int32Metadata(shape, {4, 4}, codecs),
                           {.overwrite = true});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    ASSERT_TRUE(metrics->Erase("a/c/3/3").ok());
    std::vector<int32_t> expected = model;
    for (int64_t r = 12; r < 16; ++r) {
      for (int64_t c = 12; c < 16; ++c) expected[r * 34 + c] = kFill;
    }
    metrics->ResetMetrics();
    EXPECT_EQ(ReadOrDie(**a, Selection::All(shape)), expected);
    EXPECT_EQ(metrics->metrics().get_many_calls, 18u);  // 72 chunks in slices of 4
    EXPECT_EQ(metrics->metrics().gets, 72u);
    for (const Selection& sel : Selections(shape)) {
      EXPECT_EQ(ReadOrDie(**a, sel), Expected(expected, shape, sel)) << sel.ToString();
    }
  }
  // A corrupt chunk in a later window fails the read and names the chunk.
  ASSERT_TRUE(metrics->Set("a/c/7/8", AsBytes("not zstd")).ok());
  std::vector<int32_t> out(model.size());
  Status s = (*Array::Open(metrics, "a"))->Read(Selection::All(shape), out);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("a/c/7/8"), std::string::npos) << s.message();
}

// read_missing_chunks=False: a chunk or shard that is not stored is an error
// naming its key, on every route; what is stored reads as before; inner
// chunks absent from a stored shard are the fill value.
TEST(ArrayReadTest, MissingChunksAreErrorsWhenAskedTo) {
  const std::vector<int64_t> shape = {8, 8};
  const std::vector<int32_t> model = Pattern(NumElements(shape), 5);
  ReadOptions strict;
  strict.fill_missing_chunks = false;
  auto store = MakeMemoryStore();
  const std::vector<json> chains = {json::array({kLittle}), json::array({kLittle, kZstd}),
                                    Sharded({2, 2}, json::array({kLittle}), "end")};
  for (const json& codecs : chains) {
    SCOPED_TRACE(codecs.dump());
    auto a = Array::Create(store, "a", Int32Metadata(shape, {4, 4}, codecs),
                           {.overwrite = true});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    ASSERT_TRUE(store->Erase("a/c/1/1").ok());
    auto remote = Array::Open(MakeThrottledStore(store, {.connections = 16}), "a");
    for (const Array* array : {a->get(), remote->get()}) {
      std::vector<int32_t> out(64);
      Status s = array->Read(Selection::All(shape), out, strict);
      EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
      EXPECT_NE(s.message().find("a/c/1/1"), std::string::npos) << s.message();
      EXPECT_NE(s.message().find("read_missing_chunks"), std::string::npos) << s.message();
      // One element of the missing chunk is enough to fail; the rest reads.
      std::vector<int32_t> one(1);
      EXPECT_EQ(array->Read(Selection({{5, 6, 1}, {7, 8, 1}}), one, strict).code(),
                StatusCode::kNotFound);
      std::vector<int32_t> top(32);
      ASSERT_TRUE(array->Read(Selection({{0, 4, 1}, {0, 8, 1}}), top, strict).ok());
      EXPECT_EQ(top, std::vector<int32_t>(model.begin(), model.begin() + 32));
      // The default fills.
      ASSERT_TRUE(array->Read(Selection::All(shape), out).ok());
      EXPECT_EQ(out[63], kFill);
    }
  }
  // A stored shard missing an inner chunk: filled, as zarr-python fills it.
  auto a = Array::Create(store, "a",
                         Int32Metadata(shape, {4, 4}, Sharded({2, 2}, json::array({kLittle}),
                                                              "end")),
                         {.overwrite = true});
  std::vector<int32_t> partial(4, 3);
  ASSERT_TRUE((*a)->Write(Selection({{0, 2, 1}, {0, 2, 1}}), partial.data()).ok());
  std::vector<int32_t> shard(16);
  ASSERT_TRUE((*a)->Read(Selection({{0, 4, 1}, {0, 4, 1}}), shard, strict).ok());
  EXPECT_EQ(shard[0], 3);
  EXPECT_EQ(shard[15], kFill);
}

// ---------------------------------------------------------------------------
// Sharded arrays.

struct ShardCase {
  std::string location;
  json inner_codecs;
};

class ShardedReadTest : public ::testing::TestWithParam<ShardCase> {};

TEST_P(ShardedReadTest, PartialAndStridedReadsMatchTheModel) {
  // 3 x 2 shards of 8 x 12, the last row and column of shards clipped;
  // inner chunks of 4 x 3.
  const std::vector<int64_t> shape = {21, 19};
  const ShardCase& c = GetParam();
  auto store = MakeMemoryStore();
  auto a = Array::Create(
      store, "s",
      Int32Metadata(shape, {8, 12}, Sharded({4, 3}, c.inner_codecs, c.location)));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(ShardedChain::Of((*a)->codec_chain()).has_value());
  std::vector<int32_t> model(NumElements(shape), kFill);
  // Leave shard (2, 1) missing and inner chunks of fill in the others.
  const std::vector<int32_t> values = Pattern(NumElements(shape), 11);
  for (int64_t r = 0; r < shape[0]; ++r) {
    for (int64_t col = 0; col < shape[1]; ++col) {
      const bool missing_shard = r >= 16 && col >= 12;
      const bool fill_chunk = (r / 4 + col / 3) % 3 == 0;
      if (!missing_shard && !fill_chunk)
        model[r * shape[1] + col] = values[r * shape[1] + col];
    }
  }
  ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
  EXPECT_FALSE(store->Get("s/c/2/1")->has_value());
  std::vector<Selection> sels = Selections(shape);
  sels.push_back(Selection({{9, 14, 1}, {4, 10, 1}}));    // inside one shard
  sels.push_back(Selection({{17, 21, 1}, {12, 19, 1}}));  // the missing shard
  sels.push_back(Selection({{0, 21, 4}, {0, 19, 3}}));    // one element per inner chunk
  // Also through a store that prefers 16 requests in flight: GetMany windows.
  auto remote = Array::Open(MakeThrottledStore(store, {.connections = 16}), "s");
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  for (int threads : {1, 3}) {
    EXPECT_TRUE(SetThreads(threads).ok());
    for (const Selection& sel : sels) {
      EXPECT_EQ(ReadOrDie(**a, sel), Expected(model, shape, sel))
          << threads << " threads, " << sel.ToString();
      EXPECT_EQ(ReadOrDie(**remote, sel), Expected(model, shape, sel))
          << threads << " threads, remote, " << sel.ToString();
    }
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, ShardedReadTest,
    ::testing::Values(ShardCase{"end", json::array({kLittle})},
                      ShardCase{"start", json::array({kLittle})},
                      ShardCase{"end", json::array({kBig, kZstd, kCrc})},
                      ShardCase{"start", json::array({kLittle, kGzip})},
                      ShardCase{"end", json::array({kTranspose, kLittle, kCrc})}),
    [](const auto& info) {
      return info.param.location + "_" + std::to_string(info.index);
    });

TEST(ShardedReadCostTest, ReadsTheIndexOnceAndOnlyTheInnerChunksNeeded) {
  // One shard of 8 inner chunks of 8192 int32 (32 KiB each, stored raw).
  auto store = std::make_shared<CountingStore>();
  const int64_t inner = 8192;
  auto a = Array::Create(store, "",
                         Int32Metadata({2 * 8 * inner}, {8 * inner},
                                       Sharded({inner}, json::array({kLittle}), "end")));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(2 * 8 * inner, 5);
  ASSERT_TRUE((*a)->Write(Selection::All({2 * 8 * inner}), model.data()).ok());
  const int64_t index_bytes = 8 * 16 + 4;
  const int64_t chunk_bytes = inner * 4;
  struct Case {
    const char* what;
    Selection sel;
    int64_t gets;
    int64_t bytes;
  };
  const std::vector<Case> cases = {
      {"one element", Selection({{5, 6, 1}}), 2, index_bytes + chunk_bytes},
      {"one inner chunk", Selection({{inner, 2 * inner, 1}}), 2,
       index_bytes + chunk_bytes},
      {"a run of three", Selection({{inner + 7, 4 * inner - 1, 1}}), 2,
       index_bytes + 3 * chunk_bytes},
      // Chunks 0 and 2: the 32 KiB between them is read rather than a second Get.
      {"a small gap", Selection({{0, 2 * inner + 1, 2 * inner}}), 2,
       index_bytes + 3 * chunk_bytes},
      // Chunks 0 and 4: 96 KiB apart, two reads.
      {"a large gap", Selection({{0, 4 * inner + 1, 4 * inner}}), 3,
       index_bytes + 2 * chunk_bytes},
      {"both shards whole", Selection::All({2 * 8 * inner}), 4,
       2 * (index_bytes + 8 * chunk_bytes)},
  };
  for (int threads : {1, 2}) {
    EXPECT_TRUE(SetThreads(threads).ok());
    for (const Case& c : cases) {
      store->Reset();
      EXPECT_EQ(ReadOrDie(**a, c.sel), Expected(model, {2 * 8 * inner}, c.sel)) << c.what;
      EXPECT_EQ(store->gets(), c.gets) << c.what;
      EXPECT_EQ(store->bytes(), c.bytes) << c.what;
    }
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

TEST(ShardedReadCostTest, TwoDimensionalBlockAtIndexStartCostsTwoGets) {
  auto store = std::make_shared<CountingStore>();
  auto a = Array::Create(
      store, "x",
      Int32Metadata({16, 16}, {16, 16},
                    Sharded({4, 4}, json::array({kLittle, kZstd}), "start")));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(256, 9);
  ASSERT_TRUE((*a)->Write(Selection::All({16, 16}), model.data()).ok());
  // Inner chunks [0, 0], [0, 1], [1, 0], [1, 1]: neighbours in Morton order.
  const Selection block({{1, 7, 2}, {0, 8, 1}});
  store->Reset();
  EXPECT_EQ(ReadOrDie(**a, block), Expected(model, {16, 16}, block));
  EXPECT_EQ(store->gets(), 2);
  // One inner chunk.
  const Selection one({{13, 14, 1}, {9, 10, 1}});
  store->Reset();
  EXPECT_EQ(ReadOrDie(**a, one), Expected(model, {16, 16}, one));
  EXPECT_EQ(store->gets(), 2);
}

TEST(ShardedReadCostTest, EmptyInnerChunksAndMissingShardsCostOnlyTheIndex) {
  auto store = std::make_shared<CountingStore>();
  auto a = Array::Create(
      store, "e",
      Int32Metadata({8, 8}, {4, 8}, Sharded({2, 2}, json::array({kLittle}), "end")));
  ASSERT_TRUE(a.ok());
  std::vector<int32_t> model(64, kFill);
  model[0] = 42;  // only inner chunk [0, 0] of shard 0 holds data
  ASSERT_TRUE((*a)->Write(Selection::All({8, 8}), model.data()).ok());
  const Selection empty_chunk({{2, 4, 1}, {4, 8, 1}});
  store->Reset();
  EXPECT_EQ(ReadOrDie(**a, empty_chunk), std::vector<int32_t>(8, kFill));
  EXPECT_EQ(store->gets(), 1);
  const Selection missing_shard({{4, 8, 1}, {0, 8, 1}});
  store->Reset();
  EXPECT_EQ(ReadOrDie(**a, missing_shard), std::vector<int32_t>(32, kFill));
  EXPECT_EQ(store->gets(), 1);
  EXPECT_EQ(store->bytes(), 0);
  EXPECT_EQ(ReadOrDie(**a, Selection::All({8, 8})), model);
}

// A sharded array of 2 x 2 shards of 4 x 4, inner chunks 2 x 2 compressed
// and checksummed, written whole; returns the index entries of shard c/0/1.
class ShardCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = MakeMemoryStore();
    auto a = Array::Create(
        store_, "a",
        Int32Metadata({8, 8}, {4, 4},
                      Sharded({2, 2}, json::array({kLittle, kZstd, kCrc}), "end")));
    ASSERT_TRUE(a.ok());
    array_ = *a;
    model_ = Pattern(64, 2);
    ASSERT_TRUE(array_->Write(Selection::All({8, 8}), model_.data()).ok());
    auto shard = store_->Get("a/c/0/1");
    ASSERT_TRUE(shard.ok() && shard->has_value());
    shard_ = **shard;
    auto opened = ShardStore::FromBytes(ShardStore::At(store_, "a/c/0/1"),
                                        *ShardedChain::Of(array_->codec_chain()), shard_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    for (int64_t i = 0; i < 4; ++i) entries_.push_back(*(*opened)->Locate(i));
  }

  Status ReadAll() {
    std::vector<int32_t> out(64);
    return array_->Read(Selection::All({8, 8}), out);
  }

  std::shared_ptr<Store> store_;
  std::shared_ptr<Array> array_;
  std::vector<int32_t> model_;
  Buffer shard_;
  std::vector<ByteSpan> entries_;  // every inner chunk of the shard is stored
};

TEST_F(ShardCorruptionTest, FlippedIndexByteNamesTheShard) {
  Buffer bad = shard_;
  bad.data()[bad.size() - 10] ^= std::byte{0x04};
  ASSERT_TRUE(store_->Set("a/c/0/1", bad.view()).ok());
  Status s = ReadAll();
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("array 'a'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'a/c/0/1'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("shard index"), std::string::npos) << s.message();
}

TEST_F(ShardCorruptionTest, FlippedInnerChunkByteNamesShardAndInnerChunk) {
  // Inner chunk [1, 0] of the shard (C-order position 2).
  Buffer bad = shard_;
  bad.data()[entries_[2].offset + 1] ^= std::byte{0x20};
  ASSERT_TRUE(store_->Set("a/c/0/1", bad.view()).ok());
  Status s = ReadAll();
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("'a/c/0/1'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("inner chunk [1, 0]"), std::string::npos) << s.message();
  // Other shards and the untouched inner chunks still read.
  std::vector<int32_t> left(32);
  ASSERT_TRUE(array_->Read(Selection({{0, 8, 1}, {0, 4, 1}}), left).ok());
  EXPECT_EQ(left, Expected(model_, {8, 8}, Selection({{0, 8, 1}, {0, 4, 1}})));
  std::vector<int32_t> row(2);
  ASSERT_TRUE(array_->Read(Selection({{0, 1, 1}, {4, 6, 1}}), row).ok());
  EXPECT_EQ(row, (std::vector<int32_t>{model_[4], model_[5]}));
}

TEST_F(ShardCorruptionTest, IndexEntryPastTheEndIsCorruption) {
  // Rewrite the index so that inner chunk [1, 1] claims bytes past the end.
  // The index at the end: 4 x (offset, nbytes) little-endian, then crc32c.
  Buffer bad = shard_;
  std::byte* index = bad.data() + bad.size() - 4 * 16 - 4;
  const uint64_t past_end = shard_.size() + 100;
  std::memcpy(index + 3 * 16, &past_end, 8);
  const uint32_t crc = Crc32c(ByteView(index, 4 * 16));
  std::memcpy(index + 4 * 16, &crc, 4);
  ASSERT_TRUE(store_->Set("a/c/0/1", bad.view()).ok());
  Status s = ReadAll();
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("'a/c/0/1'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("inner chunk [1, 1]"), std::string::npos) << s.message();
}

TEST_F(ShardCorruptionTest, ShardShorterThanItsIndexIsCorruption) {
  ASSERT_TRUE(store_->Set("a/c/1/1", shard_.view().first(7)).ok());
  Status s = ReadAll();
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("'a/c/1/1'"), std::string::npos) << s.message();
}

TEST(ShardedReadTest, OtherShardingLayoutsReadWholeShards) {
  // A checksum outside the sharding codec, and sharding nested in sharding:
  // both read correctly (the first through whole shards, the second inner
  // shard by inner shard).
  const std::vector<int64_t> shape = {12, 10};
  const std::vector<int32_t> model = Pattern(120, 4);
  json outer_crc = Sharded({2, 5}, json::array({kLittle}), "end");
  outer_crc.push_back(kCrc);
  const json nested =
      Sharded({4, 5}, Sharded({2, 5}, json::array({kLittle, kZstd}), "start"), "end");
  for (const json& codecs : {outer_crc, nested}) {
    SCOPED_TRACE(codecs.dump());
    auto store = MakeMemoryStore();
    auto a = Array::Create(store, "n", Int32Metadata(shape, {8, 10}, codecs));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(ShardedChain::Of((*a)->codec_chain()).has_value(), codecs == nested);
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    for (const Selection& sel : Selections(shape)) {
      EXPECT_EQ(ReadOrDie(**a, sel), Expected(model, shape, sel)) << sel.ToString();
    }
  }
}

TEST(ShardedReadTest, VariableLengthStringsInShards) {
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
  std::vector<std::string> out(4, "x");
  ASSERT_TRUE((*a)->Read(Selection({{0, 7, 2}}), out).ok());
  EXPECT_EQ(out, (std::vector<std::string>{"a", "", "eee", "g"}));
  std::vector<std::string> all(7);
  ASSERT_TRUE((*a)->Read(Selection::All({7}), all).ok());
  EXPECT_EQ(all, data);
}

}  // namespace
}  // namespace turbozarr

namespace turbozarr {
namespace {

// Sharding nested in sharding is read level by level, as chunks of shard
// stores: a read of one element fetches each level's index and one
// innermost chunk, over a local store and over one that keeps many requests
// in flight (the GetMany windows); missing shards at every level, and
// missing innermost chunks, read as the fill value.
class NestedShardReadTest : public ::testing::TestWithParam<bool> {};

TEST_P(NestedShardReadTest, ReadsOnlyWhatEachLevelNeeds) {
  const bool remote = GetParam();
  ASSERT_TRUE(SetThreads(2).ok());
  const std::vector<int64_t> shape = {23, 19};
  std::vector<int32_t> model = Pattern(NumElements(shape), 6);
  for (int64_t r = 0; r < shape[0]; ++r) {
    for (int64_t c = 0; c < shape[1]; ++c) {
      const bool missing_outer = r >= 16 && c >= 10;  // shard (2, 1)
      const bool missing_inner = r < 4 && c < 5;      // its inner shard [0, 0]
      const bool missing_chunk = r >= 4 && r < 6 && c >= 5 && c < 10;
      if (missing_outer || missing_inner || missing_chunk)
        model[r * shape[1] + c] = kFill;
    }
  }
  const json two_levels =
      Sharded({4, 5}, Sharded({2, 5}, json::array({kLittle, kZstd}), "start"), "end");
  const json three_levels = Sharded(
      {4, 10},
      Sharded({4, 5}, Sharded({2, 5}, json::array({kLittle, kCrc}), "end"), "start"),
      "end");
  for (const auto& [codecs, levels] :
       {std::pair{two_levels, 2}, std::pair{three_levels, 3}}) {
    SCOPED_TRACE(codecs.dump());
    auto memory = MakeMemoryStore();
    std::shared_ptr<MetricsStore> metrics =
        remote ? MakeMetricsStore(MakeThrottledStore(memory, {.connections = 16}))
               : MakeMetricsStore(memory);
    auto a = Array::Create(metrics, "n", Int32Metadata(shape, {8, 10}, codecs));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
    for (const Selection& sel : Selections(shape)) {
      EXPECT_EQ(ReadOrDie(**a, sel), Expected(model, shape, sel)) << sel.ToString();
    }
    // One element of outer shard (1, 1): an index per level, one chunk.
    auto shard = memory->Get("n/c/1/1", ByteRange::Full());
    ASSERT_TRUE(shard.ok() && shard->has_value());
    metrics->ResetMetrics();
    const Selection one({{13, 14, 1}, {17, 18, 1}});
    EXPECT_EQ(ReadOrDie(**a, one), Expected(model, shape, one));
    EXPECT_EQ(metrics->metrics().gets, static_cast<uint64_t>(levels + 1));
    EXPECT_LT(metrics->metrics().bytes_read, (*shard)->size() / 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, NestedShardReadTest, ::testing::Values(false, true),
                         [](const auto& info) {
                           return info.param ? "Remote" : "Local";
                         });

}  // namespace
}  // namespace turbozarr
