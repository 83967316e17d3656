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
#include "gene_bands.h"
#include "tile_codec.h"
#include "value_levels.h"
#include "turbozarr/checksum.h"
#include "turbozarr/config.h"
#include "turbozarr/group.h"
#include "turbozarr/selection.h"

namespace turbozarr::sparse {

using nlohmann::json;

// ---- Layout ----------------------------------------------------------------

int64_t Layout::TileCells(int64_t tile) const {
  return std::max<int64_t>(0, std::min(tile_cells, cells - tile * tile_cells));
}

int64_t Layout::gene_bands() const { return internal::GeneBands(genes); }

DataType Layout::band_count_type() const {
  return DataType(genes <= 65535 ? DataTypeId::kUInt16 : DataTypeId::kUInt32);
}

json Layout::ToJson() const {
  return json{{"version", version},
              {"shape", {cells, genes}},
              {"tile_cells", tile_cells},
              {"chunks_per_tile", chunks_per_tile},
              {"zstd_level", zstd_level},
              {"checksum", checksum ? "crc32c" : "none"},
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
  if (version < kOldestFormatVersion || version > kFormatVersion) {
    return Status::InvalidArgument(at + ": version " + std::to_string(version) +
                                   " is not one this reader knows (it reads versions " +
                                   std::to_string(kOldestFormatVersion) + " to " +
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
  l.version = static_cast<int>(version);
  l.cells = (*shape)[0].get<int64_t>();
  l.genes = (*shape)[1].get<int64_t>();
  TZ_ASSIGN_OR_RETURN(l.tile_cells, integer("tile_cells", 1, std::numeric_limits<int32_t>::max()));
  TZ_ASSIGN_OR_RETURN(l.chunks_per_tile, integer("chunks_per_tile", 1, 1 << 16));
  TZ_ASSIGN_OR_RETURN(int64_t level, integer("zstd_level", -131072, 22));
  l.zstd_level = static_cast<int>(level);
  // Matrices written before chunks carried a checksum have no such field.
  l.checksum = false;
  if (auto sum = j.find("checksum"); sum != j.end()) {
    if (*sum != "crc32c" && *sum != "none") {
      return Status::InvalidArgument(at + ": field 'checksum' is " + sum->dump() +
                                     ", not \"crc32c\" or \"none\"");
    }
    l.checksum = *sum == "crc32c";
  }
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
    case TileArray::kGeneBands: return "gene_bands";
    case TileArray::kGeneDeltaEscapes: return "gene_delta_escapes";
    case TileArray::kValueBitmap1: return "value_bitmap_1";
    case TileArray::kValueBitmap2: return "value_bitmap_2";
    case TileArray::kValueBitmap3: return "value_bitmap_3";
  }
  return "";
}

int64_t TileIndexColumns(int version) { return version == 1 ? 4 : 7; }

std::span<const TileArray> TileArraysOf(int version) {
  static constexpr TileArray kVersion1[] = {
      TileArray::kIndptr,           TileArray::kGeneDeltas,
      TileArray::kValues,           TileArray::kExceptionPositions,
      TileArray::kExceptionValues,  TileArray::kDeltaExceptionPositions,
      TileArray::kDeltaExceptionValues};
  static constexpr TileArray kVersion2[] = {
      TileArray::kIndptr,          TileArray::kGeneBands,         TileArray::kGeneDeltas,
      TileArray::kGeneDeltaEscapes, TileArray::kValueBitmap1,     TileArray::kValueBitmap2,
      TileArray::kValueBitmap3,    TileArray::kValues,            TileArray::kExceptionPositions,
      TileArray::kExceptionValues};
  if (version == 1) return kVersion1;
  return kVersion2;
}

namespace {

// No chunk of the nonzeros' arrays is cut smaller than this, so that small
// tiles do not become many tiny objects.
constexpr int64_t kMinChunkElements = 4096;

json Codecs(const DataType& dtype, int level) {
  json bytes = {{"name", "bytes"}};
  if (dtype.size() > 1) bytes["configuration"] = {{"endian", "little"}};
  return json::array(
      {bytes, {{"name", "zstd"}, {"configuration", {{"level", level}, {"checksum", false}}}}});
}

// A matrix whose layout says so (every one written since the field was
// added) has a checksum on every chunk (turbozarr/checksum.h): a damaged
// byte is a CorruptionError, never other counts. Readers build a tile's
// arrays from the layout, so it must say what the chunks hold.
ArrayMetadata VectorMetadata(const DataType& dtype, int64_t length, int64_t chunk, int level,
                             bool checksum) {
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = {length};
  m.chunk_shape = {std::max<int64_t>(1, chunk)};
  m.dtype = dtype;
  m.fill_value = DefaultFillValue(dtype);
  m.codecs = Codecs(dtype, level);
  if (checksum) AddChecksum(m);
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

namespace {

// The bits of value bitmap `level` (0-based): the values the levels before
// it did not take.
int64_t BitmapBits(const TileSize& size, int level) {
  int64_t bits = size.nonzeros;
  for (int l = 0; l < level; ++l) bits -= size.value_levels[static_cast<size_t>(l)];
  return bits;
}

// Where each of a tile's arrays lives in TileArrays, and its length in
// bytes; the memory holds at least `room` bytes (whole chunks, the last one
// decompressed in place though the array ends within it).
std::pair<std::byte*, size_t> Place(internal::TileArrays& a, const Layout& layout, TileArray which,
                                    int64_t cells, const TileSize& size, size_t room) {
  auto reserve = [room](auto& grow, size_t items, size_t padding = 0) {
    using T = std::remove_reference_t<decltype(*grow.data())>;
    const size_t bytes = std::max(items * sizeof(T) + padding, room);
    auto* p = reinterpret_cast<std::byte*>(grow.Reserve((bytes + sizeof(T) - 1) / sizeof(T)));
    if (padding > 0) std::memset(p + items * sizeof(T), 0, padding);
    return std::pair{p, items * sizeof(T)};
  };
  const auto n = [](int64_t v) { return static_cast<size_t>(v); };
  switch (which) {
    case TileArray::kIndptr: return reserve(a.indptr, n(cells + 1));
    case TileArray::kGeneDeltas: return reserve(a.gene_deltas, n(size.nonzeros * size.delta_bytes));
    case TileArray::kValues:
      return reserve(a.values, n(size.stored_values()) * layout.stored_values.size());
    case TileArray::kExceptionPositions: return reserve(a.exception_positions, n(size.exceptions));
    case TileArray::kExceptionValues:
      return reserve(a.exception_values, n(size.exceptions) * layout.exception_values.size());
    case TileArray::kDeltaExceptionPositions:
      return reserve(a.delta_exception_positions, n(size.delta_exceptions));
    case TileArray::kDeltaExceptionValues:
    case TileArray::kGeneDeltaEscapes:
      return reserve(a.delta_exception_values, n(size.delta_exceptions));
    case TileArray::kGeneBands:
      return reserve(a.gene_bands, n(layout.gene_bands() * cells) * layout.band_count_type().size());
    case TileArray::kValueBitmap1:
    case TileArray::kValueBitmap2:
    case TileArray::kValueBitmap3: {
      const int level = static_cast<int>(which) - static_cast<int>(TileArray::kValueBitmap1);
      return reserve(a.value_bitmaps[static_cast<size_t>(level)],
                     n(internal::BitmapBytes(BitmapBits(size, level))), internal::kBitmapPadding);
    }
  }
  return {nullptr, 0};
}

// A filled tile's array, for the writer.
const void* TileArrayData(const internal::TileArrays& a, TileArray which) {
  switch (which) {
    case TileArray::kIndptr: return a.indptr.data();
    case TileArray::kGeneDeltas: return a.gene_deltas.data();
    case TileArray::kValues: return a.values.data();
    case TileArray::kExceptionPositions: return a.exception_positions.data();
    case TileArray::kExceptionValues: return a.exception_values.data();
    case TileArray::kDeltaExceptionPositions: return a.delta_exception_positions.data();
    case TileArray::kDeltaExceptionValues:
    case TileArray::kGeneDeltaEscapes: return a.delta_exception_values.data();
    case TileArray::kGeneBands: return a.gene_bands.data();
    case TileArray::kValueBitmap1: return a.value_bitmaps[0].data();
    case TileArray::kValueBitmap2: return a.value_bitmaps[1].data();
    case TileArray::kValueBitmap3: return a.value_bitmaps[2].data();
  }
  return nullptr;
}

}  // namespace

ArrayMetadata TileArrayMetadata(const Layout& layout, TileArray which, int64_t tile_cells,
                                const TileSize& size) {
  const DataType u32(DataTypeId::kUInt32), u8(DataTypeId::kUInt8);
  // The gene steps (and version 1's values) are cut into chunks_per_tile
  // chunks, so that a tile decompresses on that many cores; the others are
  // kept whole: they are small, and every chunk is a request to a remote
  // store (at 50 ms a round, 8 requests a round, version 2's bitmaps cut
  // the same way would add two rounds per tile).
  auto spread = [&](const DataType& dtype, int64_t length) {
    const int64_t chunk = std::max(
        kMinChunkElements,
        (length + layout.chunks_per_tile - 1) / std::max<int64_t>(1, layout.chunks_per_tile));
    return VectorMetadata(dtype, length, std::min(chunk, std::max<int64_t>(1, length)),
                          layout.zstd_level, layout.checksum);
  };
  auto whole = [&](const DataType& dtype, int64_t length) {
    return VectorMetadata(dtype, length, length, layout.zstd_level, layout.checksum);
  };
  switch (which) {
    case TileArray::kIndptr: return whole(u32, tile_cells + 1);
    case TileArray::kGeneDeltas: return spread(size.gene_deltas(), size.nonzeros);
    case TileArray::kValues:
      return layout.version == 1 ? spread(layout.stored_values, size.stored_values())
                                 : whole(layout.stored_values, size.stored_values());
    case TileArray::kExceptionPositions: return whole(u32, size.exceptions);
    case TileArray::kExceptionValues: return whole(layout.exception_values, size.exceptions);
    case TileArray::kDeltaExceptionPositions:
    case TileArray::kDeltaExceptionValues:
    case TileArray::kGeneDeltaEscapes: return whole(u32, size.delta_exceptions);
    case TileArray::kGeneBands:
      return whole(layout.band_count_type(), layout.gene_bands() * tile_cells);
    case TileArray::kValueBitmap1:
    case TileArray::kValueBitmap2:
    case TileArray::kValueBitmap3: {
      const int level = static_cast<int>(which) - static_cast<int>(TileArray::kValueBitmap1);
      return whole(u8, internal::BitmapBytes(BitmapBits(size, level)));
    }
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
                                       layout.zstd_level, layout.checksum);
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
  for (TileArray which : TileArraysOf(layout_.version)) {
    ArrayMetadata m = TileArrayMetadata(layout_, which, rows.rows, encoded.size);
    const void* data = TileArrayData(encoded, which);
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                        Array::Create(store_, Join(tile_path, TileArrayName(which)), m));
    if (m.shape[0] > 0) {
      TZ_RETURN_NOT_OK(array->Write(Selection::All(m.shape), data, StoreEveryChunk()));
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
      if (layout_.version >= 2) {
        for (int64_t level : sizes_[t].value_levels) index.push_back(level);
      }
    }
  }
  const int64_t columns = TileIndexColumns(layout_.version);
  ArrayMetadata m = VectorMetadata(DataType(DataTypeId::kInt64), layout_.tiles(), 1,
                                   layout_.zstd_level, layout_.checksum);
  m.shape = {layout_.tiles(), columns};
  m.chunk_shape = {std::max<int64_t>(1, std::min<int64_t>(layout_.tiles(), 1 << 16)), columns};
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
  const int64_t columns = TileIndexColumns(l.version);
  if ((*index)->shape() != std::vector<int64_t>{l.tiles(), columns} ||
      (*index)->dtype().id() != DataTypeId::kInt64) {
    return Status::Corruption(where + ": tile_index is not int64 [" + std::to_string(l.tiles()) +
                              ", " + std::to_string(columns) + "]");
  }
  std::vector<int64_t> sizes(static_cast<size_t>(l.tiles() * columns));
  if (!sizes.empty()) {
    TZ_RETURN_NOT_OK((*index)->Read(Selection::All((*index)->shape()), std::span<int64_t>(sizes)));
  }
  m->offsets_.push_back(0);
  for (int64_t t = 0; t < l.tiles(); ++t) {
    const int64_t* row = sizes.data() + t * columns;
    TileSize s{row[0], row[1], row[2], row[3]};
    int64_t levels = 0;
    bool levels_ok = true;
    for (int64_t c = 4; c < columns; ++c) {
      s.value_levels[static_cast<size_t>(c - 4)] = row[c];
      levels_ok = levels_ok && row[c] >= 0 && row[c] <= s.nonzeros;
      levels += row[c];
    }
    if (s.nonzeros < 0 || s.nonzeros > std::numeric_limits<int32_t>::max() || s.exceptions < 0 ||
        s.exceptions > s.nonzeros || s.nonzeros > l.TileCells(t) * l.genes ||
        (s.delta_bytes != 1 && s.delta_bytes != 2 && s.delta_bytes != 4) ||
        s.delta_exceptions < 0 || s.delta_exceptions > s.nonzeros || !levels_ok ||
        levels > s.nonzeros) {
      std::string cells;
      for (int64_t c = 0; c < columns; ++c) cells += (c ? ", " : "") + std::to_string(row[c]);
      return Status::Corruption(where + ": tile_index row " + std::to_string(t) + " [" + cells +
                                "] is not [nonzeros, exceptions, delta bytes (1, 2 or 4), "
                                "delta exceptions" +
                                std::string(columns > 4 ? ", values of 1, 2 and 3" : "") +
                                "] of a tile");
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
  // Every chunk of the tile's arrays, in one batch.
  struct Chunk {
    const Array* array;
    std::string key;
    std::byte* out;      // where its elements go
    size_t full_bytes;   // a whole chunk's bytes
  };
  std::vector<std::shared_ptr<Array>> arrays;
  std::vector<Chunk> chunks;
  for (TileArray which : TileArraysOf(layout_.version)) {
    ArrayMetadata m = TileArrayMetadata(layout_, which, cells, size);
    const int64_t length = m.shape[0], chunk = m.chunk_shape[0];
    const size_t item = m.dtype.size();
    const size_t room = static_cast<size_t>((length + chunk - 1) / chunk * chunk) * item;
    std::byte* target = Place(a, layout_, which, cells, size, room).first;
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                        Array::FromMetadata(store_, Join(tile_path, TileArrayName(which)), m));
    for (int64_t c = 0; c * chunk < length; ++c) {
      chunks.push_back({array.get(), array->ChunkKey({c}),
                        target + static_cast<size_t>(c * chunk) * item,
                        static_cast<size_t>(chunk) * item});
    }
    arrays.push_back(std::move(array));
  }
  if (stored.compressed.size() < chunks.size()) stored.compressed.resize(chunks.size());
  std::vector<ReadRequest> requests;
  requests.reserve(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    requests.push_back(ReadRequest::Reusing(chunks[i].key, ByteRange::Full(),
                                            stored.compressed[i]));
  }
  auto missing = [&](size_t i) {
    return Status::Corruption(Describe() + ", tile " + std::to_string(tile) + ": chunk '" +
                              chunks[i].key + "' is missing");
  };
  // A remote store gets every request at once (it keeps them in flight
  // together); from a local one each thread reads the chunk it decompresses
  // next, so that the reads overlap the decompression.
  const bool batch = store_->Capabilities().requests_in_flight > 0;
  std::vector<ReadAnswer> answers(requests.size());
  if (batch && !requests.empty()) {
    TZ_RETURN_NOT_OK(store_->Read(requests, answers));
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (!answers[i].found) return missing(i);
    }
  }

  // Decompress on the threads asked for (0: all), each chunk straight into
  // its place (whole chunks: the memory has room for the last one's tail).
  const int threads = static_cast<int>(
      std::clamp<int64_t>(static_cast<int64_t>(chunks.size()), 1,
                          threads_wanted > 0 ? threads_wanted : Threads()));
  // Largest chunks first, so that the small ones fill in at the end and
  // the threads finish together.
  std::vector<size_t> order(chunks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return chunks[x].full_bytes > chunks[y].full_bytes;
  });
  std::atomic<size_t> next{0};
  std::vector<Status> failures(chunks.size());
  auto work = [&] {
    for (size_t taken = next++; taken < chunks.size(); taken = next++) {
      const size_t i = order[taken];
      const Chunk& c = chunks[i];
      if (!batch) {
        Status read = store_->Read(std::span(&requests[i], 1), std::span(&answers[i], 1));
        if (!read.ok() || !answers[i].found) {
          failures[i] = read.ok() ? missing(i) : read;
          continue;
        }
      }
      const CodecChain& chain = c.array->codec_chain();
      Status s = chain.DecodeInto(stored.compressed[i].view(), MutableByteView(c.out, c.full_bytes));
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
