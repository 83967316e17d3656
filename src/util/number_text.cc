#include "turbozarr/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace turbozarr {
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
std::string Shortest(T value, bool add_dot_zero) {
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

}  // namespace

std::string FormatShortest(double value, NumberText style) {
  return Shortest(value, style == NumberText::kRepr);
}
std::string FormatShortest(float value, NumberText style) {
  return Shortest(value, style == NumberText::kRepr);
}
std::string FormatHalf(uint16_t bits, NumberText style) {
  return FormatHalfImpl(bits, style == NumberText::kRepr);
}

}  // namespace turbozarr
