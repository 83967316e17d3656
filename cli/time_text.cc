#include "cli/time_text.h"

#include <cstdio>
#include <limits>

namespace turbozarr::cli {
namespace {

constexpr int64_t kNaT = std::numeric_limits<int64_t>::min();

// Floor division and its non-negative remainder.
__int128 FloorDiv(__int128 a, __int128 b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
__int128 FloorMod(__int128 a, __int128 b) { return a - FloorDiv(a, b) * b; }

// The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's
// civil_from_days).
void CivilFromDays(__int128 days, int64_t& y, unsigned& m, unsigned& d) {
  days += 719468;
  const __int128 era = FloorDiv(days, 146097);
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe + era * 400) + (m <= 2);
}

std::string Date(int64_t y, unsigned m, unsigned d) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

struct SubDayUnit {
  std::string_view name;
  __int128 per_day;
  int fraction_digits;  // digits after the seconds
};

}  // namespace

std::string DateTimeText(int64_t count, std::string_view unit, int64_t scale) {
  if (count == kNaT) return "NaT";
  const __int128 v = static_cast<__int128>(count) * scale;
  if (unit == "generic") return std::to_string(static_cast<long long>(v));
  if (unit == "Y") {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(1970 + v));
    return buf;
  }
  if (unit == "M") {
    char buf[48];
    std::snprintf(buf, sizeof(buf), "%04lld-%02d",
                  static_cast<long long>(1970 + FloorDiv(v, 12)),
                  static_cast<int>(FloorMod(v, 12)) + 1);
    return buf;
  }
  int64_t y;
  unsigned m, d;
  if (unit == "W" || unit == "D") {
    CivilFromDays(unit == "W" ? v * 7 : v, y, m, d);
    return Date(y, m, d);
  }
  constexpr __int128 kSec = 86400;
  static const SubDayUnit kUnits[] = {
      {"h", 24, -3},
      {"m", 1440, -2},
      {"s", kSec, 0},
      {"ms", kSec * 1000, 3},
      {"us", kSec * 1000000, 6},
      {"ns", kSec * 1000000000, 9},
      {"ps", kSec * 1000000000000, 12},
      {"fs", kSec * 1000000000000000, 15},
      {"as", kSec * 1000000000000000000, 18},
  };
  for (const SubDayUnit& u : kUnits) {
    if (u.name != unit) continue;
    CivilFromDays(FloorDiv(v, u.per_day), y, m, d);
    __int128 ticks = FloorMod(v, u.per_day);
    const __int128 per_second = u.fraction_digits > 0 ? u.per_day / kSec : 1;
    __int128 fraction = FloorMod(ticks, per_second);
    __int128 seconds = u.fraction_digits > 0 ? ticks / per_second : ticks;
    if (u.fraction_digits == -3) seconds = ticks * 3600;
    if (u.fraction_digits == -2) seconds = ticks * 60;
    const int hh = static_cast<int>(seconds / 3600);
    const int mm = static_cast<int>(seconds / 60 % 60);
    const int ss = static_cast<int>(seconds % 60);
    char buf[96];
    std::string out = Date(y, m, d);
    if (u.fraction_digits == -3) {
      std::snprintf(buf, sizeof(buf), "T%02d", hh);
    } else if (u.fraction_digits == -2) {
      std::snprintf(buf, sizeof(buf), "T%02d:%02d", hh, mm);
    } else {
      std::snprintf(buf, sizeof(buf), "T%02d:%02d:%02d", hh, mm, ss);
    }
    out += buf;
    if (u.fraction_digits > 0) {
      std::string digits(static_cast<size_t>(u.fraction_digits), '0');
      for (int i = u.fraction_digits - 1; i >= 0; --i) {
        digits[static_cast<size_t>(i)] = static_cast<char>('0' + static_cast<int>(fraction % 10));
        fraction /= 10;
      }
      out += "." + digits;
    }
    return out;
  }
  return std::to_string(static_cast<long long>(count));  // unreachable: units are checked
}

std::string TimeDeltaText(int64_t count, int64_t scale) {
  if (count == kNaT) return "NaT";
  const __int128 v = static_cast<__int128>(count) * scale;
  if (v > std::numeric_limits<long long>::max() || v < std::numeric_limits<long long>::min()) {
    // Past int64: print the exact product by parts.
    const __int128 hi = v / 1000000000000000000;
    const __int128 lo = v % 1000000000000000000;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%lld%018lld", static_cast<long long>(hi),
                  static_cast<long long>(lo < 0 ? -lo : lo));
    return buf;
  }
  return std::to_string(static_cast<long long>(v));
}

}  // namespace turbozarr::cli
