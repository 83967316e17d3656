#include "vcz/regions.h"

#include <gtest/gtest.h>

#include <random>

#include "vcz/vcz_test_dataset.h"

namespace turbozarr::vcz::internal {
namespace {

TEST(RegionsTest, RegionStringsAsVcztoolsReadsThem) {
  auto r = ParseRegion("chr1");
  EXPECT_EQ(r.contig, "chr1");
  EXPECT_FALSE(r.start);
  EXPECT_FALSE(r.end);
  r = ParseRegion("chr1:100");
  EXPECT_EQ(r.contig, "chr1");
  EXPECT_EQ(r.start, 100);
  EXPECT_EQ(r.end, 100);
  r = ParseRegion("chr1:100-");
  EXPECT_EQ(r.start, 100);
  EXPECT_FALSE(r.end);
  r = ParseRegion("chr1:100-200");
  EXPECT_EQ(r.end, 200);
  r = ParseRegion("HLA:A:1-5");  // only the last ':' separates
  EXPECT_EQ(r.contig, "HLA:A");
  EXPECT_EQ(r.start, 1);
  // Not contig:positions: the whole string is a contig name.
  for (const char* s : {"chr1:x-5", "chr1:100-200-300", "chr1:", "chr1:-5",
                        "chr1:99999999999999999999"}) {
    r = ParseRegion(s);
    EXPECT_EQ(r.contig, s);
    EXPECT_FALSE(r.start) << s;
  }
  auto list = ParseRegionList("a,b:1-2");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].contig, "b");
  EXPECT_EQ(list[1].end, 2);
}

// What a selection keeps, decided variant by variant from the definitions.
std::vector<int64_t> BruteForce(const VariantSelection& s) {
  const std::vector<int64_t> contig = {0, 0, 0, 0, 0, 0, 2, 2, 2, 2};
  const std::vector<int64_t> pos = {5, 9, 9, 20, 31, 40, 2, 3, 50, 60};
  const std::vector<int64_t> len = {1, 5, 1, 1, 1, 6, 1, 1, 1, 1};
  const std::vector<std::string> names = {"chr1", "chr2", "chr3"};
  auto meets = [&](const std::vector<RegionSpec>& specs, size_t v, int64_t end) {
    for (const RegionSpec& r : specs) {
      if (r.contig != names[contig[v]]) continue;
      const int64_t a = r.start ? *r.start - 1 : 0;
      const int64_t b = r.end ? *r.end : INT64_MAX;
      if (a < end && pos[v] - 1 < b && a < b) return true;
    }
    return false;
  };
  std::vector<int64_t> out;
  for (size_t v = 0; v < pos.size(); ++v) {
    if (s.regions && !meets(*s.regions, v, pos[v] - 1 + len[v])) continue;
    if (s.targets && meets(*s.targets, v, pos[v]) == s.targets_complement) continue;
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

TEST(RegionsTest, SelectionsAgreeWithTheDefinitionsOnRandomRegions) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  std::mt19937 rng(7);
  auto random_specs = [&] {
    std::vector<RegionSpec> specs;
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      RegionSpec r;
      r.contig = rng() % 2 ? "chr1" : (rng() % 2 ? "chr3" : "chr2");
      if (rng() % 4) r.start = 1 + static_cast<int64_t>(rng() % 62);
      if (rng() % 4) r.end = (r.start ? *r.start : 1) + static_cast<int64_t>(rng() % 20) - 3;
      specs.push_back(r);
    }
    return specs;
  };
  for (int trial = 0; trial < 500; ++trial) {
    VariantSelection s;
    if (trial % 3 != 1) s.regions = random_specs();
    if (trial % 3 != 0) {
      s.targets = random_specs();
      s.targets_complement = rng() % 2;
    }
    auto got = SelectVariants(**d, s);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_FALSE(got->all);
    EXPECT_EQ(got->rows, BruteForce(s)) << "trial " << trial;
  }
  auto all = SelectVariants(**d, {});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->all);
}

TEST(RegionsTest, ARecordReachingIntoARegionIsInItButNotInTheTarget) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok());
  // The record at chr1:9 is 5 bases long (9-13); chr1:40 is 6 (40-45).
  VariantSelection s;
  s.regions = ParseRegionList("chr1:12-14,chr1:44");
  auto got = SelectVariants(**d, s);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->rows, (std::vector<int64_t>{1, 5}));
  s = {};
  s.targets = ParseRegionList("chr1:12-14,chr1:44");
  got = SelectVariants(**d, s);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->rows.empty());
}

TEST(RegionsTest, AnUnknownContigIsNamed) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok());
  VariantSelection s;
  s.regions = ParseRegionList("chr1,chrZ:1-5");
  auto got = SelectVariants(**d, s);
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_NE(got.status().message().find("unknown contig 'chrZ'"), std::string::npos);
  EXPECT_NE(got.status().message().find("chr1, chr2, chr3"), std::string::npos);
}

}  // namespace
}  // namespace turbozarr::vcz::internal
