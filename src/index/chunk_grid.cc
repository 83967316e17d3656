// ChunkGrid: positions to chunks and back, for steps and runs of edges.
#include "turbozarr/chunk_grid.h"

#include <algorithm>
#include <cassert>

namespace turbozarr {

ChunkGrid ChunkGrid::Regular(const std::vector<int64_t>& chunk_shape) {
  ChunkGrid g;
  g.dims_.resize(chunk_shape.size());
  for (size_t d = 0; d < chunk_shape.size(); ++d) g.dims_[d].step = chunk_shape[d];
  return g;
}

ChunkGrid ChunkGrid::FromEdges(const std::vector<int64_t>& steps,
                               const std::vector<std::vector<ChunkEdgeRun>>& edges) {
  assert(steps.size() == edges.size());
  ChunkGrid g = Regular(steps);
  for (size_t d = 0; d < edges.size(); ++d) {
    if (edges[d].empty()) continue;
    Dimension& dim = g.dims_[d];
    dim.step = 0;
    int64_t chunk = 0;
    int64_t begin = 0;
    for (const ChunkEdgeRun& r : edges[d]) {
      dim.runs.push_back({r.length, r.count, chunk, begin});
      chunk += r.count;
      begin += r.length * r.count;
    }
  }
  return g;
}

const ChunkGrid::Run& ChunkGrid::RunOfChunk(const Dimension& dim, int64_t k) {
  auto it = std::upper_bound(dim.runs.begin(), dim.runs.end(), k,
                             [](int64_t v, const Run& r) { return v < r.first_chunk; });
  return it == dim.runs.begin() ? dim.runs.front() : *std::prev(it);
}

const ChunkGrid::Run& ChunkGrid::RunOfIndex(const Dimension& dim, int64_t index) {
  auto it = std::upper_bound(dim.runs.begin(), dim.runs.end(), index,
                             [](int64_t v, const Run& r) { return v < r.begin; });
  return it == dim.runs.begin() ? dim.runs.front() : *std::prev(it);
}

int64_t ChunkGrid::NumChunks(size_t d, int64_t extent) const {
  const Dimension& dim = dims_[d];
  if (extent <= 0) return 0;
  if (dim.step > 0) return extent / dim.step + (extent % dim.step != 0 ? 1 : 0);
  const Run& last = dim.runs.back();
  if (extent - last.begin > last.length * last.count) return last.first_chunk + last.count;
  return ChunkOf(d, extent - 1) + 1;
}

std::vector<int64_t> ChunkGrid::GridShape(const std::vector<int64_t>& array_shape) const {
  std::vector<int64_t> out(dims_.size());
  for (size_t d = 0; d < dims_.size(); ++d) out[d] = NumChunks(d, array_shape[d]);
  return out;
}

int64_t ChunkGrid::ChunkOf(size_t d, int64_t index) const {
  const Dimension& dim = dims_[d];
  if (dim.step > 0) return index / dim.step;
  const Run& r = RunOfIndex(dim, index);
  return r.first_chunk + std::min(r.count - 1, (index - r.begin) / r.length);
}

int64_t ChunkGrid::ChunkBegin(size_t d, int64_t k) const {
  const Dimension& dim = dims_[d];
  if (dim.step > 0) return k * dim.step;
  const Run& r = RunOfChunk(dim, k);
  return r.begin + (k - r.first_chunk) * r.length;
}

int64_t ChunkGrid::ChunkLength(size_t d, int64_t k) const {
  const Dimension& dim = dims_[d];
  return dim.step > 0 ? dim.step : RunOfChunk(dim, k).length;
}

std::vector<int64_t> ChunkGrid::ChunkShape(const std::vector<int64_t>& coords) const {
  std::vector<int64_t> out(dims_.size());
  for (size_t d = 0; d < dims_.size(); ++d) out[d] = ChunkLength(d, coords[d]);
  return out;
}

bool ChunkGrid::IsRegularWithin(const std::vector<int64_t>& array_shape) const {
  for (size_t d = 0; d < dims_.size(); ++d) {
    const Dimension& dim = dims_[d];
    if (dim.step > 0) continue;
    const int64_t n = NumChunks(d, array_shape[d]);
    for (const Run& r : dim.runs) {
      if (r.first_chunk >= n) break;
      if (r.length != dim.runs.front().length) return false;
    }
  }
  return true;
}

}  // namespace turbozarr
