// IEEE 754 binary16 conversions, for float16 fill values (numpy's float16).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

namespace turbozarr::internal {

// Rounds to nearest, ties to even, straight from double (no double rounding
// through float); overflow gives infinity, NaN stays NaN with its sign.
uint16_t DoubleToHalf(double value);
// Exact.
double HalfToDouble(uint16_t bits);

}  // namespace turbozarr::internal
