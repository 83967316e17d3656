// ZipWriter: a Store that writes a zip archive: a new one, the way
// zarr-python's ZipStore does in mode "w", or more entries into an existing
// one, as its mode "a" does. Every Set appends a local header and the value,
// stored (uncompressed, CRC-32 in the header); Flush writes the central
// directory and end records after the last entry, and the destructor does
// the same if anything was written since. The archive on disk is complete only
// after that.
//
// The contract:
// - A new archive's file is created (replaced, with truncate) on the first Set
//   or Flush; a writer that never writes leaves the file system alone.
// - One writer per archive: the first write takes an exclusive lock on the
//   file (flock, held until the writer is destroyed), and a second writer,
//   in this process or another, fails with AlreadyExists before it changes
//   a byte.
// - Values written are readable from this store at once (Get, List, Size).
// - Setting a key again writes a new entry and the directory names only the
//   new one; the old bytes stay in the file as dead space. (zarr-python's
//   ZipStore keeps both entries and lets the last win; readers agree either
//   way.)
// - Erasing a present key of a new archive is Unsupported, as in
//   zarr-python's ZipStore; erasing an absent one is OK, so writing a chunk
//   that equals the fill value into a fresh archive works.
// - Writing may go on after a Flush: the next Set overwrites the directory,
//   and the next Flush (or the destructor) writes it again.
// - Archives past 4 GiB or 65535 entries use the zip64 records, per entry only
//   where a value needs it.
//
// Appending (OpenForAppend) to an existing archive:
// - Its central directory is read when it is opened, and its entries read as
//   ZipStore reads them (stored or deflated; the later of two equal names
//   wins). Names that are not keys (directory entries, say) are not listed
//   but stay in the archive.
// - Nothing is written, and no lock taken, until the first Set or Erase. That
//   one takes the lock and checks that the archive is still the one that was
//   read (same file, size and central directory); if another writer changed
//   it meanwhile, AlreadyExists, and nothing is written.
// - New entries go after the end of the file, never over a byte of it, so the
//   old central directory and end records stay whole (as dead space once a
//   new directory follows). Until the new end records are written the file
//   still ends in the old archive plus bytes after it: zip readers find the
//   old end record while fewer than 64 KiB follow it, and recovery
//   (zip_recovery.h) finds the old directory however many do and adds the
//   whole entries written after it. Writing over the old directory instead,
//   as Python's zipfile does, would leave an interrupted append with no
//   directory at all, and recovery from local headers alone cannot take back
//   the entries it cannot check (deflated ones, those with data
//   descriptors). The cost is the old directory's bytes, once per append.
//   Writing on after a Flush writes over the directory this writer wrote,
//   never the old one: recovery then goes back to the old directory and the
//   whole entries after it.
// - The new directory lists the old one's headers unchanged (times,
//   attributes, comments and extra fields kept) in their order, then the new
//   entries; the end record keeps the archive comment. A header is left out
//   only when its key was set again (the new entry wins, as it would on read)
//   or erased: Erase drops a present key from the directory (its bytes stay),
//   so writing fill-value chunks over an existing array's chunks works.
// - Bytes in front of the archive (a self-extractor's stub) stay in front;
//   new offsets are counted from where the old ones are.
//
// Thread safety: safe from many threads. A Set reserves its bytes under a
// mutex and writes them with pwrite outside it, so writers overlap; Get looks
// the entry up under a shared lock and reads without one. The lock is
// fork-safe (turbozarr/fork_safety.h): a fork child never finds it held.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "store/zip_entry_reader.h"
#include "store/zip_format.h"
#include "turbozarr/store.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr {

class ZipWriter final : public Store {
 public:
  // `path` is absolute. With `exclusive`, the first write fails with
  // AlreadyExists if the file appeared meanwhile instead of replacing it.
  ZipWriter(std::string path, bool exclusive, bool force_zip64);
  // The existing archive at `path` (absolute), to append to. NotFound if it
  // does not exist, Corruption if its end records or central directory are
  // damaged (the file is left alone).
  static Result<std::shared_ptr<ZipWriter>> OpenForAppend(std::string path,
                                                          bool force_zip64);
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
    // File offset of the data; 0 for an inherited entry whose local header
    // has not been read yet.
    uint64_t data_offset = 0;
    bool inherited = false;  // listed in the directory the archive was opened with
  };
  // The archive an appending writer was opened on.
  struct Inherited {
    zip::Directory directory;
    std::vector<bool> is_key;  // per header: its name is a valid key
    uint64_t file_size = 0;    // when it was opened
  };
  // The first write's preparation: a new archive's file created, an existing
  // archive locked and checked. REQUIRES: mu_ held exclusively.
  Status BeginWritingLocked();
  Status CreateFileLocked();
  Status LockForAppendLocked();
  // Takes the writer's lock on `fd`: AlreadyExists if another writer has it.
  Status LockFile(int fd) const;
  // The central directory headers, for Flush. REQUIRES: mu_ held.
  uint64_t AppendDirectoryLocked(Buffer* records) const;

  const std::string path_;
  const bool exclusive_;
  const bool force_zip64_;
  const zip::DosTime when_;  // every entry's modification time: when the writer began

  // Appending: the archive as opened; null for a new archive.
  std::unique_ptr<const Inherited> inherited_;
  uint64_t base_ = 0;  // file offset of archive offset 0 (bytes in front)

  mutable internal::ForkSafeSharedMutex mu_;
  int fd_ = -1;            // -1 until the file is created (open at once when appending)
  bool fd_writable_ = true;  // appending: false if the file opened read-only
  bool locked_ = false;    // the writer's lock is held
  uint64_t end_ = 0;       // file offset where the next local header (or the directory) goes
  bool dirty_ = false;     // entries changed since the directory was written
  std::map<std::string, Slot, std::less<>> entries_;
};

}  // namespace turbozarr
