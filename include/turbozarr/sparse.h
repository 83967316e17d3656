// Sparse single-cell counts: a cells x genes matrix stored as tiles of CSR
// rows on plain Zarr v3 (docs/format/sparse.md has the layout).
//
// Per tile of `tile_cells` cells the group holds the row pointers, the gene
// indices (genes renumbered by decreasing total counts over the whole matrix,
// then delta-coded within each row, the steps grouped into bands by how far
// down the order they start) and the values (bitmaps of the 1s, 2s and 3s,
// then the rest); steps and values take the narrowest unsigned type that
// holds most of them, the larger ones kept aside. Each is an array of its
// own cut into a few zstd chunks, so that one tile decodes on all cores. The
// renumbering is stored, and readers hand genes back in their original
// numbering.
//
// This header has what the Python package (turbozarr.sparse) and the command
// line build on:
// - Layout: the matrix-wide choices, kept in the group's attributes;
// - CountStats and GeneOrder: the first pass over a source (gene totals and
//   the value range that decide the layout);
// - MatrixWriter: tiles encoded and stored one at a time (several threads may
//   write different tiles);
// - Matrix: a stored matrix opened, a tile decoded into the caller's buffers.
//
// Thread safety: Layout and CountStats are values; a MatrixWriter's
// WriteTile may run on several threads for different tiles; a Matrix may be
// read from many threads at once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/array.h"
#include "turbozarr/dtype.h"
#include "turbozarr/metadata.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"
#include "turbozarr/verify.h"

namespace turbozarr::sparse {

// The layout's version written into new matrices, and the oldest a reader
// still opens (docs/format/sparse.md has both).
inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestFormatVersion = 1;
// The attribute of the matrix group that holds Layout::ToJson().
inline constexpr std::string_view kAttribute = "sparse_matrix";

// The choices made once per matrix, before the first tile is written.
struct Layout {
  int version = kFormatVersion;
  int64_t cells = 0;
  int64_t genes = 0;
  int64_t tile_cells = 10000;
  // Each tile's gene steps (version 1: and values) are cut into this many
  // chunks (fewer for tiles with fewer nonzeros than chunks).
  int64_t chunks_per_tile = 8;
  int zstd_level = 9;
  // Every chunk ends in a crc32c ("checksum": "crc32c"); false for matrices
  // written before the field existed, whose layout has none.
  bool checksum = true;
  // The values' type as the source had it, and as readers hand them back.
  DataType counts{DataTypeId::kInt32};
  // The values as stored: uint8, uint16 or uint32 for whole counts (larger
  // ones kept in the exceptions), or float32 / float64 for fractional ones.
  DataType stored_values{DataTypeId::kUInt8};
  // The exceptions' values: uint32 or uint64.
  DataType exception_values{DataTypeId::kUInt32};

  int64_t tiles() const { return (cells + tile_cells - 1) / tile_cells; }
  // Version 2's gene bands per row: bit_width(genes) + 1.
  int64_t gene_bands() const;
  // Version 2's band counts: uint16, or uint32 beyond 65,535 genes.
  DataType band_count_type() const;
  int64_t TileCells(int64_t tile) const;
  bool integral() const { return stored_values.is_integer(); }

  nlohmann::json ToJson() const;
  // InvalidArgument naming the field for a document this version cannot
  // read (`where` names the group).
  static Result<Layout> FromJson(const nlohmann::json& j, std::string_view where);
};

// One CSR block of rows (a tile, or a block of rows of a longer source):
// `rows` + 1 row pointers (int32 or int64; the first need not be 0), the
// gene indices (int32, int64, uint32 or uint64) and the values (any integer
// or float type but float16).
struct CsrRows {
  int64_t rows = 0;
  const void* indptr = nullptr;
  DataType indptr_type{DataTypeId::kInt64};
  const void* indices = nullptr;
  DataType indices_type{DataTypeId::kInt32};
  const void* values = nullptr;
  DataType values_type{DataTypeId::kInt32};
};

// What the first pass learns of a source, block by block: the total counts
// per gene and the range of the values, from which ChooseLayout sizes the
// stored types.
class CountStats {
 public:
  explicit CountStats(int64_t genes) : gene_totals_(static_cast<size_t>(genes), 0.0) {}
  // Adds a block of rows whose first row is cell `first_cell` (named in
  // errors: an index outside [0, genes), a negative or NaN count, a
  // duplicated gene in a row, rows whose pointers go backwards).
  Status Add(const CsrRows& rows, int64_t first_cell);
  void Merge(const CountStats& other);

  const std::vector<double>& gene_totals() const { return gene_totals_; }
  int64_t nonzeros() const { return nonzeros_; }

  // Fills the value types of `layout` (whose `counts` names the source's
  // type): whole counts in the narrow type that stores the least (values
  // plus exceptions), fractional ones as float32, or float64 where float32
  // would round them.
  void ChooseValueTypes(Layout& layout) const;

 private:
  std::vector<double> gene_totals_;
  int64_t nonzeros_ = 0;
  int64_t above_u8_ = 0, above_u16_ = 0, above_u32_ = 0;
  bool fractional_ = false;      // a value that is not a whole count
  bool beyond_float32_ = false;  // a value float32 would round
};

// The storage order of the genes: gene indices sorted by decreasing total
// count, ties by index (result[rank] = gene).
std::vector<int32_t> GeneOrder(const std::vector<double>& gene_totals);

// The sizes of one stored tile, kept in the group's tile index so that a
// reader opens a tile's arrays without reading their metadata.
struct TileSize {
  int64_t nonzeros = 0;
  int64_t exceptions = 0;  // values beyond the stored value type
  // The delta-coded genes' type in bytes (1, 2 or 4: uint8, uint16 or
  // uint32, the one that stores the tile in the fewest bytes), and the
  // deltas beyond it (version 1: exceptions by position; version 2:
  // escapes, in the order of the zeros that stand for them).
  int64_t delta_bytes = 2;
  int64_t delta_exceptions = 0;
  // Version 2: the nonzeros of value 1, 2 and 3, which the value bitmaps
  // hold (the values array holds the others).
  std::array<int64_t, 3> value_levels{};
  DataType gene_deltas() const;
  // The values array's length: every nonzero (version 1) or those not in
  // the bitmaps (version 2).
  int64_t stored_values() const {
    return nonzeros - value_levels[0] - value_levels[1] - value_levels[2];
  }
  bool operator==(const TileSize&) const = default;
};
// The columns of the group's tile index, one row per tile: [nonzeros,
// exceptions, delta bytes, delta exceptions] and, in version 2, the three
// value levels.
int64_t TileIndexColumns(int version);

// The arrays of one tile (group "tiles/<t>"), as named in the store.
enum class TileArray {
  kIndptr,
  kGeneDeltas,
  kValues,
  kExceptionPositions,
  kExceptionValues,
  kDeltaExceptionPositions,  // version 1
  kDeltaExceptionValues,     // version 1 ("gene_delta_exception_values")
  kGeneBands,                // version 2
  kGeneDeltaEscapes,         // version 2
  kValueBitmap1,             // version 2
  kValueBitmap2,             // version 2
  kValueBitmap3,             // version 2
};
std::string_view TileArrayName(TileArray which);
// The arrays a tile of `version` holds.
std::span<const TileArray> TileArraysOf(int version);
// The metadata of one of a tile's arrays: its type from `layout`, its length
// from `size`, chunks of about 1/chunks_per_tile of it, bytes + zstd.
ArrayMetadata TileArrayMetadata(const Layout& layout, TileArray which, int64_t tile_cells,
                                const TileSize& size);

// Writes a matrix tile by tile.
class MatrixWriter {
 public:
  // Creates the matrix group at `path` (with its layout, the gene order and
  // an empty tile index), replacing what is there when `overwrite`.
  // `gene_order` is GeneOrder's result (a permutation of [0, genes)).
  static Result<std::unique_ptr<MatrixWriter>> Create(std::shared_ptr<Store> store,
                                                      std::string path, Layout layout,
                                                      std::vector<int32_t> gene_order,
                                                      bool overwrite);
  const Layout& layout() const { return layout_; }

  // Encodes and stores tile `tile` from its rows (exactly layout.TileCells
  // of them). Errors name the tile, the cell and the gene of a value the
  // layout cannot hold, or a row the source got wrong; nothing of a tile
  // that failed is kept.
  Status WriteTile(int64_t tile, const CsrRows& rows);
  // Writes the tile index; the matrix opens only after it. InvalidArgument
  // naming the first tile that was not written.
  Status Finish();

 private:
  MatrixWriter(std::shared_ptr<Store> store, std::string path, Layout layout,
               std::vector<int32_t> rank_of_gene);

  std::shared_ptr<Store> store_;
  std::string path_;
  Layout layout_;
  std::vector<int32_t> rank_of_gene_;
  std::mutex mutex_;
  std::vector<TileSize> sizes_;
  std::vector<bool> written_;
};

// Where a decoded tile goes: caller memory for TileCells + 1 row pointers and
// `capacity` nonzeros (the tile's, TileSize::nonzeros, is always enough).
struct TileTarget {
  int32_t* indptr = nullptr;
  int32_t* indices = nullptr;
  void* values = nullptr;  // Layout::counts elements
  int64_t capacity = 0;
};

struct DecodeOptions {
  // A gene subset: gene_map[gene] is the output column, or -1 to drop the
  // gene (layout.genes entries); null keeps every gene under its own index.
  const int32_t* gene_map = nullptr;
  // Sort each row's genes by output column. Rows are otherwise in storage
  // order (decreasing total count), which every CSR consumer accepts; the
  // sort costs about as much as the rest of the decode.
  bool sorted = false;
  // Threads for the read (decompression and rebuild); 0:
  // turbozarr::Threads().
  int threads = 0;
};

// A stored matrix.
class Matrix {
 public:
  // InvalidArgument naming the field when the group is not a matrix of a
  // version this reader knows, or its arrays disagree with the layout.
  static Result<std::shared_ptr<Matrix>> Open(std::shared_ptr<Store> store,
                                               std::string_view path);
  ~Matrix();
  const Layout& layout() const { return layout_; }
  // gene_order()[rank] = gene.
  const std::vector<int32_t>& gene_order() const { return gene_order_; }
  const TileSize& tile_size(int64_t tile) const { return sizes_[static_cast<size_t>(tile)]; }
  // The nonzeros of the tiles before `tile`.
  int64_t tile_offset(int64_t tile) const { return offsets_[static_cast<size_t>(tile)]; }
  int64_t nonzeros() const { return offsets_.back(); }
  const std::shared_ptr<Store>& store() const { return store_; }
  std::string Describe() const;

  // Reads tile `tile` and decodes it into `target`: row pointers from 0, the
  // genes in their original numbering (or the subset's), the values as
  // Layout::counts. Returns the nonzeros written. Corruption naming the tile
  // and the array for stored bytes that contradict the layout.
  Result<int64_t> ReadTile(int64_t tile, const TileTarget& target,
                           const DecodeOptions& options = {}) const;

 private:
  struct Stored;
  Matrix() = default;
  Status FetchTile(int64_t tile, int threads, Stored& stored) const;
  std::unique_ptr<Stored> TakeScratch() const;
  void ReturnScratch(std::unique_ptr<Stored> scratch) const;

  std::shared_ptr<Store> store_;
  std::string path_;
  Layout layout_;
  std::vector<int32_t> gene_order_;
  std::vector<TileSize> sizes_;
  std::vector<int64_t> offsets_;
  mutable std::mutex scratch_mutex_;
  mutable std::vector<std::unique_ptr<Stored>> scratch_;
};

// Copies rows of a CSR block (`indptr`, `indices`, `values` of `value_size`-
// byte elements) into `out`, in the order `rows` lists them: out's indptr
// continues from `out_indptr[0]` (which the caller sets). The caller sizes
// `out` (the rows' nonzeros). Returns the nonzeros copied. The int32 form
// serves decoded tiles, the int64 one blocks gathered from several tiles.
int64_t GatherRows(const int32_t* indptr, const int32_t* indices, const void* values,
                   size_t value_size, const int64_t* rows, int64_t count, int64_t* out_indptr,
                   int32_t* out_indices, void* out_values);
int64_t GatherRows(const int64_t* indptr, const int32_t* indices, const void* values,
                   size_t value_size, const int64_t* rows, int64_t count, int64_t* out_indptr,
                   int32_t* out_indices, void* out_values);

// What `verify` (turbozarr/verify.h) asks of a matrix group (one with the
// kAttribute attribute) beyond its arrays' bytes, which is what readers
// assume without checking: the group opens as a Matrix, every tile's arrays
// are stored with the type, length, chunks and codecs that the layout and
// the tile index give them, and each tile's row pointers start at 0, never go
// backwards and end at the tile's nonzeros. nullopt for other groups.
std::optional<LayoutReport> CheckMatrixLayout(const std::shared_ptr<Group>& group);

}  // namespace turbozarr::sparse
