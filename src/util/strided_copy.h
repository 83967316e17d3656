// Strided copy and fill kernels: move an N-dimensional block of fixed-size
// elements between two memory layouts described by per-dimension strides.
//
// The array layer uses these to move a block between a decoded chunk and the
// caller's buffer. Before copying, dimensions of count 1 are dropped and
// neighbouring dimensions that are contiguous with each other in both layouts
// are merged, so a whole-chunk copy is one memcpy and a slice of rows is one
// memcpy per row; a strided innermost dimension runs a tight loop specialised
// for the element size.
//
// REQUIRES (all functions): the source and destination blocks do not
// overlap, and every address the strides and counts reach is valid.
// Thread safety: pure functions; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace turbozarr {

// Copies a block of count[0] x ... x count[rank-1] elements of elem_size
// bytes from src to dst; strides are in bytes, per dimension, and may be any
// non-negative values. rank 0 copies one element.
void CopyStrided(const std::byte* src, const int64_t* src_strides, std::byte* dst,
                 const int64_t* dst_strides, const int64_t* count, int rank,
                 size_t elem_size);

// Same for std::string elements; strides in elements.
void CopyStridedStrings(const std::string* src, const int64_t* src_strides,
                        std::string* dst, const int64_t* dst_strides,
                        const int64_t* count, int rank);

// Sets every element of the block to the elem_size bytes at `value`.
void FillStrided(std::byte* dst, const int64_t* dst_strides, const int64_t* count,
                 int rank, const std::byte* value, size_t elem_size);

void FillStridedStrings(std::string* dst, const int64_t* dst_strides,
                        const int64_t* count, int rank, const std::string& value);

// Byte strides of a C-contiguous array of `shape` with `elem_size` elements.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape,
                                       size_t elem_size);

}  // namespace turbozarr
