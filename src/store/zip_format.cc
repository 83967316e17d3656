#include "store/zip_format.h"

#include <algorithm>
#include <cstdio>

namespace turbozarr::zip {
namespace {

constexpr uint32_t kMax32 = 0xFFFFFFFF;
constexpr uint16_t kMax16 = 0xFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001;
// "made by" and "needed to extract": version 2.0 (stored/deflated), 4.5 (zip64);
// the high byte of "made by" says Unix, so the attributes below are Unix modes.
constexpr uint16_t kVersion20 = 20;
constexpr uint16_t kVersion45 = 45;
constexpr uint16_t kMadeByUnix = 3 << 8;
constexpr uint32_t kRegularFile0644 = 0100644u << 16;

uint16_t Load16(const std::byte* p) {
  return static_cast<uint16_t>(std::to_integer<uint16_t>(p[0]) |
                               std::to_integer<uint16_t>(p[1]) << 8);
}
uint32_t Load32(const std::byte* p) {
  return static_cast<uint32_t>(Load16(p)) | static_cast<uint32_t>(Load16(p + 2)) << 16;
}
uint64_t Load64(const std::byte* p) {
  return static_cast<uint64_t>(Load32(p)) | static_cast<uint64_t>(Load32(p + 4)) << 32;
}

void Put16(Buffer* out, uint16_t v) {
  std::byte b[2] = {std::byte(v & 0xFF), std::byte(v >> 8)};
  out->Append(ByteView(b, 2));
}
void Put32(Buffer* out, uint32_t v) {
  Put16(out, static_cast<uint16_t>(v));
  Put16(out, static_cast<uint16_t>(v >> 16));
}
void Put64(Buffer* out, uint64_t v) {
  Put32(out, static_cast<uint32_t>(v));
  Put32(out, static_cast<uint32_t>(v >> 32));
}

std::string Prefix(std::string_view where) { return std::string(where) + ": "; }

Status Corrupt(std::string_view where, const std::string& what) {
  return Status::Corruption(Prefix(where) + what);
}

std::string EntryLabel(std::string_view name) {
  return "entry '" + std::string(name) + "'";
}

bool HasNonAscii(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return (c & 0x80) != 0; });
}

// Fields that the 32-bit headers cannot hold (or all of them, when forced).
struct Zip64Fields {
  bool size = false;
  bool compressed_size = false;
  bool offset = false;
};

Zip64Fields CentralZip64Fields(const Entry& e, bool force) {
  return {force || e.size >= kMax32, force || e.compressed_size >= kMax32,
          force || e.header_offset >= kMax32};
}

bool LocalNeedsZip64(const Entry& e, bool force) {
  return force || e.size >= kMax32 || e.compressed_size >= kMax32;
}

// Reads the zip64 extended information field, which holds (in this order)
// only the values whose 32-bit fields are saturated.
Status ApplyZip64Extra(ByteView extra, Entry* e, uint32_t size32, uint32_t csize32,
                       uint32_t offset32, std::string_view where) {
  size_t pos = 0;
  while (pos + 4 <= extra.size()) {
    uint16_t id = Load16(extra.data() + pos);
    uint16_t len = Load16(extra.data() + pos + 2);
    if (pos + 4 + len > extra.size()) {
      char id_hex[8];
      std::snprintf(id_hex, sizeof(id_hex), "0x%04x", id);
      return Corrupt(where, EntryLabel(e->name) + ": extra field " + id_hex + " of " +
                                std::to_string(len) +
                                " bytes runs past the end of the header");
    }
    if (id == kZip64ExtraId) {
      const std::byte* p = extra.data() + pos + 4;
      size_t left = len;
      auto take = [&](uint64_t* v, const char* what) -> Status {
        if (left < 8) {
          return Corrupt(where,
                         EntryLabel(e->name) + ": zip64 extra field lacks the " + what);
        }
        *v = Load64(p);
        p += 8;
        left -= 8;
        return Status::OK();
      };
      if (size32 == kMax32) TZ_RETURN_NOT_OK(take(&e->size, "uncompressed size"));
      if (csize32 == kMax32)
        TZ_RETURN_NOT_OK(take(&e->compressed_size, "compressed size"));
      if (offset32 == kMax32) TZ_RETURN_NOT_OK(take(&e->header_offset, "header offset"));
      return Status::OK();
    }
    pos += 4 + len;
  }
  return Status::OK();
}

}  // namespace

Result<DirectoryLocation> LocateDirectory(const ReadAt& read, uint64_t file_size,
                                          std::string_view where) {
  if (file_size < kEndSize) {
    return Corrupt(where,
                   "not a zip archive: " + std::to_string(file_size) +
                       " bytes is too short for an end of central directory record");
  }
  const uint64_t tail_size = std::min<uint64_t>(file_size, kMaxEndSearch);
  const uint64_t tail_offset = file_size - tail_size;
  TZ_ASSIGN_OR_RETURN(Buffer tail, read(tail_offset, tail_size));
  if (tail.size() != tail_size) {
    return Corrupt(where, "the file ended early while reading its last " +
                              std::to_string(tail_size) + " bytes");
  }
  // The end record whose comment runs exactly to the end of the file; failing
  // that (bytes appended after the archive), the last one whose comment fits.
  // A comment may itself contain the signature, so a match alone is not enough.
  const std::byte* t = tail.data();
  size_t at = 0;
  bool found = false;
  for (int exact = 1; exact >= 0 && !found; --exact) {
    at = tail_size - kEndSize + 1;
    while (at-- > 0) {
      if (Load32(t + at) != kEndSignature) continue;
      const uint64_t end = at + kEndSize + Load16(t + at + 20);
      if (exact ? end == tail_size : end <= tail_size) {
        found = true;
        break;
      }
    }
  }
  if (!found) {
    return Corrupt(where,
                   "not a zip archive (or a truncated one, or one whose writer "
                   "ended before writing its central directory): no end of central "
                   "directory record in its last " +
                       std::to_string(tail_size) + " bytes");
  }
  const uint64_t end_offset = tail_offset + at;
  const size_t comment_size =
      std::min<size_t>(Load16(t + at + 20), tail_size - at - kEndSize);
  DirectoryLocation loc;
  loc.end = end_offset + kEndSize + comment_size;
  loc.comment.assign(reinterpret_cast<const char*>(t + at + kEndSize), comment_size);
  uint64_t disk = Load16(t + at + 4);
  uint64_t directory_disk = Load16(t + at + 6);
  uint64_t disk_entries = Load16(t + at + 8);
  loc.entries = Load16(t + at + 10);
  loc.size = Load32(t + at + 12);
  uint64_t recorded_offset = Load32(t + at + 16);
  uint64_t directory_end = end_offset;

  // The locator, if any, sits right before the end record (and so in `tail`).
  if (at >= kZip64LocatorSize &&
      Load32(t + at - kZip64LocatorSize) == kZip64LocatorSignature) {
    const std::byte* l = t + at - kZip64LocatorSize;
    if (Load32(l + 16) > 1) {
      return Status::Unsupported(Prefix(where) + "archives split over " +
                                 std::to_string(Load32(l + 16)) +
                                 " disks are not supported");
    }
    // Where the record should be: right before the locator (as Python's
    // zipfile assumes), else where the locator says.
    const uint64_t locator_offset = end_offset - kZip64LocatorSize;
    Buffer record;
    uint64_t record_offset = 0;
    for (uint64_t candidate :
         {locator_offset - std::min(locator_offset, uint64_t{kZip64EndSize}),
          Load64(l + 8)}) {
      if (candidate > locator_offset || locator_offset - candidate < kZip64EndSize)
        continue;
      TZ_ASSIGN_OR_RETURN(record, read(candidate, kZip64EndSize));
      if (record.size() == kZip64EndSize && Load32(record.data()) == kZip64EndSignature) {
        record_offset = candidate;
        break;
      }
      record.Clear();
    }
    if (record.empty()) {
      return Corrupt(where, "the zip64 end of central directory locator at offset " +
                                std::to_string(locator_offset) +
                                " points to no zip64 end of central directory record");
    }
    const std::byte* r = record.data();
    disk = Load32(r + 16);
    directory_disk = Load32(r + 20);
    disk_entries = Load64(r + 24);
    loc.entries = Load64(r + 32);
    loc.size = Load64(r + 40);
    recorded_offset = Load64(r + 48);
    directory_end = record_offset;
    loc.zip64 = true;
  }
  if (disk != 0 || directory_disk != 0 || disk_entries != loc.entries) {
    return Status::Unsupported(Prefix(where) +
                               "archives split over several disks are not "
                               "supported");
  }
  if (loc.size > directory_end) {
    return Corrupt(where, "the central directory of " + std::to_string(loc.size) +
                              " bytes does not fit before its end record at offset " +
                              std::to_string(directory_end));
  }
  loc.offset = directory_end - loc.size;
  if (recorded_offset > loc.offset) {
    return Corrupt(where, "the central directory offset " +
                              std::to_string(recorded_offset) +
                              " lies past where the directory must start (" +
                              std::to_string(loc.offset) + ")");
  }
  loc.base = loc.offset - recorded_offset;
  return loc;
}

Result<std::vector<Entry>> ParseCentralDirectory(ByteView directory, uint64_t limit,
                                                 std::string_view where,
                                                 std::vector<ByteView>* headers) {
  std::vector<Entry> entries;
  entries.reserve(directory.size() / kCentralHeaderSize);
  const std::byte* d = directory.data();
  size_t pos = 0;
  while (pos < directory.size()) {
    std::string label = "central directory header #" +
                        std::to_string(entries.size() + 1) + " (directory offset " +
                        std::to_string(pos) + ")";
    if (directory.size() - pos < kCentralHeaderSize) {
      return Corrupt(where, label + " is cut short");
    }
    const std::byte* h = d + pos;
    if (Load32(h) != kCentralHeaderSignature) {
      return Corrupt(where, label + " has a bad signature");
    }
    const size_t name_len = Load16(h + 28);
    const size_t extra_len = Load16(h + 30);
    const size_t comment_len = Load16(h + 32);
    const size_t total = kCentralHeaderSize + name_len + extra_len + comment_len;
    if (total > directory.size() - pos) {
      return Corrupt(where, label + ": its name, extra field and comment (" +
                                std::to_string(name_len + extra_len + comment_len) +
                                " bytes) run past the end of the central directory");
    }
    Entry e;
    e.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), name_len);
    e.flags = Load16(h + 8);
    e.method = Load16(h + 10);
    e.crc32 = Load32(h + 16);
    const uint32_t csize32 = Load32(h + 20);
    const uint32_t size32 = Load32(h + 24);
    const uint32_t offset32 = Load32(h + 42);
    e.compressed_size = csize32;
    e.size = size32;
    e.header_offset = offset32;
    TZ_RETURN_NOT_OK(
        ApplyZip64Extra(ByteView(h + kCentralHeaderSize + name_len, extra_len), &e,
                        size32, csize32, offset32, where));
    // Every local header and its data lie before the central directory.
    if (e.header_offset > limit ||
        limit - e.header_offset < kLocalHeaderSize + name_len ||
        limit - e.header_offset - kLocalHeaderSize - name_len < e.compressed_size) {
      return Corrupt(where, EntryLabel(e.name) + ": its local header at offset " +
                                std::to_string(e.header_offset) + " and " +
                                std::to_string(e.compressed_size) +
                                " bytes of data run past the start of the central "
                                "directory (offset " +
                                std::to_string(limit) + ")");
    }
    entries.push_back(std::move(e));
    if (headers != nullptr) headers->push_back(directory.subspan(pos, total));
    pos += total;
  }
  return entries;
}

Result<uint64_t> ParseLocalHeader(ByteView bytes, const Entry& entry,
                                  std::string_view where) {
  if (bytes.size() < kLocalHeaderSize) {
    return Corrupt(where, EntryLabel(entry.name) + ": the local header at offset " +
                              std::to_string(entry.header_offset) + " is cut short");
  }
  const std::byte* h = bytes.data();
  if (Load32(h) != kLocalHeaderSignature) {
    return Corrupt(where, EntryLabel(entry.name) +
                              ": no local header signature at offset " +
                              std::to_string(entry.header_offset));
  }
  const size_t name_len = Load16(h + 26);
  const size_t extra_len = Load16(h + 28);
  if (name_len != entry.name.size() || bytes.size() < kLocalHeaderSize + name_len ||
      std::string_view(reinterpret_cast<const char*>(h + kLocalHeaderSize), name_len) !=
          entry.name) {
    std::string local;
    if (bytes.size() >= kLocalHeaderSize + name_len) {
      local.append(1, '\'');
      local.append(reinterpret_cast<const char*>(h + kLocalHeaderSize), name_len);
      local.append(1, '\'');
    } else {
      local = "a name of " + std::to_string(name_len) + " bytes";
    }
    return Corrupt(where, EntryLabel(entry.name) + ": the local header at offset " +
                              std::to_string(entry.header_offset) + " has " + local +
                              ", not the central directory's name");
  }
  return uint64_t{kLocalHeaderSize + name_len + extra_len};
}

std::optional<LocalEntry> ReadLocalHeader(ByteView bytes, uint64_t offset) {
  if (bytes.size() < kLocalHeaderSize) return std::nullopt;
  const std::byte* h = bytes.data();
  if (Load32(h) != kLocalHeaderSignature) return std::nullopt;
  LocalEntry local;
  Entry& e = local.entry;
  e.flags = Load16(h + 6);
  constexpr uint16_t kFlagDataDescriptor = 1 << 3;
  if (e.flags & (kFlagEncrypted | kFlagDataDescriptor)) return std::nullopt;
  e.flags &= static_cast<uint16_t>(~kFlagUtf8);  // the writer sets it from the name
  e.method = Load16(h + 8);
  e.crc32 = Load32(h + 14);
  e.compressed_size = Load32(h + 18);
  e.size = Load32(h + 22);
  const size_t name_len = Load16(h + 26);
  const size_t extra_len = Load16(h + 28);
  if (bytes.size() < kLocalHeaderSize + name_len + extra_len) return std::nullopt;
  e.name.assign(reinterpret_cast<const char*>(h + kLocalHeaderSize), name_len);
  // The zip64 extra field holds the sizes the 32-bit fields could not.
  ByteView extra = bytes.subspan(kLocalHeaderSize + name_len, extra_len);
  while (extra.size() >= 4) {
    const uint16_t id = Load16(extra.data());
    const size_t len = Load16(extra.data() + 2);
    if (len > extra.size() - 4) return std::nullopt;
    ByteView field = extra.subspan(4, len);
    if (id == kZip64ExtraId) {
      if (e.size == kMax32) {
        if (field.size() < 8) return std::nullopt;
        e.size = Load64(field.data());
        field = field.subspan(8);
      }
      if (e.compressed_size == kMax32) {
        if (field.size() < 8) return std::nullopt;
        e.compressed_size = Load64(field.data());
      }
    }
    extra = extra.subspan(4 + len);
  }
  e.header_offset = offset;
  local.data_offset = offset + kLocalHeaderSize + name_len + extra_len;
  return local;
}

DosTime ToDosTime(std::time_t t) {
  std::tm tm{};
  if (::localtime_r(&t, &tm) == nullptr || tm.tm_year < 80) return {0, (1 << 5) | 1};
  DosTime d;
  d.time = static_cast<uint16_t>(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
  d.date =
      static_cast<uint16_t>((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
  return d;
}

size_t LocalHeaderSize(const Entry& entry, bool force_zip64) {
  return kLocalHeaderSize + entry.name.size() +
         (LocalNeedsZip64(entry, force_zip64) ? 20 : 0);
}

void AppendLocalHeader(const Entry& e, DosTime when, bool force_zip64, Buffer* out) {
  const bool zip64 = LocalNeedsZip64(e, force_zip64);
  Put32(out, kLocalHeaderSignature);
  Put16(out, zip64 ? kVersion45 : kVersion20);
  Put16(out, static_cast<uint16_t>(e.flags | (HasNonAscii(e.name) ? kFlagUtf8 : 0)));
  Put16(out, e.method);
  Put16(out, when.time);
  Put16(out, when.date);
  Put32(out, e.crc32);
  // A zip64 local header carries both sizes in the extra field.
  Put32(out, zip64 ? kMax32 : static_cast<uint32_t>(e.compressed_size));
  Put32(out, zip64 ? kMax32 : static_cast<uint32_t>(e.size));
  Put16(out, static_cast<uint16_t>(e.name.size()));
  Put16(out, zip64 ? 20 : 0);
  out->Append(AsBytes(e.name));
  if (zip64) {
    Put16(out, kZip64ExtraId);
    Put16(out, 16);
    Put64(out, e.size);
    Put64(out, e.compressed_size);
  }
}

void AppendCentralHeader(const Entry& e, DosTime when, bool force_zip64, Buffer* out) {
  const Zip64Fields z = CentralZip64Fields(e, force_zip64);
  const uint16_t extra_len = static_cast<uint16_t>(
      (z.size || z.compressed_size || z.offset)
          ? 4 + 8 * (int{z.size} + int{z.compressed_size} + int{z.offset})
          : 0);
  const uint16_t version =
      extra_len > 0 || LocalNeedsZip64(e, force_zip64) ? kVersion45 : kVersion20;
  Put32(out, kCentralHeaderSignature);
  Put16(out, kMadeByUnix | version);
  Put16(out, version);
  Put16(out, static_cast<uint16_t>(e.flags | (HasNonAscii(e.name) ? kFlagUtf8 : 0)));
  Put16(out, e.method);
  Put16(out, when.time);
  Put16(out, when.date);
  Put32(out, e.crc32);
  Put32(out, z.compressed_size ? kMax32 : static_cast<uint32_t>(e.compressed_size));
  Put32(out, z.size ? kMax32 : static_cast<uint32_t>(e.size));
  Put16(out, static_cast<uint16_t>(e.name.size()));
  Put16(out, extra_len);
  Put16(out, 0);  // comment
  Put16(out, 0);  // disk
  Put16(out, 0);  // internal attributes
  Put32(out, kRegularFile0644);
  Put32(out, z.offset ? kMax32 : static_cast<uint32_t>(e.header_offset));
  out->Append(AsBytes(e.name));
  if (extra_len > 0) {
    Put16(out, kZip64ExtraId);
    Put16(out, static_cast<uint16_t>(extra_len - 4));
    if (z.size) Put64(out, e.size);
    if (z.compressed_size) Put64(out, e.compressed_size);
    if (z.offset) Put64(out, e.header_offset);
  }
}

void AppendEndRecords(uint64_t entries, uint64_t offset, uint64_t size, bool force_zip64,
                      Buffer* out, std::string_view comment) {
  // 0xFFFF entries is itself the "see the zip64 record" marker, so it needs zip64.
  const bool zip64 =
      force_zip64 || entries >= kMax16 || offset >= kMax32 || size >= kMax32;
  if (zip64) {
    const uint64_t record_offset = offset + size;
    Put32(out, kZip64EndSignature);
    Put64(out, kZip64EndSize - 12);  // the size of the rest of the record
    Put16(out, kMadeByUnix | kVersion45);
    Put16(out, kVersion45);
    Put32(out, 0);  // this disk
    Put32(out, 0);  // the directory's disk
    Put64(out, entries);
    Put64(out, entries);
    Put64(out, size);
    Put64(out, offset);
    Put32(out, kZip64LocatorSignature);
    Put32(out, 0);  // the record's disk
    Put64(out, record_offset);
    Put32(out, 1);  // disks in all
  }
  const uint16_t count = zip64 ? kMax16 : static_cast<uint16_t>(entries);
  Put32(out, kEndSignature);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, count);
  Put16(out, count);
  Put32(out, zip64 ? kMax32 : static_cast<uint32_t>(size));
  Put32(out, zip64 ? kMax32 : static_cast<uint32_t>(offset));
  comment = comment.substr(0, kMaxCommentSize);
  Put16(out, static_cast<uint16_t>(comment.size()));
  out->Append(AsBytes(comment));
}

}  // namespace turbozarr::zip
