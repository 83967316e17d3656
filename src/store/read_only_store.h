// ReadOnlyStore: a view of another store that answers every read and refuses
// every write, so that a store opened with StoreOptions::read_only cannot be
// changed through this handle (others may still change it).
//
// Thread safety: as thread-safe as the wrapped store; the wrapper adds no state.
#pragma once

#include <memory>

#include "store/forwarding_store.h"
#include "turbozarr/store.h"

namespace turbozarr {

class ReadOnlyStore final : public internal::ForwardingStore {
 public:
  explicit ReadOnlyStore(std::shared_ptr<Store> inner)
      : ForwardingStore(std::move(inner)) {}

  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::unique_ptr<KeyUpdate>>> BeginUpdates(
      std::span<const std::string> keys) override;
  Status Flush() override { return Status::OK(); }  // nothing written through us
  StoreCapabilities Capabilities() const override {
    StoreCapabilities c = ForwardingStore::Capabilities();
    c.writable = false;
    return c;
  }
};

// The refusal every read-only store gives: InvalidArgument naming the store,
// the operation and the key (bad keys are reported as such first).
Status RefuseWrite(const Store& store, std::string_view operation, std::string_view key);

}  // namespace turbozarr
