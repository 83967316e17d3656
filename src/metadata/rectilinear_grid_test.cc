#include <gtest/gtest.h>

#include <string>

#include "testing/zarr_python_testdata.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using V = std::vector<int64_t>;
namespace t = turbozarr::testing;

// kV3BasicZarrJson (shape [100, 20], int32) with `grid` as its chunk grid.
json WithGrid(const json& grid) {
  Result<JsonDocument> doc = ParseJsonDocument(AsBytes(t::kV3BasicZarrJson), "zarr.json");
  EXPECT_TRUE(doc.ok());
  json j = *doc;
  j["chunk_grid"] = grid;
  return j;
}

json Rectilinear(const json& chunk_shapes) {
  return {{"name", "rectilinear"},
          {"configuration", {{"kind", "inline"}, {"chunk_shapes", chunk_shapes}}}};
}

TEST(RectilinearGridTest, TheSpecsFormsParseAndWriteBackAsZarrPythonWritesThem) {
  json j = WithGrid(Rectilinear(json::parse(R"([4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]])")));
  j["shape"] = json::array({6, 6, 6, 6, 6});
  Result<ArrayMetadata> m = ParseV3ArrayMetadata(j, "array 'r'");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_TRUE(m->rectilinear());
  using R = std::vector<ChunkEdgeRun>;
  EXPECT_EQ(m->chunk_edges[0], R{}) << "one integer is a step";
  EXPECT_EQ(m->chunk_edges[1], (R{{1, 1}, {2, 1}, {3, 1}}));
  EXPECT_EQ(m->chunk_edges[2], (R{{4, 2}}));
  EXPECT_EQ(m->chunk_edges[3], (R{{1, 3}, {3, 1}}));
  EXPECT_EQ(m->chunk_edges[4], (R{{4, 3}})) << "equal neighbours merge into one run";
  EXPECT_EQ(m->chunk_shape, (V{4, 3, 4, 3, 4})) << "the longest chunk touching the array";
  const json written = json(ToV3Json(*m))["chunk_grid"];
  EXPECT_EQ(written, Rectilinear(json::parse(R"([4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [[4, 3]]])")));
  EXPECT_EQ(ToV3Json(*m)["chunk_grid"].dump().find("\"name\""), 1u)
      << "name first, as zarr-python writes it";
}

TEST(RectilinearGridTest, TheChunkShapeIgnoresChunksPastTheExtent) {
  json j = WithGrid(Rectilinear(json::parse(R"([[[10, 10]], [5, 5, 5, 5, 40]])")));
  Result<ArrayMetadata> m = ParseV3ArrayMetadata(j, "array 'r'");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->chunk_shape, (V{10, 5})) << "the 40 lies wholly past the extent 20";
  // [10, 10, 10, 20] over 30 and over 31 (the 20 then touches the array).
  ArrayMetadata grown = *m;
  grown.chunk_edges = {{{10, 3}, {20, 1}}, {}};
  grown.chunk_shape = {1, 7};
  grown.shape = {30, 5};
  grown.UpdateRectilinearChunkShape();
  EXPECT_EQ(grown.chunk_shape, (V{10, 7}));
  grown.shape = {31, 5};
  grown.UpdateRectilinearChunkShape();
  EXPECT_EQ(grown.chunk_shape, (V{20, 7}));
}

TEST(RectilinearGridTest, BadGridsAreRefusedNamingTheField) {
  struct Case {
    json grid;
    StatusCode code;
    std::string mentions;
  };
  const Case cases[] = {
      {Rectilinear(json::parse("[10]")), StatusCode::kCorruption, "one entry per dimension"},
      {Rectilinear(json::parse("[10, 0]")), StatusCode::kCorruption, "chunk_shapes[1]"},
      {Rectilinear(json::parse("[10, []]")), StatusCode::kCorruption, "chunk_shapes[1]"},
      {Rectilinear(json::parse("[10, [5, -5]]")), StatusCode::kCorruption, "chunk_shapes[1]"},
      {Rectilinear(json::parse("[10, [[5, 0]]]")), StatusCode::kCorruption, "[5,0]"},
      {Rectilinear(json::parse("[10, [[5, 2, 1]]]")), StatusCode::kCorruption, "[5,2,1]"},
      {Rectilinear(json::parse("[10, [5.5, 20]]")), StatusCode::kCorruption, "5.5"},
      {Rectilinear(json::parse("[10, \"5\"]")), StatusCode::kCorruption, "chunk_shapes[1]"},
      {Rectilinear(json::parse("[[50, 49], 5]")), StatusCode::kCorruption,
       "sum to 99, less than the extent 100"},
      {Rectilinear(json::parse("[[[4611686018427387904, 4]], 5]")), StatusCode::kCorruption,
       "2^63"},
      {{{"name", "rectilinear"}, {"configuration", {{"chunk_shapes", {10, 5}}}}},
       StatusCode::kCorruption, "kind"},
      {{{"name", "rectilinear"},
        {"configuration", {{"kind", "file"}, {"chunk_shapes", {10, 5}}}}},
       StatusCode::kUnsupported, "\"file\""},
  };
  for (const Case& c : cases) {
    Status s = ParseV3ArrayMetadata(WithGrid(c.grid), "array 'g/a'").status();
    SCOPED_TRACE(c.grid.dump() + ": " + s.ToString());
    EXPECT_EQ(s.code(), c.code);
    EXPECT_NE(s.message().find(c.mentions), std::string::npos);
    EXPECT_NE(s.message().find("array 'g/a'"), std::string::npos);
  }
}

TEST(RectilinearGridTest, ChunkBytesAreCheckedForChunksThatTouchTheArray) {
  // A chunk of 2^62 int32 elements is 2^64 bytes: refused once it holds an
  // element of the array, ignored while it lies past the extent.
  json j = WithGrid(Rectilinear(json::parse(R"([[[5, 20], 4611686018427387904], 5])")));
  EXPECT_TRUE(ParseV3ArrayMetadata(j, "array 'g/a'").ok());
  j["shape"] = json::array({101, 20});
  Status s = ParseV3ArrayMetadata(j, "array 'g/a'").status();
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("more than 2^63 bytes"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace turbozarr
