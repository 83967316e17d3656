#include "store/local_store.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <system_error>

#include "store/file_tree.h"
#include "store/key_locks.h"
#include "store/store_internal.h"
#include "util/stable_hash.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;

std::string ErrorText(int err) { return std::generic_category().message(err); }

Status OsError(std::string_view key, std::string_view op, const std::string& path,
               int err) {
  return Status::IOError("key '" + std::string(key) + "': " + std::string(op) + " " +
                         path + ": " + ErrorText(err));
}

using internal::FileCloser;
using internal::IsAbsent;

// The most one read call transfers on Linux (MAX_RW_COUNT).
constexpr size_t kLargestRead = 0x7ffff000;

std::string_view BaseName(std::string_view path) {
  return path.substr(path.rfind('/') + 1);
}

std::string_view DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

// fsync of a directory, so that the entries made or removed in it last.
// Returns 0 or the errno.
int SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int err = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

// A file name no other writer, in this process or another, will pick.
std::string TempName() {
  static const uint64_t salt = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  static std::atomic<uint64_t> counter{0};
  char buf[80];
  std::snprintf(buf, sizeof(buf), "%.*s%x-%llx-%llx",
                static_cast<int>(LocalStore::kTempPrefix.size()),
                LocalStore::kTempPrefix.data(), static_cast<unsigned>(::getpid()),
                static_cast<unsigned long long>(counter.fetch_add(1)),
                static_cast<unsigned long long>(salt));
  return buf;
}

}  // namespace

LocalStore::LocalStore(std::string root, bool durable)
    : root_(std::move(root)),
      durable_(durable),
      readahead_(std::make_unique<internal::ReadaheadQueue>(
          kReadaheadThreads, kReadaheadQueued,
          [this](std::string_view key) { StartReadahead(key); })) {}

Result<std::shared_ptr<Store>> MakeLocalStore(std::string root,
                                              LocalStoreOptions options) {
  if (root.empty()) return Status::InvalidArgument("empty local store path");
  std::error_code ec;
  fs::path path = fs::absolute(fs::path(root), ec);
  if (!ec) path = fs::weakly_canonical(path, ec);
  if (ec) {
    return Status::IOError("local store '" + root + "': " + ec.message());
  }
  std::string canonical = path.string();
  while (canonical.size() > 1 && canonical.back() == '/') canonical.pop_back();
  struct stat st;
  if (::stat(canonical.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("local store root '" + canonical +
                                   "' exists and is not a directory");
  }
  return std::shared_ptr<Store>(
      std::make_shared<LocalStore>(std::move(canonical), options.durable));
}

std::string LocalStore::PathOf(std::string_view key) const {
  std::string path = root_;
  if (path != "/") path += '/';
  path.append(key);
  return path;
}

bool LocalStore::IsInside(std::string_view resolved) const {
  if (resolved == root_ || root_ == "/") return true;
  return resolved.size() > root_.size() && resolved.starts_with(root_) &&
         resolved[root_.size()] == '/';
}

Result<std::string> LocalStore::ResolveExisting(std::string_view key,
                                                const std::string& path) const {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    int err = errno;
    if (IsAbsent(err)) return std::string();
    return OsError(key, "resolve", path, err);
  }
  std::string resolved = buf;
  if (!IsInside(resolved)) {
    return Status::InvalidArgument("key '" + std::string(key) + "' resolves to '" +
                                   resolved + "', outside the store root '" + root_ +
                                   "'");
  }
  return resolved;
}

Result<std::string> LocalStore::ResolveForWrite(std::string_view key,
                                                const std::string& path,
                                                bool* exists) const {
  // Resolve the longest part of `path` that exists and append the rest as
  // written: keys have no "." or ".." segments, so the rest cannot climb out.
  // Walking up one component at a time tolerates directories that concurrent
  // erasers remove while we look.
  std::string head = path;
  std::string tail;
  char buf[PATH_MAX];
  while (::realpath(head.c_str(), buf) == nullptr) {
    int err = errno;
    if (!IsAbsent(err) || head == "/") return OsError(key, "resolve", path, err);
    size_t slash = head.rfind('/');
    tail.insert(0, head, slash, std::string::npos);
    head.resize(slash == 0 ? 1 : slash);
  }
  *exists = tail.empty();
  std::string resolved = buf;
  if (resolved == "/" && !tail.empty()) resolved.clear();  // no "//x"
  resolved += tail;
  if (!IsInside(resolved)) {
    return Status::InvalidArgument("key '" + std::string(key) + "' resolves to '" +
                                   resolved + "', outside the store root '" + root_ +
                                   "'");
  }
  return resolved;
}

LocalStore::~LocalStore() {
  readahead_.reset();  // its threads use the root descriptor
  int fd = root_fd_.load();
  if (fd >= 0) ::close(fd);
}

int LocalStore::RootFd() const {
  int fd = root_fd_.load(std::memory_order_acquire);
  if (fd >= 0 || !openat2_works_.load(std::memory_order_relaxed)) return fd;
  int fresh = ::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fresh < 0) return -1;  // no root yet: nothing to read anyway
  int expected = -1;
  if (!root_fd_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    ::close(fresh);  // another thread won
    return expected;
  }
  return fresh;
}

int LocalStore::OpenBeneathRoot(std::string_view key, bool* absent) const {
  *absent = false;
  int dir = RootFd();
  if (dir < 0) return -1;
  struct open_how how {};
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  std::string path(key);
  long fd = ::syscall(SYS_openat2, dir, path.c_str(), &how, sizeof(how));
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    openat2_works_.store(false, std::memory_order_relaxed);
  }
  // No such entry beneath the root (a link that leaves it is EXDEV, not
  // this): the key is absent, as the checked path would find.
  if (fd < 0 && IsAbsent(errno)) *absent = true;
  return static_cast<int>(fd);
}

Result<LocalStore::OpenFile> LocalStore::OpenForRead(std::string_view key) const {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  OpenFile file;
  // Fast path: one openat2 that the kernel confines to the root replaces the
  // realpath walk (an lstat per path component) on every chunk read. Any
  // failure but an absent key (a link leaving the root, no openat2) takes
  // the checked path below, which also words the error. Absent keys are
  // common (a node's metadata is looked for under several names) and the
  // checked path costs a readlink per component.
  bool absent = false;
  int fd = OpenBeneathRoot(key, &absent);
  if (absent) return file;
  if (fd < 0) {
    TZ_ASSIGN_OR_RETURN(file.path, ResolveExisting(key, PathOf(key)));
    if (file.path.empty()) return file;
    // O_NONBLOCK keeps a stray FIFO from blocking the open; it is ignored for
    // regular files.
    fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      int err = errno;
      if (IsAbsent(err)) return file;  // erased meanwhile
      return OsError(key, "open", file.path, err);
    }
  }
  file.fd = fd;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return OsError(key, "stat", ErrorPath(key, file), err);
  }
  if (!S_ISREG(st.st_mode)) {  // a directory is no value
    ::close(fd);
    file.fd = -1;
    return file;
  }
  file.size = static_cast<uint64_t>(st.st_size);
  uint64_t h = 0;
  for (uint64_t part : {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                        static_cast<uint64_t>(st.st_ctim.tv_sec),
                        static_cast<uint64_t>(st.st_ctim.tv_nsec), file.size}) {
    h = internal::MixBits(h ^ part);
  }
  file.version = h == 0 ? 1 : h;
  return file;
}

std::string LocalStore::ErrorPath(std::string_view key, const OpenFile& file) const {
  return file.path.empty() ? PathOf(key) : file.path;
}

Result<size_t> LocalStore::ReadAt(std::string_view key, const OpenFile& file,
                                  uint64_t offset, MutableByteView out) const {
  if (reinterpret_cast<uintptr_t>(out.data()) % 32 == 0 || out.size() < kBounceBytes) {
    return ReadDirect(key, file, offset, out);
  }
  thread_local Buffer bounce(kBounceBytes);
  size_t done = 0;
  while (done < out.size()) {
    const size_t want = std::min(kBounceBytes, out.size() - done);
    TZ_ASSIGN_OR_RETURN(size_t got, ReadDirect(key, file, offset + done,
                                               bounce.mutable_view().first(want)));
    std::memcpy(out.data() + done, bounce.data(), got);
    done += got;
    if (got < want) break;  // the file ended early
  }
  return done;
}

Result<size_t> LocalStore::ReadDirect(std::string_view key, const OpenFile& file,
                                      uint64_t offset, MutableByteView out) const {
  size_t done = 0;
  if (!out.empty() && nowait_works_.load(std::memory_order_relaxed)) {
    // What the page cache holds comes back at once; a short answer means the
    // rest has to come from the disk (which recent kernels start reading).
    iovec iov{out.data(), out.size()};
    const ssize_t n = ::preadv2(file.fd, &iov, 1, static_cast<off_t>(offset), RWF_NOWAIT);
    if (n >= 0) {
      done = static_cast<size_t>(n);
      // (Linux answers at most kLargestRead bytes per call, cached or not.)
      if (n > 0 && done < std::min(out.size(), kLargestRead)) NoteUncachedRead();
    } else if (errno == EAGAIN) {
      NoteUncachedRead();
    } else if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) {
      nowait_works_.store(false, std::memory_order_relaxed);  // not on this file system
    }  // any other error, the blocking read below reports
  }
  while (done < out.size()) {
    ssize_t n = ::pread(file.fd, out.data() + done, out.size() - done,
                        static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return OsError(key, "read", ErrorPath(key, file), errno);
    }
    if (n == 0) break;  // the file shrank under us (not through this store)
    done += static_cast<size_t>(n);
  }
  return done;
}

void LocalStore::NoteUncachedRead() const {
  int credit = prefetch_credit_.load(std::memory_order_relaxed);
  int raised;
  do {
    // Hints may have spent more than there was; a wait starts afresh.
    raised = std::min(kPrefetchCredit, std::max(credit, 0) + kCreditPerWaitingRead);
    if (raised <= credit) return;
  } while (
      !prefetch_credit_.compare_exchange_weak(credit, raised, std::memory_order_relaxed));
}

void LocalStore::Prefetch(std::span<const std::string> keys) {
  if (keys.empty() || !WantsPrefetch()) return;
  // Each hint spends one credit: with no read waiting for the disk any more
  // (the data is cached, or the hints keep well ahead), hints stop.
  prefetch_credit_.fetch_sub(
      static_cast<int>(std::min<size_t>(keys.size(), kPrefetchCredit)),
      std::memory_order_relaxed);
  readahead_->Push(keys);
}

void LocalStore::StartReadahead(std::string_view key) {
  Result<OpenFile> file = OpenForRead(key);
  if (!file.ok() || file->fd < 0) return;  // the read will say what is wrong
  FileCloser closer(file->fd);
  // Pages already cached are skipped; the rest is read in the background.
  if (file->size > 0) {
    ::posix_fadvise(file->fd, 0, static_cast<off_t>(file->size), POSIX_FADV_WILLNEED);
  }
}

Status LocalStore::Read(std::span<const ReadRequest> requests,
                        std::span<ReadAnswer> answers) {
  // One after the other: a reading thread waits on one file at a time, and
  // readers keep the disk busy with many threads and Prefetch hints.
  for (size_t i = 0; i < requests.size(); ++i) {
    TZ_ASSIGN_OR_RETURN(answers[i], ReadOne(requests[i]));
  }
  return Status::OK();
}

Result<ReadAnswer> LocalStore::ReadOne(const ReadRequest& request) const {
  const std::string_view key = request.key;
  TZ_ASSIGN_OR_RETURN(OpenFile file, OpenForRead(key));
  if (file.fd < 0) return internal::Absent(request);
  FileCloser closer(file.fd);
  internal::ResolvedRange r = internal::ResolveByteRange(request.range, file.size);
  if (request.target == ReadTarget::kCallerMemory) {
    // Straight into the caller's memory, or not at all.
    if (r.length() != request.memory.size()) {
      return ReadAnswer{true, r.length(), file.version};
    }
    TZ_ASSIGN_OR_RETURN(size_t done, ReadAt(key, file, r.begin, request.memory));
    return ReadAnswer{true, done, file.version};
  }
  MutableByteView out = internal::PrepareBuffer(request, r.length());
  TZ_ASSIGN_OR_RETURN(size_t done, ReadAt(key, file, r.begin, out));
  request.buffer->Resize(done);
  return ReadAnswer{true, done, file.version};
}

Result<std::optional<uint64_t>> LocalStore::Size(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  TZ_ASSIGN_OR_RETURN(std::string path, ResolveExisting(key, PathOf(key)));
  if (path.empty()) return std::optional<uint64_t>();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (IsAbsent(err)) return std::optional<uint64_t>();
    return OsError(key, "stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) return std::optional<uint64_t>();
  return std::optional<uint64_t>(static_cast<uint64_t>(st.st_size));
}

Status LocalStore::Set(std::string_view key, ByteView value) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  std::string_view name = BaseName(key);
  if (name.starts_with(kTempPrefix)) {
    return Status::InvalidArgument("key '" + std::string(key) +
                                   "': names starting with '" + std::string(kTempPrefix) +
                                   "' are reserved for writes in progress");
  }
  const std::string path = PathOf(key);
  bool dir_exists = false;
  bool made_directories = false;  // (or found them missing): their parents sync too
  TZ_ASSIGN_OR_RETURN(std::string dir,
                      ResolveForWrite(key, std::string(DirName(path)), &dir_exists));
  const std::string target = dir + "/" + std::string(name);

  // Make the directory if needed, then the temporary file in it, which keeps
  // Erase from pruning the directory until the rename. The shared lock keeps
  // this store's own Erase from pruning in between; another process may, so
  // try again a bounded number of times.
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    std::shared_lock lock(prune_mu_);
    if (!dir_exists) {
      if (int err = internal::MakeDirectories(dir); err != 0) {
        return OsError(key, "create directory", dir, err);
      }
      made_directories = true;
    }
    temp = dir + "/" + TempName();
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      int err = errno;
      if ((err != ENOENT && err != EEXIST) || attempt >= 100) {
        return OsError(key, "create", temp, err);
      }
      if (err == ENOENT) dir_exists = false;
    }
  }
  FileCloser closer(fd);
  auto fail = [&](std::string_view op, const std::string& p, int err) {
    ::unlink(temp.c_str());
    return OsError(key, op, p, err);
  };
  const std::byte* data = value.data();
  size_t left = value.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write", temp, errno);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (durable_ && ::fsync(fd) != 0) return fail("fsync", temp, errno);
  if (int err = closer.Close(); err != 0) return fail("close", temp, err);
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    return fail("rename to", target, errno);
  }
  if (durable_) {
    // The new entry, and the entries of directories this write made.
    for (std::string d = dir; d.size() >= root_.size();
         d = made_directories ? std::string(DirName(d)) : std::string()) {
      // Gone: a concurrent Erase removed this value after us, and pruned.
      if (int err = SyncDirectory(d); err != 0 && !IsAbsent(err)) {
        return OsError(key, "fsync", d, err);
      }
      if (d == root_) break;
    }
  }
  internal::SweepDirectoryOnce(dir, kEndedTempAge);
  return Status::OK();
}

void LocalStore::PruneEmptyDirectories(std::string dir) const {
  std::unique_lock lock(prune_mu_);
  while (dir.size() > root_.size() && IsInside(dir)) {
    if (::rmdir(dir.c_str()) != 0) return;  // not empty, or gone already
    dir = std::string(DirName(dir));
  }
}

Status LocalStore::Erase(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  const std::string path = PathOf(key);
  TZ_ASSIGN_OR_RETURN(std::string dir, ResolveExisting(key, std::string(DirName(path))));
  if (dir.empty()) return Status::OK();
  const std::string target = dir + "/" + std::string(BaseName(key));
  if (::unlink(target.c_str()) != 0) {
    int err = errno;
    // EISDIR: the key names a directory, which holds no value of its own.
    if (IsAbsent(err) || err == EISDIR) return Status::OK();
    return OsError(key, "remove", target, err);
  }
  if (durable_) {
    if (int err = SyncDirectory(dir); err != 0 && !IsAbsent(err)) {
      return OsError(key, "fsync", dir, err);
    }
  }
  PruneEmptyDirectories(dir);
  return Status::OK();
}

Result<std::vector<std::unique_ptr<KeyUpdate>>> LocalStore::BeginUpdates(
    std::span<const std::string> keys) {
  std::vector<uint64_t> ids;
  ids.reserve(keys.size());
  for (const std::string& key : keys) {
    TZ_RETURN_NOT_OK(ValidateKey(key));
    ids.push_back(internal::KeyLockId("file", PathOf(key)));
  }
  return internal::LockedUpdates(*this, keys, ids, /*machine_wide=*/true);
}

Status LocalStore::ErasePrefix(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  std::error_code ec;
  if (prefix.empty()) {
    // Empty the root but keep it: it may be a mount point or shared.
    std::vector<fs::path> children;
    for (fs::directory_iterator it(root_, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      children.push_back(it->path());
    }
    if (ec) {
      return IsAbsent(ec.value()) ? Status::OK() : OsError("", "list", root_, ec.value());
    }
    for (const fs::path& child : children) {
      fs::remove_all(child, ec);
      if (ec && !IsAbsent(ec.value())) {
        return OsError("", "remove", child.string(), ec.value());
      }
    }
    return Status::OK();
  }
  const std::string path = PathOf(prefix);
  TZ_ASSIGN_OR_RETURN(std::string dir,
                      ResolveExisting(prefix, std::string(DirName(path))));
  if (dir.empty()) return Status::OK();
  // remove_all removes a symbolic link itself, never what it points to.
  const std::string target = dir + "/" + std::string(BaseName(prefix));
  fs::remove_all(target, ec);
  if (ec && !IsAbsent(ec.value())) return OsError(prefix, "remove", target, ec.value());
  PruneEmptyDirectories(dir);
  return Status::OK();
}

Result<std::vector<std::string>> LocalStore::List(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  std::vector<std::string> keys;
  const std::string start = prefix.empty() ? root_ : PathOf(prefix);
  TZ_ASSIGN_OR_RETURN(std::string resolved, ResolveExisting(prefix, start));
  if (resolved.empty()) return keys;
  struct stat st;
  if (::stat(resolved.c_str(), &st) != 0) {
    int err = errno;
    if (IsAbsent(err)) return keys;
    return OsError(prefix, "stat", resolved, err);
  }
  if (S_ISREG(st.st_mode)) {
    if (!BaseName(prefix).starts_with(kTempPrefix)) keys.emplace_back(prefix);
    return keys;
  }
  if (!S_ISDIR(st.st_mode)) return keys;
  TZ_RETURN_NOT_OK(internal::ListFilesBelow(resolved, std::string(prefix), &keys));
  std::sort(keys.begin(), keys.end());
  return keys;
}

Result<DirectoryListing> LocalStore::ListDirectory(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  DirectoryListing listing;
  const std::string start = prefix.empty() ? root_ : PathOf(prefix);
  TZ_ASSIGN_OR_RETURN(std::string dir, ResolveExisting(prefix, start));
  if (dir.empty()) return listing;
  std::vector<std::string> subdirs;
  int err = internal::ReadDirectory(dir, &listing.keys, &subdirs);
  // ENOTDIR: the prefix is itself a key, which has no children.
  if (IsAbsent(err)) return listing;
  if (err != 0) return OsError(prefix, "list", dir, err);
  // A directory left empty (by a crashed writer, or made by hand) holds no key.
  for (std::string& s : subdirs) {
    if (internal::HasAnyFile(dir + "/" + s)) listing.prefixes.push_back(std::move(s));
  }
  std::sort(listing.keys.begin(), listing.keys.end());
  std::sort(listing.prefixes.begin(), listing.prefixes.end());
  return listing;
}

}  // namespace turbozarr
