// Verify (turbozarr/verify.h): clean arrays of both formats, sharded and
// not, with and without checksums; then damage of every kind it looks for,
// each found under the key that holds it, the rest of the walk unharmed.
#include "turbozarr/verify.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/group.h"
#include "turbozarr/store_wrappers.h"
#include "util/crc32c.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

// Whether `text` holds `part`, saying what it holds when not.
::testing::AssertionResult Holds(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not hold '" << part << "'";
}

// 16 int32 in chunks (or shards) of 8: two stored chunks, 32 bytes each.
std::shared_ptr<Array> Written(const std::shared_ptr<Store>& store, const std::string& path,
                               json codecs, std::vector<int64_t> chunks = {8}) {
  auto a = Array::Create(store, path, Int32Metadata({16}, std::move(chunks), std::move(codecs)));
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  const std::vector<int32_t> values = Pattern(16);
  EXPECT_TRUE((*a)->Write(Selection::All({16}), values.data()).ok());
  return *a;
}

VerifyReport Verified(const std::shared_ptr<Store>& store, std::string_view path = "",
                      const VerifyOptions& options = {}) {
  Result<VerifyReport> report = Verify(store, path, options);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? *report : VerifyReport();
}

Buffer Stored(Store& store, const std::string& key) {
  Result<std::optional<Buffer>> got = store.Get(key);
  EXPECT_TRUE(got.ok() && got->has_value()) << key;
  return got.ok() && *got ? std::move(**got) : Buffer();
}

void FlipBit(Store& store, const std::string& key, size_t byte) {
  Buffer b = Stored(store, key);
  b.data()[byte] ^= std::byte{0x10};
  ASSERT_TRUE(store.Set(key, b.view()).ok());
}

const ArrayVerifyReport& Only(const VerifyReport& r) {
  EXPECT_EQ(r.arrays.size(), 1u);
  static const ArrayVerifyReport kNone;
  return r.arrays.empty() ? kNone : r.arrays[0];
}

TEST(VerifyTest, CleanV3ArrayWithChecksumIsVerified) {
  auto store = MakeMemoryStore();
  Written(store, "a", json::array({kLittle, kCrc}));
  const VerifyReport r = Verified(store, "a");
  const ArrayVerifyReport& a = Only(r);
  EXPECT_EQ(a.path, "a");
  EXPECT_EQ(a.zarr_format, 3);
  EXPECT_TRUE(a.has_checksum);
  EXPECT_EQ(a.chunks_checked, 2u);
  EXPECT_EQ(a.stored_bytes, 2u * (32 + 4));
  EXPECT_EQ(a.decoded_bytes, 2u * 32);
  EXPECT_TRUE(a.findings.empty());
  EXPECT_EQ(a.verdict(), ArrayVerdict::kVerified);
  EXPECT_FALSE(r.damaged());
}

TEST(VerifyTest, ArrayWithoutChecksumIsDecodedUnchecked) {
  auto store = MakeMemoryStore();
  Written(store, "a", json::array({kLittle, kZstd}));
  const ArrayVerifyReport a = Only(Verified(store, "a"));
  EXPECT_FALSE(a.has_checksum);
  EXPECT_EQ(a.chunks_checked, 2u);
  EXPECT_EQ(a.decoded_bytes, 64u);
  EXPECT_EQ(a.verdict(), ArrayVerdict::kDecodedUnchecked);
  EXPECT_EQ(ArrayVerdictName(a.verdict()), "decoded, unchecked");
}

// A v2 array of 16 int32 in chunks of 8 with `compressor`, written.
void WriteV2(const std::shared_ptr<Store>& store, const std::string& path, json compressor) {
  const JsonDocument zarray = {{"zarr_format", 2},    {"shape", {16}},       {"chunks", {8}},
                               {"dtype", "<i4"},      {"compressor", compressor},
                               {"fill_value", 0},     {"order", "C"},        {"filters", nullptr}};
  Result<ArrayMetadata> m = ParseV2ArrayMetadata(zarray, JsonDocument(), path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto a = Array::Create(store, path, *m);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::vector<int32_t> values = Pattern(16);
  ASSERT_TRUE((*a)->Write(Selection::All({16}), values.data()).ok());
}

TEST(VerifyTest, V2ArraysWithAndWithoutChecksum) {
  auto store = MakeMemoryStore();
  WriteV2(store, "zlib", {{"id", "zlib"}, {"level", 1}});
  WriteV2(store, "raw", nullptr);
  // Creating the arrays made the root group they need.
  EXPECT_EQ(Verified(store).arrays.size(), 2u);
  const ArrayVerifyReport zlib = Only(Verified(store, "zlib"));
  EXPECT_EQ(zlib.zarr_format, 2);
  EXPECT_EQ(zlib.verdict(), ArrayVerdict::kVerified);
  EXPECT_EQ(zlib.chunks_checked, 2u);
  const ArrayVerifyReport raw = Only(Verified(store, "raw"));
  EXPECT_EQ(raw.verdict(), ArrayVerdict::kDecodedUnchecked);
  EXPECT_EQ(raw.stored_bytes, 64u);

  FlipBit(*store, "zlib/1", 6);
  const ArrayVerifyReport damaged = Only(Verified(store, "zlib"));
  ASSERT_EQ(damaged.findings.size(), 1u);
  EXPECT_EQ(damaged.findings[0].key, "zlib/1");
  EXPECT_EQ(damaged.verdict(), ArrayVerdict::kDamaged);
}

TEST(VerifyTest, CleanShardedArray) {
  auto store = MakeMemoryStore();
  Written(store, "s", Sharded({4}, json::array({kLittle, kCrc}), "end"));
  const ArrayVerifyReport a = Only(Verified(store, "s"));
  EXPECT_TRUE(a.has_checksum);
  EXPECT_EQ(a.chunks_checked, 2u);  // shards
  EXPECT_EQ(a.decoded_bytes, 64u);
  EXPECT_EQ(a.stored_bytes, 2u * (2 * (16 + 4) + 2 * 16 + 4));
  EXPECT_TRUE(a.findings.empty()) << a.findings[0].message;
}

TEST(VerifyTest, FlippedBitUnderCrc32cNamesTheChunk) {
  auto store = MakeMemoryStore();
  Written(store, "a", json::array({kLittle, kCrc}));
  FlipBit(*store, "a/c/1", 3);
  const VerifyReport r = Verified(store, "a");
  const ArrayVerifyReport& a = Only(r);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].key, "a/c/1");
  EXPECT_TRUE(Holds(a.findings[0].message, "crc32c: checksum mismatch"));
  EXPECT_EQ(a.chunks_checked, 2u);
  EXPECT_EQ(a.decoded_bytes, 32u);  // only the sound chunk
  EXPECT_TRUE(r.damaged());
  EXPECT_EQ(r.finding_count(), 1u);
}

TEST(VerifyTest, TruncatedChunkIsTheWrongSize) {
  auto store = MakeMemoryStore();
  Written(store, "a", json::array({kLittle}));
  Buffer b = Stored(*store, "a/c/0");
  ASSERT_TRUE(store->Set("a/c/0", b.view().first(20)).ok());
  const ArrayVerifyReport a = Only(Verified(store, "a"));
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].key, "a/c/0");
  EXPECT_TRUE(Holds(a.findings[0].message, "needs 32 bytes, got 20"));
}

TEST(VerifyTest, DamagedShardIndex) {
  auto store = MakeMemoryStore();
  Written(store, "s", Sharded({4}, json::array({kLittle, kCrc}), "end"));
  Buffer b = Stored(*store, "s/c/1");
  FlipBit(*store, "s/c/1", b.size() - 10);  // inside the index's entries
  const ArrayVerifyReport a = Only(Verified(store, "s"));
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].key, "s/c/1");
  EXPECT_TRUE(Holds(a.findings[0].message, "shard index"));
  EXPECT_TRUE(Holds(a.findings[0].message, "checksum mismatch"));
}

// Shard s/c/0 (two inner chunks of 16 bytes plus 4 of crc32c, index at the
// end) with its index rewritten to `entries` (offset, length per inner
// chunk), the index's crc32c made to hold.
void RewriteIndex(Store& store, const std::vector<std::pair<uint64_t, uint64_t>>& entries) {
  Buffer b = Stored(store, "s/c/0");
  const size_t index_at = b.size() - (entries.size() * 16 + 4);
  for (size_t i = 0; i < entries.size(); ++i) {
    std::memcpy(b.data() + index_at + 16 * i, &entries[i].first, 8);
    std::memcpy(b.data() + index_at + 16 * i + 8, &entries[i].second, 8);
  }
  const uint32_t crc = Crc32c(b.view().subspan(index_at, entries.size() * 16));
  std::memcpy(b.data() + b.size() - 4, &crc, 4);
  ASSERT_TRUE(store.Set("s/c/0", b.view()).ok());
}

TEST(VerifyTest, InnerChunkPastTheShardsEnd) {
  auto store = MakeMemoryStore();
  Written(store, "s", Sharded({4}, json::array({kLittle, kCrc}), "end"));
  RewriteIndex(*store, {{0, 20}, {20, 400}});
  const ArrayVerifyReport a = Only(Verified(store, "s"));
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].key, "s/c/0");
  EXPECT_TRUE(Holds(a.findings[0].message, "inner chunk [1] at bytes [20, +400)"));
  EXPECT_TRUE(Holds(a.findings[0].message, "lies outside the shard's data [0, 40)"));
}

TEST(VerifyTest, OverlappingInnerChunks) {
  auto store = MakeMemoryStore();
  Written(store, "s", Sharded({4}, json::array({kLittle, kCrc}), "end"));
  RewriteIndex(*store, {{0, 20}, {10, 20}});
  const ArrayVerifyReport a = Only(Verified(store, "s"));
  // The overlap, and the second inner chunk (its bytes cut from the middle
  // of the first) failing its checksum.
  ASSERT_EQ(a.findings.size(), 2u);
  EXPECT_EQ(a.findings[0].key, "s/c/0");
  EXPECT_EQ(a.findings[0].message,
            "shard: inner chunk [1] at bytes [10, +20) overlaps inner chunk [0] at bytes "
            "[0, +20) (the shard index is damaged)");
  EXPECT_TRUE(Holds(a.findings[1].message, "shard, inner chunk [1]: codec crc32c"));
}

TEST(VerifyTest, StrayKeysUnderAnArray) {
  auto store = MakeMemoryStore();
  Written(store, "a", json::array({kLittle, kCrc}));
  ASSERT_TRUE(store->Set("a/c/7", AsBytes("x")).ok());
  ASSERT_TRUE(store->Set("a/notes.txt", AsBytes("x")).ok());
  const ArrayVerifyReport a = Only(Verified(store, "a"));
  ASSERT_EQ(a.findings.size(), 2u);
  EXPECT_EQ(a.findings[0].key, "a/c/7");
  EXPECT_TRUE(Holds(a.findings[0].message, "chunk [7] lies outside the grid of array 'a' in memory://: [2] "
                        "chunks for shape [16]"));
  EXPECT_EQ(a.findings[1].key, "a/notes.txt");
  EXPECT_TRUE(Holds(a.findings[1].message, "whose chunk keys look like 'c/0'"));
  EXPECT_EQ(a.chunks_checked, 2u);
}

TEST(VerifyTest, BadDocumentOfOneArrayLeavesTheOthersChecked) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Group::Create(store, "").ok());
  Written(store, "a", json::array({kLittle, kCrc}));
  Written(store, "b", json::array({kLittle, kCrc}));
  Written(store, "c", json::array({kLittle, kCrc}));
  ASSERT_TRUE(store->Set("b/zarr.json", AsBytes("{\"zarr_format\": 3,")).ok());
  const VerifyReport r = Verified(store);
  ASSERT_EQ(r.arrays.size(), 2u);
  EXPECT_EQ(r.arrays[0].path, "a");
  EXPECT_EQ(r.arrays[1].path, "c");
  EXPECT_EQ(r.arrays[0].chunks_checked, 2u);
  EXPECT_EQ(r.arrays[1].chunks_checked, 2u);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].key, "b/zarr.json");
  EXPECT_TRUE(Holds(r.findings[0].message, "b/zarr.json"));
  EXPECT_EQ(r.findings[1].key, "b");
  EXPECT_EQ(r.findings[1].message,
            "2 stored keys below it not checked: its metadata did not parse");
  EXPECT_TRUE(r.damaged());
}

TEST(VerifyTest, ArrayMetadataThatDoesNotParseIsAnArrayFinding) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Group::Create(store, "").ok());
  Written(store, "a", json::array({kLittle, kCrc}));
  ASSERT_TRUE(store->Set("a/zarr.json",
                         AsBytes(R"({"zarr_format": 3, "node_type": "array", "shape": [16]})"))
                  .ok());
  const VerifyReport r = Verified(store);
  const ArrayVerifyReport& a = Only(r);
  EXPECT_EQ(a.path, "a");
  EXPECT_EQ(a.chunks_checked, 0u);
  ASSERT_EQ(a.findings.size(), 2u);
  EXPECT_EQ(a.findings[0].key, "a/zarr.json");
  EXPECT_EQ(a.findings[1].message,
            "2 stored keys below it not checked: its metadata did not parse");
}

TEST(VerifyTest, HostileNodeTypeIsAFinding) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Group::Create(store, "").ok());
  ASSERT_TRUE(store->Set("x/zarr.json", AsBytes(R"({"zarr_format": 3, "node_type": 5})")).ok());
  const VerifyReport r = Verified(store);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0],
            (VerifyFinding{"x/zarr.json", "node_type is neither \"array\" nor \"group\""}));
}

TEST(VerifyTest, KeysOfNoNodeBelowAGroup) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Group::Create(store, "").ok());
  Written(store, "a", json::array({kLittle, kCrc}));
  ASSERT_TRUE(store->Erase("a/zarr.json").ok());
  const VerifyReport r = Verified(store);
  EXPECT_TRUE(r.arrays.empty());
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].key, "a");
  EXPECT_TRUE(Holds(r.findings[0].message, "2 stored keys below it, but no zarr.json"));
}

TEST(VerifyTest, ConsolidatedGroupIsWalkedFromTheStoredDocuments) {
  auto store = MakeMemoryStore();
  auto root = Group::Create(store, "");
  ASSERT_TRUE(root.ok());
  Written(store, "a", json::array({kLittle, kCrc}));
  Written(store, "c", json::array({kLittle, kCrc}));
  ASSERT_TRUE((*root)->Consolidate().ok());
  EXPECT_TRUE(Verified(store).findings.empty());

  // Written after consolidating: the consolidated metadata leaves it out.
  Written(store, "b", json::array({kLittle, kCrc}));
  // Attributes changed behind the consolidated metadata's back.
  Buffer doc = Stored(*store, "a/zarr.json");
  Result<JsonDocument> a = ParseJsonDocument(doc.view(), "a/zarr.json");
  ASSERT_TRUE(a.ok());
  (*a)["attributes"] = {{"units", "m"}};
  ASSERT_TRUE(store->Set("a/zarr.json", AsBytes(DumpJsonDocument(*a))).ok());
  // Gone, though the consolidated metadata lists it.
  ASSERT_TRUE(store->Erase("c/zarr.json").ok());

  const VerifyReport r = Verified(store);
  ASSERT_EQ(r.arrays.size(), 2u);
  EXPECT_EQ(r.arrays[1].path, "b");
  EXPECT_EQ(r.arrays[1].chunks_checked, 2u);
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0], (VerifyFinding{"a/zarr.json",
                                         "differs from its copy in the consolidated metadata "
                                         "of group root (readers that open group root "
                                         "consolidated use the copy)"}));
  EXPECT_EQ(r.findings[1].key, "c");
  EXPECT_TRUE(Holds(r.findings[1].message, "listed in the consolidated metadata of group "
                                           "root, but no metadata of it is stored"));
  EXPECT_EQ(r.findings[2], (VerifyFinding{"b", "stored, but not in the consolidated metadata "
                                               "of group root: readers that open it "
                                               "consolidated do not see it"}));
  EXPECT_EQ(r.findings[3].key, "c");  // its chunks, of no node now
  EXPECT_TRUE(Holds(r.findings[3].message, "2 stored keys below it, but no zarr.json"));
}

TEST(VerifyTest, RemoteStoreReadsInWindows) {
  auto memory = MakeMemoryStore();
  auto remote = MakeThrottledStore(memory, {.connections = 8});
  ASSERT_GT(remote->Capabilities().requests_in_flight, 0);
  auto a = Array::Create(remote, "a", Int32Metadata({4096}, {16}, json::array({kLittle, kCrc})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> values = Pattern(4096);
  ASSERT_TRUE((*a)->Write(Selection::All({4096}), values.data()).ok());
  FlipBit(*memory, "a/c/200", 0);
  const ArrayVerifyReport r = Only(Verified(remote, "a"));
  EXPECT_EQ(r.chunks_checked, 256u);
  EXPECT_EQ(r.decoded_bytes, 255u * 64);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].key, "a/c/200");
}

// A store that cannot list its keys, as an HTTP server.
class UnlistedStore : public Store {
 public:
  explicit UnlistedStore(std::shared_ptr<Store> inner) : inner_(std::move(inner)) {}
  Status Read(std::span<const ReadRequest> r, std::span<ReadAnswer> a) override {
    return inner_->Read(r, a);
  }
  Status Set(std::string_view key, ByteView value) override { return inner_->Set(key, value); }
  Status Erase(std::string_view key) override { return inner_->Erase(key); }
  Result<std::vector<std::string>> List(std::string_view) override {
    return Status::Unsupported("cannot list");
  }
  Result<DirectoryListing> ListDirectory(std::string_view) override {
    return Status::Unsupported("cannot list");
  }
  std::string Describe() const override { return "unlisted://"; }

 private:
  std::shared_ptr<Store> inner_;
};

TEST(VerifyTest, StoreThatCannotListIsReadChunkByChunkOfTheGrid) {
  auto memory = MakeMemoryStore();
  auto root = Group::Create(memory, "");
  ASSERT_TRUE(root.ok());
  auto a = Array::Create(memory, "a", Int32Metadata({32}, {8}, json::array({kLittle, kCrc})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> values = Pattern(8);
  ASSERT_TRUE((*a)->Write(Selection({{8, 16, 1}}), values.data()).ok());
  ASSERT_TRUE((*root)->Consolidate().ok());
  FlipBit(*memory, "a/c/1", 0);
  auto unlisted = std::make_shared<UnlistedStore>(memory);
  const VerifyReport r = Verified(unlisted);
  ASSERT_EQ(r.arrays.size(), 1u);
  EXPECT_EQ(r.arrays[0].chunks_checked, 1u);  // the one stored of four
  ASSERT_EQ(r.arrays[0].findings.size(), 1u);
  EXPECT_EQ(r.arrays[0].findings[0].key, "a/c/1");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(Holds(r.notes[0], "unlisted:// cannot list its keys"));
}

TEST(VerifyTest, ProgressStopAndJson) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Group::Create(store, "").ok());
  Written(store, "a", json::array({kLittle, kCrc}));
  Written(store, "b", json::array({kLittle, kZstd}));
  FlipBit(*store, "a/c/0", 0);

  VerifyOptions options;
  options.jobs = 2;
  VerifyProgress last;
  std::atomic<int> calls{0};
  options.progress = [&](const VerifyProgress& p) {
    last = p;
    ++calls;
    return true;
  };
  const VerifyReport r = Verified(store, "", options);
  EXPECT_GE(calls.load(), 1);
  EXPECT_EQ(last.chunks_done, 4u);
  EXPECT_EQ(last.chunks_total, 4u);
  EXPECT_EQ(last.bytes_done, r.arrays[0].stored_bytes + r.arrays[1].stored_bytes);

  const nlohmann::ordered_json j = r.ToJson();
  EXPECT_EQ(j["version"], kVerifyReportVersion);
  EXPECT_EQ(j["store"], "memory://");
  EXPECT_EQ(j["damaged"], true);
  EXPECT_EQ(j["totals"]["arrays"], 2);
  EXPECT_EQ(j["totals"]["arrays_unchecked"], 1);
  EXPECT_EQ(j["totals"]["chunks"], 4);
  EXPECT_EQ(j["totals"]["findings"], 1);
  EXPECT_EQ(j["arrays"][0]["status"], "damaged");
  EXPECT_EQ(j["arrays"][0]["findings"][0]["key"], "a/c/0");
  EXPECT_EQ(j["arrays"][1]["status"], "decoded, unchecked");
  EXPECT_EQ(j["arrays"][1]["checksum"], false);

  options.stop_at_first_finding = true;
  const VerifyReport stopped = Verified(store, "", options);
  EXPECT_TRUE(stopped.stopped_early);
  EXPECT_EQ(stopped.arrays[1].chunks_checked, 0u);  // b was never read

  options.progress = [](const VerifyProgress&) { return false; };
  EXPECT_EQ(Verify(store, "", options).status().code(), StatusCode::kCancelled);
  options.jobs = -1;
  EXPECT_EQ(Verify(store, "", options).status().code(), StatusCode::kInvalidArgument);
}

TEST(VerifyTest, NothingAtThePath) {
  auto store = MakeMemoryStore();
  Result<VerifyReport> r = Verify(store, "nowhere");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "no array or group at 'nowhere' in memory://");
}

}  // namespace
}  // namespace turbozarr
