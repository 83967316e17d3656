// The v3 "rectilinear" chunk grid's configuration (zarr-extensions, kind
// "inline"), read into ArrayMetadata::chunk_edges and written back in the
// form zarr-python writes: a dimension given as one integer stays one
// integer, and a list of edges is written with runs of two or more equal
// edges as [length, count] and single edges bare.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "turbozarr/metadata.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

// Reads `config` (the grid's "configuration") into m.chunk_edges and
// m.chunk_shape. REQUIRES: m.shape is set. Corruption naming the field for a
// malformed or insufficient grid.
Status ParseRectilinearGrid(const JsonDocument& config, std::string_view where,
                            ArrayMetadata& m);

// The "chunk_grid" object of a rectilinear m. REQUIRES: m.rectilinear().
JsonDocument RectilinearGridToJson(const ArrayMetadata& m);

// Number of chunks along dimension d that hold elements of the array.
int64_t ChunksAlong(const ArrayMetadata& m, size_t d);

}  // namespace turbozarr::internal
