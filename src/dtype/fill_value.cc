// Fill values: parsing and writing the JSON spellings zarr-python 3 uses.
//
// Numbers are JSON numbers; floats may also be "NaN", "Infinity",
// "-Infinity", a numeric string, or (v3) "0x<hex>" holding the exact bits
// (the low-precision floats: up to two hex digits per byte, and "NaN" or
// "Infinity" only where the format has them);
// complex values are [re, im] with each part spelled like a float; byte-string
// types are base64; fixed-length unicode and variable-length strings are JSON
// strings; times are integer counts (or "NaT"); structs are an object of
// field values (v3, as zarr-python 3.4 writes them) or base64 of the packed
// element (v2, and v3 as older writers spelled it). The bytes held are native
// (little-endian) order.
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "dtype/base64.h"
#include "dtype/float16.h"
#include "dtype/low_precision.h"
#include "turbozarr/dtype.h"
#include "turbozarr/utf8.h"

namespace turbozarr {
namespace {

// Dumps JSON for an error message; never throws on invalid UTF-8.
std::string SafeDump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

static_assert(std::endian::native == std::endian::little,
              "fill values are held in little-endian (native) order");

Status BadFill(const nlohmann::json& j, const DataType& dtype, std::string_view why) {
  return Status::InvalidArgument("fill_value " + SafeDump(j) + " for data type " +
                                 dtype.ToString() + ": " + std::string(why));
}

template <typename T>
void Put(Buffer& b, size_t offset, T v) {
  std::memcpy(b.data() + offset, &v, sizeof(T));
}
template <typename T>
T Get(const Buffer& b, size_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof(T));
  return v;
}

bool IsSigned(DataTypeId id) {
  return id == DataTypeId::kInt8 || id == DataTypeId::kInt16 ||
         id == DataTypeId::kInt32 || id == DataTypeId::kInt64 || id == DataTypeId::kInt2 ||
         id == DataTypeId::kInt4;
}
bool IsInteger(DataTypeId id) {
  return IsSigned(id) || id == DataTypeId::kUInt8 || id == DataTypeId::kUInt16 ||
         id == DataTypeId::kUInt32 || id == DataTypeId::kUInt64 ||
         id == DataTypeId::kUInt2 || id == DataTypeId::kUInt4;
}
bool IsFloat(DataTypeId id) {
  return id == DataTypeId::kFloat16 || id == DataTypeId::kFloat32 ||
         id == DataTypeId::kFloat64;
}

// ---- integers ----------------------------------------------------------

// Parses any JSON spelling of an integer: a number (an integral float too),
// a decimal string, or a bool, as zarr-python accepts.
Result<__int128> ParseIntegerJson(const nlohmann::json& j, const DataType& dtype) {
  if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
  if (j.is_number_unsigned()) return static_cast<__int128>(j.get<uint64_t>());
  if (j.is_number_integer()) return static_cast<__int128>(j.get<int64_t>());
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (!std::isfinite(d) || d != std::trunc(d))
      return BadFill(j, dtype, "not an integer");
    if (std::fabs(d) >= 0x1p100) return BadFill(j, dtype, "out of range");
    return static_cast<__int128>(d);
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    const char* begin = s.data();
    const char* end = s.data() + s.size();
    if (begin != end && *begin == '+') ++begin;
    bool negative = begin != end && *begin == '-';
    if (negative) ++begin;
    uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(begin, end, magnitude);
    if (begin == end || ec != std::errc() || ptr != end) {
      return BadFill(j, dtype,
                     ec == std::errc::result_out_of_range ? "out of range"
                                                          : "not an integer string");
    }
    __int128 v = magnitude;
    return negative ? -v : v;
  }
  return BadFill(j, dtype, "expected an integer");
}

Result<FillValue> ParseInteger(const nlohmann::json& j, const DataType& dtype) {
  TZ_ASSIGN_OR_RETURN(__int128 v, ParseIntegerJson(j, dtype));
  size_t bits = dtype.value_bits();
  __int128 lo, hi;
  if (IsSigned(dtype.id())) {
    lo = -(static_cast<__int128>(1) << (bits - 1));
    hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  } else {
    lo = 0;
    hi = (static_cast<__int128>(1) << bits) - 1;
  }
  if (v < lo || v > hi) return BadFill(j, dtype, "out of range");
  FillValue f{Buffer(dtype.size())};
  // Two's complement truncation to the element width, little-endian; int2
  // and int4 keep the value bits alone, high bits clear (as ml_dtypes does).
  uint64_t u = static_cast<uint64_t>(v);
  if (bits < 64) u &= (uint64_t{1} << bits) - 1;
  std::memcpy(f.bytes.data(), &u, dtype.size());
  return f;
}

nlohmann::json IntegerToJson(const FillValue& f, const DataType& dtype) {
  if (dtype.is_narrow_integer()) {
    return static_cast<int>(LowPrecisionValue(dtype, f.bytes.data()));
  }
  switch (dtype.id()) {
    case DataTypeId::kInt8:
      return Get<int8_t>(f.bytes, 0);
    case DataTypeId::kInt16:
      return Get<int16_t>(f.bytes, 0);
    case DataTypeId::kInt32:
      return Get<int32_t>(f.bytes, 0);
    case DataTypeId::kInt64:
      return Get<int64_t>(f.bytes, 0);
    case DataTypeId::kUInt8:
      return Get<uint8_t>(f.bytes, 0);
    case DataTypeId::kUInt16:
      return Get<uint16_t>(f.bytes, 0);
    case DataTypeId::kUInt32:
      return Get<uint32_t>(f.bytes, 0);
    default:
      return Get<uint64_t>(f.bytes, 0);
  }
}

// ---- floats ------------------------------------------------------------

// A parsed float: its value, and its exact bits when given as hex of the
// element's own width (so NaN payloads survive).
struct ParsedFloat {
  double value = 0;
  std::optional<uint64_t> bits;
};

double FromBits(uint64_t bits, size_t width) {
  if (width == 2) return internal::HalfToDouble(static_cast<uint16_t>(bits));
  if (width == 4) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  return std::bit_cast<double>(bits);
}

Result<ParsedFloat> ParseFloatJson(const nlohmann::json& j, size_t width,
                                   const DataType& dtype) {
  if (j.is_number()) return ParsedFloat{j.get<double>(), std::nullopt};
  if (j.is_boolean()) return ParsedFloat{j.get<bool>() ? 1.0 : 0.0, std::nullopt};
  if (!j.is_string()) return BadFill(j, dtype, "expected a number or a float string");
  const std::string& s = j.get_ref<const std::string&>();
  if (s == "NaN")
    return ParsedFloat{std::numeric_limits<double>::quiet_NaN(), std::nullopt};
  if (s == "Infinity") return ParsedFloat{INFINITY, std::nullopt};
  if (s == "-Infinity") return ParsedFloat{-INFINITY, std::nullopt};
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    size_t digits = s.size() - 2;
    if (digits != 4 && digits != 8 && digits != 16) {
      return BadFill(j, dtype, "hex float must have 4, 8 or 16 digits");
    }
    uint64_t bits = 0;
    auto [ptr, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (ec != std::errc() || ptr != s.data() + s.size()) {
      return BadFill(j, dtype, "malformed hex float");
    }
    size_t given_width = digits / 2;
    ParsedFloat p{FromBits(bits, given_width), std::nullopt};
    if (given_width == width) p.bits = bits;
    return p;
  }
  // zarr-python also accepts numeric strings such as "1.5".
  double d = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    return BadFill(j, dtype, "not a float");
  }
  return ParsedFloat{d, std::nullopt};
}

void PutFloat(Buffer& b, size_t offset, size_t width, const ParsedFloat& p) {
  if (width == 2) {
    Put<uint16_t>(
        b, offset,
        p.bits ? static_cast<uint16_t>(*p.bits) : internal::DoubleToHalf(p.value));
  } else if (width == 4) {
    Put<uint32_t>(b, offset,
                  p.bits ? static_cast<uint32_t>(*p.bits)
                         : std::bit_cast<uint32_t>(static_cast<float>(p.value)));
  } else {
    Put<uint64_t>(b, offset, p.bits ? *p.bits : std::bit_cast<uint64_t>(p.value));
  }
}

uint64_t GetBits(const Buffer& b, size_t offset, size_t width) {
  if (width == 2) return Get<uint16_t>(b, offset);
  if (width == 4) return Get<uint32_t>(b, offset);
  return Get<uint64_t>(b, offset);
}

uint64_t CanonicalNaN(size_t width) {
  if (width == 2) return 0x7e00;
  if (width == 4) return 0x7fc00000;
  return 0x7ff8000000000000;
}

nlohmann::json FloatToJson(const Buffer& b, size_t offset, size_t width,
                           int zarr_format) {
  uint64_t bits = GetBits(b, offset, width);
  double v = FromBits(bits, width);
  if (std::isnan(v)) {
    // "NaN" means the canonical quiet NaN; v3 keeps any other NaN exactly.
    if (zarr_format == 3 && bits != CanonicalNaN(width)) {
      char hex[20];
      std::snprintf(hex, sizeof(hex), "0x%0*llx", static_cast<int>(width * 2),
                    static_cast<unsigned long long>(bits));
      return hex;
    }
    return "NaN";
  }
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

// ---- strings -----------------------------------------------------------

Result<std::string> DecodeBase64Fill(const nlohmann::json& j, const DataType& dtype) {
  if (!j.is_string()) return BadFill(j, dtype, "expected a base64 string");
  auto decoded = internal::Base64Decode(j.get_ref<const std::string&>());
  if (!decoded) return BadFill(j, dtype, "malformed base64");
  return *std::move(decoded);
}

// Base64 of exactly one element's bytes.
Result<FillValue> ParseExactBase64(const nlohmann::json& j, const DataType& dtype) {
  TZ_ASSIGN_OR_RETURN(std::string raw, DecodeBase64Fill(j, dtype));
  if (raw.size() != dtype.size()) {
    return BadFill(j, dtype,
                   "decodes to " + std::to_string(raw.size()) + " bytes, expected " +
                       std::to_string(dtype.size()));
  }
  FillValue f{Buffer(dtype.size())};
  std::memcpy(f.bytes.data(), raw.data(), raw.size());
  return f;
}

Result<FillValue> ParseRawBits(const nlohmann::json& j, const DataType& dtype) {
  FillValue f{Buffer(dtype.size())};
  if (j.is_array()) {
    // The spec's spelling for r<bits>: one integer per byte.
    if (j.size() != dtype.size()) {
      return BadFill(j, dtype, "expected " + std::to_string(dtype.size()) + " bytes");
    }
    for (size_t i = 0; i < j.size(); ++i) {
      const auto& e = j[i];
      if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 255) {
        return BadFill(j, dtype, "byte " + std::to_string(i) + " is not in 0..255");
      }
      f.bytes.data()[i] = static_cast<std::byte>(e.get<int64_t>());
    }
    return f;
  }
  return ParseExactBase64(j, dtype);
}

Result<FillValue> ParseFixedBytes(const nlohmann::json& j, const DataType& dtype) {
  TZ_ASSIGN_OR_RETURN(std::string raw, DecodeBase64Fill(j, dtype));
  // Like numpy, a longer value is cut to the element size and a shorter one
  // padded with NULs.
  FillValue f{Buffer(dtype.size())};
  std::memset(f.bytes.data(), 0, dtype.size());
  std::memcpy(f.bytes.data(), raw.data(), std::min(raw.size(), dtype.size()));
  return f;
}

Result<FillValue> ParseFixedUnicode(const nlohmann::json& j, const DataType& dtype) {
  if (!j.is_string()) return BadFill(j, dtype, "expected a string");
  auto cps = DecodeUtf8(j.get_ref<const std::string&>());
  if (!cps) return BadFill(j, dtype, "malformed UTF-8");
  size_t n = dtype.size() / 4;
  FillValue f{Buffer(dtype.size())};
  std::memset(f.bytes.data(), 0, dtype.size());
  for (size_t i = 0; i < std::min(n, cps->size()); ++i) {
    Put<uint32_t>(f.bytes, i * 4, static_cast<uint32_t>((*cps)[i]));
  }
  return f;
}

Result<FillValue> ParseString(const nlohmann::json& j, const DataType& dtype) {
  if (j.is_string())
    return FillValue{Buffer::FromString(j.get_ref<const std::string&>())};
  // zarr-python takes str() of a number.
  if (j.is_number()) return FillValue{Buffer::FromString(j.dump())};
  return BadFill(j, dtype, "expected a string");
}

std::string StripTrailingNuls(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && s[n - 1] == '\0') --n;
  return std::string(s.substr(0, n));
}

// ---- low-precision floats ---------------------------------------------

// As the core floats, with ml_dtypes' rounding; "0x<hex>" gives the bits
// (up to two digits per byte, as zarrs and TensorStore write them);
// "Infinity" and "NaN" only where the format has them.
Result<FillValue> ParseMiniFloat(const nlohmann::json& j, const DataType& dtype,
                                 int zarr_format) {
  const internal::MiniFloatFormat& format = *internal::MiniFloatFormatOf(dtype.id());
  uint32_t bits = 0;
  const std::string* s = j.is_string() ? &j.get_ref<const std::string&>() : nullptr;
  if (s && zarr_format == 2 && dtype.id() == DataTypeId::kFloat4E2M1FN) {
    // TensorStore's v2 spelling of float4_e2m1fn: base64 of the byte.
    return ParseExactBase64(j, dtype);
  }
  if (s && s->size() > 2 && (*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X')) {
    const size_t digits = s->size() - 2;
    auto [ptr, ec] = std::from_chars(s->data() + 2, s->data() + s->size(), bits, 16);
    if (digits > dtype.size() * 2 || ec != std::errc() || ptr != s->data() + s->size()) {
      return BadFill(j, dtype,
                     "malformed hex bits (expected at most " +
                         std::to_string(dtype.size() * 2) + " hex digits)");
    }
    if (bits >> format.bits) {
      return BadFill(j, dtype, "more than " + std::to_string(format.bits) + " bits");
    }
  } else if (s && (*s == "NaN" || *s == "Infinity" || *s == "-Infinity")) {
    if (*s == "NaN" ? !format.has_nan() : !format.has_infinity()) {
      return BadFill(j, dtype, "the type has no " + std::string(*s == "NaN" ? "NaN" : "infinity"));
    }
    bits = *s == "NaN" ? format.canonical_nan
                       : internal::DoubleToMiniFloat(format, *s == "Infinity" ? INFINITY : -INFINITY);
  } else {
    TZ_ASSIGN_OR_RETURN(ParsedFloat p, ParseFloatJson(j, 8, dtype));
    // float8_e8m0fnu has no zero; TensorStore writes its all-zero-bits
    // default (2^-127) as 0.0 and reads 0.0 back as those bits.
    bits = format.special == internal::MiniFloatFormat::Special::kE8M0 && p.value == 0
               ? 0
               : internal::DoubleToMiniFloat(format, p.value);
  }
  FillValue f{Buffer(dtype.size())};
  if (dtype.size() == 2) {
    Put<uint16_t>(f.bytes, 0, static_cast<uint16_t>(bits));
  } else {
    Put<uint8_t>(f.bytes, 0, static_cast<uint8_t>(bits));
  }
  return f;
}

nlohmann::json MiniFloatToJson(const FillValue& fill, const DataType& dtype,
                               int zarr_format) {
  if (zarr_format == 2 && dtype.id() == DataTypeId::kFloat4E2M1FN) {
    return internal::Base64Encode(fill.bytes.chars());
  }
  const internal::MiniFloatFormat& format = *internal::MiniFloatFormatOf(dtype.id());
  const uint32_t mask = (uint32_t{1} << format.bits) - 1;
  const uint32_t bits =
      (dtype.size() == 2 ? Get<uint16_t>(fill.bytes, 0) : Get<uint8_t>(fill.bytes, 0)) & mask;
  const double v = internal::MiniFloatToDouble(format, bits);
  if (std::isnan(v)) {
    if (bits == format.canonical_nan) return "NaN";
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%0*x", static_cast<int>(dtype.size() * 2), bits);
    return hex;
  }
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

// ---- times -------------------------------------------------------------

constexpr int64_t kNaT = std::numeric_limits<int64_t>::min();

Result<FillValue> ParseTime(const nlohmann::json& j, const DataType& dtype) {
  int64_t v = 0;
  if (j.is_string() && j.get_ref<const std::string&>() == "NaT") {
    v = kNaT;
  } else if (j.is_number_integer() || j.is_number_unsigned()) {
    if (j.is_number_unsigned() &&
        j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return BadFill(j, dtype, "out of range");
    }
    v = j.get<int64_t>();
  } else {
    return BadFill(j, dtype, "expected an integer count or \"NaT\"");
  }
  FillValue f{Buffer(8)};
  Put<int64_t>(f.bytes, 0, v);
  return f;
}

// ---- structs -----------------------------------------------------------

// zarr-python's default for a field a fill value object leaves out: NaT for
// times, zero otherwise.
FillValue FieldDefault(const DataType& dtype) {
  FillValue f = DefaultFillValue(dtype);
  if (dtype.is_time()) Put<int64_t>(f.bytes, 0, kNaT);
  return f;
}

Result<FillValue> ParseStruct(const nlohmann::json& j, const DataType& dtype, int zarr_format) {
  if (j.is_string()) return ParseExactBase64(j, dtype);
  FillValue f{Buffer(dtype.size())};
  if (!j.is_object()) return BadFill(j, dtype, "expected an object of field values");
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const StructField& field : dtype.fields()) known = known || field.name == it.key();
    if (!known) return BadFill(j, dtype, "no field '" + it.key() + "'");
  }
  for (const StructField& field : dtype.fields()) {
    FillValue value;
    auto given = j.find(field.name);
    if (given == j.end()) {
      value = FieldDefault(field.dtype);
    } else if (!field.shape.empty()) {
      return BadFill(j, dtype, "field '" + field.name + "' has a shape: use base64 bytes");
    } else {
      auto parsed = ParseFillValue(*given, field.dtype, zarr_format);
      if (!parsed.ok()) return parsed.status().WithContext("field '" + field.name + "'");
      value = *std::move(parsed);
    }
    // A shaped field's default repeats the element's.
    for (size_t at = 0; at < field.size(); at += field.dtype.size()) {
      std::memcpy(f.bytes.data() + field.offset + at, value.bytes.data(), field.dtype.size());
    }
  }
  return f;
}

nlohmann::ordered_json StructToJson(const FillValue& fill, const DataType& dtype,
                                    int zarr_format) {
  bool shaped = false;
  for (const StructField& field : dtype.fields()) shaped = shaped || !field.shape.empty();
  if (zarr_format == 2 || shaped) return internal::Base64Encode(fill.bytes.chars());
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const StructField& field : dtype.fields()) {
    FillValue value{Buffer(field.dtype.size())};
    std::memcpy(value.bytes.data(), fill.bytes.data() + field.offset, field.dtype.size());
    out[field.name] = FillValueToJson(value, field.dtype, zarr_format);
  }
  return out;
}

}  // namespace

bool FillValue::IsAllZero() const {
  for (std::byte b : bytes.view()) {
    if (b != std::byte{0}) return false;
  }
  return true;
}

FillValue DefaultFillValue(const DataType& dtype) {
  if (dtype.is_variable_length()) return FillValue{};
  FillValue f{Buffer(dtype.size())};
  std::memset(f.bytes.data(), 0, dtype.size());
  return f;
}

Result<FillValue> ParseFillValue(const nlohmann::json& j, const DataType& dtype,
                                 int zarr_format) {
  if (j.is_null()) {
    if (zarr_format == 2) return DefaultFillValue(dtype);
    return BadFill(j, dtype, "zarr v3 requires a fill value");
  }
  DataTypeId id = dtype.id();
  if (id == DataTypeId::kBool) {
    if (j.is_boolean()) {
      FillValue f{Buffer(1)};
      f.bytes.data()[0] = std::byte{j.get<bool>() ? uint8_t{1} : uint8_t{0}};
      return f;
    }
    if (j.is_number()) {
      FillValue f{Buffer(1)};
      f.bytes.data()[0] = std::byte{j.get<double>() != 0 ? uint8_t{1} : uint8_t{0}};
      return f;
    }
    return BadFill(j, dtype, "expected true or false");
  }
  if (IsInteger(id)) return ParseInteger(j, dtype);
  if (dtype.is_low_precision_float()) return ParseMiniFloat(j, dtype, zarr_format);
  if (IsFloat(id)) {
    TZ_ASSIGN_OR_RETURN(ParsedFloat p, ParseFloatJson(j, dtype.size(), dtype));
    FillValue f{Buffer(dtype.size())};
    PutFloat(f.bytes, 0, dtype.size(), p);
    return f;
  }
  switch (id) {
    case DataTypeId::kComplex64:
    case DataTypeId::kComplex128: {
      if (!j.is_array() || j.size() != 2)
        return BadFill(j, dtype, "expected [real, imag]");
      size_t w = dtype.size() / 2;
      FillValue f{Buffer(dtype.size())};
      for (size_t k = 0; k < 2; ++k) {
        TZ_ASSIGN_OR_RETURN(ParsedFloat p, ParseFloatJson(j[k], w, dtype));
        PutFloat(f.bytes, k * w, w, p);
      }
      return f;
    }
    case DataTypeId::kRawBits:
      return ParseRawBits(j, dtype);
    case DataTypeId::kFixedBytes:
      return ParseFixedBytes(j, dtype);
    case DataTypeId::kFixedUnicode:
      return ParseFixedUnicode(j, dtype);
    case DataTypeId::kString:
      return ParseString(j, dtype);
    case DataTypeId::kBytes: {
      TZ_ASSIGN_OR_RETURN(std::string raw, DecodeBase64Fill(j, dtype));
      return FillValue{Buffer::FromString(raw)};
    }
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64:
      return ParseTime(j, dtype);
    case DataTypeId::kStruct:
      return ParseStruct(j, dtype, zarr_format);
    default:
      return BadFill(j, dtype, "unknown data type");
  }
}

nlohmann::ordered_json FillValueToJson(const FillValue& fill, const DataType& dtype,
                                       int zarr_format) {
  DataTypeId id = dtype.id();
  if (!dtype.is_variable_length() && fill.bytes.size() != dtype.size()) {
    return nullptr;  // not a value of this type; callers validate before writing
  }
  if (id == DataTypeId::kBool) return fill.bytes.data()[0] != std::byte{0};
  if (IsInteger(id)) return IntegerToJson(fill, dtype);
  if (dtype.is_low_precision_float()) return MiniFloatToJson(fill, dtype, zarr_format);
  if (IsFloat(id)) return FloatToJson(fill.bytes, 0, dtype.size(), zarr_format);
  switch (id) {
    case DataTypeId::kComplex64:
    case DataTypeId::kComplex128: {
      size_t w = dtype.size() / 2;
      return nlohmann::json::array({FloatToJson(fill.bytes, 0, w, zarr_format),
                                    FloatToJson(fill.bytes, w, w, zarr_format)});
    }
    case DataTypeId::kRawBits:
      return internal::Base64Encode(fill.bytes.chars());
    case DataTypeId::kFixedBytes:
      // numpy reads a fixed bytes element without its trailing NULs.
      return internal::Base64Encode(StripTrailingNuls(fill.bytes.chars()));
    case DataTypeId::kFixedUnicode: {
      std::string out;
      size_t n = dtype.size() / 4;
      while (n > 0 && Get<uint32_t>(fill.bytes, (n - 1) * 4) == 0) --n;
      for (size_t i = 0; i < n; ++i) AppendUtf8(out, static_cast<char32_t>(Get<uint32_t>(fill.bytes, i * 4)));
      return out;
    }
    case DataTypeId::kString:
      return std::string(fill.bytes.chars());
    case DataTypeId::kBytes:
      return internal::Base64Encode(fill.bytes.chars());
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64:
      return Get<int64_t>(fill.bytes, 0);
    case DataTypeId::kStruct:
      return StructToJson(fill, dtype, zarr_format);
    default:
      return nullptr;
  }
}

}  // namespace turbozarr
