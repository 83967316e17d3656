// `verify`'s check of a consolidated group (turbozarr/verify.h): readers
// that open the group consolidated (zarr-python's default, and Group::Open)
// take its members' metadata from the group's copies and never read the
// members' own documents, so a copy that differs from them, names a member
// that is not stored, or leaves out one that is, makes those readers see
// another hierarchy than the store holds. Copies are compared as parsed
// and written back (ToV3Json, ToV2ZarrayJson), so that spellings with one
// meaning (key order, fill values as numbers or strings) are not findings.
//
// Thread safety: reads the store from the calling thread only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "turbozarr/metadata.h"
#include "turbozarr/store.h"
#include "turbozarr/verify.h"

namespace turbozarr::internal {

// What a group's consolidated metadata says of its members, by path
// relative to the group: v3 inline (`group.consolidated`) or v2's
// .zmetadata document (`zmetadata`; null when there is none).
struct ConsolidatedCopies {
  std::optional<std::map<std::string, JsonDocument>> v3;
  std::optional<JsonDocument> v2;
};

// Adds a finding for every member whose copy differs from its stored
// documents or is not stored, and, when `stored_nodes` (paths of every node
// stored below the group, from a listing) is given, for every stored node
// the copies leave out.
void CheckConsolidated(Store& store, const std::string& group_path,
                       const ConsolidatedCopies& copies,
                       const std::vector<std::string>* stored_nodes,
                       std::vector<VerifyFinding>& findings);

}  // namespace turbozarr::internal
