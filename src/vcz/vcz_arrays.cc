#include "vcz/vcz_arrays.h"

#include <cstring>
#include <future>

#include "turbozarr/element_block.h"
#include "turbozarr/selection.h"
#include "turbozarr/utf8.h"
#include "vcz/variant_block.h"

namespace turbozarr::vcz::internal {
Result<std::vector<int64_t>> ReadIntegers(const Array& array) {
  const DataTypeId id = array.dtype().id();
  // kInt8 to kUInt64 are the integer ids, in that order (turbozarr/dtype.h).
  if (id != DataTypeId::kBool && (id < DataTypeId::kInt8 || id > DataTypeId::kUInt64)) {
    return Status::Corruption(array.Describe() + ": expected integers, found " +
                              array.dtype().ToString());
  }
  if (array.shape().empty()) return Status::Corruption(array.Describe() + ": no dimensions");
  TZ_ASSIGN_OR_RETURN(FieldBlock block, FieldBlock::Read(array, 0, array.shape()[0]));
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(array.shape()[0] * block.per_variant()));
  for (int64_t row = 0; row < array.shape()[0]; ++row) {
    for (int64_t i = 0; i < block.per_variant(); ++i) out.push_back(block.Integer(row, i));
  }
  return out;
}

Status CheckStrings(const Array& array) {
  if (array.shape().size() != 1) {
    return Status::Corruption(array.Describe() + ": expected a 1-D array of strings, found " +
                              "shape " + ShapeString(array.shape()));
  }
  const DataType& dtype = array.dtype();
  if (!dtype.is_variable_length() && dtype.id() != DataTypeId::kFixedBytes &&
      dtype.id() != DataTypeId::kFixedUnicode) {
    return Status::Corruption(array.Describe() + ": expected strings, found " +
                              dtype.ToString());
  }
  return Status::OK();
}

Result<std::vector<std::string>> ReadStrings(const Array& array) {
  TZ_RETURN_NOT_OK(CheckStrings(array));
  const DataType& dtype = array.dtype();
  const int64_t n = array.shape()[0];
  if (dtype.is_variable_length()) {
    std::vector<std::string> out(static_cast<size_t>(n));
    TZ_RETURN_NOT_OK(array.Read(Selection::All(array.shape()), out));
    return out;
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

Status CheckFieldShape(const std::string& name, const Array& array, int64_t variants,
                       int64_t samples) {
  const std::vector<int64_t>& shape = array.shape();
  if (shape.empty() || shape[0] != variants) {
    return Status::Corruption(array.Describe() + ": " + name + " has shape " +
                              ShapeString(shape) + " for " + std::to_string(variants) +
                              " variants");
  }
  if (name.rfind("call_", 0) == 0 && (shape.size() < 2 || shape[1] != samples)) {
    return Status::Corruption(array.Describe() + ": " + name + " has shape " +
                              ShapeString(shape) + " for " + std::to_string(samples) +
                              " samples");
  }
  return Status::OK();
}

Status RunAll(const std::vector<std::function<Status()>>& tasks, bool at_once) {
  if (!at_once || tasks.size() < 2) {
    for (const std::function<Status()>& task : tasks) TZ_RETURN_NOT_OK(task());
    return Status::OK();
  }
  std::vector<std::future<Status>> others;
  for (size_t t = 1; t < tasks.size(); ++t) {
    others.push_back(std::async(std::launch::async, tasks[t]));
  }
  Status status = tasks[0]();
  for (std::future<Status>& other : others) {
    Status s = other.get();
    if (status.ok()) status = std::move(s);
  }
  return status;
}

bool ReadsOverlap(const Array& array) {
  return array.store()->Capabilities().requests_in_flight > 0;
}

}  // namespace turbozarr::vcz::internal
