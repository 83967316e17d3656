// Test helper: zip archives built in memory, entry by entry, with the
// variations real writers produce (deflated entries, data descriptors,
// comments, bytes in front, zip64 records), so that reader tests do not
// depend on an external zip tool.
//
// Thread safety: pure functions.
#pragma once

#include <libdeflate.h>

#include <fstream>
#include <string>
#include <vector>

#include "store/zip_entry_reader.h"
#include "store/zip_format.h"

namespace turbozarr::zip::testing {

struct TestEntry {
  std::string name;
  std::string data;
  uint16_t method = kMethodStored;  // kMethodDeflated compresses `data`
  uint16_t flags = 0;  // bit 3: sizes and CRC in a data descriptor after the data
};

struct TestArchiveOptions {
  std::string prefix;   // bytes before the archive (a self-extractor's stub)
  std::string comment;  // the archive comment
  bool force_zip64 = false;
};

inline std::string Deflate(const std::string& data) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_deflate_compress_bound(c, data.size()), '\0');
  size_t n =
      libdeflate_deflate_compress(c, data.data(), data.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  out.resize(n);
  return out;
}

inline std::string BuildArchive(const std::vector<TestEntry>& entries,
                                const TestArchiveOptions& options = {}) {
  constexpr DosTime kWhen{0x6000, 0x5821};
  Buffer body;
  std::vector<Entry> directory;
  for (const TestEntry& t : entries) {
    Entry e;
    e.name = t.name;
    e.method = t.method;
    e.flags = t.flags;
    e.size = t.data.size();
    e.crc32 = Crc32(AsBytes(t.data));
    std::string stored = t.method == kMethodDeflated ? Deflate(t.data) : t.data;
    e.compressed_size = stored.size();
    e.header_offset = body.size();
    Entry local = e;
    if (t.flags & 8) local.size = local.compressed_size = local.crc32 = 0;
    AppendLocalHeader(local, kWhen, options.force_zip64, &body);
    body.Append(AsBytes(stored));
    if (t.flags & 8) {
      Buffer d;
      for (uint32_t v : {0x08074b50u, e.crc32, static_cast<uint32_t>(e.compressed_size),
                         static_cast<uint32_t>(e.size)}) {
        for (int i = 0; i < 4; ++i) {
          std::byte b{static_cast<unsigned char>(v >> (8 * i))};
          d.Append(ByteView(&b, 1));
        }
      }
      body.Append(d.view());
    }
    directory.push_back(e);
  }
  const uint64_t directory_offset = body.size();
  for (const Entry& e : directory)
    AppendCentralHeader(e, kWhen, options.force_zip64, &body);
  AppendEndRecords(directory.size(), directory_offset, body.size() - directory_offset,
                   options.force_zip64, &body);
  std::string out = options.prefix + std::string(body.chars());
  if (!options.comment.empty()) {
    out[out.size() - 2] = static_cast<char>(options.comment.size() & 0xFF);
    out[out.size() - 1] = static_cast<char>(options.comment.size() >> 8);
    out += options.comment;
  }
  return out;
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace turbozarr::zip::testing
