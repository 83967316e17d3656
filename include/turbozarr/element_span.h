// ElementSpan: caller memory that a read fills, with its element type and
// count, so that Array::Read checks what it was handed against the array
// and the selection instead of trusting a bare pointer.
//
// The layout is turbozarr's in-memory layout (turbozarr/dtype.h): packed
// values in native byte order, C order; one std::string per element for
// the variable-length types.
//
// Thread safety: a view of memory it does not own; no synchronisation.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "turbozarr/dtype.h"
#include "turbozarr/element_block.h"
#include "turbozarr/status.h"

namespace turbozarr {

// The data type whose elements are C++ values of type T, for the types that
// name exactly one: bool, the fixed-width integers, float, double and
// std::complex of those two. Others (float16, fixed-size strings, raw bits)
// have no C++ value type: name their DataType explicitly.
template <typename T>
constexpr std::optional<DataTypeId> DataTypeIdOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) return DataTypeId::kBool;
  if constexpr (std::is_same_v<U, int8_t>) return DataTypeId::kInt8;
  if constexpr (std::is_same_v<U, int16_t>) return DataTypeId::kInt16;
  if constexpr (std::is_same_v<U, int32_t>) return DataTypeId::kInt32;
  if constexpr (std::is_same_v<U, int64_t>) return DataTypeId::kInt64;
  if constexpr (std::is_same_v<U, uint8_t>) return DataTypeId::kUInt8;
  if constexpr (std::is_same_v<U, uint16_t>) return DataTypeId::kUInt16;
  if constexpr (std::is_same_v<U, uint32_t>) return DataTypeId::kUInt32;
  if constexpr (std::is_same_v<U, uint64_t>) return DataTypeId::kUInt64;
  if constexpr (std::is_same_v<U, float>) return DataTypeId::kFloat32;
  if constexpr (std::is_same_v<U, double>) return DataTypeId::kFloat64;
  if constexpr (std::is_same_v<U, std::complex<float>>) return DataTypeId::kComplex64;
  if constexpr (std::is_same_v<U, std::complex<double>>) return DataTypeId::kComplex128;
  return std::nullopt;
}

class ElementSpan {
 public:
  // `count` elements of `dtype` at `data`.
  ElementSpan(void* data, const DataType& dtype, int64_t count)
      : data_(data), count_(count), dtype_(dtype) {}

  // The elements of `values`, their type following from T (DataTypeIdOf),
  // or, for std::string, either variable-length type (string or bytes).
  template <typename T>
  ElementSpan(std::span<T> values)  // NOLINT: a typed view converts implicitly
      : data_(values.data()), count_(static_cast<int64_t>(values.size())) {
    static_assert(!std::is_const_v<T>, "a read needs writable memory");
    if constexpr (std::is_same_v<T, std::string>) {
      any_variable_length_ = true;
    } else {
      static_assert(DataTypeIdOf<T>().has_value(),
                    "no data type has these C++ values: name the DataType "
                    "explicitly with ElementSpan(data, dtype, count)");
      dtype_ = DataType(*DataTypeIdOf<T>());
    }
  }
  template <typename T>
  ElementSpan(std::vector<T>& values)  // NOLINT: as above
      : ElementSpan(std::span<T>(values)) {}

  // The elements of `block`.
  ElementSpan(ElementBlock& block)  // NOLINT: as above
      : data_(block.data()), count_(block.count()), dtype_(block.dtype()) {}

  void* data() const { return data_; }
  int64_t count() const { return count_; }

  // OK when the span holds exactly `count` elements of `dtype`; otherwise
  // InvalidArgument saying what it holds and what is needed.
  Status CheckHolds(const DataType& dtype, int64_t count) const {
    const bool type_ok =
        any_variable_length_ ? dtype.is_variable_length() : dtype_ == dtype;
    if (type_ok && count_ == count) return Status::OK();
    return Status::InvalidArgument(
        "the destination holds " + std::to_string(count_) + " elements of " +
        (any_variable_length_ ? std::string("std::string") : dtype_.ToString()) +
        ", the read needs " + std::to_string(count) + " of " + dtype.ToString());
  }

 private:
  void* data_ = nullptr;
  int64_t count_ = 0;
  DataType dtype_;
  bool any_variable_length_ = false;  // std::string elements: string or bytes
};

}  // namespace turbozarr
