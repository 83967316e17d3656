// Recovering a zip archive whose writer ended before writing its central
// directory (killed, or its machine lost power): the entries are found from
// the local header in front of each one's data, the newest whole entry of
// each name is kept, and a new central directory listing them is written at
// the end of the file. Nothing is cut or moved, so running it again (or
// after an interrupted repair) finds the same entries.
//
// A whole entry is one whose local header carries its sizes, whose data lies
// within the file and matches its CRC-32: what ZipWriter writes. The value
// being written when the writer ended fails that check and is left out (an
// older entry of the same name, if any, is kept: the old value). Compressed
// entries (which ZipWriter never writes) are not checked, and are left out
// and counted.
//
// Thread safety: the caller keeps other writers away (the writer's lock,
// flock on the file).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "store/zip_format.h"
#include "turbozarr/status.h"

namespace turbozarr::zip {

struct Recovery {
  std::vector<Entry> entries;  // newest whole entry of each name, by offset
  uint64_t damaged = 0;        // local headers whose data is cut short or wrong
  uint64_t unchecked = 0;      // whole compressed entries, left out
  uint64_t unclaimed_bytes = 0;  // bytes in no whole entry (damaged entries,
                                 // an old central directory, gaps)
};

// Scans the file open as `fd`, `size` bytes long, from its start. `where`
// names it in messages (read errors only: what is found is counted).
Result<Recovery> ScanLocalEntries(int fd, uint64_t size, std::string_view where);

// Writes a central directory of `entries` and the end records at file
// offset `size` (the file's end), cuts off anything after them, and syncs
// the file to its disk.
Status AppendDirectory(int fd, uint64_t size, const std::vector<Entry>& entries,
                       std::string_view where);

}  // namespace turbozarr::zip
