// Value casts between numeric types with a chosen rounding and out-of-range
// rule: the element conversion of the v3 "cast_value" codec
// (zarr-extensions), computed as zarr-python 3.4's backend for it
// (cast-value-rs 0.5) computes it, value for value.
//
// Types: int8 ... uint64, float16, float32, float64. In order, per element:
//  1. scalar map: the first entry whose source equals the value gives the
//     result (a NaN entry matches every NaN; 0.0 matches -0.0);
//  2. float -> integer: NaN and infinities are refused; the value is rounded
//     to an integer by the rounding mode, then checked against the target's
//     range exactly; outside it, "clamp" takes the nearest bound, "wrap"
//     takes the value modulo 2^bits, and no mode is an error;
//  3. integer -> integer: the same range rule (wrap keeps the low bits);
//  4. to a float: rounded by the rounding mode as if the exponent had no
//     bound; a result at or beyond 2^(emax+1) overflows (so "towards-zero"
//     still overflows from there, while MAX < x < 2^(emax+1) rounds down to
//     MAX): an error, or the signed infinity under "clamp" ("wrap" is not a
//     float mode: an error). NaN and infinities pass through; NaNs keep
//     their sign and top payload bits and come out quiet, as x86 converts
//     them; the same type is copied bit for bit. float64 -> float16 rounds
//     through float32 (twice to nearest), as the backend does.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "turbozarr/dtype.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

enum class CastRounding { kNearestEven, kTowardsZero, kTowardsPositive, kTowardsNegative, kNearestAway };
enum class CastOutOfRange { kError, kClamp, kWrap };

// One scalar map entry: the source value `from` (of the cast's source type,
// native order) becomes `to` (of its target type).
struct CastMapEntry {
  std::array<std::byte, 8> from{};
  std::array<std::byte, 8> to{};
};

struct ValueCast {
  DataType from;
  DataType to;
  CastRounding rounding = CastRounding::kNearestEven;
  CastOutOfRange out_of_range = CastOutOfRange::kError;
  std::vector<CastMapEntry> map;
};

// True for the types a value cast converts between.
bool IsValueCastType(DataTypeId id);

// Converts `n` elements of cast.from at `src` into cast.to at `dst`. A value
// that has no result is InvalidArgument naming the value, the types and the
// rule that refused it (what dst holds then is unspecified).
// REQUIRES: both types pass IsValueCastType; dst has room for n elements.
Status CastValues(const ValueCast& cast, const std::byte* src, std::byte* dst, int64_t n);

}  // namespace turbozarr::internal
