// The rectilinear chunk grid's JSON, its checks, and the chunk shape that
// the regular machinery sees for it.
#include "metadata/rectilinear_grid.h"

#include <algorithm>
#include <string>

#include "metadata/metadata_fields.h"

namespace turbozarr {
namespace {

// The number of chunks of `runs` that start below `extent`.
int64_t ChunksTouching(const std::vector<ChunkEdgeRun>& runs, int64_t extent) {
  int64_t chunks = 0;
  int64_t begin = 0;
  for (const ChunkEdgeRun& r : runs) {
    if (begin >= extent) break;
    // Chunks of this run starting below extent: ceil((extent - begin) / length).
    const int64_t left = extent - begin;
    const int64_t n = std::min(r.count, left / r.length + (left % r.length != 0 ? 1 : 0));
    chunks += n;
    if (n < r.count) break;
    begin += r.length * r.count;
  }
  return chunks;
}

}  // namespace

void ArrayMetadata::UpdateRectilinearChunkShape() {
  for (size_t d = 0; d < chunk_edges.size() && d < shape.size(); ++d) {
    const std::vector<ChunkEdgeRun>& runs = chunk_edges[d];
    if (runs.empty()) continue;
    if (chunk_shape.size() < chunk_edges.size()) chunk_shape.resize(chunk_edges.size(), 1);
    int64_t longest = runs.front().length;
    int64_t begin = 0;
    for (const ChunkEdgeRun& r : runs) {
      if (begin >= shape[d]) break;
      longest = std::max(longest, r.length);
      begin += r.length * r.count;
    }
    chunk_shape[d] = longest;
  }
}

void ArrayMetadata::Resize(const std::vector<int64_t>& new_shape) {
  shape = new_shape;
  for (size_t d = 0; d < chunk_edges.size() && d < shape.size(); ++d) {
    std::vector<ChunkEdgeRun>& runs = chunk_edges[d];
    if (runs.empty()) continue;
    int64_t sum = 0;
    for (const ChunkEdgeRun& r : runs) sum += r.length * r.count;
    if (shape[d] <= sum) continue;
    if (runs.back().length == shape[d] - sum) {
      ++runs.back().count;
    } else {
      runs.push_back({shape[d] - sum, 1});
    }
  }
  UpdateRectilinearChunkShape();
}

Status ArrayMetadata::CheckChunkEdges() const {
  if (chunk_edges.empty()) return Status::OK();
  if (chunk_edges.size() != shape.size()) {
    return Status::InvalidArgument("the rectilinear chunk grid has " +
                                   std::to_string(chunk_edges.size()) +
                                   " dimensions but the shape has " +
                                   std::to_string(shape.size()));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::string dim = "dimension " + std::to_string(d);
    if (chunk_edges[d].empty()) {
      if (d >= chunk_shape.size() || chunk_shape[d] < 1) {
        return Status::InvalidArgument(dim + ": the chunk length must be positive");
      }
      continue;
    }
    __int128 sum = 0;
    for (const ChunkEdgeRun& r : chunk_edges[d]) {
      if (r.length < 1 || r.count < 1) {
        return Status::InvalidArgument(dim + ": chunk edge " + std::to_string(r.length) +
                                       " repeated " + std::to_string(r.count) +
                                       " times: both must be positive");
      }
      sum += static_cast<__int128>(r.length) * r.count;
      if (sum > INT64_MAX) {
        return Status::InvalidArgument(dim + ": the chunk edges sum to more than 2^63 - 1");
      }
    }
    if (sum < shape[d]) {
      return Status::InvalidArgument(dim + ": the chunk edges sum to " +
                                     std::to_string(static_cast<int64_t>(sum)) +
                                     ", less than the extent " + std::to_string(shape[d]));
    }
  }
  return Status::OK();
}

namespace internal {

int64_t ChunksAlong(const ArrayMetadata& m, size_t d) {
  if (d < m.chunk_edges.size() && !m.chunk_edges[d].empty()) {
    return ChunksTouching(m.chunk_edges[d], m.shape[d]);
  }
  const int64_t c = m.chunk_shape[d];
  // Rounded up without forming shape + chunk, which may overflow.
  return c > 0 ? m.shape[d] / c + (m.shape[d] % c != 0 ? 1 : 0) : 0;
}

Status ParseRectilinearGrid(const JsonDocument& config, std::string_view where,
                            ArrayMetadata& m) {
  constexpr std::string_view kField = "chunk_grid.configuration.chunk_shapes";
  TZ_ASSIGN_OR_RETURN(const JsonDocument* kind,
                      RequireField(config, "kind", where, "chunk_grid.configuration.kind"));
  if (*kind != "inline") {
    return Status::Unsupported(std::string(where) +
                               ": chunk_grid.configuration.kind: unsupported kind " +
                               Describe(*kind) + " (only \"inline\" is defined)");
  }
  TZ_ASSIGN_OR_RETURN(const JsonDocument* shapes,
                      RequireField(config, "chunk_shapes", where, kField));
  if (!shapes->is_array() || shapes->size() != m.shape.size()) {
    return FieldError(where, kField,
                      "expected a list with one entry per dimension (" +
                          std::to_string(m.shape.size()) + "), got " + Describe(*shapes));
  }
  auto positive = [](const JsonDocument& v) {
    return v.is_number_integer() && v.get<int64_t>() >= 1;
  };
  m.chunk_shape.assign(m.shape.size(), 1);
  m.chunk_edges.assign(m.shape.size(), {});
  for (size_t d = 0; d < m.shape.size(); ++d) {
    const JsonDocument& entry = (*shapes)[d];
    const std::string field = std::string(kField) + "[" + std::to_string(d) + "]";
    if (positive(entry)) {
      m.chunk_shape[d] = entry.get<int64_t>();
      continue;
    }
    if (!entry.is_array() || entry.empty()) {
      return FieldError(where, field,
                        "expected a positive integer or a non-empty list of edge lengths, got " +
                            Describe(entry));
    }
    std::vector<ChunkEdgeRun>& runs = m.chunk_edges[d];
    for (const JsonDocument& e : entry) {
      ChunkEdgeRun run;
      if (positive(e)) {
        run = {e.get<int64_t>(), 1};
      } else if (e.is_array() && e.size() == 2 && positive(e[0]) && positive(e[1])) {
        run = {e[0].get<int64_t>(), e[1].get<int64_t>()};
      } else {
        return FieldError(where, field,
                          "expected edge lengths (positive integers) or runs [length, count] "
                          "of positive integers, got " + Describe(e));
      }
      // Equal neighbours are one run, so that the grid is written back as
      // zarr-python writes it.
      if (!runs.empty() && runs.back().length == run.length &&
          runs.back().count <= INT64_MAX - run.count) {
        runs.back().count += run.count;
      } else {
        runs.push_back(run);
      }
    }
  }
  Status edges = m.CheckChunkEdges();
  if (!edges.ok()) return FieldError(where, kField, edges.message());
  m.UpdateRectilinearChunkShape();
  return Status::OK();
}

JsonDocument RectilinearGridToJson(const ArrayMetadata& m) {
  JsonDocument shapes = JsonDocument::array();
  for (size_t d = 0; d < m.chunk_edges.size(); ++d) {
    if (m.chunk_edges[d].empty()) {
      shapes.push_back(m.chunk_shape[d]);
      continue;
    }
    JsonDocument edges = JsonDocument::array();
    for (const ChunkEdgeRun& r : m.chunk_edges[d]) {
      if (r.count == 1) {
        edges.push_back(r.length);
      } else {
        edges.push_back(JsonDocument::array({r.length, r.count}));
      }
    }
    shapes.push_back(std::move(edges));
  }
  JsonDocument config = JsonDocument::object();
  config["kind"] = "inline";
  config["chunk_shapes"] = std::move(shapes);
  JsonDocument grid = JsonDocument::object();
  grid["name"] = "rectilinear";
  grid["configuration"] = std::move(config);
  return grid;
}

}  // namespace internal
}  // namespace turbozarr
