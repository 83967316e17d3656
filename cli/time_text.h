// Text for datetime64 / timedelta64 values as numpy prints them: a datetime
// as an ISO 8601 string at its unit's precision ("2020-01-01T00:00:00.000"),
// a timedelta as its count of units, and NaT as "NaT".
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace turbozarr::cli {

// `count` multiples of `scale` `unit`s since 1970-01-01T00:00 (the units of
// DataType::Time; "generic" prints the bare count).
std::string DateTimeText(int64_t count, std::string_view unit, int64_t scale);
std::string TimeDeltaText(int64_t count, int64_t scale);

}  // namespace turbozarr::cli
