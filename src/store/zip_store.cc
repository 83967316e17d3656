#include "store/zip_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "store/file_tree.h"
#include "store/store_internal.h"
#include "store/zip_entry_reader.h"
#include "store/zip_writer.h"

namespace turbozarr {
namespace {

bool NameLess(const zip::Entry& a, std::string_view b) { return a.name < b; }

// Entries that can be keys, sorted by name, the later of two equal names kept.
std::vector<zip::Entry> KeyEntries(std::vector<zip::Entry> all) {
  std::erase_if(all, [](const zip::Entry& e) { return !ValidateKey(e.name).ok(); });
  std::stable_sort(all.begin(), all.end(), [](const zip::Entry& a, const zip::Entry& b) {
    return a.name < b.name;
  });
  std::vector<zip::Entry> out;
  out.reserve(all.size());
  for (zip::Entry& e : all) {
    if (!out.empty() && out.back().name == e.name) {
      out.back() = std::move(e);
    } else {
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<ZipStore>> ZipStore::Open(const std::string& path) {
  const std::string where = "zip://" + path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    if (internal::IsAbsent(err)) {
      return Status::NotFound("zip archive '" + path + "' does not exist");
    }
    return Status::IOError(where + ": open: " + std::generic_category().message(err));
  }
  std::shared_ptr<ZipStore> store(new ZipStore(path, fd));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return Status::IOError(where + ": stat: " + std::generic_category().message(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(where + ": not a regular file");
  }
  TZ_ASSIGN_OR_RETURN(zip::Directory directory,
                      zip::ReadDirectory(fd, static_cast<uint64_t>(st.st_size), where));
  store->base_ = directory.location.base;
  store->limit_ = directory.limit;
  store->entries_ = KeyEntries(std::move(directory.entries));
  store->data_offsets_ =
      std::make_unique<std::atomic<uint64_t>[]>(store->entries_.size());
  return store;
}

ZipStore::~ZipStore() { ::close(fd_); }

const zip::Entry* ZipStore::Find(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key, NameLess);
  return it != entries_.end() && it->name == key ? &*it : nullptr;
}

Status ZipStore::Read(std::span<const ReadRequest> requests,
                      std::span<ReadAnswer> answers) {
  return internal::ReadEachIntoBuffers(
      requests, answers,
      [this](std::string_view key, ByteRange range) { return ReadValue(key, range); });
}

Result<std::optional<Buffer>> ZipStore::ReadValue(std::string_view key, ByteRange range) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  const zip::Entry* e = Find(key);
  if (e == nullptr) return std::optional<Buffer>();
  const std::string where = Describe();
  std::atomic<uint64_t>& cached = data_offsets_[e - entries_.data()];
  uint64_t data_offset = cached.load(std::memory_order_relaxed);
  if (data_offset == 0) {
    // Racing first readers compute the same value; either store is right.
    TZ_ASSIGN_OR_RETURN(data_offset, zip::ReadDataOffset(fd_, *e, base_, limit_, where));
    cached.store(data_offset, std::memory_order_relaxed);
  }
  TZ_ASSIGN_OR_RETURN(Buffer value, zip::ReadEntry(fd_, *e, data_offset, range, where));
  return std::optional<Buffer>(std::move(value));
}

Result<std::optional<uint64_t>> ZipStore::Size(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  const zip::Entry* e = Find(key);
  if (e == nullptr) return std::optional<uint64_t>();
  return std::optional<uint64_t>(e->size);
}

Status ZipStore::RefuseWrite(std::string_view operation, std::string_view key) const {
  TZ_RETURN_NOT_OK(key.empty() ? Status::OK() : ValidateKey(key));
  return Status::InvalidArgument(
      Describe() + " is an existing archive and opens read-only: cannot " +
      std::string(operation) + " '" + std::string(key) +
      "' (open it for appending, mode \"a\" or \"r+\" in Python, to add to it, or "
      "with truncate, mode \"w\", to write a new one in its place)");
}

Status ZipStore::Set(std::string_view key, ByteView) {
  if (key.empty()) return ValidateKey(key);
  return RefuseWrite("set", key);
}

Status ZipStore::Erase(std::string_view key) {
  if (key.empty()) return ValidateKey(key);
  return RefuseWrite("erase", key);
}

Status ZipStore::ErasePrefix(std::string_view prefix) {
  return RefuseWrite("erase prefix", prefix);
}

Result<std::vector<std::string>> ZipStore::List(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  std::vector<std::string> keys;
  for (auto it = std::lower_bound(entries_.begin(), entries_.end(), prefix, NameLess);
       it != entries_.end() && it->name.starts_with(prefix); ++it) {
    if (internal::KeyIsUnder(it->name, prefix)) keys.push_back(it->name);
  }
  return keys;
}

Result<std::shared_ptr<Store>> OpenZipStore(const std::string& path,
                                            const ZipStoreOptions& options) {
  if (path.empty()) return Status::InvalidArgument("empty zip archive path");
  if (options.append && (options.read_only || options.truncate)) {
    return Status::InvalidArgument(
        "zip archive '" + path + "': append cannot be combined with " +
        (options.read_only ? "read_only" : "truncate"));
  }
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (!ec) abs = abs.lexically_normal();
  if (ec) return Status::IOError("zip archive '" + path + "': " + ec.message());
  const std::string p = abs.string();
  struct stat st;
  const bool exists = ::stat(p.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("zip archive '" + p + "' is a directory");
  }
  if (exists && options.append) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<ZipWriter> writer,
                        ZipWriter::OpenForAppend(p, options.force_zip64));
    return std::shared_ptr<Store>(std::move(writer));
  }
  if (exists && !(options.truncate && !options.read_only)) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<ZipStore> store, ZipStore::Open(p));
    return std::shared_ptr<Store>(std::move(store));
  }
  if (options.read_only) {
    return Status::NotFound("zip archive '" + p + "' does not exist");
  }
  return std::shared_ptr<Store>(std::make_shared<ZipWriter>(
      p, /*exclusive=*/!options.truncate, options.force_zip64));
}

}  // namespace turbozarr
