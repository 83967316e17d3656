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
  Status Flush() override { return inner_->Flush(); }
  StoreCapabilities Capabilities() const override { return inner_->Capabilities(); }
  bool WantsPrefetch() const override { return inner_->WantsPrefetch(); }
  void Prefetch(std::span<const std::string> keys) override { inner_->Prefetch(keys); }
  std::string Describe() const override { return inner_->Describe(); }

 protected:
  Store& inner() { return *inner_; }

 private:
  std::shared_ptr<Store> inner_;
};

}  // namespace turbozarr::internal
