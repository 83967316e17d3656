#include "codec/raw_bytes.h"

#include <algorithm>

namespace turbozarr::internal {
namespace {

// One pass per scalar size; memcpy of a fixed size compiles to a plain load
// and the loop vectorises.
template <typename T, typename Swap>
void SwapLoop(std::byte* dst, const std::byte* src, size_t n, Swap swap) {
  for (size_t i = 0; i + sizeof(T) <= n; i += sizeof(T)) {
    T v;
    std::memcpy(&v, src + i, sizeof(T));
    v = swap(v);
    std::memcpy(dst + i, &v, sizeof(T));
  }
}

}  // namespace

void CopySwapped(std::byte* dst, const std::byte* src, size_t n, size_t unit) {
  switch (unit) {
    case 0:
    case 1:
      if (dst != src && n > 0) std::memcpy(dst, src, n);
      return;
    case 2:
      return SwapLoop<uint16_t>(dst, src, n,
                                [](uint16_t v) { return __builtin_bswap16(v); });
    case 4:
      return SwapLoop<uint32_t>(dst, src, n,
                                [](uint32_t v) { return __builtin_bswap32(v); });
    case 8:
      return SwapLoop<uint64_t>(dst, src, n,
                                [](uint64_t v) { return __builtin_bswap64(v); });
    default:
      for (size_t i = 0; i + unit <= n; i += unit) {
        for (size_t a = 0, b = unit - 1; a < b; ++a, --b) {
          std::byte x = src[i + a], y = src[i + b];
          dst[i + a] = y;
          dst[i + b] = x;
        }
        if (unit % 2 == 1) dst[i + unit / 2] = src[i + unit / 2];
      }
  }
}

void CopySwappedElements(std::byte* dst, const std::byte* src, size_t n,
                         const DataType& dtype) {
  if (dtype.id() != DataTypeId::kStruct) return CopySwapped(dst, src, n, dtype.swap_unit());
  if (dst != src && n > 0) std::memcpy(dst, src, n);
  dtype.SwapStructScalars(dst, n);
}

}  // namespace turbozarr::internal
