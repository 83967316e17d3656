// Floating-point numbers as Python and numpy print them: the fewest digits
// that read back to the same value ("0.1", "0.33333334" for a float32,
// "1e-05", "nan", "-inf"), positional between 1e-4 and 1e16 and scientific
// outside. `turbozarr cat` prints elements with them, and the VCF Zarr
// outputs format values as vcztools (numpy's str) does.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace turbozarr {

enum class NumberText {
  kRepr,  // Python's repr: integral values keep ".0" ("1.0", "1e+16")
  kBare,  // without the ".0" ("1"), as in the parts of a complex repr
};

// The shortest text that reads back to `value` at its own precision.
std::string FormatShortest(double value, NumberText style = NumberText::kRepr);
std::string FormatShortest(float value, NumberText style = NumberText::kRepr);
// A binary16 value given by its bits.
std::string FormatHalf(uint16_t bits, NumberText style = NumberText::kRepr);

}  // namespace turbozarr
