// The tile codec's decoding: a tile's stored arrays back to CSR rows
// (tile_codec.h), on parts of rows that write where they read (a gene
// subset compacts the parts afterwards).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "count_types.h"
#include "dense_row.h"
#include "gene_bands.h"
#include "tile_codec.h"
#include "tile_parts.h"
#include "value_levels.h"

namespace turbozarr::sparse::internal {
namespace {

struct DecodeShape {
  const uint32_t* ptr;
  int64_t cells;
  int64_t nnz;
  const int32_t* gene_order;
  int64_t genes;
  const uint32_t* exc_pos;
  int64_t exceptions;
  const uint32_t* delta_exc_pos;
  const uint32_t* delta_exc_val;
  int64_t delta_exceptions;
  const int32_t* gene_map;  // may be null
  int64_t columns;          // output columns (genes, or the subset's)
  bool sorted;
};

// What RebuildRows returns for damage: a gene number beyond the matrix
// (corrupt deltas), or a gene twice in one row (found by every sorted
// read; an unsorted one hands the row on as it is stored).
constexpr int64_t kGeneBeyond = -1;
constexpr int64_t kRepeatedGene = -2;
constexpr int64_t kEscapedZero = -3;  // version 2: an escaped step of 0

// What a thread's rows are rebuilt in, kept across the batches of a part.
template <typename Stored, typename Out>
struct RowScratch {
  static constexpr bool kDense = std::is_integral_v<Stored> && sizeof(Stored) <= 2;
  explicit RowScratch(int64_t columns) : columns(columns) {}
  // The sorted rows of narrow values: built on first use (its row is
  // `columns` cells, zeroed once).
  auto& dense_row() {
    if (!dense) dense.emplace(columns);
    return *dense;
  }
  int64_t columns;
  std::optional<std::conditional_t<kDense, DenseRow<Stored, Out>, int>> dense;
  std::vector<std::pair<int32_t, Out>> pairs;
  std::vector<uint64_t> bitmap;  // the other sorted rows' genes
  std::vector<Out> values;       // ... and their values by gene
};

// RebuildRows for sorted rows of narrow stored values (dense_row.h): each
// row scattered into a DenseRow and drained in gene order; a short row of
// a wide matrix is sorted as pairs instead (draining costs a step per 64
// genes, a sort a few per entry). The scatter is the decode's hottest loop,
// so it runs over stretches that hold no exception of either kind, with
// nothing in them but the delta, the bound, the gene and the store; the
// exceptions are handled between stretches. `e`/`de` index the part's next
// value / delta exception.
template <bool kMapped, typename Delta, typename Stored, typename Exc, typename Out>
int64_t RebuildRowsSorted(const DecodeShape& d, int64_t r0, int64_t r1, const Delta* deltas,
                          const Stored* stored, const Exc* exc_val, int32_t* out_ptr,
                          int32_t* indices, Out* values, int64_t e, int64_t de,
                          RowScratch<Stored, Out>& scratch, int64_t w0) {
  auto& dense = scratch.dense_row();
  auto& pairs = scratch.pairs;
  const int64_t short_row = d.columns / 1024;
  const uint64_t genes = static_cast<uint64_t>(d.genes);
  const int32_t* const order = d.gene_order;
  const int32_t* const map = d.gene_map;
  auto column_of = [&](uint64_t run) {
    const int32_t gene = order[run];
    if constexpr (kMapped) {
      return map[gene];
    } else {
      return gene;
    }
  };
  int64_t next_exc = e < d.exceptions ? d.exc_pos[e] : d.nnz;
  int64_t next_delta_exc = de < d.delta_exceptions ? d.delta_exc_pos[de] : d.nnz;
  int64_t w = w0;
  for (int64_t r = r0; r < r1; ++r) {
    uint64_t run = 0;
    const int64_t a = d.ptr[r], b = d.ptr[r + 1];
    const bool is_short = b - a < short_row;
    int64_t set = 0;  // entries put into the dense row
    int64_t k = a;
    while (k < b) {
      // A stretch without exceptions, then the exception that ends it.
      const int64_t stop = std::min({b, next_exc, next_delta_exc});
      if (is_short) {
        for (; k < stop; ++k) {
          run += deltas[k];
          if (run >= genes) return kGeneBeyond;
          const int32_t column = column_of(run);
          if (kMapped && column < 0) continue;
          pairs.emplace_back(column, static_cast<Out>(stored[k]));
        }
      } else {
        for (; k < stop; ++k) {
          run += deltas[k];
          if (run >= genes) return kGeneBeyond;
          const int32_t column = column_of(run);
          if (kMapped && column < 0) continue;
          dense.Set(column, stored[k]);
          ++set;
        }
      }
      if (k == b) break;
      run += deltas[k];
      if (k == next_delta_exc) {
        run += d.delta_exc_val[de];
        ++de;
        next_delta_exc = de < d.delta_exceptions ? d.delta_exc_pos[de] : d.nnz;
      }
      if (run >= genes) return kGeneBeyond;
      Out value = static_cast<Out>(stored[k]);
      const bool exception = k == next_exc;
      if (exception) {
        value = static_cast<Out>(exc_val[e]);
        ++e;
        next_exc = e < d.exceptions ? d.exc_pos[e] : d.nnz;
      }
      const int32_t column = column_of(run);
      ++k;
      if (kMapped && column < 0) continue;
      if (is_short) {
        pairs.emplace_back(column, value);
      } else if (exception) {
        dense.Patch(column, value);
        ++set;
      } else {
        dense.Set(column, stored[k - 1]);
        ++set;
      }
    }
    // A gene twice in one row (a step of 0) is damage: the dense row would
    // keep one of the two, the pairs both.
    if (is_short) {
      std::sort(pairs.begin(), pairs.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      for (size_t i = 0; i < pairs.size(); ++i) {
        if (i > 0 && pairs[i].first == pairs[i - 1].first) return kRepeatedGene;
        indices[w] = pairs[i].first;
        values[w] = pairs[i].second;
        ++w;
      }
      pairs.clear();
    } else {
      const int64_t n = dense.Drain(indices + w, values + w);
      if (n != set) return kRepeatedGene;
      w += n;
    }
    out_ptr[r + 1] = static_cast<int32_t>(w);
  }
  return w - w0;
}

// Rows [r0, r1) of a tile into `indices`/`values` from w0 on (the rows'
// first stored position, or less where a gene subset compacted the rows
// before). `deltas` and `stored` are indexed by position in the tile.
// Returns the nonzeros written, or kGeneBeyond / kRepeatedGene.
template <typename Delta, typename Stored, typename Exc, typename Out>
int64_t RebuildRows(const DecodeShape& d, int64_t r0, int64_t r1, const Delta* deltas,
                    const Stored* stored, const Exc* exc_val, int32_t* out_ptr,
                    int32_t* indices, Out* values, RowScratch<Stored, Out>& scratch, int64_t w0) {
  const int64_t first = d.ptr[r0];
  // The next exception at or after this part's first nonzero.
  int64_t e = std::lower_bound(d.exc_pos, d.exc_pos + d.exceptions,
                               static_cast<uint32_t>(first)) - d.exc_pos;
  int64_t next_exc = e < d.exceptions ? d.exc_pos[e] : d.nnz;
  // The same for the deltas beyond their stored type.
  int64_t de = std::lower_bound(d.delta_exc_pos, d.delta_exc_pos + d.delta_exceptions,
                                static_cast<uint32_t>(first)) - d.delta_exc_pos;
  int64_t next_delta_exc = de < d.delta_exceptions ? d.delta_exc_pos[de] : d.nnz;
  auto step = [&](int64_t k) -> uint64_t {
    uint64_t delta = deltas[k];
    if (k == next_delta_exc) {
      delta += d.delta_exc_val[de];
      ++de;
      next_delta_exc = de < d.delta_exceptions ? d.delta_exc_pos[de] : d.nnz;
    }
    return delta;
  };
  const bool plain = d.gene_map == nullptr && !d.sorted;

  if constexpr (std::is_integral_v<Stored> && sizeof(Stored) <= 2) {
    if (d.sorted) {
      return d.gene_map ? RebuildRowsSorted<true>(d, r0, r1, deltas, stored, exc_val, out_ptr,
                                                  indices, values, e, de, scratch, w0)
                        : RebuildRowsSorted<false>(d, r0, r1, deltas, stored, exc_val, out_ptr,
                                                   indices, values, e, de, scratch, w0);
    }
  }
  if (plain) {
    // As RebuildRowsSorted: stretches without a delta exception, which the
    // loop between them adds.
    const uint64_t genes = static_cast<uint64_t>(d.genes);
    const int32_t* const order = d.gene_order;
    for (int64_t r = r0; r < r1; ++r) {
      uint64_t run = 0;
      const int64_t b = d.ptr[r + 1];
      int64_t k = d.ptr[r];
      while (k < b) {
        const int64_t stop = std::min(b, next_delta_exc);
        for (; k < stop; ++k) {
          run += deltas[k];
          if (run >= genes) return kGeneBeyond;
          indices[k] = order[run];
          values[k] = static_cast<Out>(stored[k]);
        }
        if (k == b) break;
        run += step(k);
        if (run >= genes) return kGeneBeyond;
        indices[k] = order[run];
        values[k] = static_cast<Out>(stored[k]);
        ++k;
      }
      out_ptr[r + 1] = static_cast<int32_t>(b);
    }
    for (; e < d.exceptions && d.exc_pos[e] < static_cast<uint32_t>(d.ptr[r1]); ++e) {
      values[d.exc_pos[e]] = static_cast<Out>(exc_val[e]);
    }
    return d.ptr[r1] - first;
  }

  // A subset, a sort, or both: each row compacts (and sorts) in place.
  const size_t words = static_cast<size_t>((d.columns + 63) / 64);
  std::vector<uint64_t>& bitmap = scratch.bitmap;
  std::vector<Out>& dense = scratch.values;
  if (d.sorted && bitmap.size() < words) {
    bitmap.assign(words, 0);
    dense.resize(static_cast<size_t>(d.columns));
  }
  int64_t w = w0;
  for (int64_t r = r0; r < r1; ++r) {
    uint64_t run = 0;
    const int64_t row_start = w;
    const int64_t b = d.ptr[r + 1];
    const int64_t saved_de = de, saved_next = next_delta_exc;
    for (int64_t k = d.ptr[r]; k < b; ++k) {
      run += step(k);
      if (run >= static_cast<uint64_t>(d.genes)) return kGeneBeyond;
      Out v = static_cast<Out>(stored[k]);
      if (k == next_exc) {
        v = static_cast<Out>(exc_val[e]);
        ++e;
        next_exc = e < d.exceptions ? d.exc_pos[e] : d.nnz;
      }
      const int32_t gene = d.gene_order[run];
      const int32_t column = d.gene_map ? d.gene_map[gene] : gene;
      if (column < 0) continue;
      if (d.sorted) {
        bitmap[static_cast<size_t>(column) >> 6] |= uint64_t{1} << (column & 63);
        dense[static_cast<size_t>(column)] = v;
        ++w;
      } else {
        indices[w] = column;
        values[w] = v;
        ++w;
      }
    }
    if (d.sorted && w > row_start) {
      int64_t o = row_start;
      if (static_cast<size_t>(w - row_start) * 16 < words) {
        // A short row of a wide matrix: its columns, found again, then sorted.
        // (Walking the deltas once more costs less than the bitmap's words.)
        run = 0;
        const int64_t end_de = de, end_next = next_delta_exc;
        de = saved_de;
        next_delta_exc = saved_next;
        for (int64_t k = d.ptr[r]; k < b; ++k) {
          run += step(k);
          const int32_t gene = d.gene_order[run];
          const int32_t column = d.gene_map ? d.gene_map[gene] : gene;
          if (column >= 0) indices[o++] = column;
        }
        de = end_de;
        next_delta_exc = end_next;
        std::sort(indices + row_start, indices + w);
        for (int64_t i = row_start; i < w; ++i) {
          const int32_t column = indices[i];
          if (i > row_start && column == indices[i - 1]) return kRepeatedGene;
          values[i] = dense[static_cast<size_t>(column)];
          bitmap[static_cast<size_t>(column) >> 6] = 0;
        }
      } else {
        for (size_t word = 0; word < words; ++word) {
          uint64_t bits = bitmap[word];
          if (!bits) continue;
          bitmap[word] = 0;
          while (bits) {
            const int32_t column = static_cast<int32_t>(word * 64 + std::countr_zero(bits));
            bits &= bits - 1;
            indices[o] = column;
            values[o] = dense[static_cast<size_t>(column)];
            ++o;
          }
        }
        // The bitmap holds a gene set twice once: the row came out short.
        if (o != w) return kRepeatedGene;
      }
    }
    out_ptr[r + 1] = static_cast<int32_t>(w);
  }
  return w - w0;
}

// Version 2's stored rows, beside what DecodeShape has of them.
template <typename Delta, typename Stored>
struct BandedTile {
  const uint32_t* row_counts;  // [cells][bands]
  int64_t bands;
  const Delta* steps;
  const uint32_t* escapes;
  std::array<const uint8_t*, kValueLevels> bitmaps;
  const Stored* rest;
};

// Rows [r0, r1) of a version 2 tile: in batches of rows that fit the
// core's cache, the steps are put back in row order and the values
// expanded, then rebuilt as version 1's rows are. Returns as RebuildRows,
// or kEscapedZero.
template <typename Delta, typename Stored, typename Exc, typename Out>
int64_t RebuildBandedRows(const DecodeShape& d, const BandedTile<Delta, Stored>& tile,
                          BandCursor cursor, int64_t r0, int64_t r1, const Exc* exc_val,
                          int32_t* out_ptr, int32_t* indices, Out* values) {
  constexpr int64_t kBatch = 16384;  // nonzeros: 16-64 KB of steps and values
  RowScratch<Stored, Out> scratch(d.columns);
  ValueCursor value_at = ValueCursor::At(tile.bitmaps, d.ptr[r0]);
  std::vector<Delta> steps;
  std::vector<Stored> stored;
  std::vector<uint32_t> escape_pos, escape_val;
  int64_t w = d.ptr[r0];
  for (int64_t r = r0; r < r1;) {
    int64_t end = r + 1;
    while (end < r1 && d.ptr[end + 1] - d.ptr[r] <= kBatch) ++end;
    const int64_t first = d.ptr[r], n = d.ptr[end] - first;
    if (static_cast<int64_t>(steps.size()) < n) {
      steps.resize(static_cast<size_t>(n));
      stored.resize(static_cast<size_t>(n));
    }
    if (!UnbandRows(tile.row_counts, tile.bands, d.ptr, r, end, tile.steps, tile.escapes, cursor,
                    steps.data(), escape_pos, escape_val)) {
      return kEscapedZero;
    }
    ExpandValues(value_at, tile.rest, n, stored.data());
    DecodeShape batch = d;
    batch.delta_exc_pos = escape_pos.data();
    batch.delta_exc_val = escape_val.data();
    batch.delta_exceptions = static_cast<int64_t>(escape_pos.size());
    // The batch's arrays indexed by position in the tile, as RebuildRows
    // reads them (it reads only [first, first + n)).
    const int64_t written =
        RebuildRows<Delta, Stored>(batch, r, end, steps.data() - first, stored.data() - first,
                                   exc_val, out_ptr, indices, values, scratch, w);
    if (written < 0) return written;
    w += written;
    r = end;
  }
  return w - d.ptr[r0];
}

}  // namespace

Result<int64_t> DecodeTile(const Layout& layout, const std::vector<int32_t>& gene_order,
                           const TileArrays& in, int64_t cells, const TileTarget& target,
                           const DecodeOptions& options, std::string_view where) {
  const int64_t nnz = in.size.nonzeros;
  const uint32_t* ptr = in.indptr.data();
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(std::string(where) + ": " + what);
  };
  if (ptr[0] != 0) return corrupt("indptr does not start at 0");
  for (int64_t r = 0; r < cells; ++r) {
    if (ptr[r + 1] < ptr[r]) {
      return corrupt("indptr goes backwards at cell " + std::to_string(r) + " of the tile");
    }
  }
  if (static_cast<int64_t>(ptr[cells]) != nnz) {
    return corrupt("indptr ends at " + std::to_string(ptr[cells]) + ", but the tile holds " +
                   std::to_string(nnz) + " nonzeros");
  }
  const bool banded = layout.version >= 2;
  const uint32_t* exc_pos = in.exception_positions.data();
  const uint32_t* delta_exc_pos = in.delta_exception_positions.data();
  for (auto [positions, n, what] :
       {std::tuple{exc_pos, in.size.exceptions, "exception"},
        std::tuple{delta_exc_pos, banded ? 0 : in.size.delta_exceptions, "delta exception"}}) {
    for (int64_t e = 0; e < n; ++e) {
      if (static_cast<int64_t>(positions[e]) >= nnz ||
          (e > 0 && positions[e] <= positions[e - 1])) {
        return corrupt(std::string(what) + " position " + std::to_string(positions[e]) +
                       " is out of order or beyond the tile");
      }
    }
  }
  if (banded) {
    // Each bitmap holds the count of its level the index gives: then every
    // cursor stays within the bitmaps and the rest.
    int64_t reach = nnz;
    for (int l = 0; l < kValueLevels; ++l) {
      const int64_t set = CountBits(in.value_bitmaps[static_cast<size_t>(l)].data(), 0, reach);
      if (set != in.size.value_levels[static_cast<size_t>(l)]) {
        return corrupt("value_bitmap_" + std::to_string(l + 1) + " marks " + std::to_string(set) +
                       " values, the tile index " +
                       std::to_string(in.size.value_levels[static_cast<size_t>(l)]));
      }
      reach -= set;
    }
  }
  if (target.capacity < nnz) {
    return Status::InvalidArgument(std::string(where) + ": the target holds " +
                                   std::to_string(target.capacity) + " nonzeros; the tile " +
                                   std::to_string(nnz));
  }

  DecodeShape shape{ptr,
                    cells,
                    nnz,
                    gene_order.data(),
                    layout.genes,
                    exc_pos,
                    in.size.exceptions,
                    delta_exc_pos,
                    in.delta_exception_values.data(),
                    in.size.delta_exceptions,
                    options.gene_map,
                    layout.genes,
                    options.sorted};
  if (options.gene_map) {
    int32_t top = -1;
    for (int64_t g = 0; g < layout.genes; ++g) top = std::max(top, options.gene_map[g]);
    shape.columns = int64_t{top} + 1;
  }

  const int parts = PartsFor(options.threads, nnz);
  const std::vector<int64_t> cut = SplitRows(ptr, cells, parts);
  std::vector<int64_t> written(static_cast<size_t>(parts), 0);
  target.indptr[0] = 0;
  std::vector<uint32_t> row_counts;
  std::vector<BandCursor> cursors;
  const int64_t bands = GeneBands(layout.genes);
  if (banded) {
    std::string wrong;
    VisitDeltaType(in.size.delta_bytes, [&](auto delta_tag) {
      using Delta = decltype(delta_tag);
      const auto* steps = reinterpret_cast<const Delta*>(in.gene_deltas.data());
      if (layout.band_count_type().id() == DataTypeId::kUInt16) {
        wrong = PlaceBandCursors(reinterpret_cast<const uint16_t*>(in.gene_bands.data()), bands,
                                 cells, ptr, steps, in.size.delta_exceptions, cut, row_counts,
                                 cursors);
      } else {
        wrong = PlaceBandCursors(reinterpret_cast<const uint32_t*>(in.gene_bands.data()), bands,
                                 cells, ptr, steps, in.size.delta_exceptions, cut, row_counts,
                                 cursors);
      }
    });
    if (!wrong.empty()) return corrupt(wrong);
  }
  VisitDeltaType(in.size.delta_bytes, [&](auto delta_tag) {
    using Delta = decltype(delta_tag);
    VisitStoredType(layout.stored_values.id(), [&](auto stored_tag) {
      using Stored = decltype(stored_tag);
      VisitCountType(layout.counts.id(), [&](auto out_tag) {
        using Out = decltype(out_tag);
        const auto* deltas = reinterpret_cast<const Delta*>(in.gene_deltas.data());
        const auto* stored = reinterpret_cast<const Stored*>(in.values.data());
        auto run = [&](const auto* exc_val) {
          RunParts(parts, [&](int p) {
            const int64_t r0 = cut[static_cast<size_t>(p)], r1 = cut[static_cast<size_t>(p) + 1];
            auto* out = static_cast<Out*>(target.values);
            int64_t& n = written[static_cast<size_t>(p)];
            if (banded) {
              const BandedTile<Delta, Stored> tile{
                  row_counts.data(),
                  bands,
                  deltas,
                  in.delta_exception_values.data(),
                  {in.value_bitmaps[0].data(), in.value_bitmaps[1].data(),
                   in.value_bitmaps[2].data()},
                  stored};
              n = RebuildBandedRows(shape, tile, cursors[static_cast<size_t>(p)], r0, r1, exc_val,
                                    target.indptr, target.indices, out);
            } else {
              RowScratch<Stored, Out> scratch(shape.columns);
              n = RebuildRows<Delta, Stored>(shape, r0, r1, deltas, stored, exc_val,
                                             target.indptr, target.indices, out, scratch,
                                             ptr[r0]);
            }
          });
        };
        if (layout.exception_values.id() == DataTypeId::kUInt64) {
          run(reinterpret_cast<const uint64_t*>(in.exception_values.data()));
        } else {
          run(reinterpret_cast<const uint32_t*>(in.exception_values.data()));
        }
      });
    });
  });
  for (int64_t w : written) {
    if (w == kGeneBeyond) {
      return corrupt("a gene delta runs beyond the matrix's " + std::to_string(layout.genes) +
                     " genes");
    }
    if (w == kRepeatedGene) return corrupt("a gene appears twice in one cell (a gene delta of 0)");
    if (w == kEscapedZero) return corrupt("an escaped gene step is 0");
  }
  if (!options.gene_map) return nnz;  // parts wrote where they read

  // Close the gaps the subset left between parts.
  int64_t at = written[0];
  const size_t value_size = layout.counts.size();
  auto* values = static_cast<std::byte*>(target.values);
  for (int p = 1; p < parts; ++p) {
    const int64_t r0 = cut[static_cast<size_t>(p)], r1 = cut[static_cast<size_t>(p) + 1];
    const int64_t from = ptr[r0];
    const int64_t n = written[static_cast<size_t>(p)];
    if (from != at) {
      std::memmove(target.indices + at, target.indices + from, static_cast<size_t>(n) * 4);
      std::memmove(values + at * value_size, values + from * value_size,
                   static_cast<size_t>(n) * value_size);
      const int32_t shift = static_cast<int32_t>(from - at);
      for (int64_t r = r0; r < r1; ++r) target.indptr[r + 1] -= shift;
    }
    at += n;
  }
  return at;
}

}  // namespace turbozarr::sparse::internal
