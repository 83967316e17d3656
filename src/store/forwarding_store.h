// ForwardingStore: a Store that passes every call to an inner store; the
// wrappers (throttled, metrics, caching, read-only) derive from it and
// override only the calls they change. Every read reaches Read, so a wrapper
// that watches reads overrides that one call.
//
// Thread safety: as the inner store.
#pragma once

#include <memory>
#include <string>

#include "turbozarr/store.h"

namespace turbozarr::internal {

namespace forwarding_detail {
class ForwardedUpdate;
}

class ForwardingStore : public virtual Store {
 public:
  explicit ForwardingStore(std::shared_ptr<Store> inner) : inner_(std::move(inner)) {}

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    return inner_->Read(requests, answers);
  }
  Result<std::optional<uint64_t>> Size(std::string_view key) override {
    return inner_->Size(key);
  }
  Status Set(std::string_view key, ByteView value) override {
    return inner_->Set(key, value);
  }
  Status Erase(std::string_view key) override { return inner_->Erase(key); }
  Status ErasePrefix(std::string_view prefix) override {
    return inner_->ErasePrefix(prefix);
  }
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    return inner_->List(prefix);
  }
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override {
    return inner_->ListDirectory(prefix);
  }
  // The inner store's updates (its locks, or its conditions at commit),
  // read and committed through this wrapper (see ForwardedUpdate below).
  Result<std::vector<std::unique_ptr<KeyUpdate>>> BeginUpdates(
      std::span<const std::string> keys) override;
  Status Flush() override { return inner_->Flush(); }
  StoreCapabilities Capabilities() const override { return inner_->Capabilities(); }
  bool WantsPrefetch() const override { return inner_->WantsPrefetch(); }
  void Prefetch(std::span<const std::string> keys) override { inner_->Prefetch(keys); }
  std::string Describe() const override { return inner_->Describe(); }

 protected:
  Store& inner() { return *inner_; }

  // Before an update begun through this wrapper reads its key: an error
  // fails the read (a wrapper that injects faults).
  virtual Status BeforeUpdateRead(std::string_view /*key*/) { return Status::OK(); }
  // After an update begun through this wrapper read its key: `size` is the
  // value's, nullopt when absent.
  virtual void AfterUpdateRead(std::string_view /*key*/, std::optional<uint64_t> /*size*/) {}
  // Around each conditional commit of such an update (one whose inner
  // update holds no lock; the others commit with this wrapper's Set,
  // SetBuffer or Erase): `size` is the new value's, nullopt for an erase.
  virtual void BeforeCommit(std::string_view /*key*/, std::optional<uint64_t> /*size*/) {}
  virtual void AfterCommit(std::string_view /*key*/) {}

 private:
  friend class forwarding_detail::ForwardedUpdate;
  std::shared_ptr<Store> inner_;
};

namespace forwarding_detail {

// An update of the inner store, read and committed through the wrapper:
// the read goes to the inner store (never through a wrapper's cache: what a
// read-modify-write keeps must be what is stored) and the wrapper is told of
// it; under an inner update that holds the key's lock, the commit is the
// wrapper's own Set, SetBuffer or Erase, so that it sees the write as any
// other (counts it, slows it, fails it); else it is the inner update's
// conditional commit, shown to the wrapper before and after.
class ForwardedUpdate final : public KeyUpdate {
 public:
  ForwardedUpdate(ForwardingStore& via, std::string key, std::unique_ptr<KeyUpdate> inner)
      : via_(via), key_(std::move(key)), inner_(std::move(inner)) {}

  Result<std::optional<Buffer>> Read() override {
    TZ_RETURN_NOT_OK(Check());
    Result<std::optional<Buffer>> r = inner_->Read();
    if (r.ok()) Seen(*r ? std::optional<uint64_t>((*r)->size()) : std::nullopt);
    return r;
  }
  Result<bool> Commit(std::optional<ByteView> value) override {
    if (inner_->HoldsLock()) {
      TZ_RETURN_NOT_OK(value ? Set(*value) : Erase());
      return true;
    }
    Before(value ? std::optional<uint64_t>(value->size()) : std::nullopt);
    Result<bool> r = inner_->Commit(value);
    After();
    return r;
  }
  Result<bool> CommitBuffer(std::optional<Buffer> value) override {
    if (inner_->HoldsLock()) {
      TZ_RETURN_NOT_OK(value ? SetBuffer(std::move(*value)) : Erase());
      return true;
    }
    Before(value ? std::optional<uint64_t>(value->size()) : std::nullopt);
    Result<bool> r = inner_->CommitBuffer(std::move(value));
    After();
    return r;
  }
  bool HoldsLock() const override { return inner_->HoldsLock(); }

 private:
  Status Set(ByteView value);
  Status SetBuffer(Buffer value);
  Status Erase();
  Status Check();
  void Seen(std::optional<uint64_t> size);
  void Before(std::optional<uint64_t> size);
  void After();

  ForwardingStore& via_;
  const std::string key_;
  const std::unique_ptr<KeyUpdate> inner_;
};

}  // namespace forwarding_detail

inline Result<std::vector<std::unique_ptr<KeyUpdate>>> ForwardingStore::BeginUpdates(
    std::span<const std::string> keys) {
  TZ_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<KeyUpdate>> updates,
                      inner_->BeginUpdates(keys));
  for (size_t i = 0; i < updates.size(); ++i) {
    updates[i] = std::make_unique<forwarding_detail::ForwardedUpdate>(*this, keys[i],
                                                                      std::move(updates[i]));
  }
  return updates;
}

inline Status forwarding_detail::ForwardedUpdate::Set(ByteView value) {
  return via_.Set(key_, value);
}
inline Status forwarding_detail::ForwardedUpdate::SetBuffer(Buffer value) {
  return via_.SetBuffer(key_, std::move(value));
}
inline Status forwarding_detail::ForwardedUpdate::Erase() { return via_.Erase(key_); }
inline Status forwarding_detail::ForwardedUpdate::Check() {
  return via_.BeforeUpdateRead(key_);
}
inline void forwarding_detail::ForwardedUpdate::Seen(std::optional<uint64_t> size) {
  via_.AfterUpdateRead(key_, size);
}
inline void forwarding_detail::ForwardedUpdate::Before(std::optional<uint64_t> size) {
  via_.BeforeCommit(key_, size);
}
inline void forwarding_detail::ForwardedUpdate::After() { via_.AfterCommit(key_); }

}  // namespace turbozarr::internal
