// A matrix in a store: written tile by tile, opened, read back; and the
// stores and writers that went wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/group.h"
#include "turbozarr/sparse.h"
#include "turbozarr/store.h"

namespace turbozarr::sparse {
namespace {

struct Source {
  int64_t cells = 0, genes = 0;
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> indices;
  std::vector<uint32_t> values;

  CsrRows Rows(int64_t first, int64_t count) const {
    CsrRows r;
    r.rows = count;
    r.indptr = indptr.data() + first;
    r.indptr_type = DataType(DataTypeId::kInt64);
    r.indices = indices.data();
    r.indices_type = DataType(DataTypeId::kInt32);
    r.values = values.data();
    r.values_type = DataType(DataTypeId::kUInt32);
    return r;
  }
};

// Cells in [empty_from, empty_to) have no counts (an empty tile when it
// covers one).
Source MakeSource(int64_t cells, int64_t genes, int64_t empty_from, int64_t empty_to) {
  Source s;
  s.cells = cells;
  s.genes = genes;
  std::mt19937 rng(11);
  for (int64_t c = 0; c < cells; ++c) {
    if (c < empty_from || c >= empty_to) {
      for (int32_t g = 0; g < genes; ++g) {
        // Popular low genes, rare high ones.
        if (rng() % (1 + g) < 3) {
          s.indices.push_back(g);
          const uint32_t x = rng() % 500;
          s.values.push_back(x == 0 ? 100000 + rng() % 1000 : 1 + rng() % 3);
        }
      }
    }
    s.indptr.push_back(static_cast<int64_t>(s.indices.size()));
  }
  return s;
}

Status Write(const std::shared_ptr<Store>& store, const Source& s, int64_t tile_cells,
             bool finish = true, int version = kFormatVersion, bool checksum = true) {
  Layout layout;
  layout.version = version;
  layout.checksum = checksum;
  layout.cells = s.cells;
  layout.genes = s.genes;
  layout.tile_cells = tile_cells;
  layout.counts = DataType(DataTypeId::kUInt32);
  layout.chunks_per_tile = 3;
  CountStats stats(s.genes);
  TZ_RETURN_NOT_OK(stats.Add(s.Rows(0, s.cells), 0));
  stats.ChooseValueTypes(layout);
  TZ_ASSIGN_OR_RETURN(std::unique_ptr<MatrixWriter> writer,
                      MatrixWriter::Create(store, "X", layout, GeneOrder(stats.gene_totals()),
                                           /*overwrite=*/true));
  for (int64_t t = 0; t < layout.tiles(); ++t) {
    TZ_RETURN_NOT_OK(writer->WriteTile(t, s.Rows(t * tile_cells, layout.TileCells(t))));
  }
  return finish ? writer->Finish() : Status::OK();
}

// Every tile read back sorted, concatenated.
void ExpectSame(const Matrix& m, const Source& s) {
  const Layout& l = m.layout();
  ASSERT_EQ(m.nonzeros(), static_cast<int64_t>(s.indices.size()));
  for (int64_t t = 0; t < l.tiles(); ++t) {
    const int64_t cells = l.TileCells(t), nnz = m.tile_size(t).nonzeros;
    std::vector<int32_t> indptr(static_cast<size_t>(cells) + 1), indices(static_cast<size_t>(nnz));
    std::vector<uint32_t> values(static_cast<size_t>(nnz));
    Result<int64_t> n = m.ReadTile(t, {indptr.data(), indices.data(), values.data(), nnz},
                                   {.sorted = true});
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ASSERT_EQ(*n, nnz);
    const int64_t first = s.indptr[static_cast<size_t>(t * l.tile_cells)];
    ASSERT_EQ(m.tile_offset(t), first);
    for (int64_t c = 0; c <= cells; ++c) {
      ASSERT_EQ(indptr[static_cast<size_t>(c)] + first, s.indptr[static_cast<size_t>(t * l.tile_cells + c)]);
    }
    EXPECT_TRUE(std::equal(indices.begin(), indices.end(), s.indices.begin() + first));
    EXPECT_TRUE(std::equal(values.begin(), values.end(), s.values.begin() + first));
  }
}

TEST(SparseMatrix, ChunksCarryACrc32cAndMatricesWrittenBeforeItStillRead) {
  const Source s = MakeSource(500, 60, 0, 0);
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Write(store, s, 200).ok());
  Result<std::shared_ptr<Matrix>> m = Matrix::Open(store, "X");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->layout().checksum);
  for (const char* array : {"X/tiles/1/indptr", "X/tiles/1/gene_deltas", "X/gene_order",
                            "X/tile_index"}) {
    Result<std::shared_ptr<Array>> a = Array::Open(store, array);
    ASSERT_TRUE(a.ok()) << array;
    EXPECT_EQ((*a)->metadata().codecs.back(), nlohmann::json({{"name", "crc32c"}})) << array;
  }
  ExpectSame(**m, s);

  // A matrix from before the field: zstd alone, and no "checksum" in its
  // layout, which readers take for "none".
  auto old = MakeMemoryStore();
  ASSERT_TRUE(Write(old, s, 200, true, kFormatVersion, /*checksum=*/false).ok());
  Result<std::shared_ptr<Group>> group = Group::Open(old, "X");
  ASSERT_TRUE(group.ok());
  JsonDocument attributes = (*group)->attributes();
  EXPECT_EQ(attributes[std::string(kAttribute)]["checksum"], "none");
  attributes[std::string(kAttribute)].erase("checksum");
  ASSERT_TRUE((*group)->SetAttributes(attributes).ok());
  m = Matrix::Open(old, "X");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE((*m)->layout().checksum);
  ExpectSame(**m, s);

  attributes[std::string(kAttribute)]["checksum"] = "md5";
  ASSERT_TRUE((*group)->SetAttributes(attributes).ok());
  m = Matrix::Open(old, "X");
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("field 'checksum' is \"md5\""), std::string::npos)
      << m.status().ToString();
}

TEST(SparseMatrix, TilesRoundTripWithAnEmptyTileAndAPartialLastOne) {
  // 1,050 cells in tiles of 200: tile 2 empty, tile 5 holds 50 cells; in
  // the layout written today and in the one before, which readers still
  // open.
  const Source s = MakeSource(1050, 120, 400, 600);
  for (int version : {kOldestFormatVersion, kFormatVersion}) {
    SCOPED_TRACE("version " + std::to_string(version));
    auto store = MakeMemoryStore();
    ASSERT_TRUE(Write(store, s, 200, true, version).ok());
    Result<std::shared_ptr<Matrix>> m = Matrix::Open(store, "X");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ((*m)->layout().version, version);
    EXPECT_EQ((*m)->layout().tiles(), 6);
    EXPECT_EQ((*m)->tile_size(2).nonzeros, 0);
    EXPECT_EQ((*m)->layout().stored_values.id(), DataTypeId::kUInt8);
    EXPECT_GT((*m)->tile_size(0).exceptions, 0);
    if (version == 2) {
      EXPECT_GT((*m)->tile_size(0).value_levels[0], 0);
    }
    ExpectSame(**m, s);
  }
}

TEST(SparseMatrix, TheArraysArePlainZarrThatAnyReaderOpens) {
  auto store = MakeMemoryStore();
  const Source s = MakeSource(300, 50, 0, 0);
  ASSERT_TRUE(Write(store, s, 100).ok());
  Result<std::shared_ptr<Group>> g = Group::Open(store, "X");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g.value()->attributes()["sparse_matrix"]["shape"], nlohmann::json({300, 50}));
  Result<std::shared_ptr<Array>> deltas = Array::Open(store, "X/tiles/1/gene_deltas");
  ASSERT_TRUE(deltas.ok());
  EXPECT_EQ(deltas.value()->dtype().id(), DataTypeId::kUInt8);
  EXPECT_EQ(deltas.value()->metadata().codecs[1]["name"], "zstd");
  Result<std::shared_ptr<Array>> indptr = Array::Open(store, "X/tiles/2/indptr");
  ASSERT_TRUE(indptr.ok());
  EXPECT_EQ(indptr.value()->shape(), std::vector<int64_t>{101});
}

TEST(SparseMatrix, AMissingOrDamagedChunkIsAnErrorNamingTheTileAndChunk) {
  auto store = MakeMemoryStore();
  const Source s = MakeSource(300, 50, 0, 0);
  ASSERT_TRUE(Write(store, s, 100).ok());
  Result<std::shared_ptr<Matrix>> m = Matrix::Open(store, "X");
  ASSERT_TRUE(m.ok());
  const int64_t nnz = (*m)->tile_size(1).nonzeros;
  std::vector<int32_t> indptr(101), indices(static_cast<size_t>(nnz));
  std::vector<uint32_t> values(static_cast<size_t>(nnz));
  TileTarget target{indptr.data(), indices.data(), values.data(), nnz};

  ASSERT_TRUE(store->Erase("X/tiles/1/values/c/0").ok());
  Result<int64_t> n = (*m)->ReadTile(1, target);
  EXPECT_EQ(n.status().code(), StatusCode::kCorruption);
  EXPECT_NE(n.status().message().find("tile 1: chunk 'X/tiles/1/values/c/0' is missing"),
            std::string::npos)
      << n.status().message();

  ASSERT_TRUE(store->Set("X/tiles/1/values/c/0", AsBytes("not zstd at all")).ok());
  n = (*m)->ReadTile(1, target);
  EXPECT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("tile 1: chunk 'X/tiles/1/values/c/0'"), std::string::npos)
      << n.status().message();
  // The other tiles still read.
  const int64_t nnz0 = (*m)->tile_size(0).nonzeros;
  std::vector<int32_t> i0(static_cast<size_t>(nnz0));
  std::vector<uint32_t> v0(static_cast<size_t>(nnz0));
  EXPECT_TRUE((*m)->ReadTile(0, {indptr.data(), i0.data(), v0.data(), nnz0}).ok());
}

TEST(SparseMatrix, AnUnfinishedMatrixOrAnotherGroupIsRefusedClearly) {
  auto store = MakeMemoryStore();
  const Source s = MakeSource(300, 50, 0, 0);
  ASSERT_TRUE(Write(store, s, 100, /*finish=*/false).ok());
  Result<std::shared_ptr<Matrix>> m = Matrix::Open(store, "X");
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("was not finished"), std::string::npos);

  ASSERT_TRUE(Group::Create(store, "plain").ok());
  m = Matrix::Open(store, "plain");
  EXPECT_NE(m.status().message().find("not a sparse matrix"), std::string::npos);

  nlohmann::json attrs = {{"sparse_matrix", {{"version", 99}}}};
  GroupCreateOptions options;
  options.attributes = attrs;
  ASSERT_TRUE(Group::Create(store, "future", options).ok());
  m = Matrix::Open(store, "future");
  EXPECT_NE(m.status().message().find("version 99 is not one this reader knows"),
            std::string::npos)
      << m.status().message();
}

TEST(SparseMatrix, AWriterRefusesTilesOfTheWrongSizeAndUnwrittenTiles) {
  auto store = MakeMemoryStore();
  const Source s = MakeSource(300, 50, 0, 0);
  Layout layout;
  layout.cells = 300;
  layout.genes = 50;
  layout.tile_cells = 100;
  layout.counts = DataType(DataTypeId::kUInt32);
  std::vector<int32_t> order(50);
  for (int32_t g = 0; g < 50; ++g) order[static_cast<size_t>(g)] = 49 - g;
  auto writer = MatrixWriter::Create(store, "X", layout, order, false);
  ASSERT_TRUE(writer.ok());
  Status st = (*writer)->WriteTile(0, s.Rows(0, 99));
  EXPECT_NE(st.message().find("tile 0: 99 rows given; the tile holds 100 cells"),
            std::string::npos)
      << st.message();
  ASSERT_TRUE((*writer)->WriteTile(0, s.Rows(0, 100)).ok());
  st = (*writer)->Finish();
  EXPECT_NE(st.message().find("tile 1 was not written"), std::string::npos);
  order[0] = 0;  // not a permutation any more
  EXPECT_FALSE(MatrixWriter::Create(store, "Y", layout, order, false).ok());
}

// ---- CheckMatrixLayout: what verify asks beyond the arrays' bytes --------

TEST(SparseMatrix, LayoutCheckOfASoundMatrixAndOfOtherGroups) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Write(store, MakeSource(30, 40, 100, 100), 10).ok());
  auto group = Group::Open(store, "X");
  ASSERT_TRUE(group.ok());
  std::optional<LayoutReport> r = CheckMatrixLayout(*group);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->layout, "sparse");
  EXPECT_EQ(r->path, "X");
  EXPECT_TRUE(r->findings.empty()) << r->findings[0].key << ": " << r->findings[0].message;
  auto plain = Group::Create(store, "plain");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(CheckMatrixLayout(*plain).has_value());
}

TEST(SparseMatrix, LayoutCheckFindsWhatContradictsTheLayoutAndTheTileIndex) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(Write(store, MakeSource(30, 40, 100, 100), 10).ok());
  // Tile 1's row pointers going backwards: sound bytes, a broken tile.
  auto indptr = Array::Open(store, "X/tiles/1/indptr");
  ASSERT_TRUE(indptr.ok());
  std::vector<uint32_t> ptr(11);
  ASSERT_TRUE((*indptr)->Read(Selection::All({11}), std::span<uint32_t>(ptr)).ok());
  ASSERT_GT(ptr[1], 0u);  // every cell of the source has counts
  ptr[2] = ptr[1] - 1;
  ASSERT_TRUE((*indptr)->Write(Selection::All({11}), ptr.data()).ok());
  // Tile 2's gene steps stored shorter than its tile index says.
  auto deltas = Array::Open(store, "X/tiles/2/gene_deltas");
  ASSERT_TRUE(deltas.ok());
  ArrayMetadata shorter = (*deltas)->metadata();
  shorter.shape = {5};
  shorter.chunk_shape = {5};
  CreateOptions overwrite;
  overwrite.overwrite = true;
  ASSERT_TRUE(Array::Create(store, "X/tiles/2/gene_deltas", shorter, overwrite).ok());
  // Tile 2's values without the crc32c the layout says its chunks carry.
  auto values = Array::Open(store, "X/tiles/2/values");
  ASSERT_TRUE(values.ok());
  ArrayMetadata unchecked = (*values)->metadata();
  ASSERT_EQ(unchecked.codecs.size(), 3u);
  unchecked.codecs.erase(2);
  ASSERT_TRUE(Array::Create(store, "X/tiles/2/values", unchecked, overwrite).ok());

  auto group = Group::Open(store, "X");
  ASSERT_TRUE(group.ok());
  std::optional<LayoutReport> r = CheckMatrixLayout(*group);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->findings.size(), 3u);
  EXPECT_EQ(r->findings[0], (VerifyFinding{"X/tiles/1/indptr",
                                           "the row pointers go backwards at cell 1 of the "
                                           "tile"}));
  EXPECT_EQ(r->findings[1].key, "X/tiles/2/gene_deltas");
  EXPECT_EQ(r->findings[1].message.rfind("stored as " + shorter.dtype.ToString() +
                                             " of 5 in chunks of 5, but the layout and the "
                                             "tile index make it ",
                                         0),
            0u)
      << r->findings[1].message;
  EXPECT_EQ(r->findings[2],
            (VerifyFinding{"X/tiles/2/values", "stored with codecs bytes, zstd, but the layout "
                                               "makes readers decode it with bytes, zstd, "
                                               "crc32c"}));
}

}  // namespace
}  // namespace turbozarr::sparse
