#include "vcz/vcz_arrays.h"

#include <cstring>

#include "turbozarr/element_block.h"
#include "turbozarr/selection.h"
#include "turbozarr/utf8.h"

namespace turbozarr::vcz::internal {
namespace {

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

template <typename T>
void Widen(const ElementBlock& block, std::vector<int64_t>& out) {
  const T* p = static_cast<const T*>(block.data());
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]);
}

}  // namespace

Result<std::vector<int64_t>> ReadIntegers(const Array& array) {
  const int64_t n = Count(array.shape());
  ElementBlock block(array.dtype(), n);
  TZ_RETURN_NOT_OK(array.Read(Selection::All(array.shape()), block));
  std::vector<int64_t> out(static_cast<size_t>(n));
  switch (array.dtype().id()) {
    case DataTypeId::kBool: Widen<bool>(block, out); break;
    case DataTypeId::kInt8: Widen<int8_t>(block, out); break;
    case DataTypeId::kInt16: Widen<int16_t>(block, out); break;
    case DataTypeId::kInt32: Widen<int32_t>(block, out); break;
    case DataTypeId::kInt64: Widen<int64_t>(block, out); break;
    case DataTypeId::kUInt8: Widen<uint8_t>(block, out); break;
    case DataTypeId::kUInt16: Widen<uint16_t>(block, out); break;
    case DataTypeId::kUInt32: Widen<uint32_t>(block, out); break;
    case DataTypeId::kUInt64: Widen<uint64_t>(block, out); break;
    default:
      return Status::Corruption(array.Describe() + ": expected integers, found " +
                                array.dtype().ToString());
  }
  return out;
}

Result<std::vector<std::string>> ReadStrings(const Array& array) {
  if (array.shape().size() != 1) {
    return Status::Corruption(array.Describe() + ": expected a 1-D array of strings, found " +
                              "shape " + ShapeString(array.shape()));
  }
  const DataType& dtype = array.dtype();
  const int64_t n = array.shape()[0];
  if (dtype.is_variable_length()) {
    std::vector<std::string> out(static_cast<size_t>(n));
    TZ_RETURN_NOT_OK(array.Read(Selection::All(array.shape()), out));
    return out;
  }
  if (dtype.id() != DataTypeId::kFixedBytes && dtype.id() != DataTypeId::kFixedUnicode) {
    return Status::Corruption(array.Describe() + ": expected strings, found " +
                              dtype.ToString());
  }
  ElementBlock block(dtype, n);
  TZ_RETURN_NOT_OK(array.Read(Selection::All(array.shape()), block));
  return FixedStringsAsText(block);
}

std::vector<std::string> FixedStringsAsText(const ElementBlock& block) {
  const DataType& dtype = block.dtype();
  std::vector<std::string> out(static_cast<size_t>(block.count()));
  const auto* bytes = static_cast<const char*>(block.data());
  const size_t size = dtype.size();
  for (size_t i = 0; i < out.size(); ++i) {
    const char* e = bytes + i * size;
    std::string& s = out[i];
    if (dtype.id() == DataTypeId::kFixedBytes) {
      s.assign(e, strnlen(e, size));
      continue;
    }
    for (size_t k = 0; k + 4 <= size; k += 4) {
      char32_t c;
      std::memcpy(&c, e + k, 4);
      if (c == 0) break;
      AppendUtf8(s, c);
    }
  }
  return out;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) s += ", ";
    s += std::to_string(shape[d]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace turbozarr::vcz::internal
