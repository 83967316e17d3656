// Key rules and the default Store methods (built from the virtual primitives).
// OpenStore's URL dispatch is in store_url.cc.
#include "turbozarr/store.h"

#include <algorithm>
#include <cstring>
#include <string>

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

}  // namespace internal

Result<std::vector<std::optional<Buffer>>> Store::GetMany(
    std::span<const KeyRange> reads) {
  std::vector<std::optional<Buffer>> out;
  out.reserve(reads.size());
  for (const KeyRange& r : reads) {
    TZ_ASSIGN_OR_RETURN(std::optional<Buffer> value, Get(r.key, r.range));
    out.push_back(std::move(value));
  }
  return out;
}

Result<std::optional<uint64_t>> Store::GetInto(std::string_view key, ByteRange range,
                                                MutableByteView out) {
  TZ_ASSIGN_OR_RETURN(std::optional<Buffer> value, Get(key, range));
  if (!value) return std::optional<uint64_t>();
  if (value->size() == out.size() && !out.empty()) {
    std::memcpy(out.data(), value->data(), out.size());
  }
  return std::optional<uint64_t>(value->size());
}

Result<bool> Store::GetReusing(std::string_view key, ByteRange range, Buffer& into) {
  // Nothing to reuse: let the old buffer go before Get makes a new one, so
  // that the two are never held (and page-faulted) at once.
  into = Buffer();
  TZ_ASSIGN_OR_RETURN(std::optional<Buffer> value, Get(key, range));
  if (!value) {
    into.Clear();
    return false;
  }
  into = std::move(*value);
  return true;
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
