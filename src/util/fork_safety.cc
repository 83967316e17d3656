// The pthread_atfork handlers behind turbozarr/fork_safety.h: the list of
// ForkSafe mutexes, which fork locks in rank order, and the generation count
// that the child's handler raises.
#include "turbozarr/fork_safety.h"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>

namespace turbozarr::internal {
namespace {

std::atomic<uint64_t> fork_generation{0};

}  // namespace

// Never destroyed: mutexes of static objects leave the list after static
// destructors may have run.
struct ForkRegistry {
  // Guards the lists; fork holds it from prepare to the parent's or child's
  // handler, so no mutex joins or leaves the list half-way through a fork.
  std::mutex mu;
  // Doubly linked lists by rank, so that a mutex leaves in constant time.
  ForkSafeLock* heads[3] = {nullptr, nullptr, nullptr};

  static ForkRegistry& Get() {
    static ForkRegistry* registry = [] {
      auto* r = new ForkRegistry;
      if (int err = pthread_atfork(&Prepare, &Parent, &Child); err != 0) {
        // Only ENOMEM; a library cannot promise fork safety without it.
        std::fprintf(stderr, "turbozarr: pthread_atfork failed (%d)\n", err);
        std::abort();
      }
      return r;
    }();
    return *registry;
  }

  static ForkSafeLock*& Head(ForkLockRank rank) {
    return Get().heads[static_cast<int>(rank)];
  }

  // Calls fn on every registered mutex, in rank order.
  template <class Fn>
  static void ForEach(Fn fn) {
    for (ForkLockRank rank :
         {ForkLockRank::kRenewal, ForkLockRank::kOuter, ForkLockRank::kInner}) {
      for (ForkSafeLock* m = Head(rank); m != nullptr; m = m->next_) fn(*m);
    }
  }

  static void Prepare() {
    Get().mu.lock();
    ForEach([](ForkSafeLock& m) { m.LockForFork(); });
  }
  static void Parent() {
    ForEach([](ForkSafeLock& m) { m.UnlockInParent(); });
    Get().mu.unlock();
  }
  static void Child() {
    // Only this thread runs in the child yet, so nothing races with these.
    fork_generation.fetch_add(1, std::memory_order_relaxed);
    ForEach([](ForkSafeLock& m) { m.RenewInChild(); });
    ReplaceWithoutDestroying(Get().mu);
  }
};

uint64_t ForkGeneration() { return fork_generation.load(std::memory_order_relaxed); }

void ForkSafeLock::Register() {
  std::lock_guard<std::mutex> lock(ForkRegistry::Get().mu);
  ForkSafeLock*& head = ForkRegistry::Head(rank_);
  next_ = head;
  if (head != nullptr) head->prev_ = this;
  head = this;
}

void ForkSafeLock::Unregister() {
  std::lock_guard<std::mutex> lock(ForkRegistry::Get().mu);
  if (prev_ != nullptr) {
    prev_->next_ = next_;
  } else {
    ForkRegistry::Head(rank_) = next_;
  }
  if (next_ != nullptr) next_->prev_ = prev_;
}

namespace {

// Held while an object renews itself in a child, so that one caller renews
// it and a fork of the child (a grandchild) never copies a renewal half
// done.
ForkSafeMutex& RenewalMutex() {
  static ForkSafeMutex* mu = new ForkSafeMutex(ForkLockRank::kRenewal);
  return *mu;
}

}  // namespace

ForkEpoch::ForkEpoch() : generation_(0) {
  // Registers the handlers before the object has threads to lose.
  ForkRegistry::Get();
  generation_.store(ForkGeneration(), std::memory_order_relaxed);
}

void ForkEpoch::RenewSlow(const std::function<void()>& renew) {
  std::lock_guard<ForkSafeMutex> lock(RenewalMutex());
  const uint64_t now = ForkGeneration();
  if (generation_.load(std::memory_order_relaxed) == now) return;  // renewed
  renew();
  generation_.store(now, std::memory_order_release);
}

}  // namespace turbozarr::internal
