// zip_format: the records of a ZIP archive (PKWARE APPNOTE.TXT, section 4.3)
// that a store of entries needs: the end of central directory record and its
// zip64 locator and record, central directory headers and local file headers.
// Parsers read them from byte spans and check every length against the span,
// so a damaged or hostile archive gives a Status, never a read out of bounds;
// writers append them to a Buffer. File access is the caller's business
// (ZipArchive, ZipWriter).
//
// Offsets here are archive offsets: from the first local header. Archives with
// bytes in front (self-extracting stubs, or a directory offset that is wrong by
// a constant) are read the way Python's zipfile reads them: the shift is found
// from where the directory really ends and added to every offset.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr::zip {

inline constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
inline constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
inline constexpr uint32_t kEndSignature = 0x06054b50;
inline constexpr uint32_t kZip64EndSignature = 0x06064b50;
inline constexpr uint32_t kZip64LocatorSignature = 0x07064b50;

inline constexpr size_t kLocalHeaderSize = 30;    // without name and extra field
inline constexpr size_t kCentralHeaderSize = 46;  // without name, extra and comment
inline constexpr size_t kEndSize = 22;            // without the archive comment
inline constexpr size_t kZip64EndSize = 56;       // without extensible data
inline constexpr size_t kZip64LocatorSize = 20;
inline constexpr size_t kMaxCommentSize = 0xFFFF;
// The end record lies in this many bytes at the end of the file.
inline constexpr size_t kMaxEndSearch = kEndSize + kMaxCommentSize + kZip64LocatorSize;

inline constexpr uint16_t kMethodStored = 0;
inline constexpr uint16_t kMethodDeflated = 8;
inline constexpr uint16_t kFlagEncrypted = 1 << 0;
inline constexpr uint16_t kFlagUtf8 = 1 << 11;

// Deflate cannot expand more than 1032:1; a directory that claims more is
// damaged, and believing it would allocate whatever it says.
inline constexpr uint64_t kMaxDeflateRatio = 1032;

// One file of the archive, as its central directory header describes it.
struct Entry {
  std::string name;            // bytes as stored ("/"-separated)
  uint64_t header_offset = 0;  // of the local header, in archive offsets
  uint64_t compressed_size = 0;
  uint64_t size = 0;  // uncompressed
  uint32_t crc32 = 0;
  uint16_t method = 0;
  uint16_t flags = 0;
};

// Where the central directory is, from the end records.
struct DirectoryLocation {
  uint64_t offset = 0;   // file offset of the first central directory header
  uint64_t size = 0;     // bytes of central directory headers
  uint64_t entries = 0;  // as recorded (not trusted: the headers are counted)
  uint64_t base = 0;     // file offset of archive offset 0
  bool zip64 = false;
  // Just past the end of central directory record and its comment: where an
  // archive read this way ends (bytes after it are not the archive's).
  uint64_t end = 0;
  std::string comment;  // the archive comment
};

// Reads `n` bytes at file offset `offset` (fewer only at the end of the file).
using ReadAt = std::function<Result<Buffer>(uint64_t offset, size_t n)>;

// Finds the central directory of an archive of `file_size` bytes: the end of
// central directory record in the last kMaxEndSearch bytes (the last one whose
// comment fits), then the zip64 locator and record if there are any. Corruption
// if there is no end record or the records contradict each other; Unsupported
// for archives split over several disks. `where` names the archive in messages.
Result<DirectoryLocation> LocateDirectory(const ReadAt& read, uint64_t file_size,
                                          std::string_view where);

// Every central directory header in `directory`. Lengths are checked against
// the span and offsets against `limit` (the archive offset where the central
// directory starts: every local header and its data lie before it). With
// `headers`, each entry's header bytes too (a view into `directory`), for a
// writer that copies them unchanged into the directory it writes.
Result<std::vector<Entry>> ParseCentralDirectory(ByteView directory, uint64_t limit,
                                                 std::string_view where,
                                                 std::vector<ByteView>* headers = nullptr);

// The local header of `entry`: `bytes` holds at least kLocalHeaderSize bytes
// from the header's start plus, if available, the name. Checks the signature
// and that the name matches the directory's; answers the number of bytes
// between the header's start and the entry's data.
Result<uint64_t> ParseLocalHeader(ByteView bytes, const Entry& entry,
                                  std::string_view where);

// A local header read on its own, as recovery does when the central
// directory is missing: the entry it describes (header_offset = `offset`)
// and the file offset of its data. `bytes` holds the header from its start:
// at least kLocalHeaderSize bytes, and its name and extra field when the
// caller has them. nullopt unless it is a whole local header that carries
// its sizes: the signature, the name and extra field within `bytes`, no
// data descriptor (flag bit 3) and no encryption.
struct LocalEntry {
  Entry entry;
  uint64_t data_offset = 0;
};
std::optional<LocalEntry> ReadLocalHeader(ByteView bytes, uint64_t offset);

// Writing. Every entry is stored (method 0) with its sizes and CRC-32 in the
// local header (no data descriptor). `force_zip64` writes the zip64 forms even
// where the 32-bit fields would do (tests use it to exercise them cheaply).
struct DosTime {
  uint16_t time = 0;
  uint16_t date = 0;
};
DosTime ToDosTime(std::time_t t);

// Appends the local header for `entry` (whose header_offset is ignored).
void AppendLocalHeader(const Entry& entry, DosTime when, bool force_zip64, Buffer* out);
// The size of that header.
size_t LocalHeaderSize(const Entry& entry, bool force_zip64);

// Appends the central directory header for `entry`.
void AppendCentralHeader(const Entry& entry, DosTime when, bool force_zip64, Buffer* out);

// Appends the end records for a central directory of `entries` headers and
// `size` bytes starting at archive offset `offset`: the zip64 record and
// locator when needed (or forced), then the end of central directory record
// with `comment` (at most kMaxCommentSize bytes; longer is cut there).
void AppendEndRecords(uint64_t entries, uint64_t offset, uint64_t size, bool force_zip64,
                      Buffer* out, std::string_view comment = {});

}  // namespace turbozarr::zip
