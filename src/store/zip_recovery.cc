#include "store/zip_recovery.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <string>


namespace turbozarr::zip {
namespace {

// Reads are made in blocks of this many bytes: the CRC of a large entry is
// computed block by block, and signatures are searched for a block at a time.
constexpr size_t kBlock = size_t{4} << 20;

// The CRC-32 of bytes [offset, offset + n) of the file.
Result<uint32_t> Crc32Of(int fd, uint64_t offset, uint64_t n, Buffer& block,
                         std::string_view where) {
  uint32_t crc = 0;
  for (uint64_t done = 0; done < n;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kBlock, n - done));
    block.Resize(want);
    TZ_ASSIGN_OR_RETURN(size_t got, ReadAtMost(fd, offset + done, block.mutable_view(), where));
    if (got < want) return Status::IOError(std::string(where) + ": the file shrank");
    crc = Crc32(block.view(), crc);
    done += want;
  }
  return crc;
}

constexpr std::byte kLocalSignature[4] = {std::byte{'P'}, std::byte{'K'}, std::byte{3},
                                          std::byte{4}};
constexpr std::byte kEndRecordSignature[4] = {std::byte{'P'}, std::byte{'K'},
                                              std::byte{5}, std::byte{6}};

// The offset of the next `sig` at or after `from`, or `size` if there is none.
Result<uint64_t> NextSignature(int fd, uint64_t from, uint64_t size,
                               const std::byte (&sig)[4], Buffer& block,
                               std::string_view where) {
  while (from + 4 <= size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kBlock, size - from));
    block.Resize(want);
    TZ_ASSIGN_OR_RETURN(size_t got, ReadAtMost(fd, from, block.mutable_view(), where));
    const std::byte* begin = block.data();
    const std::byte* found = std::search(begin, begin + got, sig, sig + 4);
    if (found != begin + got) return from + static_cast<uint64_t>(found - begin);
    if (got < 4) break;
    from += got - 3;  // a signature may straddle two blocks
  }
  return size;
}

// The directory of the archive the file held before an unfinished append
// (see the header): of the end records in the file whose archive is whole
// (its directory parses and every local header it names is where it says),
// the one with the fewest bytes in front of its archive, then the last.
Result<std::optional<Directory>> FindEarlierDirectory(int fd, uint64_t size, Buffer& block,
                                                      std::string_view where) {
  std::optional<Directory> best;
  for (uint64_t from = 0;;) {
    TZ_ASSIGN_OR_RETURN(uint64_t at,
                        NextSignature(fd, from, size, kEndRecordSignature, block, where));
    if (at >= size) break;
    from = at + 1;
    std::byte record[kEndSize];
    TZ_ASSIGN_OR_RETURN(size_t got, ReadAtMost(fd, at, MutableByteView(record), where));
    if (got < kEndSize) continue;
    const uint64_t comment = std::to_integer<uint64_t>(record[20]) |
                             std::to_integer<uint64_t>(record[21]) << 8;
    const uint64_t end = at + kEndSize + comment;
    if (end > size) continue;
    Result<Directory> d = ReadDirectory(fd, end, where);
    if (!d.ok()) {
      if (d.status().code() == StatusCode::kIOError) return d.status();
      continue;
    }
    if (d->location.end != end) continue;
    bool whole = true;
    for (const Entry& e : d->entries) {
      whole = ReadDataOffset(fd, e, d->location.base, d->limit, where).ok();
      if (!whole) break;
    }
    if (!whole) continue;
    if (!best || d->location.base <= best->location.base) best = std::move(*d);
  }
  return best;
}

// Which of `found.earlier`'s headers the repaired directory keeps: those of
// names not found again after it.
std::vector<bool> KeptEarlier(const Recovery& found) {
  std::vector<bool> kept;
  if (!found.earlier) return kept;
  std::set<std::string_view> again;
  for (const Entry& e : found.entries) again.insert(e.name);
  for (const Entry& e : found.earlier->entries) kept.push_back(!again.contains(e.name));
  return kept;
}

}  // namespace

Result<Recovery> ScanLocalEntries(int fd, uint64_t size, std::string_view where) {
  Recovery out;
  std::map<std::string, Entry> newest;  // by name
  Buffer block;
  Buffer header;
  TZ_ASSIGN_OR_RETURN(out.earlier, FindEarlierDirectory(fd, size, block, where));
  uint64_t pos = out.earlier ? out.earlier->location.end : 0;
  uint64_t claimed = pos;
  while (pos + kLocalHeaderSize <= size) {
    // The fixed part, the name and an extra field of at most 64 KiB each.
    header.Resize(static_cast<size_t>(
        std::min<uint64_t>(kLocalHeaderSize + 2 * 0xFFFF, size - pos)));
    TZ_ASSIGN_OR_RETURN(size_t got, ReadAtMost(fd, pos, header.mutable_view(), where));
    std::optional<LocalEntry> local = ReadLocalHeader(header.view().first(got), pos);
    if (local) {
      const Entry& e = local->entry;
      const bool fits = local->data_offset <= size &&
                        e.compressed_size <= size - local->data_offset;
      if (fits && e.method != kMethodStored) {
        ++out.unchecked;
      } else if (fits && e.compressed_size == e.size) {
        TZ_ASSIGN_OR_RETURN(uint32_t crc,
                            Crc32Of(fd, local->data_offset, e.size, block, where));
        if (crc == e.crc32) {
          const uint64_t end = local->data_offset + e.size;
          claimed += end - pos;
          auto [it, fresh] = newest.try_emplace(e.name, e);
          if (!fresh && it->second.header_offset < e.header_offset) it->second = e;
          pos = end;
          continue;
        }
        ++out.damaged;
      } else {
        ++out.damaged;
      }
    }
    // No whole entry starts here: the next one may start anywhere after.
    TZ_ASSIGN_OR_RETURN(pos, NextSignature(fd, pos + 1, size, kLocalSignature, block, where));
  }
  for (auto& [name, e] : newest) out.entries.push_back(std::move(e));
  std::sort(out.entries.begin(), out.entries.end(),
            [](const Entry& a, const Entry& b) { return a.header_offset < b.header_offset; });
  out.unclaimed_bytes = size - claimed;
  return out;
}

std::vector<std::string> RecoveredNames(const Recovery& found) {
  std::vector<std::string> names;
  const std::vector<bool> kept = KeptEarlier(found);
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]) names.push_back(found.earlier->entries[i].name);
  }
  for (const Entry& e : found.entries) names.push_back(e.name);
  return names;
}

Status AppendDirectory(int fd, uint64_t size, const Recovery& found,
                       std::string_view where) {
  const DosTime now = ToDosTime(std::time(nullptr));
  // Offsets in the directory count from the earlier archive's start.
  const uint64_t base = found.earlier ? found.earlier->location.base : 0;
  Buffer records;
  uint64_t count = 0;
  const std::vector<bool> kept = KeptEarlier(found);
  for (size_t i = 0; i < kept.size(); ++i) {
    if (!kept[i]) continue;
    records.Append(found.earlier->headers[i]);
    ++count;
  }
  for (const Entry& e : found.entries) {
    Entry in_archive = e;
    in_archive.header_offset -= base;
    AppendCentralHeader(in_archive, now, false, &records);
    ++count;
  }
  const uint64_t directory_size = records.size();
  AppendEndRecords(count, size - base, directory_size, false, &records,
                   found.earlier ? found.earlier->location.comment : "");
  for (size_t done = 0; done < records.size();) {
    const ssize_t n = ::pwrite(fd, records.data() + done, records.size() - done,
                               static_cast<off_t>(size + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(std::string(where) +
                             ": write the central directory: " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(size + records.size())) != 0 || ::fsync(fd) != 0) {
    return Status::IOError(std::string(where) + ": sync the central directory: " +
                           std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace turbozarr::zip
