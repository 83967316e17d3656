// ElementBlock: memory for a run of elements of one DataType, laid out as
// Array::Read fills it and Array::Write takes it: packed native values, or
// one std::string per element for variable-length types. Packed memory
// comes from Buffer (aligned, and recycled when large).
//
// Thread safety: a value; no internal synchronisation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/dtype.h"

namespace turbozarr {

class ElementBlock {
 public:
  ElementBlock() = default;
  ElementBlock(const DataType& dtype, int64_t count) : count_(count), dtype_(dtype) {
    if (dtype.is_variable_length()) {
      strings_.resize(static_cast<size_t>(count));
    } else {
      bytes_.Resize(static_cast<size_t>(count) * dtype.size());
    }
  }

  void* data() {
    return strings_.empty() ? static_cast<void*>(bytes_.data()) : strings_.data();
  }
  const void* data() const {
    return strings_.empty() ? static_cast<const void*>(bytes_.data()) : strings_.data();
  }
  int64_t count() const { return count_; }
  const DataType& dtype() const { return dtype_; }

  // The packed bytes, handed over without a copy; the block is left empty.
  Buffer TakeBytes() {
    count_ = 0;
    return std::move(bytes_);
  }

 private:
  int64_t count_ = 0;
  DataType dtype_;
  Buffer bytes_;
  std::vector<std::string> strings_;
};

// Bytes one element occupies in memory, with an allowance for the text of
// variable-length elements, for sizing blocks against a memory budget.
inline uint64_t ElementMemoryEstimate(const DataType& dtype) {
  return dtype.is_variable_length() ? sizeof(std::string) + 64 : dtype.size();
}

}  // namespace turbozarr
