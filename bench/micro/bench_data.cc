#include "bench_data.h"

#include <cstring>
#include <random>

namespace turbozarr::bench {

std::vector<int32_t> SmoothInt32(size_t n) {
  std::vector<int32_t> v(n);
  std::mt19937 rng(42);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<int32_t>(i / 64) * 3 + static_cast<int32_t>(rng() & 0x7);
  }
  return v;
}

Buffer SmoothBytes(size_t bytes) {
  std::vector<int32_t> v = SmoothInt32((bytes + 3) / 4);
  Buffer b(bytes);
  std::memcpy(b.data(), v.data(), bytes);
  return b;
}

}  // namespace turbozarr::bench
