#include "codec/sharding/shard_layout.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace turbozarr::internal {

std::vector<int64_t> GridCoords(int64_t linear, const std::vector<int64_t>& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = shape[d] > 0 ? linear % shape[d] : 0;
    linear = shape[d] > 0 ? linear / shape[d] : 0;
  }
  return c;
}

std::vector<int64_t> MortonOrder(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= std::max<int64_t>(d, 0);
  std::vector<int> bits(shape.size());
  int max_bits = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    bits[d] = shape[d] > 1 ? std::bit_width(static_cast<uint64_t>(shape[d] - 1)) : 0;
    max_bits = std::max(max_bits, bits[d]);
  }
  std::vector<uint64_t> code(static_cast<size_t>(n));
  std::vector<int64_t> c(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = 0;
    int out_bit = 0;
    for (int b = 0; b < max_bits; ++b) {
      for (size_t d = 0; d < shape.size(); ++d) {
        if (b < bits[d]) z |= ((static_cast<uint64_t>(c[d]) >> b) & 1) << out_bit++;
      }
    }
    code[i] = z;
    for (size_t d = shape.size(); d-- > 0;) {  // next C-order coordinate
      if (++c[d] < shape[d]) break;
      c[d] = 0;
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return code[a] < code[b]; });
  return order;
}

}  // namespace turbozarr::internal
