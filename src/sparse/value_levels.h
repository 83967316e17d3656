// Value levels: version 2's values of a tile as three bitmaps and the rest.
//
// Single-cell counts are mostly 1s, 2s and 3s (half of them 1). zstd codes
// a byte stream with Huffman codes, which spend at least a bit per value: a
// stream of counts costs 30% above its entropy. Split into "is it 1?", then
// among the others "is it 2?", then "is it 3?" (bitmaps, where a byte holds
// eight such answers and Huffman codes them near their entropy), and the
// rest, the same counts cost 20% less, and zstd decompresses fewer bytes.
//
// Level k's bitmap has one bit per value that levels 1..k-1 did not take
// (bit i of byte i / 8 for the i-th of them, from the least significant
// bit), set when the value is k. The values array holds the rest in order.
//
// Expanding them back is per 64 values a few mask operations: AVX-512
// (VBMI2) expands the bits and the rest into place without a branch per
// value; otherwise a scalar walk. The CPU is asked once which to use.
//
// Thread safety: pure functions over caller memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace turbozarr::sparse::internal {

inline constexpr int kValueLevels = 3;
// Bytes a reader keeps readable (and zero) after each bitmap, so that a
// word load at any bit stays inside the buffer.
inline constexpr size_t kBitmapPadding = 16;

// The bitmaps' lengths in bytes for `levels` (the values at each level).
inline int64_t BitmapBytes(int64_t bits) { return (bits + 7) / 8; }

// Splits n stored values into the level bitmaps (zeroed by the caller, each
// BitmapBytes(n) bytes at least) and the rest, which it writes over `values`
// from the front. Returns the values at each level.
template <typename Stored>
std::array<int64_t, kValueLevels> SplitValueLevels(Stored* values, int64_t n,
                                                   const std::array<uint8_t*, kValueLevels>& bitmaps);

// Set bits in bits [from, to) of a bitmap.
int64_t CountBits(const uint8_t* bitmap, int64_t from, int64_t to);

// A reading position in a tile's level bitmaps and rest.
struct ValueCursor {
  std::array<const uint8_t*, kValueLevels> bitmaps{};
  std::array<int64_t, kValueLevels> bit{};  // the next bit of each bitmap
  int64_t rest = 0;                          // the next value of the rest

  // The position of value `at` (counting the set bits before it).
  static ValueCursor At(const std::array<const uint8_t*, kValueLevels>& bitmaps, int64_t at);
};

// Writes the next n values at `cursor` to `out`, and moves the cursor past
// them. `rest` is the values array; the bitmaps are padded (kBitmapPadding)
// and hold the bits the cursor will read (the caller checked their counts).
template <typename Stored>
void ExpandValues(ValueCursor& cursor, const Stored* rest, int64_t n, Stored* out);

// The kernels this CPU runs (the scalar one always), and ExpandValues with
// a chosen one (for tests; AVX-512 serves byte values, others the scalar).
enum class ExpandKernel { kScalar, kAvx512 };
std::vector<ExpandKernel> AvailableExpandKernels();
template <typename Stored>
void ExpandValuesWith(ExpandKernel kernel, ValueCursor& cursor, const Stored* rest, int64_t n,
                      Stored* out);

}  // namespace turbozarr::sparse::internal
