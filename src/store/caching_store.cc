// The caching wrapper (see turbozarr/store_wrappers.h): an LRU of the values
// read through it, keyed by (key, byte range), bounded by the bytes held.
// A hit is copied into the read's target (with the version of the value it
// was read from, so that a reader combining a cached part of a value with a
// fresh one sees when they disagree); the copy costs far less than the
// request it saves. The misses of a batch go to the inner store together, so
// a remote store still keeps them in flight at once.
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "store/forwarding_store.h"
#include "store/store_internal.h"
#include "turbozarr/store_wrappers.h"
#include "turbozarr/fork_safety.h"
#include "util/thread_annotations.h"

namespace turbozarr {
namespace {

struct RangeKey {
  uint64_t offset;
  uint64_t length;
  bool suffix;
  bool operator<(const RangeKey& o) const {
    return std::tie(offset, length, suffix) < std::tie(o.offset, o.length, o.suffix);
  }
};

class CachingStore final : public internal::ForwardingStore {
 public:
  CachingStore(std::shared_ptr<Store> inner, uint64_t capacity)
      : ForwardingStore(std::move(inner)), capacity_(capacity) {}

  // Hits are copied into their targets under the lock; the misses go to
  // the inner store together, straight into their own targets, and what
  // they found is copied into the cache.
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    std::vector<size_t> missed;
    std::vector<ReadRequest> misses;
    // The generation taken with the lookups: a Set or Erase while we read
    // makes what we read stale, and it must not enter the cache.
    uint64_t generation;
    {
      std::lock_guard<internal::ForkSafeMutex> lock(mu_);
      for (size_t i = 0; i < requests.size(); ++i) {
        if (const Entry* hit = Lookup(requests[i].key, Key(requests[i].range))) {
          answers[i] = internal::DeliverBytes(requests[i], hit->value.view());
          answers[i].version = hit->version;
        } else {
          missed.push_back(i);
          misses.push_back(requests[i]);
        }
      }
      generation = generation_;
    }
    if (misses.empty()) return Status::OK();
    std::vector<ReadAnswer> fetched(misses.size());
    TZ_RETURN_NOT_OK(ForwardingStore::Read(misses, fetched));
    for (size_t m = 0; m < missed.size(); ++m) {
      const ReadRequest& r = misses[m];
      const ReadAnswer& a = fetched[m];
      answers[missed[m]] = a;
      if (!a.found) continue;
      if (r.target != ReadTarget::kCallerMemory) {
        MaybeInsert(generation, r.key, Key(r.range), r.buffer->view(), a.version);
      } else if (a.length == r.memory.size()) {  // else nothing was read
        MaybeInsert(generation, r.key, Key(r.range), r.memory, a.version);
      }
    }
    return Status::OK();
  }

  Status Set(std::string_view key, ByteView value) override {
    Forget(key);
    Status s = ForwardingStore::Set(key, value);
    Forget(key);  // a Get that raced the write may have cached the old value
    return s;
  }
  Status Erase(std::string_view key) override {
    Forget(key);
    Status s = ForwardingStore::Erase(key);
    Forget(key);
    return s;
  }
  Status ErasePrefix(std::string_view prefix) override {
    Clear();
    Status s = ForwardingStore::ErasePrefix(prefix);
    Clear();
    return s;
  }
  void BeforeCommit(std::string_view key, std::optional<uint64_t>) override { Forget(key); }
  void AfterCommit(std::string_view key) override { Forget(key); }
  std::string Describe() const override {
    return "cached(" + ForwardingStore::Describe() + ")";
  }

 private:
  struct Entry {
    std::string key;
    RangeKey range;
    Buffer value;
    uint64_t version = 0;  // ReadAnswer::version of the read that brought it
  };
  using Lru = std::list<Entry>;  // most recently used first

  static RangeKey Key(const ByteRange& r) { return {r.offset, r.length, r.suffix}; }

  // The cached entry, valid while mu_ is held. REQUIRES: mu_ held.
  const Entry* Lookup(std::string_view key, const RangeKey& rk) {
    auto k = index_.find(key);
    if (k == index_.end()) return nullptr;
    auto e = k->second.find(rk);
    if (e == k->second.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, e->second);
    return &*e->second;
  }

  void MaybeInsert(uint64_t generation, std::string_view key, const RangeKey& rk,
                   ByteView value, uint64_t version) {
    if (value.size() > capacity_) return;
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    if (generation == generation_) Insert(key, rk, value, version);
  }

  void Insert(std::string_view key, const RangeKey& rk, ByteView value, uint64_t version) {
    auto k = index_.find(key);
    if (k == index_.end()) k = index_.emplace(std::string(key), Ranges()).first;
    auto& ranges = k->second;
    if (ranges.count(rk)) return;
    lru_.push_front(Entry{std::string(key), rk, Buffer(value), version});
    ranges[rk] = lru_.begin();
    held_ += value.size();
    while (held_ > capacity_ && !lru_.empty()) Evict(std::prev(lru_.end()));
  }

  void Evict(Lru::iterator it) {
    held_ -= it->value.size();
    auto k = index_.find(it->key);
    k->second.erase(it->range);
    if (k->second.empty()) index_.erase(k);
    lru_.erase(it);
  }

  void Forget(std::string_view key) {
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    ++generation_;
    auto k = index_.find(key);
    if (k == index_.end()) return;
    std::vector<Lru::iterator> doomed;
    for (auto& [rk, it] : k->second) doomed.push_back(it);
    for (auto it : doomed) Evict(it);
  }

  void Clear() {
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    ++generation_;
    lru_.clear();
    index_.clear();
    held_ = 0;
  }

  const uint64_t capacity_;
  // Fork-safe (turbozarr/fork_safety.h): a fork child gets the whole cache.
  internal::ForkSafeMutex mu_;
  Lru lru_ TZ_GUARDED_BY(mu_);
  using Ranges = std::map<RangeKey, Lru::iterator>;
  // Heterogeneous lookup, so that finding a key makes no string.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, Ranges, KeyHash, std::equal_to<>> index_
      TZ_GUARDED_BY(mu_);
  uint64_t held_ TZ_GUARDED_BY(mu_) = 0;
  // Bumped by every write through the wrapper.
  uint64_t generation_ TZ_GUARDED_BY(mu_) = 0;
};

}  // namespace

std::shared_ptr<Store> MakeCachingStore(std::shared_ptr<Store> inner,
                                        uint64_t capacity_bytes) {
  return std::make_shared<CachingStore>(std::move(inner), capacity_bytes);
}

}  // namespace turbozarr
