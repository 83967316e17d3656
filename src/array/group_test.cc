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

// The keys of `store`, sorted.
std::vector<std::string> Keys(Store& store) { return *store.List(""); }

TEST_P(GroupTest, NestedNodesGetTheirParentGroupsAsZarrPythonWritesThem) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Array::Create(store, "a/b/c", SmallArray(format)).ok());
  if (format == 3) {
    EXPECT_EQ(Keys(*store), (std::vector<std::string>{"a/b/c/zarr.json", "a/b/zarr.json",
                                                      "a/zarr.json", "zarr.json"}));
    EXPECT_EQ(json::parse((*store->Get("a/zarr.json"))->chars()),
              (json{{"zarr_format", 3}, {"node_type", "group"}, {"attributes", json::object()}}));
  } else {
    EXPECT_EQ(Keys(*store),
              (std::vector<std::string>{".zattrs", ".zgroup", "a/.zattrs", "a/.zgroup",
                                        "a/b/.zattrs", "a/b/.zgroup", "a/b/c/.zarray",
                                        "a/b/c/.zattrs"}));
  }
  // Groups already there are kept as they are (attributes too).
  GroupCreateOptions titled{format, {{"title", "kept"}}};
  ASSERT_TRUE(Group::Create(store, "x", titled).ok());
  auto x = Group::Open(store, "x");
  ASSERT_TRUE((*x)->CreateGroup("y/z", {format}).ok());
  EXPECT_EQ((*Group::Open(store, "x"))->attributes(), (json{{"title", "kept"}}));
  EXPECT_TRUE(Group::Open(store, "x/y").ok());
}

TEST_P(GroupTest, NothingIsCreatedBelowAnArray) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Array::Create(store, "a", SmallArray(format)).ok());
  const std::vector<std::string> before = Keys(*store);
  auto below = Array::Create(store, "a/b/c", SmallArray(format));
  EXPECT_EQ(below.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(below.status().message().find("'a' is an array"), std::string::npos)
      << below.status().message();
  EXPECT_EQ(Group::Create(store, "a/g", {format}).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(Keys(*store), before);
}

TEST_P(GroupTest, DeleteErasesAMemberAndEverythingBelowIt) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  auto root = Group::Create(store, "", {format});
  ASSERT_TRUE(root.ok());
  auto a = (*root)->CreateArray("a/x", SmallArray(format));
  ASSERT_TRUE(a.ok());
  std::vector<uint16_t> data(24, 7);
  ASSERT_TRUE((*a)->Write(Selection::All({4, 6}), data.data()).ok());
  ASSERT_TRUE((*root)->CreateArray("ab", SmallArray(format)).ok());  // shares a's prefix

  ASSERT_TRUE((*root)->Delete("a").ok());
  for (const std::string& key : Keys(*store)) {
    EXPECT_FALSE(key.starts_with("a/")) << key;
  }
  auto members = (*root)->Members();
  ASSERT_EQ(members->size(), 1u);
  EXPECT_EQ((*members)[0].name, "ab");
  EXPECT_TRUE(Array::Open(store, "ab").ok());

  Status missing = (*root)->Delete("a");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("'a'"), std::string::npos) << missing.message();
  EXPECT_EQ((*root)->Delete("").code(), StatusCode::kInvalidArgument);
}

TEST_P(GroupTest, DeleteAndMoveKeepConsolidatedMetadataTrue) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  auto root = Group::Create(store, "", {format});
  ASSERT_TRUE((*root)->CreateArray("g/one", SmallArray(format)).ok());
  ASSERT_TRUE((*root)->CreateArray("two", SmallArray(format)).ok());
  ASSERT_TRUE((*root)->Consolidate().ok());

  ASSERT_TRUE((*root)->Move("g", "h/g2").ok());
  ASSERT_TRUE((*root)->Delete("two").ok());
  auto reopened = Group::Open(store, "");
  ASSERT_TRUE(reopened.ok());
  ASSERT_TRUE((*reopened)->is_consolidated());
  auto members = (*reopened)->Members();
  ASSERT_TRUE(members.ok());
  std::vector<std::string> names;
  for (const NodeInfo& m : *members) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"h"}));
  auto moved = (*reopened)->OpenArray("h/g2/one");
  EXPECT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_FALSE((*reopened)->OpenArray("g/one").ok());
}

TEST_P(GroupTest, MoveCarriesEveryChunkToANewPath) {
  const int format = GetParam();
  auto store = MakeMemoryStore();
  auto root = Group::Create(store, "", {format});
  auto a = (*root)->CreateArray("src/a", SmallArray(format));
  ASSERT_TRUE(a.ok());
  std::vector<uint16_t> data(24);
  for (int i = 0; i < 24; ++i) data[i] = static_cast<uint16_t>(100 + i);
  ASSERT_TRUE((*a)->Write(Selection::All({4, 6}), data.data()).ok());
  ASSERT_TRUE((*root)->CreateGroup("taken", {format}).ok());

  EXPECT_EQ((*root)->Move("src", "taken").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ((*root)->Move("src", "src/inside").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*root)->Move("nothing", "elsewhere").code(), StatusCode::kNotFound);
  ASSERT_TRUE(Array::Create(store, "an_array", SmallArray(format)).ok());
  EXPECT_EQ((*root)->Move("src", "an_array/below").code(), StatusCode::kAlreadyExists);

  ASSERT_TRUE((*root)->Move("src", "deep/dst").ok());
  EXPECT_EQ(Group::Open(store, "src").status().code(), StatusCode::kNotFound);
  for (const std::string& key : Keys(*store)) EXPECT_FALSE(key.starts_with("src/")) << key;
  EXPECT_TRUE(Group::Open(store, "deep").ok());
  auto moved = Array::Open(store, "deep/dst/a");
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  std::vector<uint16_t> out(24);
  ASSERT_TRUE((*moved)->Read(Selection::All({4, 6}), out).ok());
  EXPECT_EQ(out, data);

  // A member of a subgroup moves within it.
  auto deep = Group::Open(store, "deep");
  ASSERT_TRUE((*deep)->Move("dst/a", "renamed").ok());
  EXPECT_TRUE(Array::Open(store, "deep/renamed").ok());
  EXPECT_FALSE(Array::Open(store, "deep/dst/a").ok());
}

INSTANTIATE_TEST_SUITE_P(Formats, GroupTest, ::testing::Values(2, 3));

}  // namespace
}  // namespace turbozarr
