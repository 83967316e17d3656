// Little-endian loads and stores, in-place byte swapping, and allocation
// that turns an impossible size into a Status: the byte-level pieces every
// codec's framing needs.
//
// Thread safety: pure functions.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "turbozarr/buffer.h"
#include "turbozarr/dtype.h"
#include "turbozarr/status.h"
#include "util/repeated_elements.h"

namespace turbozarr::internal {

inline uint32_t LoadLE32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

inline uint64_t LoadLE64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline void StoreLE32(std::byte* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

inline void StoreLE64(std::byte* p, uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

// Copies n bytes from src to dst reversing the bytes of each `unit`-byte
// scalar (a unit of 1 is a plain copy). dst == src swaps in place; other
// overlap is not allowed. REQUIRES: n is a multiple of unit.
void CopySwapped(std::byte* dst, const std::byte* src, size_t n, size_t unit);

// CopySwapped for elements of `dtype`: its swap_unit(), or for a struct each
// field's scalars (DataType::swap_segments) in every element. dst == src
// swaps in place. REQUIRES: n is a multiple of dtype.size().
void CopySwappedElements(std::byte* dst, const std::byte* src, size_t n, const DataType& dtype);

// A Buffer of `size` bytes, or Corruption naming `what` when a decoder was
// told to expect more memory than the machine will give (a corrupt header
// claiming terabytes must not abort the process).
inline Result<Buffer> AllocateBuffer(size_t size, std::string_view what) {
  try {
    return Buffer(size);
  } catch (const std::bad_alloc&) {
    return Status::Corruption(std::string(what) + ": cannot allocate " +
                              std::to_string(size) + " bytes for the decoded data");
  }
}

}  // namespace turbozarr::internal
