// ReadOnlyStore: a view of another store that answers every read and refuses
// every write, so that a store opened with StoreOptions::read_only cannot be
// changed through this handle (others may still change it).
//
// Thread safety: as thread-safe as the wrapped store; the wrapper adds no state.
#pragma once

#include <memory>

#include "turbozarr/store.h"

namespace turbozarr {

class ReadOnlyStore final : public Store {
 public:
  explicit ReadOnlyStore(std::shared_ptr<Store> inner) : inner_(std::move(inner)) {}

  Result<std::optional<Buffer>> Get(std::string_view key,
                                    ByteRange range = ByteRange::Full()) override {
    return inner_->Get(key, range);
  }
  Result<std::vector<std::optional<Buffer>>> GetMany(
      std::span<const KeyRange> reads) override {
    return inner_->GetMany(reads);
  }
  Result<std::optional<uint64_t>> Size(std::string_view key) override {
    return inner_->Size(key);
  }
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    return inner_->List(prefix);
  }
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override {
    return inner_->ListDirectory(prefix);
  }
  bool IsWritable() const override { return false; }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::shared_ptr<Store> inner_;
};

// The refusal every read-only store gives: InvalidArgument naming the store,
// the operation and the key (bad keys are reported as such first).
Status RefuseWrite(const Store& store, std::string_view operation, std::string_view key);

}  // namespace turbozarr
