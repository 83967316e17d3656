// One node's metadata documents read for `verify` (turbozarr/verify.h):
// zarr.json, else .zarray or .zgroup with .zattrs (and a v2 group's
// .zmetadata), each parsed, a failure a finding naming the document rather
// than an error, so that the walk goes on with the other nodes.
//
// Thread safety: reads the store from the calling thread only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "array/consolidated_check.h"
#include "turbozarr/metadata.h"
#include "turbozarr/store.h"
#include "turbozarr/verify.h"

namespace turbozarr::internal {

// A node's documents as parsed, each failure a finding naming its key.
struct LoadedNode {
  enum class Kind { kAbsent, kArray, kGroup, kUnreadable };
  Kind kind = Kind::kAbsent;
  int zarr_format = 0;
  std::optional<ArrayMetadata> metadata;  // an array's, when it parsed
  ConsolidatedCopies consolidated;        // a group's, when it has them
  std::vector<VerifyFinding> findings;
};

// The node at `dir` (kAbsent when no zarr.json, .zarray or .zgroup is
// there). Errors only when the store fails (IOError): a failing store says
// nothing of the data.
Result<LoadedNode> LoadNode(Store& store, const std::string& dir);

}  // namespace turbozarr::internal
