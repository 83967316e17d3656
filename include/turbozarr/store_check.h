// Checking a store for what interrupted writers leave behind, and repairing
// it: what `turbozarr fsck` runs.
//
// A local directory: a writer killed mid-write leaves the temporary file of
// the value it was writing (".tmp-<pid>-..."; the value itself is old or
// new, never torn). Readers and listings skip such files; the next write
// into the same directory removes them once a minute old; a check lists
// them all and a repair removes those whose writer has ended.
//
// Thread safety: may run while writers run; a repair never removes the
// temporary file of a writer that is still running on this machine.
#pragma once

#include <string>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr {

struct LocalDirectoryCheck {
  // Temporary files whose writer has ended: removed by a repair.
  std::vector<std::string> ended_writes;
  // Temporary files whose writer is still running: left alone.
  std::vector<std::string> running_writes;
  // Whether a repair removed ended_writes.
  bool repaired = false;
};

// Walks the directory tree at `root` (symbolic links are not followed);
// with `repair`, removes the temporary files of writers that have ended.
// Paths are relative to `root`, sorted.
Result<LocalDirectoryCheck> CheckLocalDirectory(const std::string& root, bool repair);

}  // namespace turbozarr
