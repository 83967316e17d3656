// Key rules and the default Store methods (built from the virtual primitives).
// OpenStore's URL dispatch is in store_url.cc.
#include "turbozarr/store.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "store/key_locks.h"
#include "store/store_internal.h"

namespace turbozarr {

namespace {

std::string Quoted(std::string_view key) {
  std::string s = "'";
  for (char c : key) {
    if (c == '\0') {
      s += "\\0";
    } else {
      s += c;
    }
  }
  s += "'";
  return s;
}

Status BadKey(std::string_view key, std::string_view why) {
  return Status::InvalidArgument("invalid store key " + Quoted(key) + ": " +
                                 std::string(why));
}

}  // namespace

Status ValidateKey(std::string_view key) {
  if (key.empty()) return BadKey(key, "empty");
  if (key.front() == '/') return BadKey(key, "starts with '/'");
  if (key.back() == '/') return BadKey(key, "ends with '/'");
  for (char c : key) {
    if (c == '\0') return BadKey(key, "contains a NUL byte");
    if (c == '\\') return BadKey(key, "contains a backslash");
  }
  size_t begin = 0;
  while (begin <= key.size()) {
    size_t end = key.find('/', begin);
    if (end == std::string_view::npos) end = key.size();
    std::string_view segment = key.substr(begin, end - begin);
    if (segment.empty()) return BadKey(key, "has an empty segment");
    if (segment == "." || segment == "..") {
      return BadKey(key, "has a '" + std::string(segment) + "' segment");
    }
    begin = end + 1;
  }
  return Status::OK();
}

std::string JoinKey(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string s;
  s.reserve(a.size() + 1 + b.size());
  s.append(a);
  s += '/';
  s.append(b);
  return s;
}

namespace internal {

Status ValidatePrefix(std::string_view prefix) {
  return prefix.empty() ? Status::OK() : ValidateKey(prefix);
}

bool KeyIsUnder(std::string_view key, std::string_view prefix) {
  if (prefix.empty()) return true;
  if (!key.starts_with(prefix)) return false;
  return key.size() == prefix.size() || key[prefix.size()] == '/';
}

ResolvedRange ResolveByteRange(const ByteRange& range, uint64_t size) {
  if (range.suffix) {
    uint64_t n = std::min(range.length, size);
    return {size - n, size};
  }
  uint64_t begin = std::min(range.offset, size);
  uint64_t end = begin + std::min(range.length, size - begin);
  return {begin, end};
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

MutableByteView PrepareBuffer(const ReadRequest& request, size_t n) {
  if (request.target == ReadTarget::kNewBuffer) {
    // Let the old buffer go before the new one is made, so that the two are
    // never held (and page-faulted) at once.
    *request.buffer = Buffer();
    *request.buffer = Buffer(n);
  } else {
    // Keeps the capacity; nothing old is worth copying on growth. (Large
    // Buffers grow in size classes, so chunks of slightly different sizes
    // share one block: see internal::AllocateBufferBytes.)
    request.buffer->Clear();
    request.buffer->Resize(n);
  }
  return request.buffer->mutable_view();
}

ReadAnswer DeliverBytes(const ReadRequest& request, ByteView part) {
  if (request.target == ReadTarget::kCallerMemory) {
    if (part.size() == request.memory.size() && !part.empty()) {
      std::memcpy(request.memory.data(), part.data(), part.size());
    }
  } else if (request.target == ReadTarget::kReuseBuffer) {
    request.buffer->Clear();
    request.buffer->Assign(part);
  } else {
    *request.buffer = Buffer(part);
  }
  return {true, part.size()};
}

ReadAnswer DeliverBuffer(const ReadRequest& request, Buffer&& part) {
  if (request.target == ReadTarget::kCallerMemory)
    return DeliverBytes(request, part.view());
  const uint64_t n = part.size();
  *request.buffer = std::move(part);
  return {true, n};
}

ReadAnswer Absent(const ReadRequest& request) {
  if (request.target == ReadTarget::kNewBuffer) {
    *request.buffer = Buffer();
  } else if (request.target == ReadTarget::kReuseBuffer) {
    request.buffer->Clear();
  }
  return {};
}

namespace {

// An update that holds its key's lock for its life: nobody else commits
// meanwhile, so Commit always succeeds.
class LockedUpdate final : public KeyUpdate {
 public:
  LockedUpdate(Store& store, std::string key, std::shared_ptr<KeyLockHold> hold)
      : store_(store), key_(std::move(key)), hold_(std::move(hold)) {}

  Result<std::optional<Buffer>> Read() override { return store_.Get(key_); }
  bool HoldsLock() const override { return true; }

  Result<bool> Commit(std::optional<ByteView> value) override {
    TZ_RETURN_NOT_OK(value ? store_.Set(key_, *value) : store_.Erase(key_));
    return true;
  }

  Result<bool> CommitBuffer(std::optional<Buffer> value) override {
    TZ_RETURN_NOT_OK(value ? store_.SetBuffer(key_, std::move(*value)) : store_.Erase(key_));
    return true;
  }

 private:
  Store& store_;
  const std::string key_;
  const std::shared_ptr<KeyLockHold> hold_;
};

}  // namespace

Result<std::vector<std::unique_ptr<KeyUpdate>>> LockedUpdates(
    Store& store, std::span<const std::string> keys, std::span<const uint64_t> ids,
    bool machine_wide) {
  TZ_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<KeyLockHold>> holds,
                      LockKeys(ids, machine_wide));
  std::vector<std::unique_ptr<KeyUpdate>> updates;
  updates.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    updates.push_back(std::make_unique<LockedUpdate>(store, keys[i], std::move(holds[i])));
  }
  return updates;
}

}  // namespace internal

Result<std::optional<Buffer>> Store::Get(std::string_view key, ByteRange range) {
  Buffer out;
  const ReadRequest request = ReadRequest::NewBuffer(key, range, out);
  ReadAnswer answer;
  TZ_RETURN_NOT_OK(Read({&request, 1}, {&answer, 1}));
  if (!answer.found) return std::optional<Buffer>();
  return std::optional<Buffer>(std::move(out));
}

Result<std::optional<uint64_t>> Store::GetInto(std::string_view key, ByteRange range,
                                               MutableByteView out) {
  const ReadRequest request = ReadRequest::Into(key, range, out);
  ReadAnswer answer;
  TZ_RETURN_NOT_OK(Read({&request, 1}, {&answer, 1}));
  if (!answer.found) return std::optional<uint64_t>();
  return std::optional<uint64_t>(answer.length);
}

Result<bool> Store::GetReusing(std::string_view key, ByteRange range, Buffer& into) {
  const ReadRequest request = ReadRequest::Reusing(key, range, into);
  ReadAnswer answer;
  TZ_RETURN_NOT_OK(Read({&request, 1}, {&answer, 1}));
  if (!answer.found) into.Clear();
  return answer.found;
}

Result<std::vector<std::optional<Buffer>>> Store::GetMany(
    std::span<const KeyRange> reads) {
  std::vector<Buffer> values(reads.size());
  std::vector<ReadRequest> requests(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    requests[i] = ReadRequest::NewBuffer(reads[i].key, reads[i].range, values[i]);
    requests[i].hint = reads[i].hint;
  }
  std::vector<ReadAnswer> answers(reads.size());
  TZ_RETURN_NOT_OK(Read(requests, answers));
  std::vector<std::optional<Buffer>> out(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    if (answers[i].found) out[i] = std::move(values[i]);
  }
  return out;
}

Result<std::vector<std::unique_ptr<KeyUpdate>>> Store::BeginUpdates(
    std::span<const std::string> keys) {
  std::vector<uint64_t> ids;
  ids.reserve(keys.size());
  // This store object names the values; no other process writes them.
  const Store* self = this;
  const std::string_view scope(reinterpret_cast<const char*>(&self), sizeof self);
  for (const std::string& key : keys) {
    TZ_RETURN_NOT_OK(ValidateKey(key));
    ids.push_back(internal::KeyLockId(scope, key));
  }
  return internal::LockedUpdates(*this, keys, ids, /*machine_wide=*/false);
}

Result<std::unique_ptr<KeyUpdate>> Store::BeginUpdate(std::string_view key) {
  const std::string k(key);
  TZ_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<KeyUpdate>> updates,
                      BeginUpdates({&k, 1}));
  return std::move(updates[0]);
}

Result<std::optional<uint64_t>> Store::Size(std::string_view key) {
  TZ_ASSIGN_OR_RETURN(std::optional<Buffer> value, Get(key));
  if (!value) return std::optional<uint64_t>();
  return std::optional<uint64_t>(value->size());
}

Status Store::ErasePrefix(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, List(prefix));
  for (const std::string& key : keys) TZ_RETURN_NOT_OK(Erase(key));
  return Status::OK();
}

Result<DirectoryListing> Store::ListDirectory(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, List(prefix));
  DirectoryListing listing;
  size_t skip = prefix.empty() ? 0 : prefix.size() + 1;
  for (const std::string& key : keys) {
    if (key.size() <= skip) continue;  // the prefix itself is not its own child
    std::string_view rest = std::string_view(key).substr(skip);
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      listing.keys.emplace_back(rest);
    } else {
      std::string_view dir = rest.substr(0, slash);
      // List is sorted, so equal directories arrive next to each other.
      if (listing.prefixes.empty() || listing.prefixes.back() != dir) {
        listing.prefixes.emplace_back(dir);
      }
    }
  }
  // Keys below one directory are contiguous in List's order, but directory
  // names are not sorted by it: "a-b/x" < "a/x" although "a" < "a-b".
  std::sort(listing.prefixes.begin(), listing.prefixes.end());
  return listing;
}

}  // namespace turbozarr
