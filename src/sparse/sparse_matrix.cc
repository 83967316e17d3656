// The matrix in the store: its layout in the group's attributes, the gene
// order and tile index arrays, and the tiles' arrays written by MatrixWriter
// and read by Matrix.
//
// A tile is read in one batch of store requests (every chunk of its five
// arrays at once, which a remote store serves in parallel) and its chunks
// are decompressed on all threads straight into the tile's buffers. A chunk
// that is missing is an error naming it, never a run of fill values: the
// writer stores every chunk (write_empty_chunks), so absence means damage.
#include "turbozarr/sparse.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <utility>

#include "count_types.h"
#include "tile_codec.h"
#include "turbozarr/config.h"
#include "turbozarr/group.h"
#include "turbozarr/selection.h"

namespace turbozarr::sparse {

using nlohmann::json;

// ---- Layout ----------------------------------------------------------------

int64_t Layout::TileCells(int64_t tile) const {
  return std::max<int64_t>(0, std::min(tile_cells, cells - tile * tile_cells));
}

json Layout::ToJson() const {
  return json{{"version", kFormatVersion},
              {"shape", {cells, genes}},
              {"tile_cells", tile_cells},
              {"chunks_per_tile", chunks_per_tile},
              {"zstd_level", zstd_level},
              {"counts", counts.ToV3Json()},
              {"stored_values", stored_values.ToV3Json()},
              {"exception_values", exception_values.ToV3Json()}};
}

Result<Layout> Layout::FromJson(const json& j, std::string_view where) {
  const std::string at = std::string(where) + ": attribute '" + std::string(kAttribute) + "'";
  if (!j.is_object()) return Status::InvalidArgument(at + " is not an object");
  auto integer = [&](const char* field, int64_t lo, int64_t hi) -> Result<int64_t> {
    auto it = j.find(field);
    if (it == j.end() || !it->is_number_integer()) {
      return Status::InvalidArgument(at + ": field '" + field + "' is missing or not an integer");
    }
    const int64_t v = it->get<int64_t>();
    if (v < lo || v > hi) {
      return Status::InvalidArgument(at + ": field '" + field + "' is " + std::to_string(v) +
                                     ", outside [" + std::to_string(lo) + ", " +
                                     std::to_string(hi) + "]");
    }
    return v;
  };
  auto type = [&](const char* field, std::initializer_list<DataTypeId> allowed)
      -> Result<DataType> {
    auto it = j.find(field);
    if (it == j.end()) return Status::InvalidArgument(at + ": field '" + field + "' is missing");
    Result<DataType> t = ParseV3DataType(*it);
    if (!t.ok() || std::find(allowed.begin(), allowed.end(), t->id()) == allowed.end()) {
      return Status::InvalidArgument(at + ": field '" + field + "' names " + it->dump() +
                                     ", which this layout does not use there");
    }
    return t;
  };
  TZ_ASSIGN_OR_RETURN(int64_t version, integer("version", 0, std::numeric_limits<int>::max()));
  if (version != kFormatVersion) {
    return Status::InvalidArgument(at + ": version " + std::to_string(version) +
                                   " is not one this reader knows (it reads version " +
                                   std::to_string(kFormatVersion) + ")");
  }
  auto shape = j.find("shape");
  if (shape == j.end() || !shape->is_array() || shape->size() != 2 ||
      !(*shape)[0].is_number_integer() || !(*shape)[1].is_number_integer() ||
      (*shape)[0].get<int64_t>() < 0 || (*shape)[1].get<int64_t>() < 0 ||
      (*shape)[1].get<int64_t>() > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(at + ": field 'shape' is not [cells, genes]");
  }
  Layout l;
  l.cells = (*shape)[0].get<int64_t>();
  l.genes = (*shape)[1].get<int64_t>();
  TZ_ASSIGN_OR_RETURN(l.tile_cells, integer("tile_cells", 1, std::numeric_limits<int32_t>::max()));
  TZ_ASSIGN_OR_RETURN(l.chunks_per_tile, integer("chunks_per_tile", 1, 1 << 16));
  TZ_ASSIGN_OR_RETURN(int64_t level, integer("zstd_level", -131072, 22));
  l.zstd_level = static_cast<int>(level);
  using enum DataTypeId;
  TZ_ASSIGN_OR_RETURN(l.counts, type("counts", {kInt8, kInt16, kInt32, kInt64, kUInt8, kUInt16,
                                                kUInt32, kUInt64, kFloat32, kFloat64}));
  TZ_ASSIGN_OR_RETURN(l.stored_values,
                      type("stored_values", {kUInt8, kUInt16, kUInt32, kFloat32, kFloat64}));
  TZ_ASSIGN_OR_RETURN(l.exception_values, type("exception_values", {kUInt32, kUInt64}));
  if (!l.integral() && l.counts.is_integer()) {
    return Status::InvalidArgument(at + ": integer counts stored as " +
                                   l.stored_values.ToString());
  }
  return l;
}

// ---- first pass ------------------------------------------------------------

Status CountStats::Add(const CsrRows& rows, int64_t first_cell) {
  const int64_t genes = static_cast<int64_t>(gene_totals_.size());
  std::vector<int64_t> ptr(static_cast<size_t>(rows.rows) + 1);
  Status status;
  if (!internal::VisitIndexType(rows.indptr_type.id(), [&](auto tag) {
        using P = decltype(tag);
        const P* p = static_cast<const P*>(rows.indptr);
        for (int64_t i = 0; i <= rows.rows; ++i) {
          ptr[static_cast<size_t>(i)] = static_cast<int64_t>(p[i]);
          if (i > 0 && ptr[static_cast<size_t>(i)] < ptr[static_cast<size_t>(i) - 1] &&
              status.ok()) {
            status = Status::InvalidArgument("cell " + std::to_string(first_cell + i - 1) +
                                             ": the row pointers go backwards");
          }
        }
      })) {
    return Status::InvalidArgument("row pointers of type " + rows.indptr_type.ToString() +
                                   "; expected int32, int64, uint32 or uint64");
  }
  TZ_RETURN_NOT_OK(status);
  if (rows.rows > 0 && ptr[0] < 0) return Status::InvalidArgument("negative row pointer");
  // The last row each gene was seen in, to find a gene listed twice in a row.
  std::vector<int64_t> seen(static_cast<size_t>(genes), -1);
  bool known_index = true, known_count = true;
  known_index = internal::VisitIndexType(rows.indices_type.id(), [&](auto index_tag) {
    using Index = decltype(index_tag);
    const Index* indices = static_cast<const Index*>(rows.indices);
    known_count = internal::VisitCountType(rows.values_type.id(), [&](auto value_tag) {
      using V = decltype(value_tag);
      const V* values = static_cast<const V*>(rows.values);
      for (int64_t r = 0; r < rows.rows && status.ok(); ++r) {
        const std::string cell = std::to_string(first_cell + r);
        for (int64_t k = ptr[static_cast<size_t>(r)]; k < ptr[static_cast<size_t>(r) + 1]; ++k) {
          const Index g = indices[k];
          if (g < 0 || static_cast<int64_t>(g) >= genes) {
            status = Status::InvalidArgument("cell " + cell + ": gene index " +
                                             std::to_string(g) + " is outside [0, " +
                                             std::to_string(genes) + ")");
            break;
          }
          if (seen[static_cast<size_t>(g)] == r) {
            status = Status::InvalidArgument("cell " + cell + ": gene " + std::to_string(g) +
                                             " appears twice in the row (sum duplicates first)");
            break;
          }
          seen[static_cast<size_t>(g)] = r;
          const V v = values[k];
          if constexpr (std::is_floating_point_v<V>) {
            if (std::isnan(v)) {
              fractional_ = true;
            } else if (!(v >= 0 && v == std::floor(v) && !std::signbit(v) && v < 0x1p64)) {
              fractional_ = true;
            }
            if constexpr (sizeof(V) == 8) {
              if (static_cast<double>(static_cast<float>(v)) != v && !std::isnan(v)) {
                beyond_float32_ = true;
              }
            }
          } else if constexpr (std::is_signed_v<V>) {
            if (v < 0) {
              status = Status::InvalidArgument(
                  "cell " + cell + ", gene " + std::to_string(g) + ": negative count " +
                  std::to_string(v) + " (whole counts are stored unsigned)");
              break;
            }
          }
          const double d = static_cast<double>(v);
          if (!std::isnan(d)) gene_totals_[static_cast<size_t>(g)] += d;
          if (d > 255) ++above_u8_;
          if (d > 65535) ++above_u16_;
          if (d > 4294967295.0) ++above_u32_;
        }
      }
    });
  });
  if (!known_index) {
    return Status::InvalidArgument("gene indices of type " + rows.indices_type.ToString() +
                                   "; expected int32, int64, uint32 or uint64");
  }
  if (!known_count) {
    return Status::InvalidArgument("counts of type " + rows.values_type.ToString() +
                                   "; expected an integer or float32/float64 type");
  }
  TZ_RETURN_NOT_OK(status);
  nonzeros_ += ptr.back() - ptr.front();
  return Status::OK();
}

void CountStats::Merge(const CountStats& other) {
  for (size_t g = 0; g < gene_totals_.size() && g < other.gene_totals_.size(); ++g) {
    gene_totals_[g] += other.gene_totals_[g];
  }
  nonzeros_ += other.nonzeros_;
  above_u8_ += other.above_u8_;
  above_u16_ += other.above_u16_;
  above_u32_ += other.above_u32_;
  fractional_ = fractional_ || other.fractional_;
  beyond_float32_ = beyond_float32_ || other.beyond_float32_;
}

void CountStats::ChooseValueTypes(Layout& layout) const {
  layout.exception_values =
      DataType(above_u32_ > 0 ? DataTypeId::kUInt64 : DataTypeId::kUInt32);
  if (fractional_) {
    const bool f64 = layout.counts.id() == DataTypeId::kFloat64 && beyond_float32_;
    layout.stored_values = DataType(f64 ? DataTypeId::kFloat64 : DataTypeId::kFloat32);
    return;
  }
  // Bytes stored: every value in the narrow type, plus a position (4) and a
  // value (8 at most) per exception.
  const int64_t cost8 = nonzeros_ + 12 * above_u8_;
  const int64_t cost16 = 2 * nonzeros_ + 12 * above_u16_;
  const int64_t cost32 = 4 * nonzeros_ + 12 * above_u32_;
  DataTypeId id = DataTypeId::kUInt8;
  if (cost16 < cost8 && cost16 <= cost32) id = DataTypeId::kUInt16;
  if (cost32 < std::min(cost8, cost16)) id = DataTypeId::kUInt32;
  layout.stored_values = DataType(id);
}

std::vector<int32_t> GeneOrder(const std::vector<double>& gene_totals) {
  std::vector<int32_t> order(gene_totals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return gene_totals[static_cast<size_t>(a)] > gene_totals[static_cast<size_t>(b)];
  });
  return order;
}

// ---- tile arrays -----------------------------------------------------------

std::string_view TileArrayName(TileArray which) {
  switch (which) {
    case TileArray::kIndptr: return "indptr";
    case TileArray::kGeneDeltas: return "gene_deltas";
    case TileArray::kValues: return "values";
    case TileArray::kExceptionPositions: return "exception_positions";
    case TileArray::kExceptionValues: return "exception_values";
    case TileArray::kDeltaExceptionPositions: return "gene_delta_exception_positions";
    case TileArray::kDeltaExceptionValues: return "gene_delta_exception_values";
  }
  return "";
}

namespace {

constexpr TileArray kTileArrays[] = {
    TileArray::kIndptr,           TileArray::kGeneDeltas,
    TileArray::kValues,           TileArray::kExceptionPositions,
    TileArray::kExceptionValues,  TileArray::kDeltaExceptionPositions,
    TileArray::kDeltaExceptionValues};
// No chunk of the nonzeros' arrays is cut smaller than this, so that small
// tiles do not become many tiny objects.
constexpr int64_t kMinChunkElements = 4096;

json Codecs(const DataType& dtype, int level) {
  json bytes = {{"name", "bytes"}};
  if (dtype.size() > 1) bytes["configuration"] = {{"endian", "little"}};
  return json::array(
      {bytes, {{"name", "zstd"}, {"configuration", {{"level", level}, {"checksum", false}}}}});
}

ArrayMetadata VectorMetadata(const DataType& dtype, int64_t length, int64_t chunk, int level) {
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = {length};
  m.chunk_shape = {std::max<int64_t>(1, chunk)};
  m.dtype = dtype;
  m.fill_value = DefaultFillValue(dtype);
  m.codecs = Codecs(dtype, level);
  return m;
}

std::string TilePath(const std::string& matrix, int64_t tile) {
  return (matrix.empty() ? "" : matrix + "/") + "tiles/" + std::to_string(tile);
}

std::string Join(const std::string& a, std::string_view b) {
  return a.empty() ? std::string(b) : a + "/" + std::string(b);
}

WriteOptions StoreEveryChunk() {
  WriteOptions w;
  w.write_empty_chunks = true;
  return w;
}

}  // namespace

DataType TileSize::gene_deltas() const {
  return DataType(delta_bytes == 1   ? DataTypeId::kUInt8
                  : delta_bytes == 2 ? DataTypeId::kUInt16
                                     : DataTypeId::kUInt32);
}

ArrayMetadata TileArrayMetadata(const Layout& layout, TileArray which, int64_t tile_cells,
                                const TileSize& size) {
  switch (which) {
    case TileArray::kIndptr:
      return VectorMetadata(DataType(DataTypeId::kUInt32), tile_cells + 1, tile_cells + 1,
                            layout.zstd_level);
    case TileArray::kGeneDeltas:
    case TileArray::kValues: {
      const int64_t chunk = std::max(
          kMinChunkElements,
          (size.nonzeros + layout.chunks_per_tile - 1) / std::max<int64_t>(1, layout.chunks_per_tile));
      return VectorMetadata(which == TileArray::kValues ? layout.stored_values : size.gene_deltas(),
                            size.nonzeros, std::min(chunk, std::max<int64_t>(1, size.nonzeros)),
                            layout.zstd_level);
    }
    case TileArray::kExceptionPositions:
      return VectorMetadata(DataType(DataTypeId::kUInt32), size.exceptions, size.exceptions,
                            layout.zstd_level);
    case TileArray::kExceptionValues:
      return VectorMetadata(layout.exception_values, size.exceptions, size.exceptions,
                            layout.zstd_level);
    case TileArray::kDeltaExceptionPositions:
    case TileArray::kDeltaExceptionValues:
      return VectorMetadata(DataType(DataTypeId::kUInt32), size.delta_exceptions,
                            size.delta_exceptions, layout.zstd_level);
  }
  return {};
}

// ---- MatrixWriter ----------------------------------------------------------

MatrixWriter::MatrixWriter(std::shared_ptr<Store> store, std::string path, Layout layout,
                           std::vector<int32_t> rank_of_gene)
    : store_(std::move(store)),
      path_(std::move(path)),
      layout_(std::move(layout)),
      rank_of_gene_(std::move(rank_of_gene)),
      sizes_(static_cast<size_t>(layout_.tiles())),
      written_(static_cast<size_t>(layout_.tiles()), false) {}

Result<std::unique_ptr<MatrixWriter>> MatrixWriter::Create(std::shared_ptr<Store> store,
                                                           std::string path, Layout layout,
                                                           std::vector<int32_t> gene_order,
                                                           bool overwrite) {
  // The layout must read back as written: check it the way a reader will.
  TZ_RETURN_NOT_OK(Layout::FromJson(layout.ToJson(), "the new matrix").status());
  if (static_cast<int64_t>(gene_order.size()) != layout.genes) {
    return Status::InvalidArgument("the gene order lists " + std::to_string(gene_order.size()) +
                                   " genes; the matrix has " + std::to_string(layout.genes));
  }
  std::vector<int32_t> rank(gene_order.size(), -1);
  for (size_t r = 0; r < gene_order.size(); ++r) {
    const int32_t g = gene_order[r];
    if (g < 0 || static_cast<size_t>(g) >= rank.size() || rank[static_cast<size_t>(g)] >= 0) {
      return Status::InvalidArgument("the gene order is not a permutation of the genes");
    }
    rank[static_cast<size_t>(g)] = static_cast<int32_t>(r);
  }
  GroupCreateOptions group;
  group.overwrite = overwrite;
  group.attributes = {{std::string(kAttribute), layout.ToJson()}};
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> matrix, Group::Create(store, path, group));
  TZ_RETURN_NOT_OK(Group::Create(store, Join(path, "tiles")).status());
  ArrayMetadata order = VectorMetadata(DataType(DataTypeId::kInt32), layout.genes,
                                       std::max<int64_t>(1, std::min<int64_t>(layout.genes, 1 << 20)),
                                       layout.zstd_level);
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> order_array,
                      Array::Create(store, Join(path, "gene_order"), order));
  TZ_RETURN_NOT_OK(order_array->Write(Selection::All(order.shape), gene_order.data(),
                                      StoreEveryChunk()));
  return std::unique_ptr<MatrixWriter>(
      new MatrixWriter(std::move(store), std::move(path), std::move(layout), std::move(rank)));
}

Status MatrixWriter::WriteTile(int64_t tile, const CsrRows& rows) {
  const std::string where = "matrix '" + path_ + "' in " + store_->Describe() + ", tile " +
                            std::to_string(tile);
  if (tile < 0 || tile >= layout_.tiles()) {
    return Status::InvalidArgument(where + ": the matrix has " +
                                   std::to_string(layout_.tiles()) + " tiles");
  }
  if (rows.rows != layout_.TileCells(tile)) {
    return Status::InvalidArgument(where + ": " + std::to_string(rows.rows) +
                                   " rows given; the tile holds " +
                                   std::to_string(layout_.TileCells(tile)) + " cells");
  }
  internal::TileArrays encoded;
  Status s = internal::EncodeTile(layout_, rank_of_gene_, rows, tile * layout_.tile_cells,
                                  Threads(), encoded);
  if (!s.ok()) return Status(s.code(), where + ": " + s.message());

  const std::string tile_path = TilePath(path_, tile);
  GroupCreateOptions replace;
  replace.overwrite = true;
  TZ_RETURN_NOT_OK(Group::Create(store_, tile_path, replace).status());
  const void* data[] = {encoded.indptr.data(),
                        encoded.gene_deltas.data(),
                        encoded.values.data(),
                        encoded.exception_positions.data(),
                        encoded.exception_values.data(),
                        encoded.delta_exception_positions.data(),
                        encoded.delta_exception_values.data()};
  for (size_t i = 0; i < std::size(kTileArrays); ++i) {
    ArrayMetadata m = TileArrayMetadata(layout_, kTileArrays[i], rows.rows, encoded.size);
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                        Array::Create(store_, Join(tile_path, TileArrayName(kTileArrays[i])), m));
    if (m.shape[0] > 0) {
      TZ_RETURN_NOT_OK(array->Write(Selection::All(m.shape), data[i], StoreEveryChunk()));
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  sizes_[static_cast<size_t>(tile)] = encoded.size;
  written_[static_cast<size_t>(tile)] = true;
  return Status::OK();
}

Status MatrixWriter::Finish() {
  std::vector<int64_t> index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t t = 0; t < written_.size(); ++t) {
      if (!written_[t]) {
        return Status::InvalidArgument("matrix '" + path_ + "': tile " + std::to_string(t) +
                                       " was not written");
      }
      index.push_back(sizes_[t].nonzeros);
      index.push_back(sizes_[t].exceptions);
      index.push_back(sizes_[t].delta_bytes);
      index.push_back(sizes_[t].delta_exceptions);
    }
  }
  ArrayMetadata m = VectorMetadata(DataType(DataTypeId::kInt64), layout_.tiles(), 1,
                                   layout_.zstd_level);
  m.shape = {layout_.tiles(), kTileIndexColumns};
  m.chunk_shape = {std::max<int64_t>(1, std::min<int64_t>(layout_.tiles(), 1 << 16)),
                   kTileIndexColumns};
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                      Array::Create(store_, Join(path_, "tile_index"), m));
  if (!index.empty()) {
    TZ_RETURN_NOT_OK(array->Write(Selection::All(m.shape), index.data(), StoreEveryChunk()));
  }
  return store_->Flush();
}

// ---- Matrix ----------------------------------------------------------------

// A tile's compressed chunks and decoded arrays, kept between reads.
struct Matrix::Stored {
  internal::TileArrays arrays;
  std::vector<Buffer> compressed;
  std::vector<Buffer> partial;  // the last chunk of each array, decoded whole
};

Matrix::~Matrix() = default;

std::string Matrix::Describe() const {
  return "matrix '" + path_ + "' in " + store_->Describe();
}

Result<std::shared_ptr<Matrix>> Matrix::Open(std::shared_ptr<Store> store, std::string_view path) {
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> group, Group::Open(store, path));
  std::shared_ptr<Matrix> m(new Matrix());
  m->store_ = store;
  m->path_ = std::string(path);
  const std::string where = m->Describe();
  auto it = group->attributes().find(std::string(kAttribute));
  if (it == group->attributes().end()) {
    return Status::InvalidArgument(where + ": the group is not a sparse matrix (no '" +
                                   std::string(kAttribute) + "' attribute)");
  }
  TZ_ASSIGN_OR_RETURN(m->layout_, Layout::FromJson(*it, where));
  const Layout& l = m->layout_;

  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> order, group->OpenArray("gene_order"));
  if (order->shape() != std::vector<int64_t>{l.genes} ||
      order->dtype().id() != DataTypeId::kInt32) {
    return Status::Corruption(where + ": gene_order is not int32 [" + std::to_string(l.genes) +
                              "]");
  }
  m->gene_order_.resize(static_cast<size_t>(l.genes));
  TZ_RETURN_NOT_OK(order->Read(Selection::All(order->shape()),
                               std::span<int32_t>(m->gene_order_)));
  std::vector<bool> seen(static_cast<size_t>(l.genes), false);
  for (int32_t g : m->gene_order_) {
    if (g < 0 || g >= l.genes || seen[static_cast<size_t>(g)]) {
      return Status::Corruption(where + ": gene_order is not a permutation of the genes");
    }
    seen[static_cast<size_t>(g)] = true;
  }

  Result<std::shared_ptr<Array>> index = group->OpenArray("tile_index");
  if (!index.ok()) {
    if (index.status().code() == StatusCode::kNotFound) {
      return Status::InvalidArgument(where + ": the matrix was not finished (no tile_index; "
                                     "its writer stopped before the last tile)");
    }
    return index.status();
  }
  if ((*index)->shape() != std::vector<int64_t>{l.tiles(), kTileIndexColumns} ||
      (*index)->dtype().id() != DataTypeId::kInt64) {
    return Status::Corruption(where + ": tile_index is not int64 [" + std::to_string(l.tiles()) +
                              ", " + std::to_string(kTileIndexColumns) + "]");
  }
  std::vector<int64_t> sizes(static_cast<size_t>(l.tiles() * kTileIndexColumns));
  if (!sizes.empty()) {
    TZ_RETURN_NOT_OK((*index)->Read(Selection::All((*index)->shape()), std::span<int64_t>(sizes)));
  }
  m->offsets_.push_back(0);
  for (int64_t t = 0; t < l.tiles(); ++t) {
    const int64_t* row = sizes.data() + t * kTileIndexColumns;
    TileSize s{row[0], row[1], row[2], row[3]};
    if (s.nonzeros < 0 || s.nonzeros > std::numeric_limits<int32_t>::max() || s.exceptions < 0 ||
        s.exceptions > s.nonzeros || s.nonzeros > l.TileCells(t) * l.genes ||
        (s.delta_bytes != 1 && s.delta_bytes != 2 && s.delta_bytes != 4) ||
        s.delta_exceptions < 0 || s.delta_exceptions > s.nonzeros) {
      return Status::Corruption(where + ": tile_index row " + std::to_string(t) + " [" +
                                std::to_string(row[0]) + ", " + std::to_string(row[1]) + ", " +
                                std::to_string(row[2]) + ", " + std::to_string(row[3]) +
                                "] is not [nonzeros, exceptions, delta bytes (1, 2 or 4), "
                                "delta exceptions] of a tile");
    }
    m->sizes_.push_back(s);
    m->offsets_.push_back(m->offsets_.back() + s.nonzeros);
  }
  return m;
}

std::unique_ptr<Matrix::Stored> Matrix::TakeScratch() const {
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  if (scratch_.empty()) return std::make_unique<Stored>();
  std::unique_ptr<Stored> s = std::move(scratch_.back());
  scratch_.pop_back();
  return s;
}

void Matrix::ReturnScratch(std::unique_ptr<Stored> scratch) const {
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  // A few kept: as many as threads read at once, within reason.
  if (scratch_.size() < 8) scratch_.push_back(std::move(scratch));
}

Status Matrix::FetchTile(int64_t tile, int threads_wanted, Stored& stored) const {
  const TileSize& size = sizes_[static_cast<size_t>(tile)];
  const int64_t cells = layout_.TileCells(tile);
  const std::string tile_path = TilePath(path_, tile);
  internal::TileArrays& a = stored.arrays;
  a.size = size;
  std::byte* targets[] = {
      reinterpret_cast<std::byte*>(a.indptr.Reserve(static_cast<size_t>(cells) + 1)),
      a.gene_deltas.Reserve(static_cast<size_t>(size.nonzeros * size.delta_bytes)),
      a.values.Reserve(static_cast<size_t>(size.nonzeros) * layout_.stored_values.size()),
      reinterpret_cast<std::byte*>(
          a.exception_positions.Reserve(static_cast<size_t>(size.exceptions))),
      a.exception_values.Reserve(static_cast<size_t>(size.exceptions) *
                                 layout_.exception_values.size()),
      reinterpret_cast<std::byte*>(
          a.delta_exception_positions.Reserve(static_cast<size_t>(size.delta_exceptions))),
      reinterpret_cast<std::byte*>(
          a.delta_exception_values.Reserve(static_cast<size_t>(size.delta_exceptions)))};

  // Every chunk of the tile's arrays, in one batch.
  struct Chunk {
    const Array* array;
    std::string key;
    std::byte* out;      // where its elements go
    size_t out_bytes;    // the elements of it that the array holds
    size_t full_bytes;   // a whole chunk's bytes
  };
  std::vector<std::shared_ptr<Array>> arrays;
  std::vector<Chunk> chunks;
  for (size_t i = 0; i < std::size(kTileArrays); ++i) {
    ArrayMetadata m = TileArrayMetadata(layout_, kTileArrays[i], cells, size);
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                        Array::FromMetadata(store_, Join(tile_path, TileArrayName(kTileArrays[i])),
                                            m));
    const int64_t length = m.shape[0], chunk = m.chunk_shape[0];
    const size_t item = m.dtype.size();
    for (int64_t c = 0; c * chunk < length; ++c) {
      const int64_t n = std::min(chunk, length - c * chunk);
      chunks.push_back({array.get(), array->ChunkKey({c}),
                        targets[i] + static_cast<size_t>(c * chunk) * item,
                        static_cast<size_t>(n) * item, static_cast<size_t>(chunk) * item});
    }
    arrays.push_back(std::move(array));
  }
  if (stored.compressed.size() < chunks.size()) stored.compressed.resize(chunks.size());
  if (stored.partial.size() < chunks.size()) stored.partial.resize(chunks.size());
  std::vector<ReadRequest> requests;
  requests.reserve(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    requests.push_back(ReadRequest::Reusing(chunks[i].key, ByteRange::Full(),
                                            stored.compressed[i]));
  }
  std::vector<ReadAnswer> answers(requests.size());
  if (!requests.empty()) TZ_RETURN_NOT_OK(store_->Read(requests, answers));
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!answers[i].found) {
      return Status::Corruption(Describe() + ", tile " + std::to_string(tile) + ": chunk '" +
                                chunks[i].key +
                                "' is missing");
    }
  }

  // Decompress on the threads asked for (0: all), each chunk straight into
  // its place.
  const int threads = static_cast<int>(
      std::clamp<int64_t>(static_cast<int64_t>(chunks.size()), 1,
                          threads_wanted > 0 ? threads_wanted : Threads()));
  std::atomic<size_t> next{0};
  std::vector<Status> failures(chunks.size());
  auto work = [&] {
    for (size_t i = next++; i < chunks.size(); i = next++) {
      const Chunk& c = chunks[i];
      const CodecChain& chain = c.array->codec_chain();
      Status s;
      if (c.out_bytes == c.full_bytes) {
        s = chain.DecodeInto(stored.compressed[i].view(), MutableByteView(c.out, c.out_bytes));
      } else {
        Buffer& whole = stored.partial[i];
        whole.Resize(c.full_bytes);
        s = chain.DecodeInto(stored.compressed[i].view(), whole.mutable_view());
        if (s.ok()) std::memcpy(c.out, whole.data(), c.out_bytes);
      }
      if (!s.ok()) {
        failures[i] = Status(s.code(), Describe() + ", tile " + std::to_string(tile) +
                                           ": chunk '" + c.key +
                                           "': " + s.message());
      }
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) {
    try {
      workers.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& w : workers) w.join();
  for (const Status& s : failures) TZ_RETURN_NOT_OK(s);
  return Status::OK();
}

Result<int64_t> Matrix::ReadTile(int64_t tile, const TileTarget& target,
                                 const DecodeOptions& options) const {
  if (tile < 0 || tile >= layout_.tiles()) {
    return Status::InvalidArgument(Describe() + ": tile " + std::to_string(tile) +
                                   " is outside [0, " + std::to_string(layout_.tiles()) + ")");
  }
  std::unique_ptr<Stored> stored = TakeScratch();
  Status fetched = FetchTile(tile, options.threads, *stored);
  if (!fetched.ok()) {
    ReturnScratch(std::move(stored));
    return fetched;
  }
  Result<int64_t> n = internal::DecodeTile(layout_, gene_order_, stored->arrays,
                                           layout_.TileCells(tile), target, options,
                                           Describe() + ", tile " + std::to_string(tile));
  ReturnScratch(std::move(stored));
  return n;
}

namespace {

template <typename P>
int64_t GatherRowsOf(const P* indptr, const int32_t* indices, const void* values,
                     size_t value_size, const int64_t* rows, int64_t count, int64_t* out_indptr,
                     int32_t* out_indices, void* out_values) {
  const auto* from = static_cast<const std::byte*>(values);
  auto* to = static_cast<std::byte*>(out_values);
  int64_t at = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t a = indptr[rows[i]], n = indptr[rows[i] + 1] - a;
    std::memcpy(out_indices + at, indices + a, static_cast<size_t>(n) * 4);
    std::memcpy(to + static_cast<size_t>(at) * value_size,
                from + static_cast<size_t>(a) * value_size, static_cast<size_t>(n) * value_size);
    at += n;
    out_indptr[i + 1] = out_indptr[0] + at;
  }
  return at;
}

}  // namespace

int64_t GatherRows(const int32_t* indptr, const int32_t* indices, const void* values,
                   size_t value_size, const int64_t* rows, int64_t count, int64_t* out_indptr,
                   int32_t* out_indices, void* out_values) {
  return GatherRowsOf(indptr, indices, values, value_size, rows, count, out_indptr, out_indices,
                      out_values);
}

int64_t GatherRows(const int64_t* indptr, const int32_t* indices, const void* values,
                   size_t value_size, const int64_t* rows, int64_t count, int64_t* out_indptr,
                   int32_t* out_indices, void* out_values) {
  return GatherRowsOf(indptr, indices, values, value_size, rows, count, out_indptr, out_indices,
                      out_values);
}

}  // namespace turbozarr::sparse
