// The tile codec: CSR rows to the stored arrays of one tile (genes renumbered
// and delta-coded within each row, values narrowed with exceptions) and back.
// No store is involved; sparse_matrix.cc moves the arrays in and out.
//
// Thread safety: free functions over caller memory; each call splits its rows
// over threads of its own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/sparse.h"
#include "turbozarr/status.h"

namespace turbozarr::sparse::internal {

// Room for n elements that only grows, so that a buffer reused across tiles
// costs no zeroing or page faults once it is large enough. Its memory is a
// Buffer's: uninitialised (every caller fills what it reserves), and, when
// large, taken from and given back to the process's cache of freed blocks,
// so that a matrix opened after another was dropped decodes into pages the
// process already has. Contents do not survive a Reserve that grows it.
template <typename T>
class GrowOnly {
 public:
  T* Reserve(size_t n) {
    if (n * sizeof(T) > bytes_.capacity()) bytes_ = Buffer(n * sizeof(T));
    size_ = n;
    return data();
  }
  T* data() { return reinterpret_cast<T*>(bytes_.data()); }
  const T* data() const { return reinterpret_cast<const T*>(bytes_.data()); }
  size_t size() const { return size_; }

 private:
  Buffer bytes_;
  size_t size_ = 0;
};

// One tile's stored arrays, in memory (docs/format/sparse.md).
struct TileArrays {
  GrowOnly<uint32_t> indptr;                // cells + 1
  GrowOnly<std::byte> gene_deltas;          // nonzeros of size.gene_deltas()
  GrowOnly<std::byte> values;               // size.stored_values() of Layout::stored_values
  GrowOnly<uint32_t> exception_positions;   // ascending positions in the tile
  GrowOnly<std::byte> exception_values;     // of Layout::exception_values
  GrowOnly<uint32_t> delta_exception_positions;  // version 1: ascending positions
  // Version 1: added to the stored delta; version 2: the escaped steps.
  GrowOnly<uint32_t> delta_exception_values;
  // Version 2: steps per band and row ([bands][cells] of
  // Layout::band_count_type()), and the value level bitmaps, each followed
  // by kBitmapPadding zero bytes when read.
  GrowOnly<std::byte> gene_bands;
  std::array<GrowOnly<uint8_t>, 3> value_bitmaps;
  TileSize size;
};

// Encodes `rows` (a whole tile; `first_cell` is its first row's cell, named
// in errors) for `layout`, whose genes are renumbered by `rank_of_gene`.
// InvalidArgument naming the cell and gene for a row the layout cannot hold.
Status EncodeTile(const Layout& layout, const std::vector<int32_t>& rank_of_gene,
                  const CsrRows& rows, int64_t first_cell, int threads, TileArrays& out);

// Decodes `in` (a tile of `cells` cells) into `target`; returns the
// nonzeros written. Corruption (prefixed with `where`) for arrays that
// contradict each other or the layout.
Result<int64_t> DecodeTile(const Layout& layout, const std::vector<int32_t>& gene_order,
                           const TileArrays& in, int64_t cells, const TileTarget& target,
                           const DecodeOptions& options, std::string_view where);

}  // namespace turbozarr::sparse::internal
