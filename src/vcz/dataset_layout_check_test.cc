// CheckDatasetLayout: a consistent dataset has no findings; arrays whose
// leading dimensions disagree with the variants, samples or filters, and a
// region index naming a contig the dataset lacks, are findings under their
// paths; a group without variants is no dataset.
#include <gtest/gtest.h>

#include "turbozarr/vcz.h"
#include "vcz/vcz_test_dataset.h"

namespace turbozarr::vcz {
namespace {

using testing::Put;
using testing::SmallDataset;

TEST(DatasetLayoutCheckTest, ConsistentDatasetHasNoFindings) {
  std::shared_ptr<Group> root = SmallDataset();
  Put<int8_t>(*root, "call_genotype", DataTypeId::kInt8, {10, 3, 2},
              std::vector<int8_t>(60, 0));
  std::optional<LayoutReport> r = CheckDatasetLayout(root);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->layout, "vcf-zarr");
  EXPECT_TRUE(r->findings.empty()) << r->findings[0].key << ": " << r->findings[0].message;
}

TEST(DatasetLayoutCheckTest, LeadingDimensionsThatDisagree) {
  std::shared_ptr<Group> root = SmallDataset();
  Put<int8_t>(*root, "call_genotype", DataTypeId::kInt8, {10, 2, 2},
              std::vector<int8_t>(40, 0));
  Put<int32_t>(*root, "variant_DP", DataTypeId::kInt32, {9}, std::vector<int32_t>(9, 1));
  Put<std::string>(*root, "filter_id", DataTypeId::kString, {2}, {"PASS", "q10"});
  Put<int8_t>(*root, "variant_filter", DataTypeId::kInt8, {10, 3},
              std::vector<int8_t>(30, 0));
  std::optional<LayoutReport> r = CheckDatasetLayout(root);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->findings.size(), 3u);
  const std::string counts = "; the dataset has 10 variants, 3 samples, 3 contigs and 2 "
                             "filters, so dimension ";
  EXPECT_EQ(r->findings[0], (VerifyFinding{"call_genotype",
                                           "has shape [10, 2, 2]" + counts + "1 must be 3"}));
  EXPECT_EQ(r->findings[1],
            (VerifyFinding{"variant_DP", "has shape [9]" + counts + "0 must be 10"}));
  EXPECT_EQ(r->findings[2],
            (VerifyFinding{"variant_filter", "has shape [10, 3]" + counts + "1 must be 2"}));
}

TEST(DatasetLayoutCheckTest, RegionIndexThatDoesNotRead) {
  std::shared_ptr<Group> root = SmallDataset(true, false);
  Put<int32_t>(*root, "region_index", DataTypeId::kInt32, {1, 6}, {0, 7, 5, 20, 20, 4});
  std::optional<LayoutReport> r = CheckDatasetLayout(root);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].key, "region_index");
}

TEST(DatasetLayoutCheckTest, OtherGroupsAreNoDataset) {
  auto group = Group::Create(MakeMemoryStore(), "", {});
  ASSERT_TRUE(group.ok());
  EXPECT_FALSE(CheckDatasetLayout(*group).has_value());
}

}  // namespace
}  // namespace turbozarr::vcz
