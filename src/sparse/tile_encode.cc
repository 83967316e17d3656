// The tile codec's encoding: rows to a tile's stored arrays (tile_codec.h).
//
// Renumbered genes lose the order of the source's rows: the encoder sorts
// each row by rank with a bitmap of the genes (one pass over the row, one
// over the bitmap's words), which beats a comparison sort at the thousands of
// genes per cell that single-cell rows carry; short rows of wide matrices
// take the sort instead.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "count_types.h"
#include "gene_bands.h"
#include "tile_codec.h"
#include "tile_parts.h"
#include "value_levels.h"

namespace turbozarr::sparse::internal {
namespace {

// Pass A over rows [begin, end): each row's genes renumbered, sorted, and
// delta-coded into `deltas`; perm[j] = the source position (from the tile's
// first nonzero) of the j-th stored nonzero. Counts the deltas beyond uint8
// and uint16 into `beyond`.
template <typename Index>
Status SortRows(const int64_t* ptr, int64_t begin, int64_t end, const Index* indices,
                const int32_t* rank_of_gene, int64_t genes, int64_t first_cell,
                uint32_t* deltas, uint32_t* perm, int64_t (&beyond)[2]) {
  const size_t words = static_cast<size_t>((genes + 63) / 64);
  std::vector<uint64_t> bitmap(words, 0);
  std::vector<uint32_t> slot(static_cast<size_t>(genes));
  std::vector<std::pair<int32_t, uint32_t>> short_row;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t a = ptr[r], b = ptr[r + 1];
    if (a == b) continue;
    const bool sort_small = static_cast<size_t>(b - a) * 16 < words;
    short_row.clear();
    for (int64_t k = a; k < b; ++k) {
      const Index g = indices[k];
      if (g < 0 || static_cast<int64_t>(g) >= genes) {
        return Status::InvalidArgument("cell " + std::to_string(first_cell + r) +
                                       ": gene index " + std::to_string(g) +
                                       " is outside [0, " + std::to_string(genes) + ")");
      }
      const int32_t rank = rank_of_gene[static_cast<size_t>(g)];
      uint64_t& word = bitmap[static_cast<size_t>(rank) >> 6];
      const uint64_t bit = uint64_t{1} << (rank & 63);
      if (word & bit) {
        return Status::InvalidArgument(
            "cell " + std::to_string(first_cell + r) + ": gene " + std::to_string(g) +
            " appears twice in the row (sum duplicates first)");
      }
      word |= bit;
      slot[static_cast<size_t>(rank)] = static_cast<uint32_t>(k);
      if (sort_small) short_row.emplace_back(rank, static_cast<uint32_t>(k));
    }
    int64_t j = a;
    uint32_t previous = 0;
    if (sort_small) {
      std::sort(short_row.begin(), short_row.end());
      for (const auto& [rank, k] : short_row) {
        bitmap[static_cast<size_t>(rank) >> 6] = 0;
        const uint32_t delta = static_cast<uint32_t>(rank) - previous;
        beyond[0] += delta > 0xff;
        beyond[1] += delta > 0xffff;
        deltas[j] = delta;
        previous = static_cast<uint32_t>(rank);
        perm[j++] = k;
      }
      continue;
    }
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = bitmap[w];
      if (!bits) continue;
      bitmap[w] = 0;
      while (bits) {
        const uint32_t rank = static_cast<uint32_t>(w * 64 + std::countr_zero(bits));
        bits &= bits - 1;
        const uint32_t delta = rank - previous;
        beyond[0] += delta > 0xff;
        beyond[1] += delta > 0xffff;
        deltas[j] = delta;
        previous = rank;
        perm[j++] = slot[rank];
      }
    }
  }
  return Status::OK();
}

// The cell of stored position j (for errors only).
int64_t CellOf(const int64_t* ptr, int64_t rows, int64_t j) {
  return std::upper_bound(ptr, ptr + rows + 1, j) - ptr - 1;
}

// Pass B over stored positions [begin, end): values narrowed into `stored`,
// those beyond its range into the exceptions.
template <typename Src, typename Dst>
Status NarrowValues(const Src* src, const uint32_t* perm, int64_t begin, int64_t end,
                    Dst* stored, std::vector<uint32_t>& exception_positions,
                    std::vector<uint64_t>& exception_values, const int64_t* ptr, int64_t rows,
                    int64_t first_cell) {
  auto cell = [&](int64_t j) { return std::to_string(first_cell + CellOf(ptr, rows, j)); };
  if constexpr (std::is_floating_point_v<Dst>) {
    for (int64_t j = begin; j < end; ++j) {
      const Src v = src[perm[j]];
      stored[j] = static_cast<Dst>(v);
      if constexpr (sizeof(Dst) < sizeof(Src)) {
        if (static_cast<Src>(stored[j]) != v && !std::isnan(v)) {
          return Status::InvalidArgument("cell " + cell(j) + ": the value " +
                                         std::to_string(v) +
                                         " needs float64, but the layout stores float32");
        }
      }
    }
  } else {
    constexpr uint64_t kMax = std::numeric_limits<Dst>::max();
    for (int64_t j = begin; j < end; ++j) {
      const Src v = src[perm[j]];
      if constexpr (std::is_floating_point_v<Src>) {
        if (!(v >= 0 && v == std::floor(v) && !std::signbit(v) && v < 0x1p64)) {
          return Status::InvalidArgument(
              "cell " + cell(j) + ": the value " + std::to_string(v) +
              " is not a whole count, but the layout stores whole counts");
        }
      } else if constexpr (std::is_signed_v<Src>) {
        if (v < 0) {
          return Status::InvalidArgument("cell " + cell(j) + ": negative count " +
                                         std::to_string(v) + " (counts are stored unsigned)");
        }
      }
      const uint64_t u = static_cast<uint64_t>(v);
      if (u > kMax) {
        stored[j] = static_cast<Dst>(kMax);
        exception_positions.push_back(static_cast<uint32_t>(j));
        exception_values.push_back(u);
      } else {
        stored[j] = static_cast<Dst>(u);
      }
    }
  }
  return Status::OK();
}
// which `beyond` do not fit one and two bytes, each costing `aside` bytes
// more kept aside.
int64_t NarrowestWidth(int64_t n, const int64_t (&beyond)[2], int64_t aside) {
  const int64_t cost1 = n + aside * beyond[0], cost2 = 2 * n + aside * beyond[1], cost4 = 4 * n;
  return cost1 <= std::min(cost2, cost4) ? 1 : cost2 <= cost4 ? 2 : 4;
}

// Version 1's gene deltas: row order, in the narrowest width (counting 8
// bytes per exception: its position and value), the deltas beyond it as
// exceptions by position. Returns the exceptions.
int64_t NarrowRowDeltas(const int64_t* ptr, const std::vector<int64_t>& cut,
                        const std::vector<std::array<int64_t, 2>>& beyond,
                        const uint32_t* deltas, int64_t nnz, TileArrays& out) {
  const int parts = static_cast<int>(cut.size()) - 1;
  int64_t beyond_all[2] = {0, 0};
  for (const auto& b : beyond) {
    beyond_all[0] += b[0];
    beyond_all[1] += b[1];
  }
  const int64_t delta_bytes = NarrowestWidth(nnz, beyond_all, 8);
  std::byte* narrow_deltas = out.gene_deltas.Reserve(static_cast<size_t>(nnz * delta_bytes));
  std::vector<std::vector<uint32_t>> delta_pos(static_cast<size_t>(parts));
  std::vector<std::vector<uint32_t>> delta_val(static_cast<size_t>(parts));
  VisitDeltaType(delta_bytes, [&](auto delta_tag) {
    using Delta = decltype(delta_tag);
    RunParts(parts, [&](int p) {
      const int64_t j0 = ptr[cut[static_cast<size_t>(p)]];
      const int64_t j1 = ptr[cut[static_cast<size_t>(p) + 1]];
      auto* to = reinterpret_cast<Delta*>(narrow_deltas);
      for (int64_t j = j0; j < j1; ++j) {
        const uint32_t d = deltas[j];
        if (d > std::numeric_limits<Delta>::max()) {
          to[j] = 0;  // the exception holds the whole delta
          delta_pos[static_cast<size_t>(p)].push_back(static_cast<uint32_t>(j));
          delta_val[static_cast<size_t>(p)].push_back(d);
        } else {
          to[j] = static_cast<Delta>(d);
        }
      }
    });
  });
  size_t delta_exceptions = 0;
  for (const auto& v : delta_pos) delta_exceptions += v.size();
  uint32_t* dpos = out.delta_exception_positions.Reserve(delta_exceptions);
  uint32_t* dval = out.delta_exception_values.Reserve(delta_exceptions);
  for (int p = 0; p < parts; ++p) {
    dpos = std::copy(delta_pos[static_cast<size_t>(p)].begin(),
                     delta_pos[static_cast<size_t>(p)].end(), dpos);
    dval = std::copy(delta_val[static_cast<size_t>(p)].begin(),
                     delta_val[static_cast<size_t>(p)].end(), dval);
  }

  out.size.delta_bytes = delta_bytes;
  return static_cast<int64_t>(delta_exceptions);
}

// Version 2's gene steps (gene_bands.h): grouped by band (into `steps`, nnz
// of scratch), in the narrowest width (counting 4 bytes per escape), those
// beyond it escaped. Returns the escapes.
int64_t BandAndNarrowSteps(const Layout& layout, const int64_t* ptr, int64_t rows,
                           const uint32_t* deltas, int64_t nnz, uint32_t* steps, TileArrays& out) {
  const int64_t bands = GeneBands(layout.genes);
  std::vector<uint32_t> counts(static_cast<size_t>(bands * rows));
  int64_t beyond[2] = {0, 0};
  BandSteps(ptr, rows, deltas, bands, counts.data(), steps, beyond);
  const int64_t delta_bytes = NarrowestWidth(nnz, beyond, 4);
  std::vector<uint32_t> escapes;
  VisitDeltaType(delta_bytes, [&](auto delta_tag) {
    using Delta = decltype(delta_tag);
    auto* to = reinterpret_cast<Delta*>(out.gene_deltas.Reserve(static_cast<size_t>(nnz * delta_bytes)));
    for (int64_t j = 0; j < nnz; ++j) {
      const uint32_t step = steps[j];
      if (step > std::numeric_limits<Delta>::max()) {
        to[j] = 0;
        escapes.push_back(step);
      } else {
        to[j] = static_cast<Delta>(step);
      }
    }
  });
  std::copy(escapes.begin(), escapes.end(), out.delta_exception_values.Reserve(escapes.size()));
  out.delta_exception_positions.Reserve(0);
  std::byte* stored_counts =
      out.gene_bands.Reserve(counts.size() * layout.band_count_type().size());
  if (layout.band_count_type().id() == DataTypeId::kUInt16) {
    auto* to = reinterpret_cast<uint16_t*>(stored_counts);
    for (size_t i = 0; i < counts.size(); ++i) to[i] = static_cast<uint16_t>(counts[i]);
  } else {
    std::memcpy(stored_counts, counts.data(), counts.size() * 4);
  }
  out.size.delta_bytes = delta_bytes;
  return static_cast<int64_t>(escapes.size());
}

}  // namespace

Status EncodeTile(const Layout& layout, const std::vector<int32_t>& rank_of_gene,
                  const CsrRows& rows, int64_t first_cell, int threads, TileArrays& out) {
  const int64_t n = rows.rows;
  std::vector<int64_t> ptr(static_cast<size_t>(n) + 1);
  int64_t base = 0;
  Status status;
  const bool known_ptr = VisitIndexType(rows.indptr_type.id(), [&](auto tag) {
    using P = decltype(tag);
    const P* p = static_cast<const P*>(rows.indptr);
    base = static_cast<int64_t>(p[0]);
    if (base < 0) status = Status::InvalidArgument("the first row pointer is negative");
    for (int64_t i = 0; i <= n && status.ok(); ++i) {
      ptr[static_cast<size_t>(i)] = static_cast<int64_t>(p[i]) - base;
      if (i > 0 && p[i] < p[i - 1]) {
        status = Status::InvalidArgument("cell " + std::to_string(first_cell + i - 1) +
                                         ": the row pointers go backwards");
      }
    }
  });
  if (!known_ptr) {
    return Status::InvalidArgument("row pointers of type " + rows.indptr_type.ToString() +
                                   "; expected int32, int64, uint32 or uint64");
  }
  TZ_RETURN_NOT_OK(status);
  const int64_t nnz = ptr[static_cast<size_t>(n)];
  if (nnz > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(std::to_string(nnz) +
                                   " nonzeros in one tile; at most 2147483647 (lower tile_cells)");
  }
  if (rows.values_type != layout.counts) {
    return Status::InvalidArgument("values of type " + rows.values_type.ToString() +
                                   "; the matrix holds " + layout.counts.ToString());
  }
  if (!layout.integral() && layout.counts.is_integer()) {
    return Status::InvalidArgument("integer counts need an integer stored type");
  }

  uint32_t* indptr = out.indptr.Reserve(static_cast<size_t>(n) + 1);
  for (int64_t i = 0; i <= n; ++i) indptr[i] = static_cast<uint32_t>(ptr[static_cast<size_t>(i)]);
  std::unique_ptr<uint32_t[]> deltas(new uint32_t[static_cast<size_t>(std::max<int64_t>(nnz, 1))]);
  std::byte* stored = out.values.Reserve(static_cast<size_t>(nnz) * layout.stored_values.size());
  std::unique_ptr<uint32_t[]> perm(new uint32_t[static_cast<size_t>(std::max<int64_t>(nnz, 1))]);

  const int parts = PartsFor(threads, nnz);
  const std::vector<int64_t> cut = SplitRows(ptr.data(), n, parts);
  PartErrors errors(parts);
  std::vector<std::vector<uint32_t>> exc_pos(static_cast<size_t>(parts));
  std::vector<std::vector<uint64_t>> exc_val(static_cast<size_t>(parts));
  std::vector<std::array<int64_t, 2>> beyond(static_cast<size_t>(parts), {0, 0});
  bool known_types = true;
  RunParts(parts, [&](int p) {
    const int64_t r0 = cut[static_cast<size_t>(p)], r1 = cut[static_cast<size_t>(p) + 1];
    Status& s = errors.status[static_cast<size_t>(p)];
    bool known_index = VisitIndexType(rows.indices_type.id(), [&](auto index_tag) {
      using Index = decltype(index_tag);
      const Index* indices = static_cast<const Index*>(rows.indices) + base;
      int64_t counted[2] = {0, 0};
      s = SortRows(ptr.data(), r0, r1, indices, rank_of_gene.data(), layout.genes, first_cell,
                   deltas.get(), perm.get(), counted);
      beyond[static_cast<size_t>(p)] = {counted[0], counted[1]};
    });
    if (!known_index) {
      s = Status::InvalidArgument("gene indices of type " + rows.indices_type.ToString() +
                                  "; expected int32, int64, uint32 or uint64");
      return;
    }
    if (!s.ok()) return;
    const bool known = VisitCountType(layout.counts.id(), [&](auto src_tag) {
      using Src = decltype(src_tag);
      const Src* src = static_cast<const Src*>(rows.values) + base;
      VisitStoredType(layout.stored_values.id(), [&](auto dst_tag) {
        using Dst = decltype(dst_tag);
        if constexpr (std::is_floating_point_v<Dst> && !std::is_floating_point_v<Src>) {
          s = Status::InvalidArgument("integer counts need an integer stored type");
        } else {
          s = NarrowValues(src, perm.get(), ptr[static_cast<size_t>(r0)],
                           ptr[static_cast<size_t>(r1)], reinterpret_cast<Dst*>(stored),
                           exc_pos[static_cast<size_t>(p)], exc_val[static_cast<size_t>(p)],
                           ptr.data(), n, first_cell);
        }
      });
    });
    if (!known) known_types = false;
  });
  if (!known_types) {
    return Status::InvalidArgument("counts of type " + layout.counts.ToString() +
                                   "; expected an integer or float32/float64 type");
  }
  TZ_RETURN_NOT_OK(errors.First());

  int64_t delta_exceptions = 0;
  if (layout.version == 1) {
    delta_exceptions = NarrowRowDeltas(ptr.data(), cut, beyond, deltas.get(), nnz, out);
  } else {
    // The source permutation was last needed by the values: its memory holds
    // the banded steps.
    delta_exceptions =
        BandAndNarrowSteps(layout, ptr.data(), n, deltas.get(), nnz, perm.get(), out);
  }

  size_t exceptions = 0;
  for (const auto& v : exc_pos) exceptions += v.size();
  uint32_t* positions = out.exception_positions.Reserve(exceptions);
  std::byte* values = out.exception_values.Reserve(exceptions * layout.exception_values.size());
  size_t e = 0;
  const bool wide = layout.exception_values.id() == DataTypeId::kUInt64;
  for (int p = 0; p < parts; ++p) {
    for (size_t i = 0; i < exc_pos[static_cast<size_t>(p)].size(); ++i, ++e) {
      const uint64_t v = exc_val[static_cast<size_t>(p)][i];
      positions[e] = exc_pos[static_cast<size_t>(p)][i];
      if (wide) {
        std::memcpy(values + e * 8, &v, 8);
      } else if (v > std::numeric_limits<uint32_t>::max()) {
        return Status::InvalidArgument(
            "cell " + std::to_string(first_cell + CellOf(ptr.data(), n, positions[e])) +
            ": the count " + std::to_string(v) +
            " needs 64-bit exceptions, but the layout chose 32-bit ones");
      } else {
        const uint32_t narrow = static_cast<uint32_t>(v);
        std::memcpy(values + e * 4, &narrow, 4);
      }
    }
  }
  out.size.nonzeros = nnz;
  out.size.exceptions = static_cast<int64_t>(exceptions);
  out.size.delta_exceptions = delta_exceptions;
  out.size.value_levels = {0, 0, 0};
  if (layout.version >= 2) {
    // The values as level bitmaps and the rest (value_levels.h).
    // Sized for every value, with the zero padding a reader keeps after a
    // bitmap (the arrays decode in memory too).
    std::array<uint8_t*, kValueLevels> bitmaps;
    const size_t room = static_cast<size_t>(BitmapBytes(nnz)) + kBitmapPadding;
    for (int l = 0; l < kValueLevels; ++l) {
      bitmaps[static_cast<size_t>(l)] = out.value_bitmaps[static_cast<size_t>(l)].Reserve(room);
      std::memset(bitmaps[static_cast<size_t>(l)], 0, room);
    }
    VisitStoredType(layout.stored_values.id(), [&](auto tag) {
      using Stored = decltype(tag);
      out.size.value_levels = SplitValueLevels(reinterpret_cast<Stored*>(stored), nnz, bitmaps);
    });
    int64_t reach = nnz;
    for (int l = 0; l < kValueLevels; ++l) {
      out.value_bitmaps[static_cast<size_t>(l)].Reserve(static_cast<size_t>(BitmapBytes(reach)));
      reach -= out.size.value_levels[static_cast<size_t>(l)];
    }
  }
  return Status::OK();
}

}  // namespace turbozarr::sparse::internal
