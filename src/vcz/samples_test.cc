#include "vcz/samples.h"

#include <gtest/gtest.h>

#include <sstream>

#include "vcz/vcz_test_dataset.h"

namespace turbozarr::vcz::internal {
namespace {

using Columns = std::vector<int64_t>;

// The small dataset with its middle sample made null ("").
std::shared_ptr<const VczDataset> WithNullSample() {
  auto g = testing::SmallDataset();
  EXPECT_TRUE(g->store()->ErasePrefix("sample_id").ok());
  testing::Put<std::string>(*g, "sample_id", DataTypeId::kString, {3}, {"NA1", "", "NA3"});
  auto d = VczDataset::Open(g);
  EXPECT_TRUE(d.ok());
  return *d;
}

TEST(SamplesTest, OrderComplementAndNullSamples) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok());
  auto all = SelectSamples(**d, std::nullopt, std::nullopt, false, nullptr);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (Columns{0, 1, 2}));
  auto some = SelectSamples(**d, "NA3,NA1", std::nullopt, false, nullptr);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(*some, (Columns{2, 0}));  // the order given
  auto others = SelectSamples(**d, "^NA3,NA3", std::nullopt, false, nullptr);
  ASSERT_TRUE(others.ok());
  EXPECT_EQ(*others, (Columns{0, 1}));

  auto nulled = WithNullSample();
  all = SelectSamples(*nulled, std::nullopt, std::nullopt, false, nullptr);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (Columns{0, 2}));  // a null sample is never selected
  others = SelectSamples(*nulled, "^NA1", std::nullopt, false, nullptr);
  ASSERT_TRUE(others.ok());
  EXPECT_EQ(*others, (Columns{2}));
}

TEST(SamplesTest, UnknownNamesAreRefusedOrDroppedWithAWarning) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok());
  auto refused = SelectSamples(**d, "NA1,ZZ,AA,ZZ", std::nullopt, false, nullptr);
  EXPECT_EQ(refused.status().code(), StatusCode::kNotFound);
  // Sorted and once each, as numpy's setdiff1d gives them to vcztools.
  EXPECT_NE(refused.status().message().find(
                "subset called for sample(s) not in header: AA,ZZ. Use \"--force-samples\""),
            std::string::npos)
      << refused.status().ToString();
  std::ostringstream warnings;
  auto forced = SelectSamples(**d, "NA1,ZZ,NA2", std::nullopt, true, &warnings);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(*forced, (Columns{0, 1}));
  EXPECT_EQ(warnings.str(), "warning: subset called for sample(s) not in header: ZZ.\n");
}

TEST(SamplesTest, DuplicatesEmptyNamesAndBothOptionsAreRefused) {
  auto d = VczDataset::Open(testing::SmallDataset());
  ASSERT_TRUE(d.ok());
  auto dup = SelectSamples(**d, "NA2,NA1,NA2", std::nullopt, false, nullptr);
  EXPECT_EQ(dup.status().message(), "Duplicate sample name \"NA2\".");
  auto empty = SelectSamples(**d, "NA1,", std::nullopt, false, nullptr);
  EXPECT_NE(empty.status().message().find("The empty string is not a valid sample name"),
            std::string::npos);
  auto both = SelectSamples(**d, "NA1", "file", false, nullptr);
  EXPECT_EQ(both.status().code(), StatusCode::kInvalidArgument);
  auto missing_file = SelectSamples(**d, std::nullopt, "/nonexistent/samples.txt", false,
                                    nullptr);
  EXPECT_EQ(missing_file.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing_file.status().message().find("/nonexistent/samples.txt"),
            std::string::npos);
}

}  // namespace
}  // namespace turbozarr::vcz::internal
