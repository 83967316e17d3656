#include "store/key_locks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "util/fork_guard.h"

namespace turbozarr::internal {
namespace {

// FNV-1a over the bytes, then splitmix64's finaliser so that the low bits
// (which pick the lock file) are as well mixed as the high ones. Written out
// rather than std::hash so that every build of turbozarr on the machine
// (the Python package, the command-line tool, a C++ program) names a key's
// lock alike.
uint64_t Mix(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t Finish(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The locks of this process's threads: the ids held now. Each hold gets a
// ticket, so that a hold the parent took before a fork, released in the
// child, cannot release the child's own hold of the same id.
class ProcessKeyLocks {
 public:
  static ProcessKeyLocks& Get() {
    static ProcessKeyLocks* locks = new ProcessKeyLocks();  // never destroyed
    return *locks;
  }

  uint64_t Lock(uint64_t id) {
    Renew();
    std::unique_lock<std::mutex> lock(mu_.native());
    cv_.wait(lock, [&] { return !held_.contains(id); });
    const uint64_t ticket = ++next_ticket_;
    held_.emplace(id, ticket);
    return ticket;
  }

  void Unlock(uint64_t id, uint64_t ticket) {
    Renew();
    {
      std::lock_guard<ForkSafeMutex> lock(mu_);
      auto it = held_.find(id);
      if (it == held_.end() || it->second != ticket) return;  // the parent's
      held_.erase(it);
    }
    cv_.notify_all();
  }

 private:
  ProcessKeyLocks() = default;

  // In a fork child: the parent's holders and waiters are not here.
  void Renew() {
    epoch_.RenewIfForked([this] {
      std::lock_guard<ForkSafeMutex> lock(mu_);
      held_.clear();
      ReplaceWithoutDestroying(cv_);
    });
  }

  ForkEpoch epoch_;
  ForkSafeMutex mu_;
  std::condition_variable cv_;
  std::unordered_map<uint64_t, uint64_t> held_;  // id -> ticket
  uint64_t next_ticket_ = 0;
};

std::string LockFilePath(uint64_t file) {
  return KeyLockDirectory() + "/keys-" + std::to_string(file);
}

// Opens (making it if need be) a lock file every user of the machine can
// lock: made 0666 in a sticky directory open to all. A file that exists is
// opened without O_CREAT, which protected_regular would refuse for a file
// another user made.
Result<int> OpenLockFile(uint64_t file) {
  const std::string dir = KeyLockDirectory();
  if (::mkdir(dir.c_str(), 01777) == 0) {
    ::chmod(dir.c_str(), 01777);  // past the umask
  }
  const std::string path = LockFilePath(file);
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != ENOENT) break;
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::fchmod(fd, 0666);
      return fd;
    }
    if (errno != EEXIST) break;
  }
  const int err = errno;
  return Status::IOError("cannot open the key lock file '" + path + "' (" +
                         std::strerror(err) +
                         "); set TURBOZARR_LOCK_DIR to a directory that every process "
                         "writing this data can write");
}

// The machine-wide locks. A lock file is open while this process holds a
// lock in it, through one descriptor that all its holds share, and closed
// when the last is released: a process that writes keeps no descriptor open
// between writes, and one holding thousands of locks holds at most
// kLockFiles descriptors. (Closing a descriptor drops the locks held through
// it, so it is closed only when none are.)
class MachineKeyLocks {
 public:
  static MachineKeyLocks& Get() {
    static MachineKeyLocks* locks = new MachineKeyLocks();  // never destroyed
    return *locks;
  }

  Status Lock(uint64_t id) {
    const uint64_t file = id % kLockFiles;
    TZ_ASSIGN_OR_RETURN(int fd, Acquire(file));
    struct flock fl = Range(id, F_WRLCK);
    while (::fcntl(fd, F_OFD_SETLKW, &fl) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      Release(file);
      return Status::IOError("cannot lock in '" + LockFilePath(file) +
                             "': " + std::strerror(err));
    }
    return Status::OK();
  }

  void Unlock(uint64_t id) {
    const uint64_t file = id % kLockFiles;
    int fd;
    {
      std::lock_guard<ForkSafeMutex> lock(mu_);
      fd = files_[file].fd;
    }
    struct flock fl = Range(id, F_UNLCK);
    ::fcntl(fd, F_OFD_SETLK, &fl);
    Release(file);
  }

 private:
  struct File {
    int fd = -1;
    int holders = 0;
  };

  MachineKeyLocks() = default;

  static struct flock Range(uint64_t id, short type) {
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    // Well below the largest offset a lock may reach.
    fl.l_start = static_cast<off_t>((id / kLockFiles) & ((uint64_t{1} << 56) - 1));
    fl.l_len = 1;
    return fl;
  }

  Result<int> Acquire(uint64_t file) {
    epoch_.RenewIfForked([this] {
      std::lock_guard<ForkSafeMutex> lock(mu_);
      // Inherited descriptors share the parent's open file descriptions and
      // so its locks: the child closes its copies (the parent keeps its
      // own, and its locks) and opens files afresh for locks of its own.
      for (File& f : files_) {
        if (f.fd >= 0) ::close(f.fd);
        f = File();
      }
    });
    std::lock_guard<ForkSafeMutex> lock(mu_);
    File& f = files_[file];
    if (f.fd < 0) {
      TZ_ASSIGN_OR_RETURN(f.fd, OpenLockFile(file));
    }
    ++f.holders;
    return f.fd;
  }

  void Release(uint64_t file) {
    std::lock_guard<ForkSafeMutex> lock(mu_);
    File& f = files_[file];
    if (--f.holders == 0) {
      ::close(f.fd);
      f.fd = -1;
    }
  }

  ForkEpoch epoch_;
  ForkSafeMutex mu_;
  std::array<File, kLockFiles> files_;
};

}  // namespace

uint64_t KeyLockId(std::string_view scope, std::string_view key) {
  uint64_t h = Mix(0xcbf29ce484222325ULL, scope);
  h = Mix(h, std::string_view("\0", 1));
  return Finish(Mix(h, key));
}

std::string KeyLockDirectory() {
  const char* dir = std::getenv("TURBOZARR_LOCK_DIR");
  if (dir != nullptr && dir[0] != '\0') return dir;
  return "/tmp/turbozarr-locks";
}

KeyLockHold::~KeyLockHold() {
  // A hold the parent took before a fork is the parent's to release.
  if (generation_ != ForkGeneration()) return;
  if (machine_wide_) MachineKeyLocks::Get().Unlock(id_);
  ProcessKeyLocks::Get().Unlock(id_, ticket_);
}

Result<std::vector<std::shared_ptr<KeyLockHold>>> LockKeys(std::span<const uint64_t> ids,
                                                           bool machine_wide) {
  std::vector<uint64_t> order(ids.begin(), ids.end());
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::vector<std::shared_ptr<KeyLockHold>> held;  // in `order`
  held.reserve(order.size());
  for (uint64_t id : order) {
    const uint64_t ticket = ProcessKeyLocks::Get().Lock(id);
    if (machine_wide) {
      Status s = MachineKeyLocks::Get().Lock(id);
      if (!s.ok()) {
        ProcessKeyLocks::Get().Unlock(id, ticket);
        return s;  // `held` releases the others
      }
    }
    held.push_back(std::shared_ptr<KeyLockHold>(new KeyLockHold(id, ticket, machine_wide, ForkGeneration())));
  }
  std::vector<std::shared_ptr<KeyLockHold>> out;
  out.reserve(ids.size());
  for (uint64_t id : ids) {
    auto it = std::lower_bound(order.begin(), order.end(), id);
    out.push_back(held[static_cast<size_t>(it - order.begin())]);
  }
  return out;
}

}  // namespace turbozarr::internal
