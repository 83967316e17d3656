#include "cli/value_formatter.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "turbozarr/utf8.h"

namespace turbozarr::cli {
namespace {

// A finite value's shortest digits ("15") and the decimal point's position
// relative to them (value = 0.15 * 10^decpt), parsed from "d.ddde±XX".
struct Decimal {
  bool negative = false;
  std::string digits;
  int decpt = 0;
};

Decimal ParseScientific(std::string_view text) {
  Decimal d;
  if (!text.empty() && text.front() == '-') {
    d.negative = true;
    text.remove_prefix(1);
  }
  size_t e = text.find('e');
  for (char c : text.substr(0, e)) {
    if (c != '.') d.digits += c;
  }
  int exponent = 0;
  std::string_view exp_text = text.substr(e + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  d.decpt = exponent + 1;
  return d;
}

// Python's float repr layout (format code 'r'): positional notation for
// -4 < decpt <= 16, else scientific with a signed two-digit exponent.
std::string LayOut(const Decimal& d, bool add_dot_zero) {
  std::string out = d.negative ? "-" : "";
  const int n = static_cast<int>(d.digits.size());
  if (d.decpt <= -4 || d.decpt > 16) {
    out += d.digits[0];
    if (n > 1) out += "." + d.digits.substr(1);
    int exponent = d.decpt - 1;
    out += exponent < 0 ? "e-" : "e+";
    std::string e = std::to_string(std::abs(exponent));
    if (e.size() < 2) e = "0" + e;
    return out + e;
  }
  if (d.decpt <= 0) return out + "0." + std::string(-d.decpt, '0') + d.digits;
  if (d.decpt >= n) {
    out += d.digits + std::string(d.decpt - n, '0');
    return add_dot_zero ? out + ".0" : out;
  }
  return out + d.digits.substr(0, d.decpt) + "." + d.digits.substr(d.decpt);
}

std::string NonFinite(double value) {
  if (std::isnan(value)) return "nan";
  return value < 0 ? "-inf" : "inf";
}

template <typename T>
std::string FormatShortest(T value, bool add_dot_zero) {
  if (!std::isfinite(value)) return NonFinite(value);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  return LayOut(ParseScientific(std::string_view(buf, r.ptr - buf)), add_dot_zero);
}

double HalfToDouble(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? std::nan("") : INFINITY;
  } else {
    magnitude = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return (bits & 0x8000) ? -magnitude : magnitude;
}

// Whether `candidate` (a magnitude) rounds to the half of magnitude bits
// `mag` under round-to-nearest-even. Half values and their midpoints are
// exact in double.
bool RoundsToHalf(double candidate, uint16_t mag) {
  const double v = HalfToDouble(mag);
  const double lo = HalfToDouble(mag - 1);
  const double hi = mag == 0x7bff ? 65536.0 : HalfToDouble(mag + 1);
  const bool even = (mag & 1) == 0;
  const double low_mid = (lo + v) / 2;
  const double high_mid = (v + hi) / 2;
  return (candidate > low_mid || (candidate == low_mid && even)) &&
         (candidate < high_mid || (candidate == high_mid && even));
}

std::string FormatHalfImpl(uint16_t bits, bool add_dot_zero) {
  const double value = HalfToDouble(bits);
  if (!std::isfinite(value)) return NonFinite(value);
  const uint16_t mag = bits & 0x7fff;
  if (mag == 0)
    return (bits & 0x8000) ? (add_dot_zero ? "-0.0" : "-0")
                           : (add_dot_zero ? "0.0" : "0");
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    int n = std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, value);
    if (RoundsToHalf(std::fabs(std::strtod(buf, nullptr)), mag) || precision == 17) {
      return LayOut(ParseScientific(std::string_view(buf, n)), add_dot_zero);
    }
  }
  return "";  // unreachable: precision 17 always returns
}

// Python's complex repr: "1j" when the real part is +0, else "(re±imj)",
// parts without a forced ".0".
template <typename T>
std::string FormatComplex(T re, T im) {
  std::string imag = FormatShortest(im, false);
  if (re == 0 && !std::signbit(re)) return imag + "j";
  if (imag.front() != '-') imag = "+" + imag;
  return "(" + FormatShortest(re, false) + imag + "j)";
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

}  // namespace

std::string FormatDouble(double value) { return FormatShortest(value, true); }
std::string FormatFloat(float value) { return FormatShortest(value, true); }
std::string FormatHalf(uint16_t bits) { return FormatHalfImpl(bits, true); }

void AppendElement(const DataType& dtype, const void* p, std::string& out) {
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
      out += FormatFloat(Load<float>(p));
      return;
    case DataTypeId::kFloat64:
      out += FormatDouble(Load<double>(p));
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
