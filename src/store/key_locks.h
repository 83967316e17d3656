// Key locks: how writers of one key take turns for a read-modify-write
// (Store::BeginUpdates), among the threads of this process and, for stores
// whose values other processes write too (a local directory), among the
// processes of this machine.
//
// A lock is named by a 64-bit id, a hash of what names the value (a store's
// identity and the key). Two values whose ids are equal share one lock,
// which costs them some waiting and nothing else. A writer that holds
// several locks at once takes them in ascending id order (LockKeys), so
// writers never wait for each other in a cycle.
//
// Across processes the locks are byte-range locks that belong to an open
// file description (fcntl F_OFD_SETLKW): byte `id / kLockFiles` of lock file
// `id % kLockFiles` in the lock directory ($TURBOZARR_LOCK_DIR, else
// /tmp/turbozarr-locks). The kernel releases them when the process ends,
// however it ends, so a killed writer never leaves a key locked; the files
// stay empty and are never more than kLockFiles. Spreading ids over several
// files keeps each file's list of held locks short, which the kernel walks
// on every lock and unlock. A process keeps each lock file it has used
// open (one descriptor per file, never more than kLockFiles).
//
// Fork: a child starts holding no lock of its own (the parent's stay the
// parent's, and a hold taken before the fork does nothing when released in
// the child) and opens the lock files afresh, since a lock taken through a
// descriptor inherited from the parent would be the parent's lock.
//
// Thread safety: everything here may be used from any thread; a lock may be
// released by a thread other than the one that took it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::internal {

// The lock id of `key` in the store named by `scope`.
uint64_t KeyLockId(std::string_view scope, std::string_view key);

// How many lock files hold the machine-wide locks.
inline constexpr uint64_t kLockFiles = 64;

// The lock directory: $TURBOZARR_LOCK_DIR, else kDefaultLockDirectory; read
// when each lock is taken.
inline constexpr std::string_view kDefaultLockDirectory = "/tmp/turbozarr-locks";
std::string KeyLockDirectory();

// One held lock, released when the last owner of the hold lets it go.
class KeyLockHold {
 public:
  KeyLockHold(const KeyLockHold&) = delete;
  KeyLockHold& operator=(const KeyLockHold&) = delete;
  ~KeyLockHold();

  uint64_t id() const { return id_; }

 private:
  friend Result<std::vector<std::shared_ptr<KeyLockHold>>> LockKeys(
      std::span<const uint64_t> ids, bool machine_wide);
  KeyLockHold(uint64_t id, uint64_t ticket, int fd, uint64_t generation)
      : id_(id), ticket_(ticket), fd_(fd), generation_(generation) {}

  uint64_t id_;
  uint64_t ticket_;  // the process-wide table's, to release the right hold
  int fd_;           // the lock file the machine-wide lock is held through; -1: none
  uint64_t generation_;  // ForkGeneration() when taken
};

// Takes the lock of each of `ids`, in ascending order, blocking while
// another holder has one; answers a hold per id in the order given (equal
// ids share one hold). With `machine_wide` the locks also exclude other
// processes (see the top of this file); an error then names the lock file
// that could not be used, and nothing stays held.
Result<std::vector<std::shared_ptr<KeyLockHold>>> LockKeys(std::span<const uint64_t> ids,
                                                           bool machine_wide);

}  // namespace turbozarr::internal
