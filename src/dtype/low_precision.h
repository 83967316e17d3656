// The low-precision float formats (bfloat16, float8, float6, float4) as the
// ml_dtypes package defines them: bit layouts and conversions to and from
// double, rounding to nearest, ties to even, with ml_dtypes' handling of
// values out of range (infinity where the format has one; otherwise NaN for
// the "fn"/"fnuz" formats and the largest finite value for float6/float4).
//
// Thread safety: constant tables and pure functions.
#pragma once

#include <cstdint>

#include "turbozarr/dtype.h"

namespace turbozarr::internal {

struct MiniFloatFormat {
  enum class Special {
    kIeee,  // infinities and NaNs as IEEE 754 (all-ones exponent)
    kFn,    // no infinities; NaN is all ones but the sign (e4m3fn)
    kFnuz,  // no infinities, no negative zero; NaN is the sign bit alone
    kNone,  // no infinities, no NaN (float6, float4)
    kE8M0,  // no sign, no zero, exponent only; NaN is 0xff
  };
  int bits;       // value bits, sign included
  int exp_bits;
  int mant_bits;
  int bias;
  Special special;
  uint32_t canonical_nan;  // what "NaN" stands for (0 where there is none)

  bool has_sign() const { return special != Special::kE8M0; }
  bool has_infinity() const { return special == Special::kIeee; }
  bool has_nan() const { return special != Special::kNone; }
};

// The format of a low-precision float type; nullptr for every other type.
const MiniFloatFormat* MiniFloatFormatOf(DataTypeId id);

// `bits` (the low `format.bits` bits; higher ones are ignored) as a double:
// exact; NaNs keep their sign only.
double MiniFloatToDouble(const MiniFloatFormat& format, uint32_t bits);
// The nearest value of the format to `value`, as ml_dtypes' astype gives it.
uint32_t DoubleToMiniFloat(const MiniFloatFormat& format, double value);
// Whether `bits` is a NaN of the format.
bool MiniFloatIsNaN(const MiniFloatFormat& format, uint32_t bits);

}  // namespace turbozarr::internal
