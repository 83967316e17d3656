#include "store/zip_entry_reader.h"

#include <libdeflate.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>

#include "store/store_internal.h"

namespace turbozarr::zip {
namespace {

std::string EntryPrefix(std::string_view where, const Entry& entry) {
  return std::string(where) + ": entry '" + entry.name + "': ";
}

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// One decompressor per thread: allocation costs more than a small entry's
// inflation, and a decompressor may not be shared.
libdeflate_decompressor* ThreadDecompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(
      libdeflate_alloc_decompressor());
  return d.get();
}

// Reads exactly out.size() bytes or reports the archive as cut short.
Status ReadExactly(int fd, uint64_t offset, MutableByteView out, std::string_view where,
                   const Entry& entry) {
  TZ_ASSIGN_OR_RETURN(size_t n, ReadAtMost(fd, offset, out, where));
  if (n != out.size()) {
    return Status::Corruption(EntryPrefix(where, entry) + "the archive ends " +
                              std::to_string(n) + " bytes into the " +
                              std::to_string(out.size()) + " bytes read at offset " +
                              std::to_string(offset) + " (truncated archive?)");
  }
  return Status::OK();
}

Status CheckCrc(const Buffer& data, const Entry& entry, std::string_view where) {
  uint32_t crc = Crc32(data.view());
  if (crc != entry.crc32) {
    return Status::Corruption(EntryPrefix(where, entry) +
                              "CRC-32 mismatch: the directory says " +
                              Hex32(entry.crc32) + ", the data has " + Hex32(crc));
  }
  return Status::OK();
}

Result<Buffer> Inflate(int fd, const Entry& entry, uint64_t data_offset,
                       std::string_view where) {
  // A few bytes of slack for the tiny streams of empty or near-empty entries.
  if (entry.size > entry.compressed_size * kMaxDeflateRatio + 64) {
    return Status::Corruption(EntryPrefix(where, entry) + "claims " +
                              std::to_string(entry.size) + " bytes inflated from " +
                              std::to_string(entry.compressed_size) +
                              ", more than deflate can expand");
  }
  Buffer compressed(entry.compressed_size);
  TZ_RETURN_NOT_OK(ReadExactly(fd, data_offset, compressed.mutable_view(), where, entry));
  libdeflate_decompressor* decompressor = ThreadDecompressor();
  if (decompressor == nullptr) {
    return Status::IOError(EntryPrefix(where, entry) + "cannot allocate a decompressor");
  }
  Buffer out(entry.size);
  // Without an "actual size" out-parameter libdeflate insists on exactly
  // entry.size bytes, which is the check we want.
  libdeflate_result r =
      libdeflate_deflate_decompress(decompressor, compressed.data(), compressed.size(),
                                    out.data(), out.size(), nullptr);
  if (r != LIBDEFLATE_SUCCESS) {
    const char* why =
        r == LIBDEFLATE_BAD_DATA             ? "corrupt deflate stream"
        : r == LIBDEFLATE_SHORT_OUTPUT       ? "the stream inflates to fewer bytes"
        : r == LIBDEFLATE_INSUFFICIENT_SPACE ? "the stream inflates to more bytes"
                                             : "inflation failed";
    return Status::Corruption(EntryPrefix(where, entry) + why + " (expected " +
                              std::to_string(entry.size) + " bytes from " +
                              std::to_string(entry.compressed_size) + ")");
  }
  TZ_RETURN_NOT_OK(CheckCrc(out, entry, where));
  return out;
}

}  // namespace

uint32_t Crc32(ByteView data, uint32_t previous) {
  return static_cast<uint32_t>(libdeflate_crc32(previous, data.data(), data.size()));
}

Result<size_t> ReadAtMost(int fd, uint64_t offset, MutableByteView out,
                          std::string_view where) {
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd, out.data() + done, out.size() - done,
                        static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(std::string(where) + ": read at offset " +
                             std::to_string(offset + done) + ": " +
                             std::generic_category().message(errno));
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

Result<Directory> ReadDirectory(int fd, uint64_t file_size, std::string_view where) {
  auto read = [fd, where](uint64_t offset, size_t n) -> Result<Buffer> {
    Buffer b(n);
    TZ_ASSIGN_OR_RETURN(size_t got, ReadAtMost(fd, offset, b.mutable_view(), where));
    b.Resize(got);
    return b;
  };
  Directory d;
  TZ_ASSIGN_OR_RETURN(d.location, LocateDirectory(read, file_size, where));
  TZ_ASSIGN_OR_RETURN(d.bytes, read(d.location.offset, d.location.size));
  if (d.bytes.size() != d.location.size) {
    return Status::Corruption(std::string(where) +
                              ": the file ends inside its central directory");
  }
  d.limit = d.location.offset - d.location.base;
  TZ_ASSIGN_OR_RETURN(d.entries,
                      ParseCentralDirectory(d.bytes.view(), d.limit, where, &d.headers));
  return d;
}

Result<uint64_t> ReadDataOffset(int fd, const Entry& entry, uint64_t base, uint64_t limit,
                                std::string_view where) {
  Buffer header(kLocalHeaderSize + entry.name.size());
  TZ_ASSIGN_OR_RETURN(
      size_t n, ReadAtMost(fd, base + entry.header_offset, header.mutable_view(), where));
  header.Resize(n);
  TZ_ASSIGN_OR_RETURN(uint64_t skip, ParseLocalHeader(header.view(), entry, where));
  uint64_t data = entry.header_offset + skip;
  if (data > limit || limit - data < entry.compressed_size) {
    return Status::Corruption(EntryPrefix(where, entry) + "its data (" +
                              std::to_string(entry.compressed_size) +
                              " bytes at offset " + std::to_string(data) +
                              ") runs past the start of the central directory (offset " +
                              std::to_string(limit) + ")");
  }
  return base + data;
}

Result<Buffer> ReadEntry(int fd, const Entry& entry, uint64_t data_offset,
                         ByteRange range, std::string_view where) {
  if (entry.flags & kFlagEncrypted) {
    return Status::Unsupported(EntryPrefix(where, entry) +
                               "is encrypted; encrypted entries are not supported");
  }
  if (entry.method == kMethodDeflated) {
    TZ_ASSIGN_OR_RETURN(Buffer all, Inflate(fd, entry, data_offset, where));
    if (range.IsFull()) return all;
    internal::ResolvedRange r = internal::ResolveByteRange(range, all.size());
    if (r.begin > 0) std::memmove(all.data(), all.data() + r.begin, r.length());
    all.Resize(r.length());
    return all;
  }
  if (entry.method != kMethodStored) {
    return Status::Unsupported(
        EntryPrefix(where, entry) + "uses compression method " +
        std::to_string(entry.method) +
        "; only stored (0) and deflated (8) entries are supported");
  }
  if (entry.compressed_size != entry.size) {
    return Status::Corruption(EntryPrefix(where, entry) +
                              "is stored (not compressed) but "
                              "its compressed size " +
                              std::to_string(entry.compressed_size) +
                              " differs from its size " + std::to_string(entry.size));
  }
  internal::ResolvedRange r = internal::ResolveByteRange(range, entry.size);
  Buffer out(r.length());
  TZ_RETURN_NOT_OK(
      ReadExactly(fd, data_offset + r.begin, out.mutable_view(), where, entry));
  // Only a whole value can be checked against the CRC, and that check is cheap
  // next to the read; a range is returned as read.
  if (r.begin == 0 && r.end == entry.size) TZ_RETURN_NOT_OK(CheckCrc(out, entry, where));
  return out;
}

}  // namespace turbozarr::zip
