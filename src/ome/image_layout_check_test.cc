// CheckImageLayout: an image whose levels follow from level 0 and the
// scales is consistent (shapes rounded down or up alike); a level of
// another shape, one that is missing, and a label a labels group lists but
// lacks are findings under their paths; other groups are no images.
#include <gtest/gtest.h>

#include "turbozarr/group.h"
#include "turbozarr/ome.h"

namespace turbozarr::ome {
namespace {

ArrayMetadata Level(std::vector<int64_t> shape) {
  ArrayMetadata m;
  m.shape = shape;
  m.chunk_shape = {16, 16};
  m.dtype = DataType(DataTypeId::kUInt16);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = nlohmann::json::array(
      {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  return m;
}

// Image "img" with levels 0.. of `shapes`, scales 1, 2, 4, ... per axis.
std::shared_ptr<Group> Image(const std::shared_ptr<Store>& store,
                             const std::vector<std::vector<int64_t>>& shapes,
                             size_t listed_levels) {
  Multiscale m;
  m.version = "0.5";
  m.axes = {{"y", "space", ""}, {"x", "space", ""}};
  for (size_t k = 0; k < listed_levels; ++k) {
    const double s = static_cast<double>(1 << k);
    m.levels.push_back({std::to_string(k), {s, s}, std::nullopt});
  }
  GroupCreateOptions options;
  options.attributes = WriteMultiscale(m);
  auto group = Group::Create(store, "img", options);
  EXPECT_TRUE(group.ok()) << group.status().ToString();
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto level = (*group)->CreateArray(std::to_string(k), Level(shapes[k]));
    EXPECT_TRUE(level.ok()) << level.status().ToString();
  }
  return *group;
}

TEST(ImageLayoutCheckTest, LevelsThatFollowFromLevel0AreConsistent) {
  auto store = MakeMemoryStore();
  // 65 / 2 = 32.5: 32 (rounded down) and 33 (up) both follow.
  auto image = Image(store, {{65, 64}, {33, 32}, {16, 16}}, 3);
  std::optional<LayoutReport> r = CheckImageLayout(image);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->layout, "ome-zarr");
  EXPECT_EQ(r->path, "img");
  EXPECT_TRUE(r->findings.empty()) << r->findings[0].message;
}

TEST(ImageLayoutCheckTest, WrongAndMissingLevels) {
  auto store = MakeMemoryStore();
  auto image = Image(store, {{64, 64}, {32, 32}, {17, 16}}, 4);
  std::optional<LayoutReport> r = CheckImageLayout(image);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->findings.size(), 2u);
  EXPECT_EQ(r->findings[0],
            (VerifyFinding{"img/2", "level 2 has shape [17, 16], but level 0's [64, 64] and "
                                    "the scales make it [16, 16]"}));
  EXPECT_EQ(r->findings[1].key, "img/3");
  EXPECT_EQ(r->findings[1].message.rfind("level 3 of the multiscales: ", 0), 0u)
      << r->findings[1].message;
}

TEST(ImageLayoutCheckTest, LabelsListedMustBeThere) {
  auto store = MakeMemoryStore();
  Image(store, {{64, 64}}, 1);
  GroupCreateOptions options;
  options.attributes = {{"ome", {{"version", "0.5"}, {"labels", {"cells", "nuclei"}}}}};
  auto labels = Group::Create(store, "img/labels", options);
  ASSERT_TRUE(labels.ok());
  ASSERT_TRUE(Group::Create(store, "img/labels/cells").ok());
  std::optional<LayoutReport> r = CheckImageLayout(*labels);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].key, "img/labels/nuclei");
  EXPECT_EQ(r->findings[0].message.rfind("listed in 'labels', but: ", 0), 0u);

  auto plain = Group::Create(store, "other");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(CheckImageLayout(*plain).has_value());
}

}  // namespace
}  // namespace turbozarr::ome
