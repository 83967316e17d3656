#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "turbozarr/store_wrappers.h"
#include "turbozarr/vcz.h"
#include "vcz/vcz_arrays.h"
#include "vcz/vcz_test_dataset.h"

namespace turbozarr::vcz {
namespace {

using testing::Metadata;
using testing::Put;
using testing::SmallDataset;

TEST(VczDatasetTest, OpensAndReadsItsTables) {
  auto d = VczDataset::Open(SmallDataset());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)->num_variants(), 10);
  EXPECT_EQ((*d)->num_samples(), 3);
  EXPECT_EQ((*d)->num_contigs(), 3);
  auto tables = (*d)->tables();
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ((*tables)->sample_ids, (std::vector<std::string>{"NA1", "NA2", "NA3"}));
  EXPECT_EQ((*tables)->contig_ids, (std::vector<std::string>{"chr1", "chr2", "chr3"}));
  ASSERT_TRUE((*tables)->contig_lengths.has_value());
  EXPECT_EQ(*(*tables)->contig_lengths, (std::vector<int64_t>{1000, 2000, 3000}));
  EXPECT_EQ((*d)->tables().value(), *tables);  // read once, kept
  EXPECT_TRUE((*d)->Has("region_index"));
  EXPECT_FALSE((*d)->Has("call_genotype"));
  auto missing = (*d)->OpenArray("call_genotype");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("'call_genotype'"), std::string::npos);
}

TEST(VczDatasetTest, IndexCountsAndStats) {
  auto d = VczDataset::Open(SmallDataset());
  ASSERT_TRUE(d.ok());
  std::ostringstream n, s;
  ASSERT_TRUE(WriteRecordCount(**d, n).ok());
  EXPECT_EQ(n.str(), "10\n");
  ASSERT_TRUE(WriteContigStats(**d, s).ok());
  // chr2 has no records and is left out, as bcftools index -s leaves it.
  EXPECT_EQ(s.str(), "chr1\t1000\t6\nchr3\t3000\t4\n");

  auto no_lengths = VczDataset::Open(SmallDataset(/*with_lengths=*/false));
  ASSERT_TRUE(no_lengths.ok());
  std::ostringstream dots;
  ASSERT_TRUE(WriteContigStats(**no_lengths, dots).ok());
  EXPECT_EQ(dots.str(), "chr1\t.\t6\nchr3\t.\t4\n");

  // A contig whose length the VCF did not declare: bio2zarr stores -1.
  auto unknown = VczDataset::Open(SmallDataset(true, true, /*chr3_length=*/-1));
  ASSERT_TRUE(unknown.ok());
  std::ostringstream one_dot;
  ASSERT_TRUE(WriteContigStats(**unknown, one_dot).ok());
  EXPECT_EQ(one_dot.str(), "chr1\t1000\t6\nchr3\t.\t4\n");
}

TEST(VczDatasetTest, StatsWithoutARegionIndexSayWhatIsMissing) {
  auto d = VczDataset::Open(SmallDataset(true, /*with_index=*/false));
  ASSERT_TRUE(d.ok());
  std::ostringstream s;
  Status status = WriteContigStats(**d, s);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("Could not load 'region_index' variable"),
            std::string::npos)
      << status.ToString();
  EXPECT_EQ(s.str(), "");
}

TEST(VczDatasetTest, AGroupWithoutTheRequiredArraysIsRefusedByName) {
  auto g = Group::Create(MakeMemoryStore(), "", {});
  ASSERT_TRUE(g.ok());
  Put<int32_t>(**g, "variant_position", DataTypeId::kInt32, {2}, {1, 2});
  auto d = VczDataset::Open(*g);
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("no array 'variant_contig'"), std::string::npos)
      << d.status().ToString();
  EXPECT_NE(d.status().message().find("memory://"), std::string::npos);
}

// The sample table is read when something needs it, not when the dataset
// opens: a scan of variant fields never reads it (on a remote store, a round
// trip saved), and a damaged table fails what needs it, naming the array.
TEST(VczDatasetTest, TablesAreReadOnFirstUseOnly) {
  auto g = SmallDataset();
  auto keys = g->store()->List("sample_id");
  ASSERT_TRUE(keys.ok());
  int chunks = 0;
  for (const std::string& key : *keys) {
    if (key.find("zarr.json") != std::string::npos || key.find(".z") != std::string::npos) continue;
    const char garbage[] = "not a chunk";
    ASSERT_TRUE(g->store()->Set(key, ByteView(reinterpret_cast<const std::byte*>(garbage),
                                              sizeof garbage)).ok());
    ++chunks;
  }
  ASSERT_GT(chunks, 0);
  auto d = VczDataset::Open(g);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)->num_samples(), 3);

  auto fields = ReadFields(**d, {}, {"variant_position"});
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  ASSERT_EQ(fields->size(), 1u);
  EXPECT_EQ((*fields)[0].shape, (std::vector<int64_t>{10}));
  // A filter of per-variant fields needs no sample either; one that looks
  // at the samples does, and says which table it could not read.
  SubsetOptions by_position;
  by_position.include = "POS>25";
  auto kept = ReadFields(**d, by_position, {"variant_position"});
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ((*kept)[0].shape, (std::vector<int64_t>{4}));
  SubsetOptions some_samples = by_position;
  some_samples.samples = "NA1";
  auto refused = ReadFields(**d, some_samples, {"variant_position"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().ToString().find("sample_id"), std::string::npos)
      << refused.status().ToString();

  for (int attempt = 0; attempt < 2; ++attempt) {  // the failure is kept
    auto tables = (*d)->tables();
    ASSERT_FALSE(tables.ok());
    EXPECT_NE(tables.status().ToString().find("sample_id"), std::string::npos)
        << tables.status().ToString();
  }
  std::ostringstream list;
  EXPECT_FALSE(WriteSampleList(**d, list).ok());
  EXPECT_EQ(list.str(), "");
}

// Variant-only arrays chunked longer than the call arrays (as the spec
// allows): each of their chunks is read once, whatever the number of
// blocks of the call arrays' chunk that take rows from it.
TEST(VczDatasetTest, LongerVariantChunksAreReadOncePerChunk) {
  auto store = MakeMetricsStore(MakeMemoryStore());
  auto g = Group::Create(store, "", {});
  ASSERT_TRUE(g.ok());
  Group& root = **g;
  constexpr int64_t kVariants = 40;
  auto put = [&](const std::string& name, DataTypeId id, std::vector<int64_t> shape,
                 std::vector<int64_t> chunks, const void* values) {
    auto a = root.CreateArray(name, Metadata(DataType(id), shape, chunks));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All(shape), values).ok()) << name;
  };
  std::vector<int32_t> position(kVariants), depth(kVariants);
  std::vector<int8_t> contig(kVariants, 0), genotype(kVariants * 3 * 2);
  for (int64_t v = 0; v < kVariants; ++v) {
    position[v] = static_cast<int32_t>(10 * v + 1);
    depth[v] = static_cast<int32_t>(v % 7);
  }
  for (size_t i = 0; i < genotype.size(); ++i) genotype[i] = static_cast<int8_t>(i % 3);
  put("variant_position", DataTypeId::kInt32, {kVariants}, {20}, position.data());
  put("variant_contig", DataTypeId::kInt8, {kVariants}, {40}, contig.data());
  put("variant_DP", DataTypeId::kInt32, {kVariants}, {40}, depth.data());
  put("call_genotype", DataTypeId::kInt8, {kVariants, 3, 2}, {5, 3, 2}, genotype.data());
  Put<std::string>(root, "contig_id", DataTypeId::kString, {1}, {"chr1"});
  Put<std::string>(root, "sample_id", DataTypeId::kString, {3}, {"A", "B", "C"});
  auto d = VczDataset::Open(*g);
  ASSERT_TRUE(d.ok()) << d.status().ToString();

  ASSERT_TRUE(ReadFields(**d, {}, {"call_genotype"}).ok());
  store->ResetMetrics();
  ASSERT_TRUE(ReadFields(**d, {}, {"call_genotype"}).ok());
  const uint64_t genotypes_alone = store->metrics().gets;
  store->ResetMetrics();
  auto fields = ReadFields(**d, {}, {"variant_position", "call_genotype", "variant_DP"});
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  // The two arrays' metadata (a few reads each) and their three chunks; a
  // read per block of 5 variants would make 16 chunk reads.
  EXPECT_LE(store->metrics().gets - genotypes_alone, 8u);
  ASSERT_EQ(fields->size(), 3u);
  EXPECT_EQ(0, std::memcmp((*fields)[0].bytes.data(), position.data(), 4 * kVariants));
  EXPECT_EQ(0, std::memcmp((*fields)[1].bytes.data(), genotype.data(), genotype.size()));
  EXPECT_EQ(0, std::memcmp((*fields)[2].bytes.data(), depth.data(), 4 * kVariants));

  // Every other block of 5 (blocks apart are read apart): the long chunks
  // are still read once each, not once per block.
  SubsetOptions apart;
  apart.targets = "chr1:1-1,chr1:101-101,chr1:201-201,chr1:301-301";
  ASSERT_TRUE(ReadFields(**d, apart, {"call_genotype"}).ok());
  store->ResetMetrics();
  ASSERT_TRUE(ReadFields(**d, apart, {"call_genotype"}).ok());
  const uint64_t apart_genotypes = store->metrics().gets;
  store->ResetMetrics();
  auto four = ReadFields(**d, apart, {"variant_position", "call_genotype", "variant_DP"});
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(0, std::memcmp((*four)[0].bytes.data(),
                           std::vector<int32_t>{1, 101, 201, 301}.data(), 16));
  // Metadata and three chunks; a read per block would make eight.
  EXPECT_LE(store->metrics().gets - apart_genotypes, 8u);

  // A selection that starts and ends inside the long chunks.
  SubsetOptions part;
  part.variants = std::pair<int64_t, int64_t>(13, 37);
  auto some = ReadFields(**d, part, {"variant_position", "variant_DP"});
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  EXPECT_EQ(0, std::memcmp((*some)[0].bytes.data(), position.data() + 13, 4 * 24));
  EXPECT_EQ(0, std::memcmp((*some)[1].bytes.data(), depth.data() + 13, 4 * 24));
}

TEST(VczDatasetTest, MalformedTablesAreCorruptionNamingTheArray) {
  {  // variant_contig of another length than variant_position
    auto g = SmallDataset();
    ASSERT_TRUE(g->store()->ErasePrefix("variant_contig").ok());
    Put<int8_t>(*g, "variant_contig", DataTypeId::kInt8, {9}, std::vector<int8_t>(9, 0));
    auto d = VczDataset::Open(g);
    EXPECT_EQ(d.status().code(), StatusCode::kCorruption);
    EXPECT_NE(d.status().message().find("variant_contig has shape (9,)"), std::string::npos)
        << d.status().ToString();
  }
  {  // sample_id of numbers
    auto g = SmallDataset();
    ASSERT_TRUE(g->store()->ErasePrefix("sample_id").ok());
    Put<int32_t>(*g, "sample_id", DataTypeId::kInt32, {3}, {1, 2, 3});
    auto d = VczDataset::Open(g);
    EXPECT_EQ(d.status().code(), StatusCode::kCorruption);
    EXPECT_NE(d.status().message().find("expected strings, found int32"), std::string::npos)
        << d.status().ToString();
  }
  {  // region_index of the wrong width, and naming a contig that is not there
    auto g = SmallDataset();
    ASSERT_TRUE(g->store()->ErasePrefix("region_index").ok());
    Put<int32_t>(*g, "region_index", DataTypeId::kInt32, {1, 5}, {0, 0, 1, 2, 2});
    auto d = VczDataset::Open(g);
    ASSERT_TRUE(d.ok());
    auto rows = (*d)->ReadRegionIndex();
    EXPECT_EQ(rows.status().code(), StatusCode::kCorruption);
    EXPECT_NE(rows.status().message().find("expected (chunks, 6)"), std::string::npos);

    ASSERT_TRUE(g->store()->ErasePrefix("region_index").ok());
    Put<int32_t>(*g, "region_index", DataTypeId::kInt32, {1, 6}, {0, 7, 1, 2, 2, 1});
    d = VczDataset::Open(g);
    ASSERT_TRUE(d.ok());
    rows = (*d)->ReadRegionIndex();
    EXPECT_EQ(rows.status().code(), StatusCode::kCorruption);
    EXPECT_NE(rows.status().message().find("names contig 7"), std::string::npos)
        << rows.status().ToString();
  }
}

TEST(VczArraysTest, FixedSizeStringsReadAsText) {
  auto store = MakeMemoryStore();
  ArrayMetadata m = Metadata(DataType::Sized(DataTypeId::kFixedUnicode, 12), {2}, {2});
  auto a = Array::Create(store, "u", m);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  // "chr" and "é" (U+00E9) in 3 UTF-32 code units each, NUL-padded.
  const std::vector<char32_t> units = {U'c', U'h', U'r', U'\u00e9', 0, 0};
  ASSERT_TRUE((*a)->Write(Selection::All({2}), units.data()).ok());
  auto s = internal::ReadStrings(**a);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, (std::vector<std::string>{"chr", "\xc3\xa9"}));

  m = Metadata(DataType::Sized(DataTypeId::kFixedBytes, 3), {2}, {2});
  a = Array::Create(store, "b", m);
  ASSERT_TRUE(a.ok());
  const char bytes[] = {'a', 'b', 'c', 'x', 0, 0};
  ASSERT_TRUE((*a)->Write(Selection::All({2}), bytes).ok());
  s = internal::ReadStrings(**a);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::vector<std::string>{"abc", "x"}));
  EXPECT_EQ(internal::ShapeString({3, 4}), "(3, 4)");
  EXPECT_EQ(internal::ShapeString({3}), "(3,)");
}

}  // namespace
}  // namespace turbozarr::vcz

namespace turbozarr::vcz {
namespace {

TEST(VczQueryTest, FieldsOfTheWrongShapeAreCorruptionNotAnOutOfBoundsRead) {
  auto g = testing::SmallDataset();
  // Genotypes for 2 samples where sample_id names 3.
  testing::Put<int8_t>(*g, "call_genotype", DataTypeId::kInt8, {10, 2, 2},
                       std::vector<int8_t>(40, 0));
  testing::Put<int8_t>(*g, "variant_AC", DataTypeId::kInt8, {9}, std::vector<int8_t>(9, 1));
  auto d = VczDataset::Open(g);
  ASSERT_TRUE(d.ok());
  std::ostringstream out;
  QueryOptions q;
  q.format = "%POS[ %GT]\\n";
  Status s = WriteQuery(**d, q, out);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("call_genotype has shape (10, 2, 2) for 3 samples"),
            std::string::npos)
      << s.ToString();
  q.format = "%POS %AC\\n";
  s = WriteQuery(**d, q, out);
  EXPECT_NE(s.message().find("variant_AC has shape (9,) for 10 variants"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(out.str(), "");
}

TEST(VczQueryTest, RendersTheSmallDataset) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok());
  std::ostringstream out;
  QueryOptions q;
  q.format = "%CHROM:%POS";
  q.regions = "chr3:50-";
  ASSERT_TRUE(WriteQuery(**d, q, out).ok());
  EXPECT_EQ(out.str(), "chr3:50\nchr3:60\n");
}

}  // namespace
}  // namespace turbozarr::vcz
