// ShapeString: a shape as error messages show it, "[2, 3]".
//
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace turbozarr::internal {

inline std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace turbozarr::internal
