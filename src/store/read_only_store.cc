#include "store/read_only_store.h"

#include "store/store_internal.h"

namespace turbozarr {

Status RefuseWrite(const Store& store, std::string_view operation, std::string_view key) {
  TZ_RETURN_NOT_OK(operation == "erase prefix" ? internal::ValidatePrefix(key)
                                               : ValidateKey(key));
  return Status::InvalidArgument(store.Describe() + " was opened read-only: cannot " +
                                 std::string(operation) + " '" + std::string(key) + "'");
}

Status ReadOnlyStore::Set(std::string_view key, ByteView) {
  return RefuseWrite(*this, "set", key);
}

Status ReadOnlyStore::Erase(std::string_view key) {
  return RefuseWrite(*this, "erase", key);
}

Result<std::vector<std::unique_ptr<KeyUpdate>>> ReadOnlyStore::BeginUpdates(
    std::span<const std::string> keys) {
  for (const std::string& key : keys) return RefuseWrite(*this, "update", key);
  return std::vector<std::unique_ptr<KeyUpdate>>();
}

Status ReadOnlyStore::ErasePrefix(std::string_view prefix) {
  return RefuseWrite(*this, "erase prefix", prefix);
}

}  // namespace turbozarr
