#include "turbozarr/group.h"

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

using nlohmann::json;

ArrayMetadata SmallArray(int format) {
  ArrayMetadata m;
  m.zarr_format = format;
  m.shape = {4, 6};
  m.chunk_shape = {2, 3};
  m.dtype = DataType(DataTypeId::kUInt16);
  m.fill_value = DefaultFillValue(m.dtype);
  if (format == 3) {
    m.codecs = json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])");
  } else {
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::kV2, '.'};
    m.v2_compressor = nullptr;
  }
  return m;
}

class GroupTest : public ::testing::TestWithParam<int> {};

TEST_P(GroupTest, HierarchyMembersTreeAndAttributes) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  GroupCreateOptions options;
  options.zarr_format = format;
  options.attributes = {{"title", "root"}};
  auto root = Group::Create(store, "", options);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  auto images = (*root)->CreateGroup("images", {format});
  ASSERT_TRUE(images.ok()) << images.status().ToString();
  ASSERT_TRUE((*images)->CreateArray("raw", SmallArray(format)).ok());
  ASSERT_TRUE((*root)->CreateArray("labels", SmallArray(format)).ok());

  auto reopened = Group::Open(store, "");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->attributes(), (json{{"title", "root"}}));
  auto members = (*reopened)->Members();
  ASSERT_TRUE(members.ok());
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[0].name, "images");
  EXPECT_EQ((*members)[0].kind, NodeKind::kGroup);
  EXPECT_EQ((*members)[1].name, "labels");
  EXPECT_EQ((*members)[1].kind, NodeKind::kArray);

  auto tree = (*reopened)->Tree();
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(*tree,
            "/\n"
            "├── images\n"
            "│   └── raw (4, 6) uint16\n"
            "└── labels (4, 6) uint16\n");

  ASSERT_TRUE((*reopened)->SetAttributes({{"title", "changed"}}).ok());
  EXPECT_EQ((*Group::Open(store, ""))->attributes(), (json{{"title", "changed"}}));
}

TEST_P(GroupTest, ConsolidatedMetadataOpensMembersWithoutTheirDocuments) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  auto root = Group::Create(store, "", {format});
  ASSERT_TRUE(root.ok());
  auto sub = (*root)->CreateGroup("sub", {format});
  ASSERT_TRUE(sub.ok());
  auto array = (*sub)->CreateArray("a", SmallArray(format));
  ASSERT_TRUE(array.ok());
  std::vector<uint16_t> data(24);
  for (int i = 0; i < 24; ++i) data[i] = static_cast<uint16_t>(i);
  ASSERT_TRUE((*array)->Write(Selection::All({4, 6}), data.data()).ok());
  ASSERT_TRUE((*root)->Consolidate().ok());

  // Remove the member's own metadata: only the consolidated copy is left.
  ASSERT_TRUE(store->Erase(format == 3 ? "sub/a/zarr.json" : "sub/a/.zarray").ok());
  auto reopened = Group::Open(store, "");
  ASSERT_TRUE(reopened.ok());
  EXPECT_TRUE((*reopened)->is_consolidated());
  auto a = (*reopened)->OpenArray("sub/a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<uint16_t> out(24);
  ASSERT_TRUE((*a)->Read(Selection::All({4, 6}), out).ok());
  EXPECT_EQ(out, data);
  auto members = (*reopened)->Members();
  ASSERT_TRUE(members.ok());
  ASSERT_EQ(members->size(), 1u);
  EXPECT_EQ((*members)[0].name, "sub");
}

TEST_P(GroupTest, OpeningTheWrongKindSaysWhatIsThere) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Group::Create(store, "g", {format}).ok());
  auto as_array = Array::Open(store, "g");
  EXPECT_EQ(as_array.status().code(), StatusCode::kNotFound);
  EXPECT_NE(as_array.status().message().find("a group is there"), std::string::npos);
  EXPECT_EQ(Group::Open(store, "nothing").status().code(), StatusCode::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Formats, GroupTest, ::testing::Values(2, 3));

}  // namespace
}  // namespace turbozarr
