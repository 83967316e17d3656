#include "store/memory_store.h"

#include <atomic>
#include <mutex>

#include "store/store_internal.h"

namespace turbozarr {

std::shared_ptr<Store> MakeMemoryStore() { return std::make_shared<MemoryStore>(); }

std::shared_ptr<const MemoryStore::Stored> MemoryStore::Find(std::string_view key) const {
  std::shared_lock lock(mu_);
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : it->second;
}

Status MemoryStore::Read(std::span<const ReadRequest> requests,
                         std::span<ReadAnswer> answers) {
  for (size_t i = 0; i < requests.size(); ++i) {
    const ReadRequest& request = requests[i];
    TZ_RETURN_NOT_OK(ValidateKey(request.key));
    // The value is immutable and kept alive by the shared pointer, so the
    // one copy into the target happens outside the lock.
    std::shared_ptr<const Stored> value = Find(request.key);
    if (!value) {
      answers[i] = internal::Absent(request);
      continue;
    }
    const ByteView bytes = value->bytes.view();
    internal::ResolvedRange r = internal::ResolveByteRange(request.range, bytes.size());
    answers[i] = internal::DeliverBytes(request, bytes.subspan(r.begin, r.length()));
    answers[i].version = value->version;
  }
  return Status::OK();
}

Result<std::optional<uint64_t>> MemoryStore::Size(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  std::shared_ptr<const Stored> value = Find(key);
  if (!value) return std::optional<uint64_t>();
  return std::optional<uint64_t>(value->bytes.size());
}

Status MemoryStore::Set(std::string_view key, ByteView value) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  // Copy before taking the lock so writers hold it only for the swap.
  Swap(key, Buffer(value));
  return Status::OK();
}

Status MemoryStore::SetBuffer(std::string_view key, Buffer value) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  Swap(key, std::move(value));
  return Status::OK();
}

void MemoryStore::Swap(std::string_view key, Buffer bytes) {
  static std::atomic<uint64_t> writes{0};
  auto value = std::make_shared<const Stored>(
      Stored{std::move(bytes), writes.fetch_add(1, std::memory_order_relaxed) + 1});
  std::unique_lock lock(mu_);
  auto it = values_.find(key);
  if (it == values_.end()) {
    values_.emplace(std::string(key), std::move(value));
  } else {
    it->second = std::move(value);
  }
}

Status MemoryStore::Erase(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  std::shared_ptr<const Stored> doomed;  // freed after the lock is released
  std::unique_lock lock(mu_);
  auto it = values_.find(key);
  if (it != values_.end()) {
    doomed = std::move(it->second);
    values_.erase(it);
  }
  return Status::OK();
}

Status MemoryStore::ErasePrefix(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  std::unique_lock lock(mu_);
  if (prefix.empty()) {
    values_.clear();
    return Status::OK();
  }
  // Keys under "a" are "a" and the run starting at "a/"; "a.b" sorts between
  // them and must survive.
  values_.erase(std::string(prefix));
  std::string dir = std::string(prefix) + "/";
  auto it = values_.lower_bound(dir);
  while (it != values_.end() && it->first.starts_with(dir)) it = values_.erase(it);
  return Status::OK();
}

Result<std::vector<std::string>> MemoryStore::List(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  std::vector<std::string> keys;
  std::shared_lock lock(mu_);
  for (auto it = values_.lower_bound(prefix); it != values_.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    if (internal::KeyIsUnder(it->first, prefix)) keys.push_back(it->first);
  }
  return keys;
}

}  // namespace turbozarr
