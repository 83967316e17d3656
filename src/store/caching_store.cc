// The caching wrapper (see turbozarr/store_wrappers.h): an LRU of the values
// read through it, keyed by (key, byte range), bounded by the bytes held.
// A hit hands out a copy (a Buffer is an owned value); the copy costs far
// less than the request it saves. Misses of a GetMany go to the inner store
// together, so a remote store still keeps them in flight at once.
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "store/forwarding_store.h"
#include "turbozarr/store_wrappers.h"
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

  Result<std::optional<Buffer>> Get(std::string_view key, ByteRange range) override {
    const RangeKey rk{range.offset, range.length, range.suffix};
    // The generation taken with the lookup: a Set or Erase while we read
    // makes what we read stale, and it must not enter the cache.
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (std::optional<Buffer> hit = Lookup(std::string(key), rk)) {
        return std::optional<Buffer>(std::move(*hit));
      }
      generation = generation_;
    }
    Result<std::optional<Buffer>> r = ForwardingStore::Get(key, range);
    if (r.ok() && r->has_value()) MaybeInsert(generation, std::string(key), rk, **r);
    return r;
  }

  // Through Get, so that a straight read is cached (and served) too.
  Result<std::optional<uint64_t>> GetInto(std::string_view key, ByteRange range,
                                          MutableByteView out) override {
    return Store::GetInto(key, range, out);
  }

  Result<std::vector<std::optional<Buffer>>> GetMany(
      std::span<const KeyRange> reads) override {
    std::vector<std::optional<Buffer>> out(reads.size());
    std::vector<size_t> missed;
    std::vector<KeyRange> misses;
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < reads.size(); ++i) {
        const ByteRange& r = reads[i].range;
        out[i] = Lookup(reads[i].key, RangeKey{r.offset, r.length, r.suffix});
        if (!out[i]) {
          missed.push_back(i);
          misses.push_back(reads[i]);
        }
      }
      generation = generation_;
    }
    if (misses.empty()) return out;
    TZ_ASSIGN_OR_RETURN(std::vector<std::optional<Buffer>> fetched,
                        ForwardingStore::GetMany(misses));
    for (size_t m = 0; m < missed.size(); ++m) {
      if (fetched[m]) {
        const ByteRange& r = misses[m].range;
        MaybeInsert(generation, misses[m].key, RangeKey{r.offset, r.length, r.suffix},
                    *fetched[m]);
      }
      out[missed[m]] = std::move(fetched[m]);
    }
    return out;
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
  std::string Describe() const override {
    return "cached(" + ForwardingStore::Describe() + ")";
  }

 private:
  struct Entry {
    std::string key;
    RangeKey range;
    Buffer value;
  };
  using Lru = std::list<Entry>;  // most recently used first

  std::optional<Buffer> Lookup(const std::string& key, const RangeKey& rk) {
    auto k = index_.find(key);
    if (k == index_.end()) return std::nullopt;
    auto e = k->second.find(rk);
    if (e == k->second.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, e->second);
    return e->second->value;  // a copy: the caller owns what it gets
  }

  void MaybeInsert(uint64_t generation, const std::string& key, const RangeKey& rk,
                   const Buffer& value) {
    if (value.size() > capacity_) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (generation == generation_) Insert(key, rk, value);
  }

  void Insert(const std::string& key, const RangeKey& rk, const Buffer& value) {
    auto& ranges = index_[key];
    if (ranges.count(rk)) return;
    lru_.push_front(Entry{key, rk, value});
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
    std::lock_guard<std::mutex> lock(mu_);
    ++generation_;
    auto k = index_.find(std::string(key));
    if (k == index_.end()) return;
    std::vector<Lru::iterator> doomed;
    for (auto& [rk, it] : k->second) doomed.push_back(it);
    for (auto it : doomed) Evict(it);
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    ++generation_;
    lru_.clear();
    index_.clear();
    held_ = 0;
  }

  const uint64_t capacity_;
  std::mutex mu_;
  Lru lru_ TZ_GUARDED_BY(mu_);
  std::unordered_map<std::string, std::map<RangeKey, Lru::iterator>> index_
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
