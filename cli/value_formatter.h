// Text for array values, as `turbozarr cat` prints them: one element
// (FormatElement) or a whole block with numpy's nested brackets
// (ArrayPrinter).
//
// Numbers follow Python's repr: integers in decimal, floats with the fewest
// digits that read back to the same value (turbozarr/number_text.h),
// complex numbers as "(1+2j)", booleans as True/False. Strings print as
// JSON strings ("a\"b"), byte strings as b"..." with \xNN escapes.
//
// Thread safety: FormatElement is a pure function; an ArrayPrinter is used by
// one thread.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "turbozarr/dtype.h"

namespace turbozarr::cli {

// Appends the text of the element at `element` (laid out as Array::Read
// writes it: native numbers, std::string for variable-length types).
void AppendElement(const DataType& dtype, const void* element, std::string& out);

// Prints a C-order block of `shape` as nested brackets, fed in pieces:
//   [[0, 1, 2],
//    [3, 4, 5]]
// A zero-dimensional block prints its single element bare.
class ArrayPrinter {
 public:
  ArrayPrinter(DataType dtype, std::vector<int64_t> shape, std::ostream& out);

  // Prints the next `count` elements, read from `elements`.
  void Add(const void* elements, int64_t count);
  // Closes the brackets and ends the line. REQUIRES: every element was added.
  void Finish();

 private:
  void Flush();

  DataType dtype_;
  std::vector<int64_t> shape_;
  std::ostream& out_;
  std::vector<int64_t> index_;  // multi-index of the next element
  int64_t printed_ = 0;
  int64_t total_ = 1;
  std::string pending_;
};

}  // namespace turbozarr::cli
