// Selection: which elements of an array a read or write touches, one strided
// range per dimension, and the chunk plan that maps a selection onto a
// chunk grid.
//
// Thread safety: values; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "turbozarr/chunk_grid.h"
#include "turbozarr/status.h"

namespace turbozarr {

// Elements start, start+step, ... below stop. Normalised: 0 <= start <= stop
// <= extent and step >= 1. An integer index is {i, i+1, 1}.
struct DimRange {
  int64_t start = 0;
  int64_t stop = 0;
  int64_t step = 1;
  int64_t count() const { return stop <= start ? 0 : (stop - start + step - 1) / step; }
  bool operator==(const DimRange&) const = default;
};

class Selection {
 public:
  Selection() = default;
  explicit Selection(std::vector<DimRange> dims) : dims_(std::move(dims)) {}
  // Every element of an array of `shape`.
  static Selection All(const std::vector<int64_t>& shape);

  const std::vector<DimRange>& dims() const { return dims_; }
  size_t rank() const { return dims_.size(); }
  // The shape of the selected block (count per dimension).
  std::vector<int64_t> shape() const;
  int64_t num_elements() const;
  // InvalidArgument if the rank differs or a range leaves [0, shape).
  Status Validate(const std::vector<int64_t>& shape) const;
  std::string ToString() const;  // "[0:10:1, 5:6:1]"

 private:
  std::vector<DimRange> dims_;
};

// How one chunk takes part in a selection. Per dimension d: the selected
// elements inside the chunk are chunk_start[d] + k*step[d] for k < count[d],
// and they land at out_start[d] + k in the selection's block.
struct ChunkProjection {
  std::vector<int64_t> chunk_coords;
  std::vector<int64_t> chunk_start;
  std::vector<int64_t> count;
  std::vector<int64_t> step;
  std::vector<int64_t> out_start;
  // Every element of the chunk (as clipped to the array) is selected, in order.
  bool covers_chunk = false;
};

// The chunks of a regular grid (`chunk_shape` over `array_shape`) that
// `selection` touches, in C order of chunk coordinates.
// REQUIRES: selection.Validate(array_shape).ok()
std::vector<ChunkProjection> PlanChunks(const Selection& selection,
                                        const std::vector<int64_t>& array_shape,
                                        const std::vector<int64_t>& chunk_shape);
// The same over any chunk grid: chunk_start is relative to each chunk's own
// first element (ChunkGrid::ChunkBegin).
std::vector<ChunkProjection> PlanChunks(const Selection& selection,
                                        const std::vector<int64_t>& array_shape,
                                        const ChunkGrid& grid);

// Number of chunks per dimension: ceil(array / chunk).
std::vector<int64_t> ChunkGridShape(const std::vector<int64_t>& array_shape,
                                    const std::vector<int64_t>& chunk_shape);

}  // namespace turbozarr
