// The walk of `verify` (turbozarr/verify.h): which nodes lie below a path
// and which stored keys each array holds, found from the store's own keys
// and documents rather than from consolidated metadata.
//
// When the store lists keys, every directory with a zarr.json, .zarray or
// .zgroup below the path is a node; its documents are parsed (a failure is
// a finding naming the document), and every other key belongs to the
// deepest node above it. An array's keys must be chunk keys of its grid; a
// group's keys below a directory that has no documents of its own belong to
// no node (a node whose metadata is missing) and are findings. When the
// store cannot list (HTTP), the nodes are the path and the members its
// groups name, and an array's keys are every chunk of its grid (those not
// stored are skipped when read).
//
// Thread safety: reads the store from the calling thread only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/group.h"
#include "turbozarr/verify.h"

namespace turbozarr::internal {

// One array to read: its chunk keys (full store keys) and their
// coordinates; `report` holds what the walk found already.
struct ArrayTarget {
  std::shared_ptr<Array> array;  // null when its metadata did not parse
  std::vector<std::string> chunk_keys;
  std::vector<std::vector<int64_t>> chunk_coords;
  ArrayVerifyReport report;
};

struct VerifyWalk {
  std::vector<ArrayTarget> arrays;              // sorted by path
  std::vector<std::shared_ptr<Group>> groups;   // opened, for the layout checks
  std::vector<VerifyFinding> findings;          // outside any array
  std::vector<std::string> notes;
};

// NotFound when nothing is at `path`; IOError when the store fails.
Result<VerifyWalk> WalkForVerify(const std::shared_ptr<Store>& store, std::string_view path);

}  // namespace turbozarr::internal
