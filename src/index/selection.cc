// Selection values and the chunk planner.
#include "turbozarr/selection.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace turbozarr {

Selection Selection::All(const std::vector<int64_t>& shape) {
  std::vector<DimRange> dims;
  dims.reserve(shape.size());
  for (int64_t extent : shape) dims.push_back({0, extent, 1});
  return Selection(std::move(dims));
}

std::vector<int64_t> Selection::shape() const {
  std::vector<int64_t> out;
  out.reserve(dims_.size());
  for (const DimRange& d : dims_) out.push_back(d.count());
  return out;
}

int64_t Selection::num_elements() const {
  int64_t n = 1;
  for (const DimRange& d : dims_) n *= d.count();
  return n;
}

Status Selection::Validate(const std::vector<int64_t>& shape) const {
  if (shape.size() != dims_.size()) {
    return Status::InvalidArgument("selection " + ToString() + " has rank " +
                                   std::to_string(dims_.size()) +
                                   " but the array has rank " +
                                   std::to_string(shape.size()));
  }
  for (size_t i = 0; i < dims_.size(); ++i) {
    const DimRange& d = dims_[i];
    std::string where = "selection " + ToString() + ", dimension " + std::to_string(i);
    if (d.step < 1) {
      return Status::InvalidArgument(where + ": step " + std::to_string(d.step) +
                                     " is not positive");
    }
    if (d.start < 0 || d.start > d.stop || d.stop > shape[i]) {
      return Status::InvalidArgument(where + ": range " + std::to_string(d.start) + ":" +
                                     std::to_string(d.stop) + " is not within [0, " +
                                     std::to_string(shape[i]) + "]");
    }
    // count() computes stop - start + step - 1, which must not overflow.
    if (d.step - 1 > std::numeric_limits<int64_t>::max() - (d.stop - d.start)) {
      return Status::InvalidArgument(where + ": step " + std::to_string(d.step) +
                                     " is too large");
    }
  }
  return Status::OK();
}

std::string Selection::ToString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims_[i].start) + ":" + std::to_string(dims_[i].stop) + ":" +
         std::to_string(dims_[i].step);
  }
  return s + "]";
}

std::vector<int64_t> ChunkGridShape(const std::vector<int64_t>& array_shape,
                                    const std::vector<int64_t>& chunk_shape) {
  assert(array_shape.size() == chunk_shape.size());
  std::vector<int64_t> grid(array_shape.size());
  for (size_t d = 0; d < grid.size(); ++d) {
    int64_t c = chunk_shape[d];
    grid[d] = c <= 0 ? 0 : array_shape[d] / c + (array_shape[d] % c != 0 ? 1 : 0);
  }
  return grid;
}

namespace {

// How one chunk along one dimension takes part in the selection.
struct DimPiece {
  int64_t chunk_index;
  int64_t chunk_start;  // first selected element, relative to the chunk
  int64_t count;
  int64_t step;
  int64_t out_start;
  bool covers;  // every element of the chunk's extent, in order
};

// The chunks along one dimension that hold selected elements, in order. Walks
// selected elements chunk by chunk, so the cost is the number of chunks hit,
// not the number a large step skips over.
std::vector<DimPiece> PlanDimension(const DimRange& r, int64_t extent, const ChunkGrid& grid,
                                    size_t d) {
  std::vector<DimPiece> pieces;
  const int64_t count = r.count();
  int64_t k = 0;
  while (k < count) {
    const int64_t first = r.start + k * r.step;
    const int64_t c = grid.ChunkOf(d, first);
    const int64_t chunk_begin = grid.ChunkBegin(d, c);
    const int64_t chunk = grid.ChunkLength(d, c);
    // Written so that no intermediate can overflow, whatever the step.
    const int64_t chunk_end =
        extent - chunk_begin <= chunk ? extent : chunk_begin + chunk;
    // Selected elements below chunk_end: k' < ceil((chunk_end - start) / step).
    const int64_t span = chunk_end - r.start;
    const int64_t k_end = std::min(count, span / r.step + (span % r.step != 0 ? 1 : 0));
    DimPiece p;
    p.chunk_index = c;
    p.chunk_start = first - chunk_begin;
    p.count = k_end - k;
    // With one element the step means nothing; 1 lets callers see contiguity.
    p.step = p.count == 1 ? 1 : r.step;
    p.out_start = k;
    p.covers = p.chunk_start == 0 && p.step == 1 && p.count == chunk_end - chunk_begin;
    pieces.push_back(p);
    k = k_end;
  }
  return pieces;
}

}  // namespace

std::vector<ChunkProjection> PlanChunks(const Selection& selection,
                                        const std::vector<int64_t>& array_shape,
                                        const std::vector<int64_t>& chunk_shape) {
  assert(chunk_shape.size() == selection.rank());
  for (int64_t c : chunk_shape) {
    if (c <= 0) return {};
  }
  return PlanChunks(selection, array_shape, ChunkGrid::Regular(chunk_shape));
}

std::vector<ChunkProjection> PlanChunks(const Selection& selection,
                                        const std::vector<int64_t>& array_shape,
                                        const ChunkGrid& grid) {
  const size_t rank = selection.rank();
  assert(array_shape.size() == rank && grid.rank() == rank);
  assert(selection.Validate(array_shape).ok());
  std::vector<std::vector<DimPiece>> per_dim(rank);
  size_t total = 1;
  for (size_t d = 0; d < rank; ++d) {
    per_dim[d] = PlanDimension(selection.dims()[d], array_shape[d], grid, d);
    total *= per_dim[d].size();
    if (total == 0) return {};
  }

  // The cartesian product of the per-dimension pieces, last dimension fastest,
  // which is C order of chunk coordinates.
  std::vector<ChunkProjection> out;
  out.reserve(total);
  std::vector<size_t> idx(rank, 0);
  for (size_t n = 0; n < total; ++n) {
    ChunkProjection p;
    p.chunk_coords.resize(rank);
    p.chunk_start.resize(rank);
    p.count.resize(rank);
    p.step.resize(rank);
    p.out_start.resize(rank);
    p.covers_chunk = true;
    for (size_t d = 0; d < rank; ++d) {
      const DimPiece& piece = per_dim[d][idx[d]];
      p.chunk_coords[d] = piece.chunk_index;
      p.chunk_start[d] = piece.chunk_start;
      p.count[d] = piece.count;
      p.step[d] = piece.step;
      p.out_start[d] = piece.out_start;
      p.covers_chunk = p.covers_chunk && piece.covers;
    }
    out.push_back(std::move(p));
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < per_dim[d].size()) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace turbozarr
