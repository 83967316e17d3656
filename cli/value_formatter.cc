#include "cli/value_formatter.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cli/time_text.h"
#include "turbozarr/number_text.h"
#include "turbozarr/utf8.h"

namespace turbozarr::cli {
namespace {

// Python's complex repr: "1j" when the real part is +0, else "(re±imj)",
// parts without a forced ".0".
template <typename T>
std::string FormatComplex(T re, T im) {
  std::string imag = FormatShortest(im, NumberText::kBare);
  if (re == 0 && !std::signbit(re)) return imag + "j";
  if (imag.front() != '-') imag = "+" + imag;
  return "(" + FormatShortest(re, NumberText::kBare) + imag + "j)";
}

// b"..." with printable ASCII kept and everything else escaped.
void AppendByteString(std::string_view bytes, std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  out += "b\"";
  for (unsigned char c : bytes) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        }
    }
  }
  out += '"';
}

void AppendJsonString(std::string_view text, std::string& out) {
  out += nlohmann::json(std::string(text))
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename T>
T Load(const void* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// A low-precision number: int2/int4 in decimal; a float with the fewest
// significant digits that read back (rounded to the type) to the same bits,
// then printed as Python prints that double ("0.334", "1.0", "nan").
std::string FormatLowPrecision(const DataType& dtype, const void* p) {
  const double value = LowPrecisionValue(dtype, p);
  if (dtype.is_narrow_integer()) return std::to_string(static_cast<int>(value));
  // Whole numbers print whole ("448.0", not the "450.0" that would also
  // read back as 448 in float8_e4m3fn).
  if (!std::isfinite(value) || value == std::trunc(value)) return FormatShortest(value);
  const uint32_t mask = (uint32_t{1} << dtype.value_bits()) - 1;
  uint16_t want = 0;
  std::memcpy(&want, p, dtype.size());
  for (int digits = 1; digits < 17; ++digits) {
    char text[40];
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    const double back = std::strtod(text, nullptr);
    uint16_t got = 0;
    LowPrecisionFromDouble(dtype, back, &got);
    if (((got ^ want) & mask) == 0) return FormatShortest(back);
  }
  return FormatShortest(value);
}

}  // namespace


void AppendElement(const DataType& dtype, const void* p, std::string& out) {
  if (dtype.is_low_precision_float() || dtype.is_narrow_integer()) {
    out += FormatLowPrecision(dtype, p);
    return;
  }
  switch (dtype.id()) {
    case DataTypeId::kBool:
      out += Load<uint8_t>(p) ? "True" : "False";
      return;
    case DataTypeId::kInt8:
      out += std::to_string(Load<int8_t>(p));
      return;
    case DataTypeId::kInt16:
      out += std::to_string(Load<int16_t>(p));
      return;
    case DataTypeId::kInt32:
      out += std::to_string(Load<int32_t>(p));
      return;
    case DataTypeId::kInt64:
      out += std::to_string(Load<int64_t>(p));
      return;
    case DataTypeId::kUInt8:
      out += std::to_string(Load<uint8_t>(p));
      return;
    case DataTypeId::kUInt16:
      out += std::to_string(Load<uint16_t>(p));
      return;
    case DataTypeId::kUInt32:
      out += std::to_string(Load<uint32_t>(p));
      return;
    case DataTypeId::kUInt64:
      out += std::to_string(Load<uint64_t>(p));
      return;
    case DataTypeId::kFloat16:
      out += FormatHalf(Load<uint16_t>(p));
      return;
    case DataTypeId::kFloat32:
      out += FormatShortest(Load<float>(p));
      return;
    case DataTypeId::kFloat64:
      out += FormatShortest(Load<double>(p));
      return;
    case DataTypeId::kComplex64: {
      auto c = Load<std::complex<float>>(p);
      out += FormatComplex(c.real(), c.imag());
      return;
    }
    case DataTypeId::kComplex128: {
      auto c = Load<std::complex<double>>(p);
      out += FormatComplex(c.real(), c.imag());
      return;
    }
    case DataTypeId::kRawBits:
      AppendByteString(std::string_view(static_cast<const char*>(p), dtype.size()), out);
      return;
    case DataTypeId::kFixedBytes: {
      // numpy drops the NUL padding of "S" values.
      std::string_view s(static_cast<const char*>(p), dtype.size());
      while (!s.empty() && s.back() == '\0') s.remove_suffix(1);
      AppendByteString(s, out);
      return;
    }
    case DataTypeId::kFixedUnicode: {
      size_t n = dtype.size() / 4;
      while (n > 0 && Load<char32_t>(static_cast<const char*>(p) + 4 * (n - 1)) == 0) --n;
      std::string utf8;
      for (size_t i = 0; i < n; ++i) {
        AppendUtf8(utf8, Load<char32_t>(static_cast<const char*>(p) + 4 * i));
      }
      AppendJsonString(utf8, out);
      return;
    }
    case DataTypeId::kString:
      AppendJsonString(*static_cast<const std::string*>(p), out);
      return;
    case DataTypeId::kBytes:
      AppendByteString(*static_cast<const std::string*>(p), out);
      return;
    case DataTypeId::kDateTime64:
      AppendJsonString(DateTimeText(Load<int64_t>(p), dtype.time_unit(), dtype.time_scale()),
                       out);
      return;
    case DataTypeId::kTimeDelta64:
      out += TimeDeltaText(Load<int64_t>(p), dtype.time_scale());
      return;
    case DataTypeId::kStruct: {
      // numpy prints a struct element as a tuple; a shaped field as a list.
      out += '(';
      for (const StructField& f : dtype.fields()) {
        if (&f != &dtype.fields().front()) out += ", ";
        const auto* at = static_cast<const char*>(p) + f.offset;
        if (f.shape.empty()) {
          AppendElement(f.dtype, at, out);
          continue;
        }
        out += '[';
        for (size_t k = 0; k * f.dtype.size() < f.size(); ++k) {
          if (k > 0) out += ", ";
          AppendElement(f.dtype, at + k * f.dtype.size(), out);
        }
        out += ']';
      }
      out += ')';
      return;
    }
    default:
      return;  // the low-precision types, handled above
  }
}

ArrayPrinter::ArrayPrinter(DataType dtype, std::vector<int64_t> shape, std::ostream& out)
    : dtype_(dtype), shape_(std::move(shape)), out_(out), index_(shape_.size(), 0) {
  for (int64_t extent : shape_) total_ *= extent;
}

void ArrayPrinter::Add(const void* elements, int64_t count) {
  const size_t rank = shape_.size();
  const char* p = static_cast<const char*>(elements);
  for (int64_t i = 0; i < count; ++i, p += dtype_.size()) {
    if (printed_ == 0) pending_.append(rank, '[');
    AppendElement(dtype_, p, pending_);
    ++printed_;
    // Advance the multi-index; `closed` counts the dimensions that wrapped.
    size_t closed = 0;
    for (size_t d = rank; d-- > 0;) {
      if (++index_[d] < shape_[d]) break;
      index_[d] = 0;
      ++closed;
    }
    if (printed_ < total_) {
      if (closed == 0) {
        pending_ += ", ";
      } else {
        pending_.append(closed, ']');
        pending_ += ',';
        pending_.append(closed, '\n');
        pending_.append(rank - closed, ' ');
        pending_.append(closed, '[');
      }
    }
    if (pending_.size() > (1 << 16)) Flush();
  }
}

void ArrayPrinter::Finish() {
  if (total_ == 0) {
    pending_ += "[]";
  } else {
    pending_.append(shape_.size(), ']');
  }
  pending_ += '\n';
  Flush();
}

void ArrayPrinter::Flush() {
  out_ << pending_;
  pending_.clear();
}

}  // namespace turbozarr::cli
