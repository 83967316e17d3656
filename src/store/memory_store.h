// MemoryStore: a Store whose keys and values live in process memory, for
// tests, scratch arrays and as the reference every other store is compared
// against.
//
// Thread safety: safe from many threads. A reader-writer lock guards the map;
// values are immutable shared buffers, so a read copies its bytes after the
// lock is released and a concurrent Set never tears them. The lock is
// fork-safe (turbozarr/fork_safety.h), so a fork child gets a whole copy of the map.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "turbozarr/store.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr {

class MemoryStore final : public Store {
 public:
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  Status Set(std::string_view key, ByteView value) override;
  Status SetBuffer(std::string_view key, Buffer value) override;
  Status Erase(std::string_view key) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  std::string Describe() const override { return "memory://"; }

 private:
  // A value as stored: its bytes and its ReadAnswer::version, drawn from a
  // process-wide counter when it was stored.
  struct Stored {
    Buffer bytes;
    uint64_t version = 0;
  };

  // Puts `value` under `key`, replacing what was there.
  void Swap(std::string_view key, Buffer value);

  // The shared value stored under `key`, or null.
  std::shared_ptr<const Stored> Find(std::string_view key) const;

  mutable internal::ForkSafeSharedMutex mu_;
  std::map<std::string, std::shared_ptr<const Stored>, std::less<>> values_;
};

}  // namespace turbozarr
