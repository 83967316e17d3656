// BlockIterator: blocks tile the selection exactly once and hold what
// Array::Read gives; the policy's block shapes; the readahead budget as a
// store sees it; cancelling part-way; errors.
#include "turbozarr/block_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "store/forwarding_store.h"
#include "testing/int32_array_fixtures.h"
#include "testing/thread_set.h"
#include "turbozarr/config.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using namespace fixtures;  // NOLINT: kLittle, Int32Metadata, Pattern, ...

// The arrays here: int32 chunks of bytes + zstd + crc32c, unless sharded.
ArrayMetadata Metadata(std::vector<int64_t> shape, std::vector<int64_t> chunks,
                       json codecs = json::array({kLittle, kZstd, kCrc})) {
  return Int32Metadata(std::move(shape), std::move(chunks), std::move(codecs));
}

json ShardedZstd(std::vector<int64_t> inner) {
  return Sharded(std::move(inner), json::array({kLittle, kZstd}), "end");
}

IterateOptions Options(uint64_t budget, std::vector<int64_t> block_shape = {}) {
  IterateOptions o;
  o.readahead_bytes = budget;
  o.block_shape = std::move(block_shape);
  return o;
}

// An array holding Pattern over `written` (all of it by default; elsewhere
// chunks are missing and read as kFill).
std::shared_ptr<Array> MakeArray(std::shared_ptr<Store> store, ArrayMetadata m,
                                 std::optional<Selection> written = std::nullopt) {
  const Selection w = written.value_or(Selection::All(m.shape));
  auto a = Array::Create(std::move(store), "", std::move(m));
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return nullptr;
  Status s = (*a)->Write(w, Pattern(w.num_elements()).data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return *a;
}

std::vector<int32_t> ReadOrDie(const Array& a, const Selection& sel) {
  std::vector<int32_t> out(static_cast<size_t>(sel.num_elements()));
  Status s = a.Read(sel, out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// Offset of element `idx` (per-dimension position) in a C-order block.
int64_t Offset(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + idx[d];
  return off;
}

// Iterates `sel` and checks every block against Array::Read, that blocks come
// in order, lie in one cell each, and together give Array::Read(sel) with
// every element written exactly once. Returns the blocks' shapes.
std::vector<std::vector<int64_t>> CheckTiling(const std::shared_ptr<Array>& a,
                                              const Selection& sel,
                                              const IterateOptions& options) {
  SCOPED_TRACE("selection " + sel.ToString());
  auto it = BlockIterator::Make(a, sel, options);
  EXPECT_TRUE(it.ok()) << it.status().ToString();
  if (!it.ok()) return {};
  const std::vector<int64_t> result_shape = sel.shape();
  const std::vector<int32_t> expected = ReadOrDie(*a, sel);
  std::vector<int32_t> assembled(expected.size(), 0);
  std::vector<int> covered(expected.size(), 0);
  std::vector<std::vector<int64_t>> shapes;
  const std::vector<int64_t>& cell = it->block_shape();
  for (int64_t i = 0;; ++i) {
    auto next = it->Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) {
      EXPECT_EQ(i, it->num_blocks());
      break;
    }
    Block& b = **next;
    EXPECT_EQ(b.index, i);
    const std::vector<int64_t> shape = b.shape();
    shapes.push_back(shape);
    EXPECT_EQ(b.data.size(), static_cast<size_t>(b.selection.num_elements()) * 4);
    EXPECT_LE(b.data.size(), it->max_block_bytes());
    EXPECT_EQ(b.selection.Validate(a->shape()).ok(), true);
    const std::vector<int32_t> direct = ReadOrDie(*a, b.selection);
    EXPECT_EQ(std::memcmp(direct.data(), b.data.data(), b.data.size()), 0)
        << "block " << i << " " << b.selection.ToString();
    for (size_t d = 0; d < sel.rank(); ++d) {
      const DimRange& r = b.selection.dims()[d];
      const DimRange& s = sel.dims()[d];
      EXPECT_GE(r.count(), 1);
      EXPECT_EQ(r.start / cell[d], (r.stop - 1) / cell[d]) << "block crosses a cell";
      EXPECT_EQ(r.start, s.start + b.origin[d] * s.step);
      EXPECT_EQ(r.count() == 1 || r.step == s.step, true);
    }
    // Place the block in the result.
    const int32_t* values = reinterpret_cast<const int32_t*>(b.data.data());
    std::vector<int64_t> k(sel.rank(), 0), at(sel.rank());
    for (int64_t e = 0; e < b.selection.num_elements(); ++e) {
      for (size_t d = 0; d < sel.rank(); ++d) at[d] = b.origin[d] + k[d];
      const int64_t off = Offset(result_shape, at);
      assembled[off] = values[e];
      ++covered[off];
      for (size_t d = sel.rank(); d-- > 0;) {
        if (++k[d] < shape[d]) break;
        k[d] = 0;
      }
    }
  }
  EXPECT_EQ(assembled, expected);
  EXPECT_EQ(std::count(covered.begin(), covered.end(), 1),
            static_cast<int64_t>(covered.size()));
  return shapes;
}

std::vector<Selection> Selections2D(int64_t r, int64_t c) {
  return {Selection::All({r, c}),
          Selection({{1, r - 1, 1}, {2, c - 1, 1}}),
          Selection({{0, r, 2}, {1, c, 3}}),
          Selection({{3, r, 9}, {0, c, 7}}),  // steps wider than a chunk
          Selection({{r - 1, r, 1}, {0, c, 1}}),
          Selection({{r / 2, r / 2 + 1, 1}, {c / 3, c / 3 + 1, 1}}),
          Selection({{0, 0, 1}, {0, c, 1}})};
}

// ---------------------------------------------------------------------------

TEST(BlockIteratorTest, BlocksTileSelectionsForEveryPolicyBranch) {
  // 37 x 23 in 8 x 5 chunks: edge chunks in both dimensions. A row of
  // chunks holds 736 bytes, one chunk 160.
  auto a = MakeArray(MakeMemoryStore(), Metadata({37, 23}, {8, 5}));
  ASSERT_NE(a, nullptr);
  for (uint64_t budget :
       {uint64_t{1} << 20, uint64_t{3000}, uint64_t{1000}, uint64_t{200}}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    IterateOptions options;
    options.readahead_bytes = budget;
    for (const Selection& sel : Selections2D(37, 23)) CheckTiling(a, sel, options);
  }
  for (std::vector<int64_t> cell :
       {std::vector<int64_t>{10, 7}, {1, 1}, {37, 23}, {100, 100}, {3, 40}}) {
    IterateOptions options;
    options.readahead_bytes = 1 << 20;
    options.block_shape = cell;
    for (const Selection& sel : Selections2D(37, 23)) CheckTiling(a, sel, options);
  }
}

TEST(BlockIteratorTest, BlocksTileOneAndThreeDimensions) {
  auto line = MakeArray(MakeMemoryStore(), Metadata({100}, {7}));
  ASSERT_NE(line, nullptr);
  for (uint64_t budget : {uint64_t{1} << 20, uint64_t{120}, uint64_t{28}}) {
    IterateOptions options;
    options.readahead_bytes = budget;
    for (const Selection& sel :
         {Selection::All({100}), Selection({{3, 97, 4}}), Selection({{5, 100, 11}})}) {
      CheckTiling(line, sel, options);
    }
  }
  auto cube = MakeArray(MakeMemoryStore(), Metadata({9, 10, 11}, {4, 3, 5}));
  ASSERT_NE(cube, nullptr);
  for (uint64_t budget :
       {uint64_t{1} << 20, uint64_t{2000}, uint64_t{600}, uint64_t{240}}) {
    IterateOptions options;
    options.readahead_bytes = budget;
    for (const Selection& sel :
         {Selection::All({9, 10, 11}), Selection({{1, 9, 3}, {0, 10, 1}, {2, 11, 2}}),
          Selection({{4, 5, 1}, {0, 10, 1}, {0, 11, 1}})}) {
      CheckTiling(cube, sel, options);
    }
  }
}

TEST(BlockIteratorTest, ChoosesRowsOfChunksWithinTheBudget) {
  // 64 x 64 in 8 x 8 chunks: a row of chunks is 2048 bytes, a chunk 256.
  auto a = MakeArray(MakeMemoryStore(), Metadata({64, 64}, {8, 8}));
  ASSERT_NE(a, nullptr);
  auto cell_for = [&](uint64_t budget) -> std::vector<int64_t> {
    IterateOptions options;
    options.readahead_bytes = budget;
    auto it = BlockIterator::Make(a, Selection::All({64, 64}), options);
    EXPECT_TRUE(it.ok()) << it.status().ToString();
    return it.ok() ? it->block_shape() : std::vector<int64_t>{};
  };
  EXPECT_EQ(cell_for(8192), (std::vector<int64_t>{8, 64}));      // one row: a quarter
  EXPECT_EQ(cell_for(32768), (std::vector<int64_t>{32, 64}));    // rows grow to a quarter
  EXPECT_EQ(cell_for(1 << 20), (std::vector<int64_t>{64, 64}));  // whole array
  EXPECT_EQ(cell_for(4096), (std::vector<int64_t>{8, 64}));      // a row is half
  EXPECT_EQ(cell_for(2048), (std::vector<int64_t>{8, 16}));      // chunks within a row
  EXPECT_EQ(cell_for(600), (std::vector<int64_t>{8, 8}));        // one chunk under half
  EXPECT_EQ(cell_for(300), (std::vector<int64_t>{8, 8}));        // one chunk, no overlap

  // Rows of chunks are contiguous in the result.
  auto shapes = CheckTiling(a, Selection::All({64, 64}), Options(8192));
  EXPECT_EQ(shapes.size(), 8u);
  for (const auto& s : shapes) EXPECT_EQ(s, (std::vector<int64_t>{8, 64}));

  IterateOptions tiny;
  tiny.readahead_bytes = 255;
  auto refused = BlockIterator::Make(a, Selection::All({64, 64}), tiny);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("readahead_bytes of 255"), std::string::npos)
      << refused.status().message();
  // A selection that takes less of each chunk needs less.
  tiny.readahead_bytes = 64;
  auto thin = BlockIterator::Make(a, Selection({{0, 64, 1}, {0, 64, 8}}), tiny);
  ASSERT_TRUE(thin.ok()) << thin.status().ToString();
  EXPECT_EQ(thin->max_block_bytes(), 32u);
}

TEST(BlockIteratorTest, ShardedArraysAlignToShardsOrInnerChunks) {
  // 32 x 48 in 16 x 24 shards of 4 x 6 inner chunks: a row of shards is
  // 3072 bytes, a row of inner chunks 768.
  auto a = MakeArray(MakeMemoryStore(), Metadata({32, 48}, {16, 24}, ShardedZstd({4, 6})),
                     Selection({{0, 30, 1}, {0, 40, 1}}));  // some inner chunks missing
  ASSERT_NE(a, nullptr);
  auto cell_for = [&](uint64_t budget) {
    auto it = BlockIterator::Make(a, Selection::All({32, 48}), Options(budget));
    EXPECT_TRUE(it.ok()) << it.status().ToString();
    return it.ok() ? it->block_shape() : std::vector<int64_t>{};
  };
  EXPECT_EQ(cell_for(16384), (std::vector<int64_t>{16, 48}));  // shard rows
  EXPECT_EQ(cell_for(4096), (std::vector<int64_t>{4, 48}));    // inner rows
  EXPECT_EQ(cell_for(6200), (std::vector<int64_t>{8, 48}));    // two inner rows
  EXPECT_EQ(cell_for(500), (std::vector<int64_t>{4, 6}));      // one inner chunk

  for (uint64_t budget :
       {uint64_t{16384}, uint64_t{4096}, uint64_t{6200}, uint64_t{500}}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    for (const Selection& sel : Selections2D(32, 48)) {
      CheckTiling(a, sel, Options(budget));
    }
  }
}

TEST(BlockIteratorTest, MissingChunksReadAsTheFillValue) {
  // Only the top-left 8 x 8 is written; the rest of the chunks are missing.
  auto a = MakeArray(MakeMemoryStore(), Metadata({24, 16}, {8, 8}),
                     Selection({{0, 8, 1}, {0, 8, 1}}));
  ASSERT_NE(a, nullptr);
  auto it = BlockIterator::Make(a, Selection::All({24, 16}), Options(1024));
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  ASSERT_EQ(it->block_shape(), (std::vector<int64_t>{8, 16}));
  const std::vector<int32_t> written = Pattern(64);
  for (int64_t i = 0; i < 3; ++i) {
    auto b = it->Next();
    ASSERT_TRUE(b.ok() && b->has_value()) << b.status().ToString();
    const int32_t* v = reinterpret_cast<const int32_t*>((*b)->data.data());
    for (int64_t r = 0; r < 8; ++r) {
      for (int64_t c = 0; c < 16; ++c) {
        const int32_t want = (i == 0 && c < 8) ? written[r * 8 + c] : kFill;
        ASSERT_EQ(v[r * 16 + c], want) << "block " << i << " at " << r << "," << c;
      }
    }
  }
  auto end = it->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  end = it->Next();  // and stays at the end
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(BlockIteratorTest, EmptySelectionsAndScalars) {
  auto a = MakeArray(MakeMemoryStore(), Metadata({10, 10}, {4, 4}));
  ASSERT_NE(a, nullptr);
  auto it = BlockIterator::Make(a, Selection({{3, 3, 1}, {0, 10, 1}}));
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  EXPECT_EQ(it->num_blocks(), 0);
  auto b = it->Next();
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->has_value());

  auto scalar = MakeArray(MakeMemoryStore(), Metadata({}, {}));
  ASSERT_NE(scalar, nullptr);
  auto sit = BlockIterator::Make(scalar, Selection::All({}), Options(4));
  ASSERT_TRUE(sit.ok()) << sit.status().ToString();
  auto one = sit->Next();
  ASSERT_TRUE(one.ok() && one->has_value()) << one.status().ToString();
  ASSERT_EQ((*one)->data.size(), 4u);
  int32_t v;
  std::memcpy(&v, (*one)->data.data(), 4);
  EXPECT_EQ(v, Pattern(1)[0]);
  auto none = sit->Next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(BlockIteratorTest, RefusesBadArguments) {
  auto a = MakeArray(MakeMemoryStore(), Metadata({10, 10}, {4, 4}));
  ASSERT_NE(a, nullptr);
  auto code = [&](const Selection& sel, IterateOptions o) {
    auto it = BlockIterator::Make(a, sel, o);
    return it.ok() ? StatusCode::kOk : it.status().code();
  };
  const Selection all = Selection::All({10, 10});
  EXPECT_EQ(code(Selection({{0, 11, 1}, {0, 10, 1}}), {}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(all, Options(1 << 20, {4})), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(all, Options(1 << 20, {4, 0})), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(all, Options(100, {5, 5})),
            StatusCode::kOk);  // 100 bytes: exactly one block
  EXPECT_EQ(code(all, Options(99, {5, 5})), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(all, Options(0)), StatusCode::kInvalidArgument);

  ArrayMetadata m;
  m.shape = {5};
  m.chunk_shape = {2};
  m.dtype = DataType(DataTypeId::kString);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = json::parse(R"([{"name":"vlen-utf8"}])");
  auto strings = Array::Create(MakeMemoryStore(), "s", m);
  ASSERT_TRUE(strings.ok()) << strings.status().ToString();
  auto it = BlockIterator::Make(*strings, Selection::All({5}));
  ASSERT_FALSE(it.ok());
  EXPECT_EQ(it.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(it.status().message().find("array 's'"), std::string::npos)
      << it.status().message();
}

// ---------------------------------------------------------------------------
// The budget and cancelling, watched from the store.

// Passes reads to a memory store, optionally slowly, and for every chunk
// read works out which block it belongs to from the chunk key ("c/i/j") and
// the cell grid (a whole-array selection, so block = cell). It keeps the
// largest span of blocks, from the oldest one the consumer has not released
// to the newest one being read, that was ever in memory at once.
class WatchingStore final : public Store {
 public:
  WatchingStore() : inner_(MakeMemoryStore()) {}

  void Watch(std::vector<int64_t> array_shape, std::vector<int64_t> chunk_shape,
             std::vector<int64_t> cell_shape) {
    std::lock_guard<std::mutex> lock(mu_);
    array_shape_ = std::move(array_shape);
    chunk_shape_ = std::move(chunk_shape);
    cell_shape_ = std::move(cell_shape);
    watching_ = true;
  }
  void Release(int64_t blocks_done) {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = blocks_done;
  }
  int64_t max_span() const {
    std::lock_guard<std::mutex> lock(mu_);
    return max_span_;
  }
  void set_delay(std::chrono::milliseconds d) { delay_ms_ = d.count(); }
  int64_t chunk_gets() const { return chunk_gets_; }

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    for (const ReadRequest& r : requests) {
      if (!r.key.starts_with("c/")) continue;
      ++chunk_gets_;
      Note(r.key);
      if (delay_ms_ > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    }
    return inner_->Read(requests, answers);
  }
  Status Set(std::string_view key, ByteView value) override {
    return inner_->Set(key, value);
  }
  Status Erase(std::string_view key) override { return inner_->Erase(key); }
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    return inner_->List(prefix);
  }
  std::string Describe() const override { return "watching://"; }

 private:
  void Note(std::string_view key) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!watching_) return;
    int64_t block = 0;
    size_t pos = 2;
    for (size_t d = 0; d < array_shape_.size(); ++d) {
      const size_t slash = key.find('/', pos);
      const int64_t coord = std::stoll(std::string(key.substr(pos, slash - pos)));
      pos = slash + 1;
      const int64_t cells = (array_shape_[d] + cell_shape_[d] - 1) / cell_shape_[d];
      block = block * cells + coord * chunk_shape_[d] / cell_shape_[d];
    }
    newest_ = std::max(newest_, block);
    max_span_ = std::max(max_span_, newest_ - released_ + 1);
  }

  std::shared_ptr<Store> inner_;
  mutable std::mutex mu_;
  bool watching_ = false;
  std::vector<int64_t> array_shape_, chunk_shape_, cell_shape_;
  int64_t released_ = 0;
  int64_t newest_ = -1;
  int64_t max_span_ = 0;
  std::atomic<int64_t> delay_ms_{0};
  std::atomic<int64_t> chunk_gets_{0};
};

// 256 x 64 in 8 x 8 chunks with budget 8192 makes 32 blocks of one row of
// chunks (2048 bytes): four blocks' worth, the held one included.
TEST(BlockIteratorTest, ReadaheadStaysWithinTheBudgetAndUsesIt) {
  for (uint64_t budget : {uint64_t{8192}, uint64_t{10000}}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    auto store = std::make_shared<WatchingStore>();
    auto a = MakeArray(store, Metadata({256, 64}, {8, 8}));
    ASSERT_NE(a, nullptr);
    store->Watch({256, 64}, {8, 8}, {8, 64});
    auto it = BlockIterator::Make(a, Selection::All({256, 64}), Options(budget));
    ASSERT_TRUE(it.ok()) << it.status().ToString();
    ASSERT_EQ(it->block_shape(), (std::vector<int64_t>{8, 64}));
    int64_t seen = 0;
    for (;;) {
      auto b = it->Next();
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      if (!b->has_value()) break;
      ++seen;
      // A slow consumer, so that the readahead fills the budget.
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      b->reset();
      store->Release(seen);
    }
    EXPECT_EQ(seen, 32);
    EXPECT_EQ(store->max_span(), 4);  // 4 x 2048 <= budget < 5 x 2048
  }
}

TEST(BlockIteratorTest, DestroyingPartWayStopsReading) {
  auto store = std::make_shared<WatchingStore>();
  auto a = MakeArray(store, Metadata({256, 64}, {8, 8}));
  ASSERT_NE(a, nullptr);
  const int64_t total_chunks = 32 * 8;

  // Never asked for a block: the lanes fill the budget and wait.
  {
    auto it = BlockIterator::Make(a, Selection::All({256, 64}), Options(8192));
    ASSERT_TRUE(it.ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LE(store->chunk_gets(), 4 * 8);

  // Destroyed while reads are slow and in flight: waits for those only.
  store->set_delay(std::chrono::milliseconds(10));
  const int64_t before = store->chunk_gets();
  auto started = std::chrono::steady_clock::now();
  {
    auto it = BlockIterator::Make(a, Selection::All({256, 64}), Options(8192));
    ASSERT_TRUE(it.ok());
    auto b = it->Next();
    ASSERT_TRUE(b.ok() && b->has_value());
    BlockIterator moved = std::move(*it);  // moving keeps the reads going
    auto c = moved.Next();
    ASSERT_TRUE(c.ok() && c->has_value());
    EXPECT_EQ((*c)->index, 1);
  }
  const int64_t at_end = store->chunk_gets();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(store->chunk_gets(), at_end);  // nothing reads after destruction
  EXPECT_LT(at_end - before, total_chunks / 2);
  // The blocks in flight take tens of milliseconds; a hang would not.
  EXPECT_LT(seconds, 5.0);
}

TEST(BlockIteratorTest, ErrorsNameTheBlockArrayAndChunk) {
  auto store = MakeMemoryStore();
  auto a = MakeArray(store, Metadata({32, 16}, {8, 8}));
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(store->Set("c/2/1", AsBytes("not a zstd frame")).ok());
  auto it = BlockIterator::Make(a, Selection::All({32, 16}), Options(2048));
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  ASSERT_EQ(it->block_shape(), (std::vector<int64_t>{8, 16}));
  for (int64_t i = 0; i < 2; ++i) {
    auto b = it->Next();
    ASSERT_TRUE(b.ok() && b->has_value()) << b.status().ToString();
    EXPECT_EQ((*b)->index, i);
  }
  auto bad = it->Next();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  const std::string& msg = bad.status().message();
  EXPECT_NE(msg.find("block 2 [16:24:1, 0:16:1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find(a->Describe()), std::string::npos) << msg;
  EXPECT_NE(msg.find("'c/2/1'"), std::string::npos) << msg;
  auto again = it->Next();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status(), bad.status());
}

// Records the threads that read chunks.
class ReadThreadsStore final : public internal::ForwardingStore {
 public:
  ReadThreadsStore() : ForwardingStore(MakeMemoryStore()) {}
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    threads.Add();
    // Slow enough that every thread of a pool gets to work.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return ForwardingStore::Read(requests, answers);
  }
  testing::ThreadSet threads;
};

TEST(BlockIteratorTest, BlocksAreReadOnThePoolTheOptionsName) {
  ASSERT_TRUE(SetThreads(1).ok());
  auto pool = MakeThreadPool(3);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  for (const bool given : {false, true}) {
    SCOPED_TRACE(given ? "a pool of 3" : "the process-wide pool of 1");
    auto store = std::make_shared<ReadThreadsStore>();
    auto a = MakeArray(store, Metadata({64, 64}, {8, 8}));
    ASSERT_NE(a, nullptr);
    store->threads.Clear();  // the reads of creating the array
    IterateOptions options = Options(64 * 64 * 4, {16, 64});
    if (given) options.pool = *pool;
    auto it = BlockIterator::Make(a, Selection::All({64, 64}), options);
    ASSERT_TRUE(it.ok()) << it.status().ToString();
    std::vector<int32_t> all;
    while (true) {
      auto b = it->Next();
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      if (!b->has_value()) break;
      const int32_t* v = reinterpret_cast<const int32_t*>((*b)->data.data());
      all.insert(all.end(), v, v + (*b)->selection.num_elements());
    }
    EXPECT_EQ(all, Pattern(64 * 64));
    // One lane reads each block inline on the pool of one; a pool of three
    // reads on more threads.
    if (given) {
      EXPECT_GT(store->threads.size(), 1u);
    } else {
      EXPECT_EQ(store->threads.size(), 1u);
    }
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

}  // namespace
}  // namespace turbozarr
