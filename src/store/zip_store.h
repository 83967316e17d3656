// ZipStore: a Store over an existing zip archive, read-only (ZipWriter appends
// to one). Key "a/b/c" is
// the entry named "a/b/c" at the archive's root, the layout zarr-python's
// ZipStore writes. (An archive made by zipping a directory has its keys under
// that directory's name; open the node below it, e.g. with a path inside the
// store.) Directory entries (names ending in "/") and names that are not valid
// keys are left out; when a name occurs twice the later entry wins, as in
// Python's zipfile.
//
// The central directory is read once, when the archive is opened (zip64
// records and archive comments included); Get, Size and List answer from it
// in memory. Get reads an entry with pread on the one descriptor (see
// zip_entry_reader.h): stored entries in place (a range reads only the range),
// deflated ones inflated whole. An entry's local header is read on its first
// Get and its data offset remembered.
//
// New archives, and existing ones opened for appending, are written by
// ZipWriter (zip_writer.h); OpenZipStore picks one or the other.
//
// Thread safety: safe from many threads; the directory is immutable after
// Open and the read path takes no lock.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "store/zip_format.h"
#include "turbozarr/store.h"

namespace turbozarr {

class ZipStore final : public Store {
 public:
  // Opens the archive at `path` (absolute). NotFound if it does not exist,
  // Corruption if its end records or central directory are damaged.
  static Result<std::shared_ptr<ZipStore>> Open(const std::string& path);
  ~ZipStore() override;

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  // Writes are refused (InvalidArgument): this store only reads; an archive
  // to add to opens with ZipStoreOptions::append.
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  StoreCapabilities Capabilities() const override { return {.writable = false}; }
  std::string Describe() const override { return "zip://" + path_; }

  // The entries, sorted by name (for tests and tools).
  const std::vector<zip::Entry>& entries() const { return entries_; }

 private:
  // The part of `key`'s value that `range` selects, nullopt if absent.
  Result<std::optional<Buffer>> ReadValue(std::string_view key, ByteRange range);
  ZipStore(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  const zip::Entry* Find(std::string_view key) const;
  Status RefuseWrite(std::string_view operation, std::string_view key) const;

  std::string path_;
  int fd_;
  uint64_t base_ = 0;   // file offset of archive offset 0
  uint64_t limit_ = 0;  // archive offset of the central directory
  std::vector<zip::Entry> entries_;
  // Per entry: the file offset of its data once its local header was read, or
  // 0 (data never starts at 0: a local header precedes it).
  std::unique_ptr<std::atomic<uint64_t>[]> data_offsets_;
};

// What OpenZipStore does with the file; see StoreOptions.
struct ZipStoreOptions {
  bool read_only = false;
  bool truncate = false;
  bool append = false;
  // Writers: use the zip64 forms for every entry and for the end records even
  // when the 32-bit fields would do, to test them without writing 4 GiB.
  bool force_zip64 = false;
};

// An existing archive opens as a ZipStore (read-only), or with `append` as a
// ZipWriter that appends to it (ZipWriter::OpenForAppend); an absent one, or
// any with `truncate`, as a ZipWriter of a new archive (unless `read_only`:
// then an absent archive is NotFound). `append` with `read_only` or
// `truncate` is InvalidArgument. `path` may be relative.
Result<std::shared_ptr<Store>> OpenZipStore(const std::string& path,
                                            const ZipStoreOptions& options);

}  // namespace turbozarr
