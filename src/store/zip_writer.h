// ZipWriter: a Store that writes a new zip archive, the way zarr-python's
// ZipStore does in mode "w": every Set appends a local header and the value,
// stored (uncompressed, CRC-32 in the header); Flush writes the central
// directory and end records after the last entry, and the destructor does
// the same if anything was written since. The archive on disk is complete only
// after that.
//
// The contract:
// - The file is created (replaced, with truncate) on the first Set or Flush;
//   a writer that never writes leaves the file system alone.
// - One writer per archive: the first write takes an exclusive lock on the
//   file (flock, held until the writer is destroyed), and a second writer,
//   in this process or another, fails with AlreadyExists before it changes
//   a byte.
// - Values written are readable from this store at once (Get, List, Size).
// - Setting a key again writes a new entry and the directory names only the
//   new one; the old bytes stay in the file as dead space. (zarr-python's
//   ZipStore keeps both entries and lets the last win; readers agree either
//   way.)
// - Erasing a present key is Unsupported, as in zarr-python's ZipStore;
//   erasing an absent one is OK, so writing a chunk that equals the fill
//   value into a fresh archive works.
// - Writing may go on after a Flush: the next Set overwrites the directory,
//   and the next Flush (or the destructor) writes it again.
// - Archives past 4 GiB or 65535 entries use the zip64 records, per entry only
//   where a value needs it.
//
// Thread safety: safe from many threads. A Set reserves its bytes under a
// mutex and writes them with pwrite outside it, so writers overlap; Get looks
// the entry up under a shared lock and reads without one. The lock is
// fork-safe (util/fork_guard.h): a fork child never finds it held.
#pragma once

#include <map>
#include <string>

#include "store/zip_format.h"
#include "turbozarr/store.h"
#include "util/fork_guard.h"

namespace turbozarr {

class ZipWriter final : public Store {
 public:
  // `path` is absolute. With `exclusive`, the first write fails with
  // AlreadyExists if the file appeared meanwhile instead of replacing it.
  ZipWriter(std::string path, bool exclusive, bool force_zip64);
  ~ZipWriter() override;

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  Status Flush() override;
  std::string Describe() const override { return "zip://" + path_; }

 private:
  // The part of `key`'s value that `range` selects, nullopt if absent.
  Result<std::optional<Buffer>> ReadValue(std::string_view key, ByteRange range);
  struct Slot {
    zip::Entry entry;
    uint64_t data_offset = 0;
  };
  // REQUIRES: mu_ held exclusively.
  Status CreateFileLocked();

  const std::string path_;
  const bool exclusive_;
  const bool force_zip64_;
  const zip::DosTime when_;  // every entry's modification time: when the writer began

  mutable internal::ForkSafeSharedMutex mu_;
  int fd_ = -1;         // -1 until the file is created
  uint64_t end_ = 0;    // where the next local header (or the directory) goes
  bool dirty_ = false;  // entries changed since the directory was written
  std::map<std::string, Slot, std::less<>> entries_;
};

}  // namespace turbozarr
