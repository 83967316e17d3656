// FieldBlock: one VCZ field's values for a run of variants, read in one
// call, with the spec's sentinels told apart: for signed integers -1 is
// missing and -2 fill (the padding past the end of a shorter vector); for
// floats two NaN payloads (0x7F800001 missing, 0x7F800002 fill, and their
// float64 counterparts); for strings "." missing and "" fill; a boolean is
// "missing" when false (vcztools' rule), and has no fill.
//
// Thread safety: a value; read-only use from many threads is safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/element_block.h"
#include "turbozarr/status.h"

namespace turbozarr::vcz::internal {

class FieldBlock {
 public:
  // Rows [first, first + count) of `array` (its first dimension is the
  // variants'), every other dimension whole; or, given `samples` for an
  // array with a samples dimension (the second), only the samples
  // [samples.first, samples.second) of it are read: the others must not be
  // asked for. Indexes stay those of the whole row either way.
  // `options`: the threads the read runs on.
  static Result<FieldBlock> Read(const Array& array, int64_t first, int64_t count,
                                 std::optional<std::pair<int64_t, int64_t>> samples = {},
                                 const ReadOptions& options = {});

  // The rows `rows` of this block (in that order) as a block of their own:
  // what a filter evaluates when a selection keeps few rows of a block.
  FieldBlock Rows(const std::vector<int64_t>& rows) const;
  // The rows [first, first + count) of this block as a block of their own;
  // Take moves their strings out (the block keeps its numbers, and empty
  // strings in their place).
  FieldBlock RowRange(int64_t first, int64_t count) const;
  FieldBlock TakeRowRange(int64_t first, int64_t count);

  // The array's rank: 1 for one value per variant.
  size_t rank() const { return rank_; }
  // Values per variant (the product of the dimensions after the first),
  // and per sample for call fields (the product after the second).
  int64_t per_variant() const { return per_variant_; }
  int64_t per_row_of(size_t dims_from) const;
  bool is_string() const { return !strings_.empty() || string_type_; }
  bool is_bool() const { return dtype_.id() == DataTypeId::kBool; }
  bool is_float() const;
  DataTypeId type_id() const { return dtype_.id(); }
  const DataType& dtype() const { return dtype_; }
  // The values as read: numbers and booleans in `numbers()` (the array's
  // type, C order), strings as text in `strings()`.
  const ElementBlock& numbers() const { return numbers_; }
  const std::vector<std::string>& strings() const { return strings_; }

  // Element `i` of variant `row` (flat, C order).
  bool IsMissing(int64_t row, int64_t i) const;
  bool IsFill(int64_t row, int64_t i) const;
  // As numpy's str prints it ("5", "0.687", "True", "nan"), strings as they are.
  std::string Text(int64_t row, int64_t i) const;
  int64_t Integer(int64_t row, int64_t i) const;
  double Float(int64_t row, int64_t i) const;
  bool Bool(int64_t row, int64_t i) const;
  const std::string& String(int64_t row, int64_t i) const;
  // Where element `i` of variant `row` is held: numbers as stored, and
  // strings; elements of a row that were read lie one after the other.
  const uint8_t* NumberAt(int64_t row, int64_t i) const {
    return static_cast<const uint8_t*>(numbers_.data()) +
           At(row, i) * static_cast<int64_t>(dtype_.size());
  }
  const std::string* StringAt(int64_t row, int64_t i) const {
    return &strings_[static_cast<size_t>(At(row, i))];
  }
  // Whether each row read is exactly elements [first, first + n) of a
  // variant's: then the values of all rows, in order, are numbers().
  bool ReadExactly(int64_t first, int64_t n) const {
    return first == first_read_ && n == per_variant_read_;
  }
  // The numbers, handed over without a copy; the block has none after.
  Buffer TakeNumbers() { return numbers_.TakeBytes(); }

 private:
  // Row-major over what was read: `first_read_` is the first element of a
  // row that was, `per_variant_read_` how many were.
  int64_t At(int64_t row, int64_t i) const {
    return row * per_variant_read_ + (i - first_read_);
  }
  // A block of this one's shape, type and window, without values.
  FieldBlock Shell() const;

  DataType dtype_;
  size_t rank_ = 1;
  std::vector<int64_t> shape_;  // of one variant's values
  int64_t per_variant_ = 1;
  int64_t per_variant_read_ = 1;
  int64_t first_read_ = 0;
  bool string_type_ = false;
  ElementBlock numbers_;
  std::vector<std::string> strings_;
};

}  // namespace turbozarr::vcz::internal
