// Fork safety: what lets a child made by fork() use turbozarr after its
// parent did (multiprocessing's "fork" start method, PyTorch DataLoader
// workers, dask's multiprocessing scheduler).
//
// fork() copies the whole address space but only the calling thread. The
// parent's other threads are gone in the child, and with them whatever they
// were in the middle of: a mutex one of them held stays locked, a condition
// variable still counts them as waiters (glibc's waits for them before it
// switches waiter groups, so a later notify or wait can block forever), and
// a std::thread names a thread that will never finish (joining it blocks
// forever, destroying it while joinable terminates). Two tools deal with
// this:
//
// - ForkSafeMutex and ForkSafeSharedMutex guard data that the child uses as
//   it was (the default pool's slot, the buffer cache, a memory store's map):
//   fork() waits until it holds every one of them (pthread_atfork's prepare
//   handler), so no data is copied half-changed; the parent then unlocks
//   them and the child makes them new, unlocked.
// - ForkEpoch marks the objects that own threads (thread pools, the HTTP
//   transport, readahead queues, block iterators). The child cannot have the
//   parent's threads back, so at its first use in the child such an object
//   abandons them (ReplaceWithoutDestroying: never joined, never destroyed,
//   their memory leaked), renews its condition variables and starts threads
//   of its own; its destructor abandons them too when it runs in a child
//   that never used the object. The parent is unaffected.
//
// Lock order. Fork takes every ForkSafe mutex in rank order (ForkLockRank),
// so a mutex may be held while taking one of a later rank but never one of
// its own or an earlier rank: a memory store (kOuter) frees a buffer, which
// takes the buffer cache's lock (kInner); two kOuter mutexes are never held
// together. None is held while a ForkSafe mutex is made or destroyed (that
// takes the registry's lock, which fork takes first).
//
// The header is public so that the layers built on the public headers alone
// (the VCF Zarr, OME-Zarr and sparse layers) make their own threads as safe
// across fork() as the engine's; its names stay in turbozarr::internal,
// since they are tools for code that owns threads rather than part of the
// array API, and may change.
//
// Thread safety: all of it may be used from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>

namespace turbozarr::internal {

// How many forks made this process from the one that started: 0 in the
// first process, one more in each child. Counted by the child's
// pthread_atfork handler, which is registered by the first ForkEpoch or
// ForkSafe mutex made.
uint64_t ForkGeneration();

// Makes `object` anew, default-constructed, without running the destructor
// of what was there. In a fork child only: the threads, lock holders and
// waiters that the old state refers to are not in this process, so it can
// be neither joined, unlocked nor destroyed; its memory is leaked.
template <class T>
void ReplaceWithoutDestroying(T& object) {
  ::new (static_cast<void*>(std::addressof(object))) T();
}

// The order fork takes ForkSafe mutexes in (see "Lock order" above).
enum class ForkLockRank {
  kRenewal,  // the one ForkEpoch renews objects under
  kOuter,    // most: the default pool's slot, a store's map
  kInner,    // taken under others: the buffer cache
};

// A mutex of a process-wide list that fork() locks (see the top of this
// file). One per mutex type below.
class ForkSafeLock {
 public:
  ForkSafeLock(const ForkSafeLock&) = delete;
  ForkSafeLock& operator=(const ForkSafeLock&) = delete;

 protected:
  explicit ForkSafeLock(ForkLockRank rank) : rank_(rank) {}
  ~ForkSafeLock() = default;
  // Joins and leaves the list; called by the derived class's constructor and
  // destructor, so that fork never locks a mutex not yet made or gone.
  void Register();
  void Unregister();

 private:
  friend struct ForkRegistry;
  virtual void LockForFork() = 0;
  virtual void UnlockInParent() = 0;
  virtual void RenewInChild() = 0;

  const ForkLockRank rank_;
  ForkSafeLock* prev_ = nullptr;
  ForkSafeLock* next_ = nullptr;
};

// std::mutex (or std::shared_mutex) that fork() never copies locked; used
// exactly as the mutex it wraps (std::lock_guard, std::unique_lock,
// std::shared_lock). native() is for std::condition_variable, which takes
// only std::unique_lock<std::mutex>.
template <class Mutex>
class ForkSafe final : public ForkSafeLock {
 public:
  explicit ForkSafe(ForkLockRank rank = ForkLockRank::kOuter) : ForkSafeLock(rank) {
    Register();
  }
  ~ForkSafe() { Unregister(); }

  void lock() { mu_.lock(); }
  bool try_lock() { return mu_.try_lock(); }
  void unlock() { mu_.unlock(); }
  void lock_shared() { mu_.lock_shared(); }
  bool try_lock_shared() { return mu_.try_lock_shared(); }
  void unlock_shared() { mu_.unlock_shared(); }
  Mutex& native() { return mu_; }

 private:
  void LockForFork() override { mu_.lock(); }
  void UnlockInParent() override { mu_.unlock(); }
  // The child's only thread is the one that locked it, but making it anew
  // does not depend on the mutex type letting that thread unlock.
  void RenewInChild() override { ReplaceWithoutDestroying(mu_); }

  Mutex mu_;
};

using ForkSafeMutex = ForkSafe<std::mutex>;
using ForkSafeSharedMutex = ForkSafe<std::shared_mutex>;

// The fork generation that an object's threads belong to. The object calls
// RenewIfForked before it uses its threads and checks Forked() in its
// destructor (true: abandon the threads instead of joining them).
class ForkEpoch {
 public:
  ForkEpoch();

  // Whether this process was forked since the object last (re)started its
  // threads: they are the parent's, and not here.
  bool Forked() const {
    return generation_.load(std::memory_order_acquire) != ForkGeneration();
  }

  // In a fork child, the first caller runs `renew` (under a process-wide
  // lock of rank kRenewal, so `renew` may take kOuter and kInner mutexes)
  // and the others wait for it; then the object is current.
  // Costs two atomic loads when nothing was forked.
  template <class Renew>
  void RenewIfForked(Renew&& renew) {
    if (Forked()) RenewSlow(std::forward<Renew>(renew));
  }

 private:
  void RenewSlow(const std::function<void()>& renew);

  std::atomic<uint64_t> generation_;
};

}  // namespace turbozarr::internal
