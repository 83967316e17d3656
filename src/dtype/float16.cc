#include "dtype/float16.h"

#include <bit>
#include <cmath>

namespace turbozarr::internal {

uint16_t DoubleToHalf(double value) {
  uint64_t bits = std::bit_cast<uint64_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  int exp = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t mant = bits & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) {
    if (mant == 0) return sign | 0x7c00;
    uint16_t payload = static_cast<uint16_t>(mant >> 42);
    return sign | 0x7c00 | (payload == 0 ? 0x200 : payload);
  }
  int e = exp - 1023 + 15;  // the biased half exponent
  if (e >= 31) return sign | 0x7c00;
  if (e < -10) return sign;  // below half the smallest subnormal: rounds to zero
  uint64_t m;
  int shift;
  if (e <= 0) {
    m = mant | (uint64_t{1} << 52);  // make the implicit bit explicit
    shift = 42 + 1 - e;
  } else {
    m = mant;
    shift = 42;
  }
  uint64_t half_m = m >> shift;
  uint64_t rem = m & ((uint64_t{1} << shift) - 1);
  uint64_t halfway = uint64_t{1} << (shift - 1);
  if (rem > halfway || (rem == halfway && (half_m & 1))) ++half_m;
  // A carry out of the mantissa correctly bumps the exponent (and may reach
  // infinity, 0x7c00, which is also correct).
  uint32_t h = e <= 0 ? static_cast<uint32_t>(half_m)
                      : (static_cast<uint32_t>(e) << 10) + static_cast<uint32_t>(half_m);
  if (h >= 0x7c00) h = 0x7c00;
  return sign | static_cast<uint16_t>(h);
}

double HalfToDouble(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exp = (bits >> 10) & 0x1f;
  int mant = bits & 0x3ff;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) {
    if (mant == 0) return sign * INFINITY;
    // Keep the payload: widen the mantissa into a double NaN.
    uint64_t d = (uint64_t{bits & 0x8000u} << 48) | (uint64_t{0x7ff} << 52) |
                 (static_cast<uint64_t>(mant) << 42);
    return std::bit_cast<double>(d);
  }
  return sign * std::ldexp(mant + 1024, exp - 25);
}

}  // namespace turbozarr::internal
