// ParseSelection: numpy-style index text ("0:10, 5, ::2", "-1", "...", "")
// turned into a Selection over an array of known shape.
//
// Each comma-separated item is an integer index (negative counts from the
// end), a slice start:stop[:step] whose parts may be omitted and may be
// negative, or "..." (at most once) for as many full slices as needed.
// Missing trailing items select everything. Slices clamp to the array like
// Python's; integer indices must be in range. Steps must be positive.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "turbozarr/selection.h"
#include "turbozarr/status.h"

namespace turbozarr::cli {

struct ParsedSelection {
  Selection selection;
  // The shape of the result as numpy gives it: integer-indexed dimensions
  // dropped (empty for a single element).
  std::vector<int64_t> result_shape;
};

// InvalidArgument naming the offending item when the text is malformed or
// out of range.
Result<ParsedSelection> ParseSelection(std::string_view text,
                                       const std::vector<int64_t>& shape);

// Parses a comma-separated list of positive integers ("100,100"), as used
// for chunk and shard shapes. `what` names the list in errors.
Result<std::vector<int64_t>> ParseShapeList(std::string_view text, std::string_view what);

}  // namespace turbozarr::cli
