// Arrays written to a local directory and read back through HttpStore from a
// real nginx: the same values bit for bit (v3, v2, sharded), groups opened
// through consolidated metadata without listing, and sharded partial reads
// that fetch only the byte ranges they need; and, through the in-process
// fault server, which requests a sharded read makes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include "testing/fault_http_server.h"
#include "testing/throttled_http_server.h"
#include "testing/nginx_server.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"
#include "turbozarr/group.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const json kZstd = {{"name", "zstd"},
                    {"configuration", {{"level", 1}, {"checksum", false}}}};
const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kCrc = {{"name", "crc32c"}};

ArrayMetadata Int32Metadata(int format, std::vector<int64_t> shape,
                            std::vector<int64_t> chunks, json codecs) {
  ArrayMetadata m;
  m.zarr_format = format;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.dtype = DataType(DataTypeId::kInt32);
  m.fill_value = DefaultFillValue(m.dtype);
  if (format == 3) {
    m.codecs = std::move(codecs);
  } else {
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::kV2, '.'};
    m.v2_compressor = std::move(codecs);
  }
  return m;
}

json Sharded(std::vector<int64_t> inner, json codecs = json::array({kBytes, kZstd})) {
  return json::array({{{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", inner},
                         {"codecs", std::move(codecs)},
                         {"index_codecs", json::array({kBytes, kCrc})},
                         {"index_location", "end"}}}}});
}

// Forwards to another store, counting the bytes its reads return. Reads take
// the remote path (GetMany windows), as through the HTTP store itself.
class CountingStore final : public Store {
 public:
  explicit CountingStore(std::shared_ptr<Store> inner) : inner_(std::move(inner)) {}
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    for (const ReadRequest& r : requests) {
      into_ += r.target == ReadTarget::kCallerMemory ? 1 : 0;
    }
    Status s = inner_->Read(requests, answers);
    if (s.ok()) {
      for (const ReadAnswer& a : answers) bytes_ += a.found ? a.length : 0;
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
  StoreCapabilities Capabilities() const override { return inner_->Capabilities(); }
  std::string Describe() const override { return inner_->Describe(); }
  int64_t bytes() const { return bytes_; }
  // Reads into the caller's memory (ReadTarget::kCallerMemory).
  int64_t into_caller_memory() const { return into_; }
  void Reset() {
    bytes_ = 0;
    into_ = 0;
  }

 private:
  std::shared_ptr<Store> inner_;
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> into_{0};
};

class ArrayOverHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<NginxServer*> nginx = SharedNginx();
    ASSERT_TRUE(nginx.ok()) << nginx.status().ToString();
    std::string dir = (*nginx)->root() + "/a-XXXXXX";
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    auto local = MakeLocalStore(dir);
    ASSERT_TRUE(local.ok());
    local_ = *local;
    HttpOptions o;
    o.idle_timeout = std::chrono::milliseconds(5000);
    auto http =
        MakeHttpStore((*nginx)->url() + "/" + fs::path(dir).filename().string(), o);
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = std::make_shared<CountingStore>(*http);
  }

  // Writes `m` at `path` in the local directory, filled with a pattern.
  void WriteArray(const std::string& path, const ArrayMetadata& m) {
    auto a = Array::Create(local_, path, m);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    int64_t n = 1;
    for (int64_t e : m.shape) n *= e;
    std::vector<int32_t> v(static_cast<size_t>(n));
    std::mt19937 rng(static_cast<unsigned>(n));
    for (auto& x : v)
      x = static_cast<int32_t>(rng() % 1000);  // compressible, not uniform
    ASSERT_TRUE((*a)->Write(Selection::All(m.shape), v.data()).ok());
  }

  std::vector<int32_t> Read(const std::shared_ptr<Store>& store, const std::string& path,
                            const Selection& sel) {
    auto a = Array::Open(store, path);
    EXPECT_TRUE(a.ok()) << path << ": " << a.status().ToString();
    if (!a.ok()) return {};
    std::vector<int32_t> out(static_cast<size_t>(sel.num_elements()), 7);
    Status s = (*a)->Read(sel, out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  std::shared_ptr<Store> local_;
  std::shared_ptr<CountingStore> http_;
};

TEST_F(ArrayOverHttpTest, ReadsTheSameValuesAsTheLocalDirectory) {
  WriteArray("v3", Int32Metadata(3, {300, 200}, {64, 50}, json::array({kBytes, kZstd})));
  WriteArray("v2", Int32Metadata(2, {130, 70}, {40, 40}, {{"id", "zstd"}, {"level", 1}}));
  WriteArray("sharded", Int32Metadata(3, {256, 256}, {128, 128}, Sharded({16, 16})));
  const std::vector<std::pair<std::string, std::vector<int64_t>>> arrays = {
      {"v3", {300, 200}}, {"v2", {130, 70}}, {"sharded", {256, 256}}};
  for (const auto& [path, shape] : arrays) {
    SCOPED_TRACE(path);
    const std::vector<Selection> sels = {
        Selection::All(shape), Selection({{3, shape[0] - 5, 1}, {7, 9, 1}}),
        Selection({{0, shape[0], 7}, {1, shape[1], 3}}),
        Selection({{shape[0] - 1, shape[0], 1}, {0, shape[1], 1}})};
    for (const Selection& sel : sels) {
      std::vector<int32_t> want = Read(local_, path, sel);
      ASSERT_FALSE(want.empty());
      EXPECT_TRUE(Read(http_, path, sel) == want) << sel.ToString();
    }
  }
}

// Uncompressed chunks of whole rows are written into the result as they
// arrive; chunks that are not (compressed, columns, another byte order) are
// decoded from buffers as before. Both give the local directory's values,
// and a stored chunk of the wrong length is an error naming it, whichever
// way it is read.
TEST_F(ArrayOverHttpTest, RawChunksOfWholeRowsReadIntoTheResult) {
  const json big_endian = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
  WriteArray("rows", Int32Metadata(3, {300, 64}, {32, 64}, json::array({kBytes})));
  WriteArray("rows-v2", Int32Metadata(2, {300, 64}, {32, 64}, json()));
  WriteArray("rows-be", Int32Metadata(3, {300, 64}, {32, 64}, json::array({big_endian})));
  WriteArray("columns", Int32Metadata(3, {300, 64}, {32, 16}, json::array({kBytes})));
  for (const std::string path : {"rows", "rows-v2", "rows-be", "columns"}) {
    SCOPED_TRACE(path);
    http_->Reset();
    for (const Selection& sel :
         {Selection::All({300, 64}), Selection({{32, 96, 1}, {0, 64, 1}}),
          Selection({{5, 290, 1}, {0, 64, 1}}), Selection({{0, 300, 3}, {1, 64, 2}})}) {
      std::vector<int32_t> want = Read(local_, path, sel);
      ASSERT_FALSE(want.empty());
      EXPECT_TRUE(Read(http_, path, sel) == want) << sel.ToString();
    }
    // In place: 9 of the first read's 10 chunks (the array's edge cuts the
    // last), the second's 2, 8 of the third's 10 (it cuts both ends), none
    // of the strided fourth's.
    const bool in_place = path == "rows" || path == "rows-v2";
    EXPECT_EQ(http_->into_caller_memory(), in_place ? 9 + 2 + 8 : 0);
  }
  // One chunk four bytes short, another four bytes long.
  auto rows = local_->Get("rows/c/1/0");
  ASSERT_TRUE(rows.ok() && rows->has_value());
  const ByteView stored = (*rows)->view();
  ASSERT_TRUE(local_->Set("rows/c/1/0", stored.subspan(0, stored.size() - 4)).ok());
  Buffer longer(stored.size() + 4);
  std::memcpy(longer.data(), stored.data(), stored.size());
  ASSERT_TRUE(local_->Set("rows/c/3/0", longer.view()).ok());
  auto a = Array::Open(http_, "rows");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  for (const char* key : {"c/1/0", "c/3/0"}) {
    const int64_t row = key[2] == '1' ? 32 : 96;
    std::vector<int32_t> out(32 * 64);
    Status s = (*a)->Read(Selection({{row, row + 32, 1}, {0, 64, 1}}), out);
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
    EXPECT_NE(s.ToString().find(std::string("chunk 'rows/") + key + "'"), std::string::npos)
        << s.ToString();
    EXPECT_NE(s.ToString().find("8192 bytes"), std::string::npos) << s.ToString();
  }
}

TEST_F(ArrayOverHttpTest, ShardedPartialReadsFetchOnlyWhatTheyNeed) {
  WriteArray("s", Int32Metadata(3, {512, 512}, {256, 256}, Sharded({32, 32})));
  // One inner chunk of one shard: the index and that chunk, not the shard.
  const Selection one({{40, 50, 1}, {300, 310, 1}});
  http_->Reset();
  std::vector<int32_t> got = Read(http_, "s", one);
  EXPECT_EQ(got, Read(local_, "s", one));
  auto shard = local_->Size("s/c/0/1");
  ASSERT_TRUE(shard.ok() && shard->has_value());
  EXPECT_LT(http_->bytes(), static_cast<int64_t>(**shard) / 8)
      << "a shard is " << **shard << " bytes";
  EXPECT_GT(http_->bytes(), 0);
}

TEST_F(ArrayOverHttpTest, ConsolidatedGroupsOpenWithoutListing) {
  GroupCreateOptions g;
  g.attributes = {{"title", "over http"}};
  auto root = Group::Create(local_, "", g);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_TRUE((*root)->CreateGroup("sub").ok());
  WriteArray("sub/x", Int32Metadata(3, {40, 30}, {16, 16}, json::array({kBytes, kZstd})));
  WriteArray("y", Int32Metadata(3, {100}, {33}, json::array({kBytes})));
  // Before consolidation, members would need a listing, which HTTP lacks.
  auto plain = Group::Open(http_, "");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  auto members = (*plain)->Members();
  ASSERT_FALSE(members.ok());
  EXPECT_EQ(members.status().code(), StatusCode::kUnsupported);

  ASSERT_TRUE((*root)->Consolidate().ok());
  auto group = Group::Open(http_, "");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  EXPECT_TRUE((*group)->is_consolidated());
  EXPECT_EQ((*group)->attributes()["title"], "over http");
  members = (*group)->Members();
  ASSERT_TRUE(members.ok()) << members.status().ToString();
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[0].name, "sub");
  EXPECT_EQ((*members)[1].name, "y");
  auto sub = (*group)->OpenGroup("sub");
  ASSERT_TRUE(sub.ok()) << sub.status().ToString();
  auto x = (*sub)->OpenArray("x");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  std::vector<int32_t> got(40 * 30);
  ASSERT_TRUE((*x)->Read(Selection::All({40, 30}), got).ok());
  EXPECT_EQ(got, Read(local_, "sub/x", Selection::All({40, 30})));
  auto tree = (*group)->Tree();
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  EXPECT_NE(tree->find("x"), std::string::npos);
}

// Puts every key of `from` on `server`.
void ServeAll(Store& from, FaultHttpServer& server) {
  auto keys = from.List("");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  for (const std::string& key : *keys) {
    auto value = from.Get(key);
    ASSERT_TRUE(value.ok() && value->has_value());
    server.Put(key, std::string(reinterpret_cast<const char*>((*value)->data()),
                                (*value)->size()));
  }
}

// The fault-injecting server (with no faults) serving every key of a store,
// recording the Range header of every request by path.
struct RangeRecordingServer {
  FaultHttpServer server;
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> ranges_by_path;  // guarded by mu

  void Serve(Store& from) {
    ASSERT_TRUE(server.Start().ok());
    ServeAll(from, server);
    server.SetPolicy([this](uint64_t, const std::string& path, const std::string& range) {
      std::lock_guard<std::mutex> lock(mu);
      ranges_by_path[path].push_back(range);
      return HttpFault::kNone;
    });
  }
  Result<std::shared_ptr<Store>> Connect() {
    HttpOptions o;
    o.idle_timeout = std::chrono::milliseconds(5000);
    return MakeHttpStore(server.url(), o);
  }
};

// Through the fault-injecting server (with no faults), which sees every
// request: a sharded read asks for each shard's index once, then for merged
// ranges only, all in two GetMany calls; a shard read whole is fetched whole,
// with one request and no Range.
TEST(ShardedReadOverHttpTest, OneIndexRequestPerShardThenMergedRanges) {
  ASSERT_TRUE(SetThreads(2).ok());
  constexpr int64_t kInner = 8192;   // inner chunks of 32 KiB, stored raw
  const int64_t n = 4 * 8 * kInner;  // 4 shards of 8 inner chunks
  auto memory = MakeMemoryStore();
  auto a = Array::Create(
      memory, "s",
      Int32Metadata(3, {n}, {8 * kInner}, Sharded({kInner}, json::array({kBytes}))));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<int32_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(i * 7 + 3);
  ASSERT_TRUE((*a)->Write(Selection::All({n}), values.data()).ok());

  RangeRecordingServer server;
  ASSERT_NO_FATAL_FAILURE(server.Serve(*memory));
  auto http = server.Connect();
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  auto metrics = MakeMetricsStore(*http);
  auto remote = Array::Open(metrics, "s");
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();

  struct Case {
    const char* what;
    Selection sel;
    uint64_t get_many_calls;
    uint64_t reads;
    std::vector<std::string> ranges;  // each shard's requests, sorted
  };
  const std::vector<Case> cases = {
      // Inner chunks 0 and 4 of each shard, 96 KiB apart: two ranges.
      {"large gaps",
       Selection({{0, n, 4 * kInner}}),
       2,
       4 + 8,
       {"bytes=-132", "bytes=0-32767", "bytes=131072-163839"}},
      // All eight inner chunks of each shard: the whole shard, one request.
      {"everything", Selection::All({n}), 1, 4, {""}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    {
      std::lock_guard<std::mutex> lock(server.mu);
      server.ranges_by_path.clear();
    }
    metrics->ResetMetrics();
    std::vector<int32_t> got(static_cast<size_t>(c.sel.num_elements()));
    ASSERT_TRUE((*remote)->Read(c.sel, got).ok());
    std::vector<int32_t> want;
    const DimRange& d = c.sel.dims()[0];
    for (int64_t i = d.start; i < d.stop; i += d.step) want.push_back(values[i]);
    EXPECT_EQ(got, want);
    EXPECT_EQ(metrics->metrics().get_many_calls, c.get_many_calls);
    EXPECT_EQ(metrics->metrics().gets, c.reads);
    std::lock_guard<std::mutex> lock(server.mu);
    EXPECT_EQ(server.ranges_by_path.size(), 4u);
    for (auto& [path, ranges] : server.ranges_by_path) {
      EXPECT_NE(path.find("s/c/"), std::string::npos) << path;
      std::sort(ranges.begin(), ranges.end());
      EXPECT_EQ(ranges, c.ranges) << path;
    }
  }
}

// Chunks and shards large enough to come in parts (16 MiB, two of them:
// each read gets half of the connections), read whole with few other reads
// in flight: each is fetched as two ranged parts at once, and the values
// are exact.
TEST(ShardedReadOverHttpTest, LargeChunksAndShardsReadWithFewOthersComeInParts) {
  ASSERT_TRUE(SetThreads(2).ok());
  constexpr int64_t kChunk = int64_t{4} << 20;  // int32: 16 MiB
  const int64_t n = 2 * kChunk;
  auto memory = MakeMemoryStore();
  std::vector<int32_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(i * 7 + 3);
  for (const bool sharded : {false, true}) {
    auto a = Array::Create(
        memory, sharded ? "sharded" : "plain",
        Int32Metadata(3, {n}, {kChunk},
                      sharded ? Sharded({kChunk / 8}, json::array({kBytes}))
                              : json::array({kBytes})));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All({n}), values.data()).ok());
  }
  RangeRecordingServer server;
  ASSERT_NO_FATAL_FAILURE(server.Serve(*memory));
  auto http = server.Connect();
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  for (const char* name : {"plain", "sharded"}) {
    SCOPED_TRACE(name);
    auto remote = Array::Open(*http, name);
    ASSERT_TRUE(remote.ok()) << remote.status().ToString();
    std::vector<int32_t> got(static_cast<size_t>(n));
    ASSERT_TRUE((*remote)->Read(Selection::All({n}), got).ok());
    EXPECT_TRUE(got == values);
    std::lock_guard<std::mutex> lock(server.mu);
    for (const char* chunk : {"/c/0", "/c/1"}) {
      std::vector<std::string> ranges = server.ranges_by_path["/" + std::string(name) + chunk];
      ASSERT_EQ(ranges.size(), 2u) << chunk;
      std::sort(ranges.begin(), ranges.end());
      EXPECT_EQ(ranges[0].rfind("bytes=0-", 0), 0u) << ranges[0];
      EXPECT_EQ(ranges[1].back(), '-') << ranges[1];  // the open-ended last part
    }
  }
}

// A v2 group and its array, consolidated, in memory; `format` 3 writes the
// same as v3 (consolidated inline in zarr.json).
std::shared_ptr<Store> ConsolidatedGroup(int format) {
  auto memory = MakeMemoryStore();
  GroupCreateOptions go;
  go.zarr_format = format;
  go.attributes = {{"note", "root"}};
  auto g = Group::Create(memory, "", go);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  auto x = (*g)->CreateArray("x", Int32Metadata(format, {6}, {4}, format == 3
                                                    ? json::array({kBytes})
                                                    : json()));
  EXPECT_TRUE(x.ok()) << x.status().ToString();
  const std::vector<int32_t> values = {1, 2, 3, 4, 5, 6};
  EXPECT_TRUE((*x)->Write(Selection::All({6}), values.data()).ok());
  EXPECT_TRUE((*g)->Consolidate().ok());
  return memory;
}

// ConsolidatedGroup(format) served by `server` (started here), through an
// HTTP store; null on failure.
std::shared_ptr<Store> ServeConsolidatedGroup(int format, FaultHttpServer& server) {
  if (!server.Start().ok()) return nullptr;
  ServeAll(*ConsolidatedGroup(format), server);
  auto http = MakeHttpStore(server.url());
  EXPECT_TRUE(http.ok()) << http.status().ToString();
  return http.ok() ? *http : nullptr;
}

// Opening a node over HTTP costs one round trip: zarr.json, the three v2
// documents and (for a group) .zmetadata in one batch. A consolidated
// group's arrays then open without a request.
TEST(NodeOpenOverHttpTest, OneBatchPerNodeThenConsolidatedMembersFree) {
  for (int format : {2, 3}) {
    SCOPED_TRACE(format);
    FaultHttpServer server;
    std::shared_ptr<Store> http = ServeConsolidatedGroup(format, server);
    ASSERT_TRUE(http);
    auto metrics = MakeMetricsStore(http);

    auto node = OpenNode(metrics, "");
    ASSERT_TRUE(node.ok()) << node.status().ToString();
    ASSERT_TRUE(node->group);
    EXPECT_FALSE(node->array);
    EXPECT_EQ(node->group->zarr_format(), format);
    EXPECT_EQ(node->group->attributes().value("note", ""), "root");
    EXPECT_TRUE(node->group->is_consolidated());
    EXPECT_EQ(metrics->metrics().get_many_calls, 1u);
    EXPECT_EQ(server.requests(), 5u);  // zarr.json .zarray .zgroup .zattrs .zmetadata

    auto x = node->group->OpenArray("x");
    ASSERT_TRUE(x.ok()) << x.status().ToString();
    EXPECT_EQ(server.requests(), 5u);
    std::vector<int32_t> got(6);
    ASSERT_TRUE((*x)->Read(Selection::All({6}), got).ok());
    EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));

    // The array itself, opened by path: one batch, and it is an array.
    const uint64_t before = server.requests();
    auto direct = OpenNode(metrics, "x");
    ASSERT_TRUE(direct.ok()) << direct.status().ToString();
    ASSERT_TRUE(direct->array);
    EXPECT_FALSE(direct->group);
    EXPECT_EQ(direct->array->shape(), (std::vector<int64_t>{6}));
    EXPECT_EQ(server.requests() - before, 5u);

    auto none = OpenNode(metrics, "absent");
    EXPECT_EQ(none.status().code(), StatusCode::kNotFound) << none.status().ToString();
  }
}

// A caller that expects an array asks only for an array's documents
// (zarr.json, .zarray, .zattrs: v2 probes 3, not 5), and one that expects a
// group leaves out .zarray; a node of the other kind still opens, with a
// second batch. The store remembers the documents it was told are absent,
// so opening again asks only for what may be there.
TEST(NodeOpenOverHttpTest, AnExpectedKindAsksForItsOwnDocumentsOnly) {
  for (int format : {2, 3}) {
    SCOPED_TRACE(format);
    FaultHttpServer server;
    std::shared_ptr<Store> http = ServeConsolidatedGroup(format, server);
    ASSERT_TRUE(http);

    auto x = OpenExpectedNode(http, "x", NodeKind::kArray);
    ASSERT_TRUE(x.ok()) << x.status().ToString();
    ASSERT_TRUE(x->array);
    EXPECT_EQ(server.requests(), 3u);  // zarr.json .zarray .zattrs
    auto direct = Array::Open(http, "x");
    ASSERT_TRUE(direct.ok()) << direct.status().ToString();
    // Again, without the absent one: v2's zarr.json, v3's .zarray and .zattrs.
    EXPECT_EQ(server.requests(), format == 3 ? 4u : 5u);

    auto g = OpenExpectedNode(http, "", NodeKind::kGroup);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_TRUE(g->group);
    EXPECT_TRUE(g->group->is_consolidated());
    // zarr.json .zgroup .zattrs .zmetadata
    EXPECT_EQ(server.requests(), format == 3 ? 8u : 9u);

    // The other kind: the group where an array was expected, in a second batch.
    uint64_t before = server.requests();
    auto other = OpenExpectedNode(http, "", NodeKind::kArray);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    EXPECT_TRUE(other->group);
    // v3: zarr.json and .zarray (.zattrs is known absent); v2: the
    // documents not yet known absent, in two batches.
    EXPECT_EQ(server.requests() - before, format == 3 ? 2u : 5u);
    auto refused = Array::Open(http, "");
    EXPECT_EQ(refused.status().code(), StatusCode::kNotFound);
    EXPECT_NE(refused.status().message().find("a group is there"), std::string::npos)
        << refused.status().ToString();
    before = server.requests();
    auto not_a_group = Group::Open(http, "x");
    EXPECT_NE(not_a_group.status().message().find("an array is there"), std::string::npos)
        << not_a_group.status().ToString();
    EXPECT_EQ(server.requests() - before, format == 3 ? 3u : 5u);
  }
}

// Some servers answer 403 rather than 404 for an absent key (S3, to a reader
// who may not list the bucket). A v3 node opens there all the same: the
// refused batch is followed by reads one by one, which stop at zarr.json.
TEST(NodeOpenOverHttpTest, ServerThatRefusesAbsentKeysStillOpensV3) {
  FaultHttpServer server;
  ASSERT_TRUE(server.Start().ok());
  ServeAll(*ConsolidatedGroup(3), server);
  const std::vector<std::string> paths = server.Paths();
  const std::set<std::string> present(paths.begin(), paths.end());
  server.SetPolicy([present](uint64_t, const std::string& path, const std::string&) {
    return present.count(path.substr(1)) ? HttpFault::kNone : HttpFault::kStatus403;
  });
  HttpOptions o;
  o.max_retries = 0;
  auto http = MakeHttpStore(server.url(), o);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  auto node = OpenNode(*http, "");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ASSERT_TRUE(node->group);
  auto x = Array::Open(*http, "x");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  std::vector<int32_t> got(6);
  ASSERT_TRUE((*x)->Read(Selection::All({6}), got).ok());
  EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  // An absent node is an error there, and says what the server answered.
  auto none = OpenNode(*http, "absent");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("403"), std::string::npos)
      << none.status().ToString();
}

// The kernel's count of connections dropped because a listen backlog was
// full (TcpExt ListenOverflows in /proc/net/netstat; every socket of the
// machine's network namespace together); nullopt where it cannot be read.
std::optional<uint64_t> ListenOverflows() {
  std::ifstream in("/proc/net/netstat");
  std::string names;
  std::string values;
  while (std::getline(in, names) && std::getline(in, values)) {
    if (!names.starts_with("TcpExt:")) continue;
    std::istringstream n(names);
    std::istringstream v(values);
    std::string name;
    std::string value;
    while (n >> name && v >> value) {
      if (name == "ListenOverflows") return std::stoull(value);
    }
  }
  return std::nullopt;
}

// A modest web server (HTTP/1.1 keep-alive, a listen backlog of 5, 30 ms
// per answer, as Python's http.server gives) and a v2 array of 64 chunks. A
// client that opens a connection per chunk at once overruns the backlog: the
// kernel drops the handshakes that do not fit and each costs seconds of SYN
// retransmits (a read took 15-30 s). The transport opens connections a few
// at a time and reuses them: no handshake is dropped, and at most the cap is
// opened over two reads.
// A memory store with the (256, 256) int32 v2 array "a" in square chunks of
// `chunk`, holding `values` (filled here with a pattern of `factor`).
std::shared_ptr<Store> ModestArray(int64_t chunk, uint32_t factor,
                                   std::vector<int32_t>& values) {
  auto memory = MakeMemoryStore();
  auto created = Array::Create(memory, "a", Int32Metadata(2, {256, 256}, {chunk, chunk}, json()));
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  values.resize(256 * 256);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i * factor);
  if (created.ok()) {
    EXPECT_TRUE((*created)->Write(Selection::All({256, 256}), values.data()).ok());
  }
  return memory;
}

TEST(ModestServerTest, AReadOpensFewConnectionsAndOverrunsNoBacklog) {
  std::vector<int32_t> values;
  std::shared_ptr<Store> memory = ModestArray(32, 2654435761u, values);

  HttpThrottle throttle;
  throttle.latency = std::chrono::milliseconds(30);
  ThrottledHttpServer server(memory, throttle);
  ASSERT_TRUE(server.Start(0, /*backlog=*/5).ok());
  auto http = MakeHttpStore(server.url());
  ASSERT_TRUE(http.ok()) << http.status().ToString();

  const std::optional<uint64_t> overflows_before = ListenOverflows();
  const auto start = std::chrono::steady_clock::now();
  auto a = Array::Open(*http, "a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<int32_t> got(values.size());
  ASSERT_TRUE((*a)->Read(Selection::All({256, 256}), got).ok());
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got, values);

  const HttpServeStats first = server.stats();
  EXPECT_GE(first.requests, 64u);
  EXPECT_LE(first.connections, 32u);  // the default cap per host
  EXPECT_LE(first.connections * 2, first.requests);
  if (overflows_before) {
    EXPECT_EQ(ListenOverflows().value(), *overflows_before)
        << "handshakes were dropped: a connection storm";
  }
  // A dropped handshake alone costs a second; the paced read about 0.3 s.
  EXPECT_LT(took, std::chrono::seconds(5));

  std::fill(got.begin(), got.end(), 0);
  ASSERT_TRUE((*a)->Read(Selection::All({256, 256}), got).ok());
  EXPECT_EQ(got, values);
  // Connections stay open and are reused; more open only while the cap allows
  // (the window grew during the first read).
  EXPECT_LE(server.stats().connections, 32u);
}

// The same kind of server answering as HTTP/1.0 does (`python -m
// http.server`): every connection closes after its answer, so every request
// opens one. Four at a time (the pacing above) would hold a 256-chunk read
// to four requests per 30 ms; the transport sees that the host keeps no
// connection, lets more handshakes wait at once, one a millisecond, and
// still overruns no backlog.
TEST(ModestServerTest, AServerThatClosesEveryConnectionGetsMoreThanAFewRequestsAtOnce) {
  std::vector<int32_t> values;
  std::shared_ptr<Store> memory = ModestArray(16, 40503u, values);

  HttpThrottle throttle;
  throttle.latency = std::chrono::milliseconds(30);
  throttle.close_connections = true;
  ThrottledHttpServer server(memory, throttle);
  ASSERT_TRUE(server.Start(0, /*backlog=*/5).ok());
  auto http = MakeHttpStore(server.url());
  ASSERT_TRUE(http.ok()) << http.status().ToString();

  const std::optional<uint64_t> overflows_before = ListenOverflows();
  auto a = Array::Open(*http, "a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<int32_t> got(values.size());
  ASSERT_TRUE((*a)->Read(Selection::All({256, 256}), got).ok());
  EXPECT_EQ(got, values);

  const HttpServeStats stats = server.stats();
  EXPECT_GE(stats.requests, 256u);
  EXPECT_EQ(stats.connections, stats.requests);  // none kept
  EXPECT_GT(stats.peak_connections, 8u);
  EXPECT_LE(stats.peak_connections, 32u);  // the default cap per host
  if (overflows_before) {
    EXPECT_EQ(ListenOverflows().value(), *overflows_before)
        << "handshakes were dropped: a connection storm";
  }
}
}  // namespace
}  // namespace turbozarr
