// DenseRow: sorts one decoded row of a tile by gene, the work of every
// sorted read (torch's CSR tensors and the canonical CSR expect it).
//
// A tile stores each row's genes in rank order (by decreasing total
// counts), which is unrelated to the genes' own order. A row is sorted by
// scattering its values into a dense row indexed by gene, then draining the
// dense row: its non-zero entries, in gene order, are the row. The dense row
// holds the tile's narrow stored values (a byte per gene for uint8: 38 KB
// for 38,000 genes, which stays in the core's first-level cache), so that
// the scatter is a store per value and the drain reads 64 genes per step;
// a zero entry is a gene the row does not hold, so the bitmap of genes that
// a wider dense row needs is not there to set and walk. Values the narrow
// type cannot hold (the tile's exceptions) and stored zeros are written as
// 1 and patched once the row is in order (Patch).
//
// The drain: AVX-512 (VBMI2) compresses each 64-byte step's non-zero
// entries and their gene numbers into registers and stores them, no branch
// per gene; otherwise a scalar walk over 8-byte words. The CPU is asked
// once which to use.
//
// Thread safety: pure functions; a DenseRow belongs to one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace turbozarr::sparse::internal {

enum class DrainKernel { kScalar, kAvx512 };

// The kernels this CPU runs, slowest first (the scalar one always).
std::vector<DrainKernel> AvailableDrainKernels();
std::string_view DrainKernelName(DrainKernel kernel);

// Writes the columns of the non-zero entries of dense[0, columns) to
// `indices` and their values, converted to Out, to `values`, in column
// order, and zeroes them in `dense`; returns how many. `dense` holds at
// least columns rounded up to 64 bytes, zero beyond `columns`. Defined for
// Stored uint8_t and uint16_t, Out any count type (count_types.h).
template <typename Stored, typename Out>
int64_t DrainDenseRow(Stored* dense, int64_t columns, int32_t* indices, Out* values);
// The same with a chosen kernel, which must be available (for tests).
template <typename Stored, typename Out>
int64_t DrainDenseRowWith(DrainKernel kernel, Stored* dense, int64_t columns, int32_t* indices,
                          Out* values);

// One thread's dense row of `columns` entries (all zero between rows) and
// the row's patches: the columns whose values it cannot hold.
template <typename Stored, typename Out>
class DenseRow {
 public:
  explicit DenseRow(int64_t columns)
      : columns_(columns),
        dense_(static_cast<size_t>((columns * static_cast<int64_t>(sizeof(Stored)) + 63) / 64 *
                                   64 / static_cast<int64_t>(sizeof(Stored))),
               Cell{0}) {}

  // Puts the stored value at `column`; a stored 0 goes through the
  // patches, as does a value beyond Stored (Patch).
  void Set(int32_t column, Stored stored) {
    if (stored == 0) {
      Patch(column, Out{0});
    } else {
      dense_[static_cast<size_t>(column)] = static_cast<Cell>(stored);
    }
  }
  void Patch(int32_t column, Out value) {
    dense_[static_cast<size_t>(column)] = Cell{1};
    patches_.emplace_back(column, value);
  }

  // Writes the row in column order and leaves the dense row empty; returns
  // how many entries (fewer than were set if a column was set twice).
  int64_t Drain(int32_t* indices, Out* values) {
    const int64_t n = DrainDenseRow<Stored, Out>(reinterpret_cast<Stored*>(dense_.data()),
                                                 columns_, indices, values);
    for (const auto& [column, value] : patches_) {
      values[std::lower_bound(indices, indices + n, column) - indices] = value;
    }
    patches_.clear();
    return n;
  }

 private:
  // A byte that is not a character type: a store of one may alias only
  // another, so the caller's loop keeps its state in registers across Set
  // (through unsigned char every store could be any object, and the
  // compiler reloads the loop's state after each; 28% of a sorted decode).
  enum class Byte : uint8_t {};
  using Cell = std::conditional_t<sizeof(Stored) == 1, Byte, Stored>;

  int64_t columns_;
  std::vector<Cell> dense_;
  std::vector<std::pair<int32_t, Out>> patches_;
};

}  // namespace turbozarr::sparse::internal
