#include "turbozarr/array.h"

#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "store/forwarding_store.h"
#include "testing/thread_set.h"
#include "turbozarr/config.h"

namespace turbozarr {
namespace {

using nlohmann::json;

ArrayMetadata Int32Metadata(int format, std::vector<int64_t> shape,
                            std::vector<int64_t> chunks, json codecs) {
  ArrayMetadata m;
  m.zarr_format = format;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.dtype = DataType(DataTypeId::kInt32);
  m.fill_value = DefaultFillValue(m.dtype);
  int32_t fill = -1;
  std::memcpy(m.fill_value.bytes.data(), &fill, 4);
  if (format == 3) {
    m.codecs = std::move(codecs);
  } else {
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::kV2, '.'};
    m.v2_compressor = std::move(codecs);
  }
  return m;
}

// The element offsets (C order in `shape`) that `sel` selects, in order.
std::vector<int64_t> SelectedOffsets(const Selection& sel, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  std::vector<int64_t> idx(sel.rank(), 0);
  const int64_t n = sel.num_elements();
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < sel.rank(); ++d) {
      off = off * shape[d] + sel.dims()[d].start + idx[d] * sel.dims()[d].step;
    }
    out.push_back(off);
    for (size_t d = sel.rank(); d-- > 0;) {
      if (++idx[d] < sel.dims()[d].count()) break;
      idx[d] = 0;
    }
  }
  return out;
}

Selection RandomSelection(std::mt19937& rng, const std::vector<int64_t>& shape) {
  std::vector<DimRange> dims;
  for (int64_t extent : shape) {
    int64_t a = std::uniform_int_distribution<int64_t>(0, extent)(rng);
    int64_t b = std::uniform_int_distribution<int64_t>(0, extent)(rng);
    int64_t step = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    dims.push_back({std::min(a, b), std::max(a, b), step});
  }
  return Selection(dims);
}

// Alternate random writes (into the array and `model`, a dense copy of it)
// and random reads checked against the model.
void WriteAndReadAgainstModel(Array& array, std::vector<int32_t>& model, uint32_t seed,
                              int rounds) {
  const std::vector<int64_t>& shape = array.shape();
  std::mt19937 rng(seed);
  int32_t next = 0;
  for (int round = 0; round < rounds; ++round) {
    Selection sel = RandomSelection(rng, shape);
    std::vector<int64_t> offsets = SelectedOffsets(sel, shape);
    if (round % 2 == 0) {
      std::vector<int32_t> src(offsets.size());
      for (size_t k = 0; k < src.size(); ++k) src[k] = model[offsets[k]] = next++;
      ASSERT_TRUE(array.Write(sel, src.data()).ok()) << sel.ToString();
    } else {
      std::vector<int32_t> got(offsets.size(), 12345);
      ASSERT_TRUE(array.Read(sel, got).ok()) << sel.ToString();
      for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_EQ(got[k], model[offsets[k]]) << sel.ToString() << " element " << k;
      }
    }
  }
}

class ArrayModelTest : public ::testing::TestWithParam<std::tuple<int, json>> {};

// Random writes and reads against a dense in-memory model of the array.
TEST_P(ArrayModelTest, RandomSelectionsMatchModel) {
  auto [format, codecs] = GetParam();
  std::vector<int64_t> shape = {23, 17, 5};
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "g/a", Int32Metadata(format, shape, {7, 4, 3}, codecs));
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<int32_t> model(23 * 17 * 5, -1);
  ASSERT_NO_FATAL_FAILURE(WriteAndReadAgainstModel(**array, model, 42, 60));
  // Reopen from the store and read everything.
  auto reopened = Array::Open(store, "g/a");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  std::vector<int32_t> all(model.size());
  ASSERT_TRUE((*reopened)->Read(Selection::All(shape), all).ok());
  EXPECT_EQ(all, model);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ArrayModelTest,
    ::testing::Values(
        std::make_tuple(3, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])")),
        std::make_tuple(3, json::parse(R"([{"name":"transpose","configuration":{"order":[2,0,1]}},
            {"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":1,"checksum":true}}])")),
        std::make_tuple(3, json::parse(R"([{"name":"sharding_indexed","configuration":{
            "chunk_shape":[7,2,1],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},
            {"name":"gzip","configuration":{"level":1}}],
            "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],
            "index_location":"end"}}])")),
        std::make_tuple(2, json(nullptr)),
        std::make_tuple(2, json::parse(R"({"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0})"))));

// Rectilinear grids: chunk edges [2, 5, 5, 11] (rows) by a step of 4
// (columns) by [[1, 3], 2] (depth), so every chunk row has its own shape.
ArrayMetadata RectilinearMetadata(json codecs) {
  ArrayMetadata m = Int32Metadata(3, {23, 17, 5}, {11, 4, 2}, std::move(codecs));
  m.chunk_edges = {{{2, 1}, {5, 2}, {11, 1}}, {}, {{1, 3}, {2, 1}}};
  m.UpdateRectilinearChunkShape();
  return m;
}

class RectilinearModelTest : public ::testing::TestWithParam<json> {};

TEST_P(RectilinearModelTest, RandomSelectionsMatchModelAndChunksHaveTheirOwnShapes) {
  const std::vector<int64_t> shape = {23, 17, 5};
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "r", RectilinearMetadata(GetParam()));
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_FALSE((*array)->regular_grid());
  EXPECT_EQ((*array)->metadata().chunk_shape, (std::vector<int64_t>{11, 4, 2}));
  EXPECT_EQ((*array)->chunk_grid().GridShape(shape), (std::vector<int64_t>{4, 5, 4}));
  std::vector<int32_t> model(23 * 17 * 5, -1);
  ASSERT_NO_FATAL_FAILURE(WriteAndReadAgainstModel(**array, model, 7, 80));
  // Then every element its own value, so that every chunk is stored.
  for (size_t k = 0; k < model.size(); ++k) model[k] = static_cast<int32_t>(k);
  std::vector<int32_t> whole(model.size());
  ASSERT_TRUE((*array)->Write(Selection::All(shape), model.data()).ok());
  auto reopened = Array::Open(store, "r");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  ASSERT_TRUE((*reopened)->Read(Selection::All(shape), whole).ok());
  EXPECT_EQ(whole, model);
  // Each stored chunk decodes at its own shape: chunk (1, 4, 3) is 5 x 4 x 2
  // (rows 2..7, columns 16..17 of the array, clipped from 4 to 1, depth 3..5).
  Result<const CodecChain*> chain = (*reopened)->ChunkChain({1, 4, 3});
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_EQ((*chain)->spec().shape, (std::vector<int64_t>{5, 4, 2}));
  Result<std::optional<Buffer>> stored = store->Get("r/c/1/4/3");
  ASSERT_TRUE(stored.ok() && stored->has_value()) << stored.status().ToString();
  Result<ChunkArray> decoded = (*chain)->Decode((*stored)->view());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->shape, (std::vector<int64_t>{5, 4, 2}));
  const auto* values = reinterpret_cast<const int32_t*>(decoded->bytes.data());
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t k = 0; k < 2; ++k) {
      EXPECT_EQ(values[(i * 4 + 0) * 2 + k], model[((2 + i) * 17 + 16) * 5 + 3 + k]);
      EXPECT_EQ(values[(i * 4 + 1) * 2 + k], -1) << "past the array's edge: the fill value";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Codecs, RectilinearModelTest,
    ::testing::Values(
        json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])"),
        json::parse(R"([{"name":"transpose","configuration":{"order":[2,0,1]}},
            {"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":1,"checksum":true}}])"),
        json::parse(R"([{"name":"sharding_indexed","configuration":{
            "chunk_shape":[1,2,1],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},
            {"name":"gzip","configuration":{"level":1}}],
            "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],
            "index_location":"end"}}])")));

TEST(ArrayTest, RectilinearResizeAddsAnEdgeAndErasesChunksOutside) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "r", RectilinearMetadata(json::parse(
                                             R"([{"name":"bytes","configuration":{"endian":"little"}}])")));
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<int32_t> ones(23 * 17 * 5, 1);
  ASSERT_TRUE((*array)->Write(Selection::All({23, 17, 5}), ones.data()).ok());
  // Growing past the edges' sum (23) adds one edge of the rest (7).
  ASSERT_TRUE((*array)->Resize({30, 17, 5}).ok());
  EXPECT_EQ((*array)->metadata().chunk_edges[0],
            (std::vector<ChunkEdgeRun>{{2, 1}, {5, 2}, {11, 1}, {7, 1}}));
  EXPECT_EQ((*array)->chunk_grid().GridShape({30, 17, 5}), (std::vector<int64_t>{5, 5, 4}));
  // Shrinking keeps the edges and erases only chunks wholly outside: rows
  // 12.. hold chunk rows 3 and 4.
  ASSERT_TRUE((*array)->Resize({10, 17, 5}).ok());
  EXPECT_EQ((*array)->metadata().chunk_edges[0].size(), 4u);
  EXPECT_FALSE(store->Get("r/c/3/0/0")->has_value());
  EXPECT_TRUE(store->Get("r/c/2/0/0")->has_value());
  auto reopened = Array::Open(store, "r");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->metadata().chunk_edges, (*array)->metadata().chunk_edges);
}

TEST(ArrayTest, RectilinearShardsMustHoldWholeInnerChunks) {
  ArrayMetadata m = RectilinearMetadata(json::parse(R"([{"name":"sharding_indexed","configuration":{
      "chunk_shape":[5,2,1],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
      "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
      "index_location":"end"}}])"));
  auto array = Array::Create(MakeMemoryStore(), "r", m);
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find(
                "chunk edge length 2 in dimension 0 is not divisible by the shard's inner "
                "chunk size 5"),
            std::string::npos)
      << array.status().ToString();
  m.zarr_format = 2;
  m.codecs = json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])");
  EXPECT_EQ(Array::Create(MakeMemoryStore(), "r", m).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ArrayTest, MissingChunksReadAsFillValue) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "", Int32Metadata(3, {10}, {4}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])")));
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> out(10, 0);
  ASSERT_TRUE((*array)->Read(Selection::All({10}), out).ok());
  EXPECT_EQ(out, std::vector<int32_t>(10, -1));
  auto keys = store->List("");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, std::vector<std::string>{"zarr.json"});
}

TEST(ArrayTest, ChunksEqualToFillAreNotStoredUnlessAsked) {
  auto store = MakeMemoryStore();
  auto meta = Int32Metadata(3, {8}, {4}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])"));
  auto array = Array::Create(store, "a", meta);
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> data = {-1, -1, -1, -1, 1, 2, 3, 4};
  ASSERT_TRUE((*array)->Write(Selection::All({8}), data.data()).ok());
  EXPECT_EQ(*store->List("a"), (std::vector<std::string>{"a/c/1", "a/zarr.json"}));
  WriteOptions keep;
  keep.write_empty_chunks = true;
  ASSERT_TRUE((*array)->Write(Selection::All({8}), data.data(), keep).ok());
  EXPECT_EQ(*store->List("a"), (std::vector<std::string>{"a/c/0", "a/c/1", "a/zarr.json"}));
}

TEST(ArrayTest, CorruptChunkNamesArrayAndKey) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "a", Int32Metadata(3, {8}, {4}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}])")));
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> data = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_TRUE((*array)->Write(Selection::All({8}), data.data()).ok());
  auto stored = store->Get("a/c/1");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  Buffer flipped = **stored;
  flipped.data()[2] ^= std::byte{0x10};
  ASSERT_TRUE(store->Set("a/c/1", flipped.view()).ok());
  std::vector<int32_t> out(8);
  Status s = (*array)->Read(Selection::All({8}), out);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("array 'a'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("a/c/1"), std::string::npos) << s.message();
}

TEST(ArrayTest, CreateRefusesExistingNodeWithoutOverwrite) {
  auto store = MakeMemoryStore();
  auto meta = Int32Metadata(3, {4}, {2}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])"));
  ASSERT_TRUE(Array::Create(store, "x", meta).ok());
  auto again = Array::Create(store, "x", meta);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  CreateOptions overwrite;
  overwrite.overwrite = true;
  EXPECT_TRUE(Array::Create(store, "x", meta, overwrite).ok());
}

TEST(ArrayTest, ResizeErasesChunksOutsideAndKeepsTheRest) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "r", Int32Metadata(3, {6, 6}, {3, 3}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])")));
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> data(36);
  for (int i = 0; i < 36; ++i) data[i] = i;
  ASSERT_TRUE((*array)->Write(Selection::All({6, 6}), data.data()).ok());
  ASSERT_TRUE((*array)->Resize({3, 9}).ok());
  EXPECT_EQ(*store->List("r"), (std::vector<std::string>{"r/c/0/0", "r/c/0/1", "r/zarr.json"}));
  auto reopened = Array::Open(store, "r");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->shape(), (std::vector<int64_t>{3, 9}));
  std::vector<int32_t> row(9);
  ASSERT_TRUE((*reopened)->Read(Selection({{1, 2, 1}, {0, 9, 1}}), row).ok());
  EXPECT_EQ(row, (std::vector<int32_t>{6, 7, 8, 9, 10, 11, -1, -1, -1}));
}

TEST(ArrayTest, VariableLengthStringsRoundTrip) {
  auto store = MakeMemoryStore();
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = {5};
  m.chunk_shape = {2};
  m.dtype = DataType(DataTypeId::kString);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = json::parse(R"([{"name":"vlen-utf8"},{"name":"zstd","configuration":{"level":0,"checksum":false}}])");
  auto array = Array::Create(store, "s", m);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<std::string> data = {"a", "", "héllo", "longer string here", "z"};
  ASSERT_TRUE((*array)->Write(Selection::All({5}), data.data()).ok());
  std::vector<std::string> out(3);
  ASSERT_TRUE((*array)->Read(Selection({{0, 5, 2}}), out).ok());
  EXPECT_EQ(out, (std::vector<std::string>{"a", "héllo", "z"}));
}

TEST(ArrayTest, ParallelAndSerialReadsAgree) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "p", Int32Metadata(3, {100, 100}, {10, 10}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1,"checksum":false}}])")));
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> data(10000);
  for (int i = 0; i < 10000; ++i) data[i] = i * 7;
  ASSERT_TRUE((*array)->Write(Selection::All({100, 100}), data.data()).ok());
  EXPECT_TRUE(SetThreads(1).ok());
  std::vector<int32_t> serial(10000);
  ASSERT_TRUE((*array)->Read(Selection::All({100, 100}), serial).ok());
  EXPECT_TRUE(SetThreads(4).ok());
  std::vector<int32_t> parallel(10000);
  ASSERT_TRUE((*array)->Read(Selection::All({100, 100}), parallel).ok());
  EXPECT_EQ(serial, data);
  EXPECT_EQ(parallel, data);
}

TEST(ArrayTest, OutOfBoundsSelectionIsInvalidArgument) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "o", Int32Metadata(3, {4}, {2}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])")));
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> out(5);
  Status s = (*array)->Read(Selection({{0, 5, 1}}), out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("array 'o'"), std::string::npos) << s.message();
}

TEST(ArrayTest, ReadsCheckTheDestinationsTypeAndSize) {
  auto store = MakeMemoryStore();
  auto array = Array::Create(store, "t", Int32Metadata(3, {6}, {4}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])")));
  ASSERT_TRUE(array.ok());
  const std::vector<int32_t> data = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE((*array)->Write(Selection::All({6}), data.data()).ok());
  // Another element type, too few and too many elements: refused, the
  // destination untouched.
  std::vector<int16_t> narrow(6, 9);
  std::vector<int32_t> short_of(5, 9);
  std::vector<int32_t> extra(7, 9);
  for (Status s : {(*array)->Read(Selection::All({6}), narrow),
                   (*array)->Read(Selection::All({6}), short_of),
                   (*array)->Read(Selection::All({6}), extra)}) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("array 't'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("int32"), std::string::npos) << s.message();
  }
  EXPECT_EQ(narrow, std::vector<int16_t>(6, 9));
  EXPECT_EQ(short_of, std::vector<int32_t>(5, 9));
  // Memory named by its data type explicitly.
  std::vector<int32_t> out(3);
  ASSERT_TRUE((*array)
                  ->Read(Selection({{1, 6, 2}}),
                         ElementSpan(out.data(), DataType(DataTypeId::kInt32), 3))
                  .ok());
  EXPECT_EQ(out, (std::vector<int32_t>{2, 4, 6}));
  ElementBlock block(DataType(DataTypeId::kInt32), 2);
  ASSERT_TRUE((*array)->Read(Selection({{4, 6, 1}}), block).ok());
  EXPECT_EQ(std::memcmp(block.data(), data.data() + 4, 8), 0);
  // std::string elements stand for either variable-length type, not for
  // fixed-size ones.
  std::vector<std::string> words(6);
  EXPECT_EQ((*array)->Read(Selection::All({6}), words).code(),
            StatusCode::kInvalidArgument);
}

// Records which threads store chunks; each Set takes a millisecond, so that
// every thread of a pool gets to work.
class ThreadRecordingStore final : public internal::ForwardingStore {
 public:
  ThreadRecordingStore() : ForwardingStore(MakeMemoryStore()) {}
  Status Set(std::string_view key, ByteView value) override {
    threads.Add();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ForwardingStore::Set(key, value);
  }
  testing::ThreadSet threads;
};

TEST(ArrayTest, OperationsRunOnThePoolTheirOptionsName) {
  EXPECT_EQ(MakeThreadPool(0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeThreadPool(kMaxThreads + 1).status().code(), StatusCode::kInvalidArgument);
  auto pool = MakeThreadPool(3);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_TRUE(SetThreads(1).ok());
  auto store = std::make_shared<ThreadRecordingStore>();
  auto array = Array::Create(store, "p", Int32Metadata(3, {64, 64}, {8, 8}, json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1,"checksum":false}}])")));
  ASSERT_TRUE(array.ok());
  std::vector<int32_t> data(64 * 64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>(i * 3);
  WriteOptions write;
  write.pool = *pool;
  ASSERT_TRUE((*array)->Write(Selection::All({64, 64}), data.data(), write).ok());
  // The 64 chunks were stored from more than the calling thread, which is
  // all the process-wide pool has.
  EXPECT_GT(store->threads.size(), 1u);
  ReadOptions read;
  read.pool = *pool;
  std::vector<int32_t> out(64 * 64);
  ASSERT_TRUE((*array)->Read(Selection::All({64, 64}), out, read).ok());
  EXPECT_EQ(out, data);
  EXPECT_EQ(Threads(), 1);
  EXPECT_TRUE(SetThreads(2).ok());
}

}  // namespace
}  // namespace turbozarr
