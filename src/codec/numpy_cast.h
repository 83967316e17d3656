// numpy's element types and value conversions, for the codecs that reproduce
// numpy arithmetic (numcodecs' delta, fixedscaleoffset, quantize, astype,
// bitround; zarr-python's scale_offset): one place that says how numpy 2
// converts a value of one numeric type to another, so that every codec
// writes the bytes numpy would.
//
// `astype` between numeric types, as numpy 2.4 on x86-64 does it:
//  - integer -> integer keeps the low bits (wraps around);
//  - integer -> float and float -> float round to nearest, ties to even
//    (overflow gives infinity; float16 is rounded straight from the value);
//  - float -> integer truncates toward zero. Out of range (or NaN) the
//    result is what numpy's cast loops give on x86-64, which C++ leaves
//    undefined, so it is spelled out in NumpyFloatToInt: 8- and 16-bit
//    targets take the low bits of the int32 conversion (0 when that is out
//    of range), int32 and int64 become their minimum, uint32 and uint64
//    follow numpy's two-sided conversions (tested value by value in
//    numpy_cast_test.cc against numpy's own output).
//
// Thread safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/codec_config.h"
#include "dtype/float16.h"
#include "turbozarr/buffer.h"
#include "turbozarr/codec.h"
#include "turbozarr/dtype.h"

namespace turbozarr::internal {

// numpy's float16 in memory: IEEE binary16 bits.
struct Half {
  uint16_t bits;
};

template <typename T>
inline constexpr bool kIsFloat =
    std::is_same_v<T, Half> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// Calls fn.template operator()<T>() with the C++ type of a numeric element
// type: int8_t ... uint64_t, Half, float or double. False (fn not called)
// for bool, complex and the byte and string types.
template <typename Fn>
bool VisitNumericType(DataTypeId id, Fn&& fn) {
  switch (id) {
    case DataTypeId::kInt8:
      fn.template operator()<int8_t>();
      return true;
    case DataTypeId::kInt16:
      fn.template operator()<int16_t>();
      return true;
    case DataTypeId::kInt32:
      fn.template operator()<int32_t>();
      return true;
    case DataTypeId::kInt64:
      fn.template operator()<int64_t>();
      return true;
    case DataTypeId::kUInt8:
      fn.template operator()<uint8_t>();
      return true;
    case DataTypeId::kUInt16:
      fn.template operator()<uint16_t>();
      return true;
    case DataTypeId::kUInt32:
      fn.template operator()<uint32_t>();
      return true;
    case DataTypeId::kUInt64:
      fn.template operator()<uint64_t>();
      return true;
    case DataTypeId::kFloat16:
      fn.template operator()<Half>();
      return true;
    case DataTypeId::kFloat32:
      fn.template operator()<float>();
      return true;
    case DataTypeId::kFloat64:
      fn.template operator()<double>();
      return true;
    default:
      return false;
  }
}

inline bool IsNumericType(DataTypeId id) {
  return VisitNumericType(id, []<typename>() {});
}

// A float's value as double (exact for every float type).
template <typename F>
double FloatValue(F x) {
  if constexpr (std::is_same_v<F, Half>) {
    return HalfToDouble(x.bits);
  } else {
    return static_cast<double>(x);
  }
}

// numpy's float -> integer cast of `x` (see the header comment).
template <typename I>
I NumpyFloatToInt(double x);

// numpy's astype(To) of one value of type From.
template <typename To, typename From>
To NumpyCast(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (!kIsFloat<From> && !kIsFloat<To>) {
    return static_cast<To>(x);  // modular since C++20
  } else if constexpr (!kIsFloat<From>) {
    // integer -> float: the conversion rounds to nearest once. (Through
    // double for float16: integers double cannot hold exactly are far past
    // float16's range, so both roundings give infinity.)
    if constexpr (std::is_same_v<To, Half>) {
      return Half{DoubleToHalf(static_cast<double>(x))};
    } else {
      return static_cast<To>(x);
    }
  } else if constexpr (!kIsFloat<To>) {
    return NumpyFloatToInt<To>(FloatValue(x));
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{DoubleToHalf(FloatValue(x))};
  } else {
    return static_cast<To>(FloatValue(x));
  }
}

// numpy's np.around (round half to even) of a float value.
inline double RoundHalfEven(double x) { return std::nearbyint(x); }
inline float RoundHalfEven(float x) { return std::nearbyintf(x); }

// numpy's arithmetic on two values of an array of T: integers wrap around,
// float16 computes in float32 and rounds each result back to float16, as
// numpy's float16 loops do.
template <typename T>
struct NumpyArith {
  template <typename Op>
  static T Apply(T a, T b, Op op) {
    if constexpr (std::is_same_v<T, Half>) {
      const float r = op(static_cast<float>(HalfToDouble(a.bits)),
                         static_cast<float>(HalfToDouble(b.bits)));
      return Half{DoubleToHalf(r)};
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(op(static_cast<U>(a), static_cast<U>(b))));
    } else {
      return op(a, b);
    }
  }
  static T Add(T a, T b) {
    return Apply(a, b, [](auto x, auto y) { return x + y; });
  }
  static T Sub(T a, T b) {
    return Apply(a, b, [](auto x, auto y) { return x - y; });
  }
  static T Mul(T a, T b) {
    return Apply(a, b, [](auto x, auto y) { return x * y; });
  }
  static T Div(T a, T b) {
    return Apply(a, b, [](auto x, auto y) { return x / y; });
  }
  // np.around: round half to even (integers are already whole).
  static T Round(T a) {
    if constexpr (std::is_same_v<T, Half>) {
      return Half{DoubleToHalf(RoundHalfEven(static_cast<float>(HalfToDouble(a.bits))))};
    } else if constexpr (std::is_integral_v<T>) {
      return a;
    } else {
      return RoundHalfEven(a);
    }
  }
};

// A Python number as numpy 2 applies it to an array of T: a "weak" scalar
// that takes the array's type. `json` is an integer or a float.
// InvalidArgument for an integer outside an integer T's range, which numpy 2
// refuses (OverflowError), and for a float when T is an integer (numpy
// would compute in float64 instead: the caller decides which type to use).
template <typename T>
Result<T> WeakScalar(const nlohmann::json& json);

// Loads and stores one element of T at `p` (unaligned, native order).
template <typename T>
T LoadElement(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void StoreElement(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// A chunk of `shape` and `type`, its bytes allocated and uninitialized.
ChunkArray NewChunk(std::vector<int64_t> shape, DataType type);

// Corruption naming `codec` unless `chunk` holds `n` elements of `type`:
// what an array->array decoder checks before reading its input.
Status CheckChunkElements(std::string_view codec, const ChunkArray& chunk, DataType type,
                          int64_t n);

// Converts `n` elements of `from` at `src` to `to` at `dst` as numpy's
// astype does. REQUIRES: both types are numeric; dst has room for n `to`s.
void CastElements(const std::byte* src, DataTypeId from, std::byte* dst, DataTypeId to,
                  int64_t n);

// `chunk`'s elements as `to` (numpy's astype), shaped `shape`: its own bytes,
// moved, when the type does not change (no copy), else a new chunk.
// REQUIRES: both types are numeric; shape holds chunk's element count.
ChunkArray CastChunk(ChunkArray chunk, const DataType& to, std::vector<int64_t> shape);

// A numpy dtype as numcodecs spells it in a codec's configuration ("<f8",
// "|u1", "int16"), and the element type it names.
struct NumpyDtype {
  std::string spelled;
  DataType type;
};

// Reads the numpy dtype `key` of `config` (absent: `fallback`, or required).
// InvalidArgument when it does not parse; Unsupported, naming the codec and
// field, when it is not a numeric type (`numeric`) or is big-endian: the
// engine hands codecs native (little-endian) values, as numcodecs sees them
// only for little-endian dtypes.
Result<NumpyDtype> ReadNumpyDtype(CodecConfig& config, std::string_view key,
                                  std::optional<std::string> fallback = std::nullopt);

// Unsupported unless `dtype` is `spec`'s type: numcodecs would reinterpret
// the array's bytes as another type, which no array here asks for.
Status RequireArrayType(const CodecConfig& config, std::string_view key,
                        const NumpyDtype& dtype, const DataType& array_type);

// Unsupported "codec <codec>: field "<key>": <dtype> <what>", for a dtype
// that parses but that the codec does not take.
Status UnsupportedDtype(const CodecConfig& config, std::string_view key,
                        const NumpyDtype& dtype, std::string_view what);

}  // namespace turbozarr::internal
