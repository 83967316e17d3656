// The tile codec. Both directions split a tile's rows into parts of about
// equal nonzeros, one thread each; a part's nonzeros sit at the same offsets
// in the stored arrays and in the decoded ones (a gene subset compacts the
// parts afterwards), so the threads never share an output byte.
//
// Renumbered genes lose the order of the source's rows: the encoder sorts
// each row by rank with a bitmap of the genes (one pass over the row, one
// over the bitmap's words), which beats a comparison sort at the thousands of
// genes per cell that single-cell rows carry; short rows of wide matrices
// take the sort instead.
#include "tile_codec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>

#include "count_types.h"
#include "dense_row.h"
#include "gene_bands.h"
#include "value_levels.h"
#include "turbozarr/config.h"

namespace turbozarr::sparse::internal {
namespace {

// Calls f(T{}) for the gene deltas' type of `bytes` (1, 2 or 4).
template <typename F>
void VisitDeltaType(int64_t bytes, F&& f) {
  if (bytes == 1) {
    f(uint8_t{});
  } else if (bytes == 2) {
    f(uint16_t{});
  } else {
    f(uint32_t{});
  }
}

// Runs fn(part) for every part in [0, parts), the calling thread one of the
// workers; a thread the system refuses runs its part inline.
template <typename F>
void RunParts(int parts, F&& fn) {
  std::vector<std::thread> workers;
  for (int p = 1; p < parts; ++p) {
    try {
      workers.emplace_back([&fn, p] { fn(p); });
    } catch (const std::system_error&) {
      fn(p);
    }
  }
  fn(0);
  for (std::thread& w : workers) w.join();
}

// Row boundaries that cut [0, rows) into `parts` runs of about equal
// nonzeros (ptr: rows + 1 offsets).
template <typename P>
std::vector<int64_t> SplitRows(const P* ptr, int64_t rows, int parts) {
  std::vector<int64_t> cut(static_cast<size_t>(parts) + 1, rows);
  cut[0] = 0;
  const int64_t total = static_cast<int64_t>(ptr[rows]);
  for (int p = 1; p < parts; ++p) {
    const int64_t want = total * p / parts;
    cut[static_cast<size_t>(p)] = std::max<int64_t>(
        cut[static_cast<size_t>(p) - 1],
        std::lower_bound(ptr, ptr + rows + 1, static_cast<P>(want)) - ptr);
    cut[static_cast<size_t>(p)] = std::min(cut[static_cast<size_t>(p)], rows);
  }
  return cut;
}

int PartsFor(int threads, int64_t nonzeros) {
  const int wanted = threads > 0 ? threads : Threads();
  const int64_t by_size = std::max<int64_t>(1, nonzeros / (int64_t{1} << 16));
  return static_cast<int>(std::clamp<int64_t>(by_size, 1, wanted));
}

// The first failure of several parts, by part.
struct PartErrors {
  explicit PartErrors(int parts) : status(static_cast<size_t>(parts)) {}
  Status First() const {
    for (const Status& s : status) {
      if (!s.ok()) return s;
    }
    return Status::OK();
  }
  std::vector<Status> status;
};

// ---- encoding --------------------------------------------------------------

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

template <typename F>
void VisitStoredType(DataTypeId id, F&& f) {
  switch (id) {
    case DataTypeId::kUInt8: f(uint8_t{}); break;
    case DataTypeId::kUInt16: f(uint16_t{}); break;
    case DataTypeId::kUInt32: f(uint32_t{}); break;
    case DataTypeId::kFloat32: f(float{}); break;
    default: f(double{}); break;
  }
}

// The width (1, 2 or 4 bytes) that stores n steps in the fewest bytes, of
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

// ---- decoding --------------------------------------------------------------

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
