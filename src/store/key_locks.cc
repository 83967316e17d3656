#include "store/key_locks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "turbozarr/fork_safety.h"
#include "util/stable_hash.h"

namespace turbozarr::internal {
namespace {

// The locks of this process's threads: the ids held now, in stripes (by
// id) of their own mutex, so that threads taking different keys rarely meet.
// Each hold gets a ticket, so that a hold the parent took before a fork,
// released in the child, cannot release the child's own hold of that id.
class ProcessKeyLocks {
 public:
  static ProcessKeyLocks& Get() {
    static ProcessKeyLocks* locks = new ProcessKeyLocks();  // never destroyed
    return *locks;
  }

  uint64_t Lock(uint64_t id) {
    Stripe& s = StripeOf(id);
    std::unique_lock<std::mutex> lock(s.mu.native());
    ++s.waiting;
    s.cv.wait(lock, [&] { return s.Find(id) == s.held.end(); });
    --s.waiting;
    const uint64_t ticket = ++s.next_ticket;
    s.held.emplace_back(id, ticket);
    return ticket;
  }

  void Unlock(uint64_t id, uint64_t ticket) {
    Stripe& s = StripeOf(id);
    bool wake = false;
    {
      std::lock_guard<ForkSafeMutex> lock(s.mu);
      auto it = s.Find(id);
      if (it == s.held.end() || it->second != ticket) return;  // the parent's
      *it = s.held.back();
      s.held.pop_back();
      wake = s.waiting > 0;
    }
    if (wake) s.cv.notify_all();
  }

 private:
  static constexpr size_t kStripes = 64;

  // A stripe holds a few ids at a time (a writer's chunks in flight), or a
  // few hundred while sharded writes hold thousands: a vector, searched
  // end to end, which allocates nothing once grown.
  struct Stripe {
    std::vector<std::pair<uint64_t, uint64_t>>::iterator Find(uint64_t id) {
      return std::find_if(held.begin(), held.end(),
                          [id](const auto& h) { return h.first == id; });
    }

    ForkSafeMutex mu;
    std::condition_variable cv;
    std::vector<std::pair<uint64_t, uint64_t>> held;  // (id, ticket)
    uint64_t next_ticket = 0;
    int waiting = 0;
  };

  ProcessKeyLocks() = default;

  // In a fork child: the parent's holders and waiters are not here.
  Stripe& StripeOf(uint64_t id) {
    epoch_.RenewIfForked([this] {
      for (Stripe& s : stripes_) {
        std::lock_guard<ForkSafeMutex> lock(s.mu);
        s.held.clear();
        s.waiting = 0;
        ReplaceWithoutDestroying(s.cv);
      }
    });
    // The high bits: the low ones pick the lock file.
    return stripes_[(id >> 32) % kStripes];
  }

  ForkEpoch epoch_;
  std::array<Stripe, kStripes> stripes_;
};

// The lock directory in force, without allocating (read on every lock).
std::string_view LockDirectoryNow() {
  const char* env = std::getenv("TURBOZARR_LOCK_DIR");
  return env != nullptr && env[0] != '\0' ? std::string_view(env) : kDefaultLockDirectory;
}

std::string LockFilePath(const std::string& dir, uint64_t file) {
  return dir + "/keys-" + std::to_string(file);
}

// Opens (making it if need be) a lock file every user of the machine can
// lock: made 0666 in a sticky directory open to all. A file that exists is
// opened without O_CREAT, which protected_regular would refuse for a file
// another user made.
Result<int> OpenLockFile(const std::string& dir, uint64_t file) {
  if (::mkdir(dir.c_str(), 01777) == 0) {
    ::chmod(dir.c_str(), 01777);  // past the umask
  }
  const std::string path = LockFilePath(dir, file);
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

// The machine-wide locks, through one descriptor per lock file, opened on
// first use and kept (at most kLockFiles of them per lock directory):
// opening and closing the file around every lock cost as much as the
// locking. The directory is TURBOZARR_LOCK_DIR as it is when a lock is
// taken, so a program that changes it gets the files of the new one.
class MachineKeyLocks {
 public:
  static MachineKeyLocks& Get() {
    static MachineKeyLocks* locks = new MachineKeyLocks();  // never destroyed
    return *locks;
  }

  // Locks `id` and answers the descriptor it is held through, which Unlock
  // takes (the directory may have changed meanwhile).
  Result<int> Lock(uint64_t id) {
    const uint64_t file = id % kLockFiles;
    Table& table = CurrentTable();
    TZ_ASSIGN_OR_RETURN(int fd, Descriptor(table, file));
    struct flock fl = Range(id, F_WRLCK);
    while (::fcntl(fd, F_OFD_SETLKW, &fl) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      return Status::IOError("cannot lock in '" + LockFilePath(table.dir, file) +
                             "': " + std::strerror(err));
    }
    return fd;
  }

  void Unlock(int fd, uint64_t id) {
    struct flock fl = Range(id, F_UNLCK);
    ::fcntl(fd, F_OFD_SETLK, &fl);
  }

 private:
  // The descriptors of one lock directory's files.
  struct Table {
    explicit Table(std::string d) : dir(std::move(d)) {
      for (auto& fd : fds) fd.store(-1, std::memory_order_relaxed);
    }
    const std::string dir;
    std::array<std::atomic<int>, kLockFiles> fds;
  };

  MachineKeyLocks() = default;

  // The table of the lock directory now in force: the last one used,
  // checked without allocating, else found or made (kept for the process's
  // life: a program uses one or two).
  Table& CurrentTable() {
    const std::string_view dir = LockDirectoryNow();
    Table* last = last_.load(std::memory_order_acquire);
    if (last != nullptr && last->dir == dir) return *last;
    std::lock_guard<ForkSafeMutex> lock(mu_);
    for (const std::unique_ptr<Table>& t : tables_) {
      if (t->dir == dir) {
        last_.store(t.get(), std::memory_order_release);
        return *t;
      }
    }
    tables_.push_back(std::make_unique<Table>(std::string(dir)));
    last_.store(tables_.back().get(), std::memory_order_release);
    return *tables_.back();
  }

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

  Result<int> Descriptor(Table& table, uint64_t file) {
    epoch_.RenewIfForked([this] {
      std::lock_guard<ForkSafeMutex> lock(mu_);
      // Inherited descriptors share the parent's open file descriptions and
      // so its locks: the child closes its copies (the parent keeps its
      // own, and its locks) and opens files afresh for locks of its own.
      for (const std::unique_ptr<Table>& t : tables_) {
        for (auto& fd : t->fds) {
          const int old = fd.exchange(-1);
          if (old >= 0) ::close(old);
        }
      }
    });
    const int fd = table.fds[file].load(std::memory_order_acquire);
    if (fd >= 0) return fd;
    std::lock_guard<ForkSafeMutex> lock(mu_);
    if (table.fds[file].load(std::memory_order_relaxed) < 0) {
      TZ_ASSIGN_OR_RETURN(int opened, OpenLockFile(table.dir, file));
      table.fds[file].store(opened, std::memory_order_release);
    }
    return table.fds[file].load(std::memory_order_relaxed);
  }

  ForkEpoch epoch_;
  ForkSafeMutex mu_;  // opening a file, adding a table
  std::vector<std::unique_ptr<Table>> tables_;
  std::atomic<Table*> last_{nullptr};
};

}  // namespace

uint64_t KeyLockId(std::string_view scope, std::string_view key) {
  // FNV-1a, then splitmix64's finaliser so that the low bits (which pick the
  // lock file) are as well mixed as the high ones; stable rather than
  // std::hash, so that every build of turbozarr on the machine (the Python
  // package, the command-line tool, a C++ program) names a key's lock alike.
  uint64_t h = Fnv1a(kFnvOffset, scope);
  h = Fnv1a(h, std::string_view("\0", 1));
  return MixBits(Fnv1a(h, key));
}

std::string KeyLockDirectory() { return std::string(LockDirectoryNow()); }

KeyLockHold::~KeyLockHold() {
  // A hold the parent took before a fork is the parent's to release.
  if (generation_ != ForkGeneration()) return;
  if (fd_ >= 0) MachineKeyLocks::Get().Unlock(fd_, id_);
  ProcessKeyLocks::Get().Unlock(id_, ticket_);
}

Result<std::vector<std::shared_ptr<KeyLockHold>>> LockKeys(std::span<const uint64_t> ids,
                                                           bool machine_wide) {
  auto lock = [machine_wide](uint64_t id) -> Result<std::shared_ptr<KeyLockHold>> {
    const uint64_t ticket = ProcessKeyLocks::Get().Lock(id);
    int fd = -1;
    if (machine_wide) {
      Result<int> locked = MachineKeyLocks::Get().Lock(id);
      if (!locked.ok()) {
        ProcessKeyLocks::Get().Unlock(id, ticket);
        return locked.status();
      }
      fd = *locked;
    }
    return std::shared_ptr<KeyLockHold>(new KeyLockHold(id, ticket, fd, ForkGeneration()));
  };
  std::vector<std::shared_ptr<KeyLockHold>> out;
  out.reserve(ids.size());
  if (ids.size() == 1) {  // the chunk writes' case: nothing to order
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<KeyLockHold> hold, lock(ids[0]));
    out.push_back(std::move(hold));
    return out;
  }
  std::vector<uint64_t> order(ids.begin(), ids.end());
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::vector<std::shared_ptr<KeyLockHold>> held;  // in `order`
  held.reserve(order.size());
  for (uint64_t id : order) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<KeyLockHold> hold, lock(id));  // `held` lets go
    held.push_back(std::move(hold));
  }
  for (uint64_t id : ids) {
    auto it = std::lower_bound(order.begin(), order.end(), id);
    out.push_back(held[static_cast<size_t>(it - order.begin())]);
  }
  return out;
}

}  // namespace turbozarr::internal
