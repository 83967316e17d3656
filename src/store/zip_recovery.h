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
// An archive whose writer was appending to it (ZipWriter::OpenForAppend)
// holds the archive as it was, central directory and end records whole,
// followed by the new entries. That directory is found (the one with the
// fewest bytes in front of its archive, then the last, whose every entry's
// local header is where it says: a zip archive stored as a value is not
// taken for it), and only the bytes after it are scanned: the repaired
// directory lists its headers unchanged, but for names written again after
// it, then the whole entries found there. So an interrupted append loses at
// most what it was adding, whatever the old entries are (deflated ones,
// ones with data descriptors, names that are not keys); entries it erased
// come back, as the archive had them.
//
// Thread safety: the caller keeps other writers away (the writer's lock,
// flock on the file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/zip_entry_reader.h"
#include "store/zip_format.h"
#include "turbozarr/status.h"

namespace turbozarr::zip {

struct Recovery {
  // The directory of the archive before an unfinished append, if any.
  std::optional<Directory> earlier;
  // Newest whole entry of each name after `earlier` (or from the file's
  // start), by offset; header offsets are file offsets.
  std::vector<Entry> entries;
  uint64_t damaged = 0;        // local headers whose data is cut short or wrong
  uint64_t unchecked = 0;      // whole compressed entries, left out
  uint64_t unclaimed_bytes = 0;  // bytes in no whole entry (damaged entries,
                                 // an old central directory, gaps)
};

// Scans the file open as `fd`, `size` bytes long, from its start. `where`
// names it in messages (read errors only: what is found is counted).
Result<Recovery> ScanLocalEntries(int fd, uint64_t size, std::string_view where);

// The names the repaired directory lists, in its order: `earlier`'s kept
// headers, then `entries`.
std::vector<std::string> RecoveredNames(const Recovery& found);

// Writes the repaired central directory (see RecoveredNames) and the end
// records (with `earlier`'s archive comment) at file offset `size` (the
// file's end), cuts off anything after them, and syncs the file to its disk.
Status AppendDirectory(int fd, uint64_t size, const Recovery& found,
                       std::string_view where);

}  // namespace turbozarr::zip
