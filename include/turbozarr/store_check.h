// Checking a store for what interrupted writers leave behind, and repairing
// it: what `turbozarr fsck` runs.
//
// A local directory: a writer killed mid-write leaves the temporary file of
// the value it was writing (".tmp-<pid>-..."; the value itself is old or
// new, never torn). Readers and listings skip such files; the next write
// into the same directory removes them once a minute old; a check lists
// them all and a repair removes those whose writer has ended.
//
// A zip archive: a writer killed before writing the central directory
// leaves a file no reader opens. A check says how many of its entries can be
// recovered from their local headers (each whole, matching its CRC-32; the
// newest of each name); a repair writes a central directory listing them at
// the end of the file (store/zip_recovery.h), after which it opens as usual.
// The value being written when the writer ended is not whole and is left out.
//
// Thread safety: may run while writers run; a repair never removes the
// temporary file of a writer that is still running on this machine, and
// never touches a zip archive a writer has open (its lock, flock).
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

struct ZipArchiveCheck {
  // The archive opens: its central directory is whole (before any repair).
  bool complete = false;
  // Why it does not open, when it does not.
  std::string problem;
  // Keys listed (complete), or that a repaired directory lists: recovered
  // from their local headers (and, after an unfinished append, the earlier
  // directory below).
  uint64_t entries = 0;
  // Local entries that are not whole (the write in progress when the writer
  // ended), compressed entries recovery cannot check, and bytes in no whole
  // entry: left out of a recovered directory.
  uint64_t damaged_entries = 0;
  uint64_t unchecked_entries = 0;
  uint64_t unclaimed_bytes = 0;
  // An append that did not finish: the archive's earlier central directory,
  // found whole inside the file, lists this many entries, and ends this many
  // bytes into the file; its entries are kept, and only what follows is
  // recovered from local headers. 0 and 0 when there is none.
  uint64_t earlier_entries = 0;
  uint64_t earlier_size = 0;
  // Whether a repair wrote a new central directory (which then opens).
  bool repaired = false;
};

// Checks the zip archive at `path`; with `repair`, rebuilds the central
// directory of one that does not open. AlreadyExists when a writer has the
// archive open (it is being written, not damaged); IOError on read or write
// failures.
Result<ZipArchiveCheck> CheckZipArchive(const std::string& path, bool repair);

}  // namespace turbozarr
