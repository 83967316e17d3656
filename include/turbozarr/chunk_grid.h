// ChunkGrid: where each chunk of an array lies and what shape it is encoded
// at, for the regular grid and for rectilinear grids (zarr-extensions'
// "rectilinear", written by zarr-python 3.2+ and zarrs), where every chunk
// along a dimension may have its own edge length.
//
// Per dimension the grid is either a step (every chunk `step` long, the last
// one overhanging the array's edge, as in the regular grid) or runs of edge
// lengths. A rectilinear chunk is encoded at its own edge lengths; only a
// chunk that reaches past the array's edge is clipped on reading, exactly as
// a regular grid's edge chunk is. Runs are kept as runs, with the offset of
// each run's first chunk, so that a grid of a billion chunks written as one
// run costs one entry, and finding a position's chunk is a binary search
// over the runs.
//
// Thread safety: a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace turbozarr {

// `count` chunks, each `length` elements long.
struct ChunkEdgeRun {
  int64_t length = 0;
  int64_t count = 0;
  bool operator==(const ChunkEdgeRun&) const = default;
};

class ChunkGrid {
 public:
  ChunkGrid() = default;
  // A regular grid of `chunk_shape`.
  static ChunkGrid Regular(const std::vector<int64_t>& chunk_shape);
  // A rectilinear grid: dimension d has the runs `edges[d]`, or, when those
  // are empty, the step `steps[d]` (ArrayMetadata's chunk_shape and
  // chunk_edges).
  // REQUIRES: edges.size() == steps.size(); steps and runs positive, and each
  // dimension's edges sum to at most 2^63 - 1 (the metadata checks both).
  static ChunkGrid FromEdges(const std::vector<int64_t>& steps,
                             const std::vector<std::vector<ChunkEdgeRun>>& edges);

  size_t rank() const { return dims_.size(); }
  // Whether every chunk touching [0, extent) along each dimension has the
  // same length: then the grid reads and writes as the regular grid of those
  // lengths (ArrayMetadata::chunk_shape), chunk for chunk and byte for byte.
  bool IsRegularWithin(const std::vector<int64_t>& array_shape) const;

  // Number of chunks that hold elements of an extent `extent` dimension d.
  int64_t NumChunks(size_t d, int64_t extent) const;
  std::vector<int64_t> GridShape(const std::vector<int64_t>& array_shape) const;
  // The chunk along dimension d holding position `index`.
  // REQUIRES: index is covered by the grid (below the dimension's edge sum).
  int64_t ChunkOf(size_t d, int64_t index) const;
  // The first position of chunk `k` along dimension d, and its length.
  int64_t ChunkBegin(size_t d, int64_t k) const;
  int64_t ChunkLength(size_t d, int64_t k) const;
  // The shape chunk `coords` is encoded at.
  std::vector<int64_t> ChunkShape(const std::vector<int64_t>& coords) const;

 private:
  struct Run {
    int64_t length;
    int64_t count;
    int64_t first_chunk;  // index of the run's first chunk
    int64_t begin;        // position of the run's first element
  };
  struct Dimension {
    int64_t step = 0;       // > 0: regular along this dimension
    std::vector<Run> runs;  // otherwise
  };
  // The run holding chunk `k`, and the run holding position `index`.
  static const Run& RunOfChunk(const Dimension& dim, int64_t k);
  static const Run& RunOfIndex(const Dimension& dim, int64_t index);

  std::vector<Dimension> dims_;
};

}  // namespace turbozarr
