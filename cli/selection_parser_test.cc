#include "cli/selection_parser.h"

#include <gtest/gtest.h>

namespace turbozarr::cli {
namespace {

std::vector<DimRange> Dims(std::string_view text, const std::vector<int64_t>& shape) {
  Result<ParsedSelection> parsed = ParseSelection(text, shape);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? parsed->selection.dims() : std::vector<DimRange>{};
}

std::string Error(std::string_view text, const std::vector<int64_t>& shape) {
  Result<ParsedSelection> parsed = ParseSelection(text, shape);
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(ParseSelectionTest, EmptySelectsEverything) {
  EXPECT_EQ(Dims("", {4, 5}), (std::vector<DimRange>{{0, 4, 1}, {0, 5, 1}}));
  Result<ParsedSelection> parsed = ParseSelection("  ", {4, 5});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->result_shape, (std::vector<int64_t>{4, 5}));
}

TEST(ParseSelectionTest, SlicesIndicesAndSteps) {
  EXPECT_EQ(Dims("0:10, 5, ::2", {20, 8, 7}),
            (std::vector<DimRange>{{0, 10, 1}, {5, 6, 1}, {0, 7, 2}}));
  Result<ParsedSelection> parsed = ParseSelection("0:10,5,::2", {20, 8, 7});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->result_shape, (std::vector<int64_t>{10, 4}));
}

TEST(ParseSelectionTest, NegativeIndicesCountFromTheEnd) {
  EXPECT_EQ(Dims("-1", {10}), (std::vector<DimRange>{{9, 10, 1}}));
  EXPECT_EQ(Dims("-3:", {10}), (std::vector<DimRange>{{7, 10, 1}}));
  EXPECT_EQ(Dims(":-2", {10}), (std::vector<DimRange>{{0, 8, 1}}));
  EXPECT_EQ(Dims("-100:3", {10}), (std::vector<DimRange>{{0, 3, 1}}));
}

TEST(ParseSelectionTest, SlicesClampLikePython) {
  EXPECT_EQ(Dims("5:100", {10}), (std::vector<DimRange>{{5, 10, 1}}));
  EXPECT_EQ(Dims("8:2", {10}), (std::vector<DimRange>{{8, 8, 1}}));
  Result<ParsedSelection> parsed = ParseSelection("8:2", {10});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->result_shape, (std::vector<int64_t>{0}));
}

TEST(ParseSelectionTest, MissingTrailingItemsAndEllipsis) {
  EXPECT_EQ(Dims("1", {3, 4}), (std::vector<DimRange>{{1, 2, 1}, {0, 4, 1}}));
  EXPECT_EQ(Dims("..., 2", {3, 4, 5}),
            (std::vector<DimRange>{{0, 3, 1}, {0, 4, 1}, {2, 3, 1}}));
  EXPECT_EQ(Dims("1, ..., 2", {3, 4, 5}),
            (std::vector<DimRange>{{1, 2, 1}, {0, 4, 1}, {2, 3, 1}}));
  EXPECT_EQ(Dims("2,", {3, 4}), (std::vector<DimRange>{{2, 3, 1}, {0, 4, 1}}));
}

TEST(ParseSelectionTest, ScalarArrays) {
  Result<ParsedSelection> parsed = ParseSelection("", {});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->selection.rank(), 0u);
  EXPECT_TRUE(parsed->result_shape.empty());
  EXPECT_TRUE(ParseSelection("...", {}).ok());
  EXPECT_FALSE(ParseSelection("0", {}).ok());
}

TEST(ParseSelectionTest, ErrorsNameTheProblem) {
  EXPECT_EQ(Error("10", {10}), "index 10 is out of bounds for dimension 0 with size 10");
  EXPECT_EQ(Error("0, -6", {3, 5}),
            "index -6 is out of bounds for dimension 1 with size 5");
  EXPECT_EQ(Error("1,2,3", {3, 4}),
            "too many indices in selection '1,2,3': 3 for an array of rank 2");
  EXPECT_EQ(Error("::0", {3}), "invalid slice '::0' in selection: step cannot be zero");
  EXPECT_EQ(Error("::-1", {3}),
            "invalid slice '::-1' in selection: negative steps are not supported");
  EXPECT_EQ(Error("a", {3}), "invalid index 'a' in selection: 'a' is not an integer");
  EXPECT_EQ(Error("1:2:3:4", {3}), "invalid slice '1:2:3:4' in selection: too many ':'");
  EXPECT_EQ(Error("...,...", {3, 4}), "selection '...,...' has more than one '...'");
  EXPECT_EQ(Error("1,,2", {3, 4, 5}), "selection '1,,2' has an empty item");
}

TEST(ParseShapeListTest, PositiveIntegers) {
  Result<std::vector<int64_t>> shape = ParseShapeList("100, 20,3", "--chunks");
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, (std::vector<int64_t>{100, 20, 3}));
  EXPECT_EQ(ParseShapeList("10,0", "--chunks").status().message(),
            "invalid --chunks '10,0': '0' is not a positive integer");
  EXPECT_FALSE(ParseShapeList("", "--chunks").ok());
  EXPECT_FALSE(ParseShapeList("1,,2", "--chunks").ok());
  EXPECT_FALSE(ParseShapeList("x", "--chunks").ok());
}

}  // namespace
}  // namespace turbozarr::cli
