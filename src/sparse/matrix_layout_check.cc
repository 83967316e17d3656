// CheckMatrixLayout (turbozarr/sparse.h): what `verify` asks of a sparse
// matrix group beyond its arrays' bytes, which is what the reader assumes
// without checking per tile (it opens each tile's arrays from the layout
// and the tile index, never from their stored metadata): the group opens
// as a Matrix (layout, gene order, tile index), every tile's arrays are
// stored with the data type, length and chunks the tile index implies, and
// each tile's row pointers start at 0, never go backwards and end at the
// tile's nonzeros. The codecs are compared by name: a reader decodes with
// the layout's (a crc32c it expects must be there), whatever the level.
#include <string>

#include "turbozarr/group.h"
#include "turbozarr/sparse.h"

namespace turbozarr::sparse {
namespace {

std::string Describe(const ArrayMetadata& m) {
  return m.dtype.ToString() + " of " + std::to_string(m.shape.empty() ? 0 : m.shape[0]) +
         " in chunks of " + std::to_string(m.chunk_shape.empty() ? 0 : m.chunk_shape[0]);
}

// "bytes, zstd, crc32c": the codecs' names, which decide whether a reader
// that decodes with the layout's codecs can decode the stored chunks (a
// level or other setting does not).
std::string CodecNames(const ArrayMetadata& m) {
  std::string out;
  for (const nlohmann::json& codec : m.codecs) {
    auto name = codec.is_object() ? codec.find("name") : codec.end();
    out += (out.empty() ? "" : ", ") +
           (name != codec.end() && name->is_string() ? name->get<std::string>() : "?");
  }
  return out;
}

// The problem with a tile's row pointers, or "" when there is none.
std::string IndptrProblem(const Array& indptr, int64_t cells, int64_t nonzeros) {
  std::vector<uint32_t> ptr(static_cast<size_t>(cells + 1));
  Status read = indptr.Read(Selection::All(indptr.shape()), std::span<uint32_t>(ptr));
  if (!read.ok()) return "could not be read: " + read.message();
  if (ptr[0] != 0) return "the row pointers start at " + std::to_string(ptr[0]) + ", not 0";
  for (int64_t r = 0; r < cells; ++r) {
    if (ptr[r + 1] < ptr[r]) {
      return "the row pointers go backwards at cell " + std::to_string(r) + " of the tile";
    }
  }
  if (ptr[cells] != nonzeros) {
    return "the row pointers end at " + std::to_string(ptr[cells]) +
           ", but the tile index gives the tile " + std::to_string(nonzeros) + " nonzeros";
  }
  return "";
}

void CheckTile(const Matrix& matrix, const std::string& path, int64_t tile,
               std::vector<VerifyFinding>& findings) {
  const Layout& layout = matrix.layout();
  const int64_t cells = layout.TileCells(tile);
  const TileSize& size = matrix.tile_size(tile);
  for (TileArray which : TileArraysOf(layout.version)) {
    const std::string key = JoinKey(
        path, "tiles/" + std::to_string(tile) + "/" + std::string(TileArrayName(which)));
    Result<std::shared_ptr<Array>> array = Array::Open(matrix.store(), key);
    if (!array.ok()) {
      findings.push_back({key, array.status().message()});
      continue;
    }
    const ArrayMetadata& stored = (*array)->metadata();
    const ArrayMetadata expected = TileArrayMetadata(layout, which, cells, size);
    if (stored.shape != expected.shape || !(stored.dtype == expected.dtype) ||
        stored.chunk_shape != expected.chunk_shape) {
      findings.push_back({key, "stored as " + Describe(stored) + ", but the layout and the "
                                   "tile index make it " + Describe(expected) +
                                   " (which readers assume)"});
      continue;
    }
    if (CodecNames(stored) != CodecNames(expected)) {
      findings.push_back({key, "stored with codecs " + CodecNames(stored) +
                                   ", but the layout makes readers decode it with " +
                                   CodecNames(expected)});
      continue;
    }
    if (which != TileArray::kIndptr) continue;
    const std::string problem = IndptrProblem(**array, cells, size.nonzeros);
    if (!problem.empty()) findings.push_back({key, problem});
  }
}

}  // namespace

std::optional<LayoutReport> CheckMatrixLayout(const std::shared_ptr<Group>& group) {
  if (!group->attributes().contains(std::string(kAttribute))) return std::nullopt;
  LayoutReport report{"sparse", group->path(), {}};
  Result<std::shared_ptr<Matrix>> matrix = Matrix::Open(group->store(), group->path());
  if (!matrix.ok()) {
    report.findings.push_back({group->path(), matrix.status().message()});
    return report;
  }
  for (int64_t t = 0; t < (*matrix)->layout().tiles(); ++t) {
    CheckTile(**matrix, group->path(), t, report.findings);
  }
  return report;
}

}  // namespace turbozarr::sparse
