// Reading a zip archive from an open file: its central directory, where an
// entry's data starts (from its local header), and its bytes, whole or a range
// of them. Stored
// entries are read in place, a range by reading only that range; deflated
// entries are inflated whole (libdeflate) and then cut. Every whole read checks
// the entry's CRC-32, so a flipped bit in the archive is a Corruption naming
// the archive and the entry, not wrong data.
//
// Reads use pread on a shared descriptor: no file position is shared and no
// lock is taken, so any number of threads may read at once.
//
// Thread safety: pure functions of their arguments and the file's bytes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "store/zip_format.h"
#include "turbozarr/buffer.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::zip {

// Reads up to out.size() bytes at `offset`, fewer only at the end of the file;
// answers how many. IOError names `where` and the offset.
Result<size_t> ReadAtMost(int fd, uint64_t offset, MutableByteView out,
                          std::string_view where);

// The central directory of the archive open as `fd`, `file_size` bytes long:
// its end records located (zip_format.h) and its headers parsed.
struct Directory {
  DirectoryLocation location;
  Buffer bytes;                   // the central directory headers
  std::vector<Entry> entries;     // in the directory's order
  std::vector<ByteView> headers;  // entries[i]'s header: a view into `bytes`
  uint64_t limit = 0;             // archive offset of the central directory
};
Result<Directory> ReadDirectory(int fd, uint64_t file_size, std::string_view where);

// The file offset of the first byte of `entry`'s data: reads its local header
// at `base` + header_offset and checks it, and that the data fits before
// `limit` (the archive offset of the central directory).
Result<uint64_t> ReadDataOffset(int fd, const Entry& entry, uint64_t base, uint64_t limit,
                                std::string_view where);

// The bytes of `entry` that `range` selects; the data starts at file offset
// `data_offset`.
Result<Buffer> ReadEntry(int fd, const Entry& entry, uint64_t data_offset,
                         ByteRange range, std::string_view where);

// The CRC-32 (zip's, the IEEE polynomial) of `data`, continuing from
// `previous`, the CRC-32 of the bytes before it (0 for none).
uint32_t Crc32(ByteView data, uint32_t previous = 0);

}  // namespace turbozarr::zip
