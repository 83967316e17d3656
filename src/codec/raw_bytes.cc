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

bool AllElementsEqual(ByteView bytes, ByteView element) {
  const size_t size = element.size();
  const size_t n = bytes.size();
  if (n == 0) return true;
  if (size == 0 || n % size != 0) return false;
  // Compare the first element with `element`, then the run against itself
  // shifted by one element: equal only if every element repeats the first.
  if (std::memcmp(bytes.data(), element.data(), size) != 0) return false;
  return n == size || std::memcmp(bytes.data(), bytes.data() + size, n - size) == 0;
}

void FillElements(MutableByteView out, ByteView element) {
  const size_t size = element.size();
  if (out.empty() || size == 0) return;
  bool uniform = true;
  for (size_t i = 1; i < size; ++i) uniform = uniform && element[i] == element[0];
  if (uniform) {
    std::memset(out.data(), static_cast<int>(element[0]), out.size());
    return;
  }
  std::memcpy(out.data(), element.data(), size);
  size_t done = size;
  while (done < out.size()) {
    const size_t step = std::min(done, out.size() - done);
    std::memcpy(out.data() + done, out.data(), step);
    done += step;
  }
}

}  // namespace turbozarr::internal
