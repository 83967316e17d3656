// The element types a sparse source may use, as C++ types: f(T{}) is called
// with the type that a DataTypeId names, so that one template serves each.
//
// Thread safety: stateless.
#pragma once

#include <cstdint>

#include "turbozarr/dtype.h"

namespace turbozarr::sparse::internal {

// Counts: the integer types and float32 / float64. False for others.
template <typename F>
bool VisitCountType(DataTypeId id, F&& f) {
  switch (id) {
    case DataTypeId::kInt8: f(int8_t{}); return true;
    case DataTypeId::kInt16: f(int16_t{}); return true;
    case DataTypeId::kInt32: f(int32_t{}); return true;
    case DataTypeId::kInt64: f(int64_t{}); return true;
    case DataTypeId::kUInt8: f(uint8_t{}); return true;
    case DataTypeId::kUInt16: f(uint16_t{}); return true;
    case DataTypeId::kUInt32: f(uint32_t{}); return true;
    case DataTypeId::kUInt64: f(uint64_t{}); return true;
    case DataTypeId::kFloat32: f(float{}); return true;
    case DataTypeId::kFloat64: f(double{}); return true;
    default: return false;
  }
}

// Row pointers and gene indices of a source: 32- and 64-bit integers.
template <typename F>
bool VisitIndexType(DataTypeId id, F&& f) {
  switch (id) {
    case DataTypeId::kInt32: f(int32_t{}); return true;
    case DataTypeId::kInt64: f(int64_t{}); return true;
    case DataTypeId::kUInt32: f(uint32_t{}); return true;
    case DataTypeId::kUInt64: f(uint64_t{}); return true;
    default: return false;
  }
}

}  // namespace turbozarr::sparse::internal
