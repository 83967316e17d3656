#include "store/zip_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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

Result<std::shared_ptr<ZipWriter>> ZipWriter::OpenForAppend(std::string path,
                                                             bool force_zip64) {
  std::shared_ptr<ZipWriter> w(
      new ZipWriter(std::move(path), /*exclusive=*/false, force_zip64));
  const std::string where = w->Describe();
  // Opened read-write at once: one descriptor serves the reads and, from the
  // first write on, the writes. A file that may only be read still serves
  // reads, and the first write says why it cannot append.
  int fd = ::open(w->path_.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
    fd = ::open(w->path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    w->fd_writable_ = false;
  }
  if (fd < 0) {
    int err = errno;
    if (internal::IsAbsent(err)) {
      return Status::NotFound("zip archive '" + w->path_ + "' does not exist");
    }
    return Status::IOError(where + ": open: " + ErrorText(err));
  }
  w->fd_ = fd;  // closed by the destructor from here on
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::IOError(where + ": stat: " + ErrorText(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(where + ": not a regular file");
  auto inherited = std::make_unique<Inherited>();
  inherited->file_size = static_cast<uint64_t>(st.st_size);
  TZ_ASSIGN_OR_RETURN(inherited->directory,
                      zip::ReadDirectory(fd, inherited->file_size, where));
  for (const zip::Entry& e : inherited->directory.entries) {
    const bool key = ValidateKey(e.name).ok();
    inherited->is_key.push_back(key);
    // In directory order, so the later of two equal names wins.
    if (key) w->entries_[e.name] = Slot{e, 0, /*inherited=*/true};
  }
  w->base_ = inherited->directory.location.base;
  w->end_ = inherited->file_size;
  w->inherited_ = std::move(inherited);
  return w;
}

ZipWriter::~ZipWriter() {
  // The last chance to make the archive readable; a failure here has no one
  // to report to, which is why callers that care call Flush themselves.
  if (dirty_) (void)Flush();
  if (fd_ >= 0) ::close(fd_);
}

Status ZipWriter::LockFile(int fd) const {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return Status::OK();
  const int err = errno;
  if (err == EWOULDBLOCK) {
    return Status::AlreadyExists(
        Describe() +
        ": another writer has the archive open for writing (a zip archive has one "
        "writer at a time); not touching it");
  }
  return Status::IOError(Describe() + ": lock: " + ErrorText(err));
}

Status ZipWriter::BeginWritingLocked() {
  if (inherited_ != nullptr) return locked_ ? Status::OK() : LockForAppendLocked();
  return fd_ >= 0 ? Status::OK() : CreateFileLocked();
}

// Takes the writer's lock (see CreateFileLocked) on the archive opened for
// appending, then makes sure it is still the archive that was read: same
// file, same size, same central directory. Entries are appended at the size
// it had, so one written by another writer in between would be overwritten.
Status ZipWriter::LockForAppendLocked() {
  if (!fd_writable_) {
    return Status::IOError(Describe() +
                           ": cannot append: the file opened read-only (no write "
                           "permission, or a read-only file system)");
  }
  TZ_RETURN_NOT_OK(LockFile(fd_));
  auto changed = [this](const std::string& how) {
    ::flock(fd_, LOCK_UN);
    return Status::AlreadyExists(Describe() + ": the archive changed after it was opened "
                                              "for appending (" +
                                 how + "); reopen it to append to what it holds now");
  };
  struct stat now;
  struct stat named;
  if (::fstat(fd_, &now) != 0) return Status::IOError(Describe() + ": stat: " + ErrorText(errno));
  if (::stat(path_.c_str(), &named) != 0 || named.st_ino != now.st_ino ||
      named.st_dev != now.st_dev) {
    return changed("another file is in its place");
  }
  if (static_cast<uint64_t>(now.st_size) != inherited_->file_size) {
    return changed(std::to_string(inherited_->file_size) + " bytes then, " +
                   std::to_string(now.st_size) + " now");
  }
  Result<zip::Directory> again = zip::ReadDirectory(fd_, inherited_->file_size, Describe());
  const zip::Directory& was = inherited_->directory;
  if (!again.ok() || again->location.offset != was.location.offset ||
      !(again->bytes == was.bytes)) {
    return changed("its central directory is not the one read");
  }
  locked_ = true;
  return Status::OK();
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
  if (Status locked = LockFile(fd); !locked.ok()) {
    ::close(fd);
    return locked;
  }
  if (!exclusive_ && ::ftruncate(fd, 0) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IOError(Describe() + ": truncate: " + ErrorText(err));
  }
  fd_ = fd;
  locked_ = true;
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
  if (slot.data_offset == 0) {
    // An inherited entry read for the first time: its local header says where
    // its data starts. Racing first readers compute the same value.
    TZ_ASSIGN_OR_RETURN(slot.data_offset,
                        zip::ReadDataOffset(fd, slot.entry, base_,
                                            inherited_->directory.limit, Describe()));
    std::unique_lock lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.inherited &&
        it->second.entry.header_offset == slot.entry.header_offset) {
      it->second.data_offset = slot.data_offset;
    }
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
  uint64_t file_offset;
  {
    // Reserve the bytes; the writing happens outside the lock.
    std::unique_lock lock(mu_);
    TZ_RETURN_NOT_OK(BeginWritingLocked());
    fd = fd_;
    file_offset = end_;
    end_ += header_size + value.size();
  }
  entry.header_offset = file_offset - base_;
  Buffer header;
  header.Reserve(header_size);
  zip::AppendLocalHeader(entry, when_, force_zip64_, &header);
  if (int err = WriteAllAt(fd, file_offset, {Part(header.view()), Part(value)});
      err != 0) {
    // The reserved bytes stay unused; no directory entry points at them.
    return Status::IOError(Describe() + ": write entry '" + entry.name +
                           "': " + ErrorText(err));
  }
  const uint64_t data_offset = file_offset + header_size;
  std::unique_lock lock(mu_);
  Slot& slot = entries_[entry.name];
  // Two Sets of one key racing: the one that reserved later is the newer value.
  // An inherited entry lies before every new one.
  if (slot.data_offset == 0 || slot.entry.header_offset < entry.header_offset) {
    slot = Slot{std::move(entry), data_offset};
  }
  dirty_ = true;
  return Status::OK();
}

Status ZipWriter::Erase(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  if (inherited_ != nullptr) {
    // Appending: the key leaves the directory; its bytes stay where they are.
    std::unique_lock lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return Status::OK();
    TZ_RETURN_NOT_OK(BeginWritingLocked());
    entries_.erase(it);
    dirty_ = true;
    return Status::OK();
  }
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

uint64_t ZipWriter::AppendDirectoryLocked(Buffer* records) const {
  uint64_t count = 0;
  if (inherited_ != nullptr) {
    // The old headers unchanged, but for keys set again or erased since.
    const zip::Directory& d = inherited_->directory;
    for (size_t i = 0; i < d.entries.size(); ++i) {
      if (inherited_->is_key[i]) {
        auto it = entries_.find(d.entries[i].name);
        if (it == entries_.end() || !it->second.inherited) continue;
      }
      records->Append(d.headers[i]);
      ++count;
    }
  }
  std::vector<const zip::Entry*> order;
  order.reserve(entries_.size());
  for (const auto& [name, slot] : entries_) {
    if (!slot.inherited) order.push_back(&slot.entry);
  }
  std::sort(order.begin(), order.end(), [](const zip::Entry* a, const zip::Entry* b) {
    return a->header_offset < b->header_offset;
  });
  for (const zip::Entry* e : order) {
    zip::AppendCentralHeader(*e, when_, force_zip64_, records);
  }
  return count + order.size();
}

Status ZipWriter::Flush() {
  // Exclusive for the whole write: no Set may reserve the bytes the directory
  // is going to, and the directory lists a consistent set of entries. Sets
  // still writing their reserved bytes are not listed yet and leave dirty_ set.
  std::unique_lock lock(mu_);
  // A new archive is created by its first Flush; an appended one is
  // rewritten only if something changed.
  if (!dirty_ && (fd_ >= 0 || inherited_ != nullptr)) return Status::OK();
  TZ_RETURN_NOT_OK(BeginWritingLocked());
  Buffer records;
  const uint64_t count = AppendDirectoryLocked(&records);
  const uint64_t directory_size = records.size();
  zip::AppendEndRecords(count, end_ - base_, directory_size, force_zip64_, &records,
                        inherited_ ? inherited_->directory.location.comment : "");
  if (int err = WriteAllAt(fd_, end_, {Part(records.view())}); err != 0) {
    return Status::IOError(Describe() +
                           ": write the central directory: " + ErrorText(err));
  }
  // A longer directory from an earlier Flush may lie beyond this one. (An
  // appended archive never gets shorter than it was: end_ starts at its end.)
  if (::ftruncate(fd_, static_cast<off_t>(end_ + records.size())) != 0) {
    return Status::IOError(Describe() +
                           ": truncate after the central directory: " + ErrorText(errno));
  }
  dirty_ = false;
  return Status::OK();
}

}  // namespace turbozarr
