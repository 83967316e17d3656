#include "store/zip_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <ctime>
#include <mutex>
#include <system_error>
#include <vector>

#include "store/file_tree.h"
#include "store/store_internal.h"
#include "store/zip_entry_reader.h"

namespace turbozarr {
namespace {

std::string ErrorText(int err) { return std::generic_category().message(err); }

// Writes every byte of `parts`, in order, from `offset`.
int WriteAllAt(int fd, uint64_t offset, std::vector<iovec> parts) {
  size_t first = 0;
  while (first < parts.size()) {
    if (parts[first].iov_len == 0) {
      ++first;
      continue;
    }
    int count = static_cast<int>(std::min<size_t>(parts.size() - first, IOV_MAX));
    ssize_t n = ::pwritev(fd, &parts[first], count, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    offset += static_cast<uint64_t>(n);
    size_t left = static_cast<size_t>(n);
    while (left > 0 && left >= parts[first].iov_len) left -= parts[first++].iov_len;
    if (left > 0) {
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + left;
      parts[first].iov_len -= left;
    }
  }
  return 0;
}

iovec Part(ByteView bytes) {
  return {const_cast<std::byte*>(bytes.data()), bytes.size()};
}

}  // namespace

ZipWriter::ZipWriter(std::string path, bool exclusive, bool force_zip64)
    : path_(std::move(path)),
      exclusive_(exclusive),
      force_zip64_(force_zip64),
      when_(zip::ToDosTime(std::time(nullptr))) {}

ZipWriter::~ZipWriter() {
  // The last chance to make the archive readable; a failure here has no one
  // to report to, which is why callers that care call Flush themselves.
  if (dirty_) (void)Flush();
  if (fd_ >= 0) ::close(fd_);
}

Status ZipWriter::CreateFileLocked() {
  size_t slash = path_.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    std::string dir = path_.substr(0, slash);
    if (int err = internal::MakeDirectories(dir); err != 0) {
      return Status::IOError(Describe() + ": create directory " + dir + ": " +
                             ErrorText(err));
    }
  }
  // Not truncated on open: another writer may be writing the archive, and
  // its bytes are not ours to cut until we hold the file's lock.
  int flags = O_RDWR | O_CREAT | O_CLOEXEC | (exclusive_ ? O_EXCL : 0);
  int fd = ::open(path_.c_str(), flags, 0666);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) {
      return Status::AlreadyExists(Describe() +
                                   ": the file appeared after the archive was "
                                   "opened for writing; not replacing it");
    }
    return Status::IOError(Describe() + ": create: " + ErrorText(err));
  }
  // One writer per archive: its entries and central directory are laid out
  // by one process's bookkeeping, and a second writer would interleave
  // entries and overwrite the directory. The lock is the kernel's, so it
  // goes with the writer however the writer ends.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::AlreadyExists(
          Describe() +
          ": another writer has the archive open for writing (a zip archive has one "
          "writer at a time); not touching it");
    }
    return Status::IOError(Describe() + ": lock: " + ErrorText(err));
  }
  if (!exclusive_ && ::ftruncate(fd, 0) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IOError(Describe() + ": truncate: " + ErrorText(err));
  }
  fd_ = fd;
  dirty_ = true;  // the file exists now; it must end up an archive
  return Status::OK();
}

Status ZipWriter::Read(std::span<const ReadRequest> requests,
                       std::span<ReadAnswer> answers) {
  return internal::ReadEachIntoBuffers(
      requests, answers,
      [this](std::string_view key, ByteRange range) { return ReadValue(key, range); });
}

Result<std::optional<Buffer>> ZipWriter::ReadValue(std::string_view key,
                                                   ByteRange range) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  Slot slot;
  int fd;
  {
    std::shared_lock lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::optional<Buffer>();
    slot = it->second;
    fd = fd_;
  }
  TZ_ASSIGN_OR_RETURN(
      Buffer value, zip::ReadEntry(fd, slot.entry, slot.data_offset, range, Describe()));
  return std::optional<Buffer>(std::move(value));
}

Result<std::optional<uint64_t>> ZipWriter::Size(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  std::shared_lock lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<uint64_t>();
  return std::optional<uint64_t>(it->second.entry.size);
}

Status ZipWriter::Set(std::string_view key, ByteView value) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  zip::Entry entry;
  entry.name = std::string(key);
  entry.method = zip::kMethodStored;
  entry.size = entry.compressed_size = value.size();
  entry.crc32 = zip::Crc32(value);
  const uint64_t header_size = zip::LocalHeaderSize(entry, force_zip64_);
  int fd;
  {
    // Reserve the bytes; the writing happens outside the lock.
    std::unique_lock lock(mu_);
    if (fd_ < 0) TZ_RETURN_NOT_OK(CreateFileLocked());
    fd = fd_;
    entry.header_offset = end_;
    end_ += header_size + value.size();
  }
  Buffer header;
  header.Reserve(header_size);
  zip::AppendLocalHeader(entry, when_, force_zip64_, &header);
  if (int err = WriteAllAt(fd, entry.header_offset, {Part(header.view()), Part(value)});
      err != 0) {
    // The reserved bytes stay unused; no directory entry points at them.
    return Status::IOError(Describe() + ": write entry '" + entry.name +
                           "': " + ErrorText(err));
  }
  const uint64_t data_offset = entry.header_offset + header_size;
  std::unique_lock lock(mu_);
  Slot& slot = entries_[entry.name];
  // Two Sets of one key racing: the one that reserved later is the newer value.
  if (slot.data_offset == 0 || slot.entry.header_offset < entry.header_offset) {
    slot = Slot{std::move(entry), data_offset};
  }
  dirty_ = true;
  return Status::OK();
}

Status ZipWriter::Erase(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  std::shared_lock lock(mu_);
  if (entries_.find(key) == entries_.end()) return Status::OK();
  return Status::Unsupported(
      Describe() + ": cannot erase '" + std::string(key) +
      "': entries of a zip archive cannot be removed (as in "
      "zarr-python's ZipStore); set it again to replace its value");
}

Result<std::vector<std::string>> ZipWriter::List(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  std::vector<std::string> keys;
  std::shared_lock lock(mu_);
  for (auto it = entries_.lower_bound(prefix); it != entries_.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    if (internal::KeyIsUnder(it->first, prefix)) keys.push_back(it->first);
  }
  return keys;
}

Status ZipWriter::Flush() {
  // Exclusive for the whole write: no Set may reserve the bytes the directory
  // is going to, and the directory lists a consistent set of entries. Sets
  // still writing their reserved bytes are not listed yet and leave dirty_ set.
  std::unique_lock lock(mu_);
  if (fd_ >= 0 && !dirty_) return Status::OK();
  if (fd_ < 0) TZ_RETURN_NOT_OK(CreateFileLocked());
  std::vector<const zip::Entry*> order;
  order.reserve(entries_.size());
  for (const auto& [name, slot] : entries_) order.push_back(&slot.entry);
  std::sort(order.begin(), order.end(), [](const zip::Entry* a, const zip::Entry* b) {
    return a->header_offset < b->header_offset;
  });
  Buffer records;
  for (const zip::Entry* e : order) {
    zip::AppendCentralHeader(*e, when_, force_zip64_, &records);
  }
  const uint64_t directory_size = records.size();
  zip::AppendEndRecords(order.size(), end_, directory_size, force_zip64_, &records);
  if (int err = WriteAllAt(fd_, end_, {Part(records.view())}); err != 0) {
    return Status::IOError(Describe() +
                           ": write the central directory: " + ErrorText(err));
  }
  // A longer directory from an earlier Flush may lie beyond this one.
  if (::ftruncate(fd_, static_cast<off_t>(end_ + records.size())) != 0) {
    return Status::IOError(Describe() +
                           ": truncate after the central directory: " + ErrorText(errno));
  }
  dirty_ = false;
  return Status::OK();
}

}  // namespace turbozarr
