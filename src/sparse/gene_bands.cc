#include "gene_bands.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace turbozarr::sparse::internal {

int64_t GeneBands(int64_t genes) {
  return std::bit_width(static_cast<uint64_t>(genes)) + 1;
}

void BandSteps(const int64_t* ptr, int64_t rows, const uint32_t* rank_steps, int64_t bands,
               uint32_t* counts, uint32_t* steps, int64_t (&beyond)[2]) {
  std::memset(counts, 0, static_cast<size_t>(bands * rows) * sizeof(uint32_t));
  // Pass 1: the steps per row and band; pass 2: each step to its band.
  auto walk = [&](auto&& visit) {
    for (int64_t r = 0; r < rows; ++r) {
      uint64_t position = 0;
      for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
        const uint32_t step = rank_steps[k] + (k == ptr[r] ? 1 : 0);
        visit(r, std::bit_width(position), step);
        position += step;
      }
    }
  };
  walk([&](int64_t r, int band, uint32_t step) {
    ++counts[band * rows + r];
    beyond[0] += step > 0xff;
    beyond[1] += step > 0xffff;
  });
  std::vector<int64_t> at(static_cast<size_t>(bands), 0);
  int64_t total = 0;
  for (int64_t b = 0; b < bands; ++b) {
    at[static_cast<size_t>(b)] = total;
    for (int64_t r = 0; r < rows; ++r) total += counts[b * rows + r];
  }
  walk([&](int64_t, int band, uint32_t step) { steps[at[static_cast<size_t>(band)]++] = step; });
}

namespace {

// The zeros among n steps (blocks of byte-wide sums the compiler
// vectorises, added up between blocks).
template <typename Delta>
int64_t CountZeros(const Delta* s, int64_t n) {
  int64_t total = 0;
  while (n > 0) {
    const int64_t block = std::min<int64_t>(n, 255 * 16);
    uint8_t lanes[16] = {};
    int64_t i = 0;
    for (; i + 16 <= block; i += 16) {
      for (int j = 0; j < 16; ++j) lanes[j] = static_cast<uint8_t>(lanes[j] + (s[i + j] == 0));
    }
    for (int j = 0; j < 16; ++j) total += lanes[j];
    for (; i < block; ++i) total += s[i] == 0;
    s += block;
    n -= block;
  }
  return total;
}

// Whether n steps hold a 0 (an escape).
template <typename Delta>
bool HasZero(const Delta* s, int64_t n) {
  if constexpr (sizeof(Delta) == 1) {
    return std::memchr(s, 0, static_cast<size_t>(n)) != nullptr;
  } else {
    return std::find(s, s + n, Delta{0}) != s + n;
  }
}

}  // namespace

template <typename Count, typename Delta>
std::string PlaceBandCursors(const Count* counts, int64_t bands, int64_t cells,
                             const uint32_t* ptr, const Delta* steps, int64_t escapes,
                             const std::vector<int64_t>& cut, std::vector<uint32_t>& row_counts,
                             std::vector<BandCursor>& cursors) {
  row_counts.assign(static_cast<size_t>(cells * bands), 0);
  std::vector<int64_t> in_row(static_cast<size_t>(cells), 0);
  const size_t parts = cut.size() - 1;
  cursors.assign(parts, BandCursor{std::vector<int64_t>(static_cast<size_t>(bands)),
                                   std::vector<int64_t>(static_cast<size_t>(bands))});
  int64_t at = 0;
  for (int64_t b = 0; b < bands; ++b) {
    const Count* band = counts + b * cells;
    size_t part = 0;
    for (int64_t r = 0; r <= cells; ++r) {
      while (part < parts && cut[part] == r) cursors[part++].step[static_cast<size_t>(b)] = at;
      if (r == cells) break;
      const int64_t n = band[r];
      row_counts[static_cast<size_t>(r * bands + b)] = static_cast<uint32_t>(n);
      in_row[static_cast<size_t>(r)] += n;
      at += n;
      if (at > ptr[cells]) return "gene_bands counts more steps than the tile holds";
    }
  }
  // The escapes before each part's first step in each band: the zeros
  // before it, band after band.
  int64_t zeros = 0;
  for (int64_t b = 0; b < bands; ++b) {
    for (size_t p = 0; p < parts; ++p) {
      cursors[p].escape[static_cast<size_t>(b)] = zeros;
      const int64_t end = p + 1 < parts ? cursors[p + 1].step[static_cast<size_t>(b)]
                          : b + 1 < bands ? cursors[0].step[static_cast<size_t>(b) + 1]
                                          : at;
      zeros += CountZeros(steps + cursors[p].step[static_cast<size_t>(b)],
                          end - cursors[p].step[static_cast<size_t>(b)]);
    }
  }
  for (int64_t r = 0; r < cells; ++r) {
    if (in_row[static_cast<size_t>(r)] != static_cast<int64_t>(ptr[r + 1] - ptr[r])) {
      return "gene_bands gives cell " + std::to_string(r) + " of the tile " +
             std::to_string(in_row[static_cast<size_t>(r)]) + " genes, indptr " +
             std::to_string(ptr[r + 1] - ptr[r]);
    }
  }
  if (zeros != escapes) {
    return "gene_deltas holds " + std::to_string(zeros) + " escaped steps, the tile index " +
           std::to_string(escapes);
  }
  return "";
}

template <typename Delta>
bool UnbandRows(const uint32_t* row_counts, int64_t bands, const uint32_t* ptr, int64_t r0,
                int64_t r1, const Delta* steps, const uint32_t* escapes, BandCursor& cursor,
                Delta* out, std::vector<uint32_t>& exc_pos, std::vector<uint32_t>& exc_val) {
  exc_pos.clear();
  exc_val.clear();
  const int64_t base = ptr[r0];
  int64_t* const step_at = cursor.step.data();
  int64_t* const escape_at = cursor.escape.data();
  for (int64_t r = r0; r < r1; ++r) {
    const uint32_t* counts = row_counts + r * bands;
    int64_t k = ptr[r];
    for (int64_t b = 0; b < bands; ++b) {
      const int64_t n = counts[b];
      if (n == 0) continue;
      const Delta* s = steps + step_at[b];
      step_at[b] += n;
      Delta* o = out + (k - base);
      std::memcpy(o, s, static_cast<size_t>(n) * sizeof(Delta));
      const size_t first_escape = exc_pos.size();
      if (HasZero(s, n)) {
        for (int64_t i = 0; i < n; ++i) {
          if (s[i] != 0) continue;
          const uint32_t step = escapes[escape_at[b]++];
          if (step == 0) return false;
          exc_pos.push_back(static_cast<uint32_t>(k + i));
          exc_val.push_back(step);
        }
      }
      if (b == 0) {
        // The row's first step (band 0: from position 0) is its rank + 1;
        // version 1 stores the rank.
        if (s[0] != 0) {
          --o[0];
        } else {
          --exc_val[first_escape];
        }
      }
      k += n;
    }
  }
  return true;
}

#define TZ_GENE_BANDS(C, D)                                                                 \
  template std::string PlaceBandCursors<C, D>(const C*, int64_t, int64_t, const uint32_t*, \
                                              const D*, int64_t, const std::vector<int64_t>&, \
                                              std::vector<uint32_t>&, std::vector<BandCursor>&);
TZ_GENE_BANDS(uint16_t, uint8_t)
TZ_GENE_BANDS(uint16_t, uint16_t)
TZ_GENE_BANDS(uint16_t, uint32_t)
TZ_GENE_BANDS(uint32_t, uint8_t)
TZ_GENE_BANDS(uint32_t, uint16_t)
TZ_GENE_BANDS(uint32_t, uint32_t)
#undef TZ_GENE_BANDS
template bool UnbandRows<uint8_t>(const uint32_t*, int64_t, const uint32_t*, int64_t, int64_t,
                                  const uint8_t*, const uint32_t*, BandCursor&, uint8_t*,
                                  std::vector<uint32_t>&, std::vector<uint32_t>&);
template bool UnbandRows<uint16_t>(const uint32_t*, int64_t, const uint32_t*, int64_t, int64_t,
                                   const uint16_t*, const uint32_t*, BandCursor&, uint16_t*,
                                   std::vector<uint32_t>&, std::vector<uint32_t>&);
template bool UnbandRows<uint32_t>(const uint32_t*, int64_t, const uint32_t*, int64_t, int64_t,
                                   const uint32_t*, const uint32_t*, BandCursor&, uint32_t*,
                                   std::vector<uint32_t>&, std::vector<uint32_t>&);

}  // namespace turbozarr::sparse::internal
