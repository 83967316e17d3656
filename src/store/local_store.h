// LocalStore: a Store over a directory of the local file system; key "a/b/c"
// is the file <root>/a/b/c.
//
// Reads open the file afresh each time (open + fstat + pread), so there is no
// shared handle to contend on. Where the kernel has openat2, the open is one
// call confined to the root (RESOLVE_BENEATH); else a realpath check does the
// confining. A Set writes a temporary file beside its target (named
// ".tmp-...", never listed) and renames it into place, so a reader sees the
// old value or the new one, never part of one; parent directories are made on
// demand, and Erase removes directories it leaves empty. Keys whose resolved
// path leaves the root through a symbolic link are refused with
// InvalidArgument. Symbolic links to directories are not followed when
// listing.
//
// Reads from the disk. A read first asks for its bytes without waiting
// (preadv2 with RWF_NOWAIT): cached data comes back as from pread, and a read
// that has to wait for the disk is noticed for the cost of one failed call.
// Such reads turn hints on (WantsPrefetch) for a while: Prefetch queues the
// key for a few background threads, which open the file and ask the kernel
// to read it ahead (POSIX_FADV_WILLNEED), so that readers which each wait on
// one file at a time still keep many requests in flight on the device (see
// readahead_queue.h). Each hint spends one unit of a credit that waiting
// reads give, so hints stop soon once reads no longer wait.
//
// A read-modify-write (BeginUpdates) holds the key's lock, shared by every
// process of the machine (store/key_locks.h), from before its read to after
// its rename; a killed writer's locks are released by the kernel.
//
// A writer killed mid-write leaves its temporary file; readers and listings
// skip it, and the first write into its directory in a process removes it
// once it is a minute old and its process has ended, as
// `turbozarr fsck --repair` does for a whole tree.
//
// Values are not fsync'ed unless the store is durable (LocalStoreOptions):
// atomic replacement protects concurrent readers and survives a killed
// process, not a power loss, which matches what other Zarr implementations
// do. A durable store syncs the file before the rename and the directory
// after it (and after an Erase).
//
// Thread safety: safe from many threads and processes at once.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "store/file_tree.h"
#include "store/readahead_queue.h"
#include "turbozarr/store.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr {

class LocalStore final : public Store {
 public:
  // REQUIRES: `root` is absolute, without a trailing '/', with every symbolic
  // link in its existing part resolved (MakeLocalStore ensures this).
  LocalStore(std::string root, bool durable = false);
  ~LocalStore() override;

  // Each request is open + fstat + pread straight into its target: a
  // caller's memory (through an aligned bounce buffer when misaligned, see
  // ReadAt) or a buffer, reused when the target asks so.
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  // Updates that hold each key's machine-wide lock (store/key_locks.h),
  // named by the key's path, so that every process writing the file
  // (whatever directory it opened as its root) takes the same lock.
  Result<std::vector<std::unique_ptr<KeyUpdate>>> BeginUpdates(
      std::span<const std::string> keys) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override;
  bool WantsPrefetch() const override {
    return prefetch_credit_.load(std::memory_order_relaxed) > 0;
  }
  void Prefetch(std::span<const std::string> keys) override;
  std::string Describe() const override { return "file://" + root_; }

  const std::string& root() const { return root_; }

  // Files whose names start with this are writes in progress.
  static constexpr std::string_view kTempPrefix = internal::kTempFilePrefix;

 private:
  // A value opened for reading: fd < 0 when the key is absent.
  struct OpenFile {
    int fd = -1;
    uint64_t size = 0;
    // ReadAnswer::version: the file's identity and change time. A write
    // renames a new file into place, so a replaced value has a new inode
    // (and, should the inode number be reused, a later change time).
    uint64_t version = 0;
    // The resolved path when the checked open ran; empty after the fast
    // open, so a read allocates no path unless it has an error to report.
    std::string path;
  };
  Result<OpenFile> OpenForRead(std::string_view key) const;
  Result<ReadAnswer> ReadOne(const ReadRequest& request) const;
  // The path to name in an error about `file`.
  std::string ErrorPath(std::string_view key, const OpenFile& file) const;
  // Reads up to out.size() bytes at `offset`; answers how many were read
  // (fewer only if the file shrank meanwhile). A read that finds its bytes
  // not cached turns hints on.
  // Into memory that is not 32-byte aligned (a caller's array:
  // ReadTarget::kCallerMemory), the bytes go through an aligned per-thread buffer of
  // kBounceBytes: the kernel's copy into such memory runs at a quarter of its speed on
  // some CPUs, and a copy of a slice that stays in the cache costs far less.
  Result<size_t> ReadAt(std::string_view key, const OpenFile& file, uint64_t offset,
                        MutableByteView out) const;
  // ReadAt, with no regard to alignment.
  Result<size_t> ReadDirect(std::string_view key, const OpenFile& file, uint64_t offset,
                            MutableByteView out) const;
  static constexpr size_t kBounceBytes = size_t{256} << 10;
  void NoteUncachedRead() const;
  // Asks the kernel to read `key`'s value into the page cache. Runs on the
  // readahead queue's threads.
  void StartReadahead(std::string_view key);
  // The root directory's descriptor, opened on first use (-1 while the root
  // does not exist or openat2 is unavailable).
  int RootFd() const;
  // openat2(RESOLVE_BENEATH) of `key` under the root; -1 (errno set) on any
  // failure, including a path that would leave the root, with `absent` set
  // when nothing is there (ENOENT, ENOTDIR).
  int OpenBeneathRoot(std::string_view key, bool* absent) const;
  std::string PathOf(std::string_view key) const;
  // The path with symbolic links resolved, InvalidArgument if it lies outside
  // the root, or "" if it does not exist.
  Result<std::string> ResolveExisting(std::string_view key,
                                      const std::string& path) const;
  // Like ResolveExisting, but resolves the part of `path` that exists and keeps
  // the rest as written, so that the answer is where a write would land.
  // Sets *exists to whether the directory is there already.
  Result<std::string> ResolveForWrite(std::string_view key, const std::string& path,
                                      bool* exists) const;
  bool IsInside(std::string_view resolved) const;
  // Removes `dir` and its ancestors below the root while they are empty.
  void PruneEmptyDirectories(std::string dir) const;
  // Temporary files of ended writers this old or older are removed by the
  // first write into their directory in this process
  // (internal::SweepDirectoryOnce).
  static constexpr int64_t kEndedTempAge = 60;

  std::string root_;
  const bool durable_;  // fsync values and directories (LocalStoreOptions)
  // Held shared while a writer makes a directory and its temporary file there,
  // exclusively while Erase removes empty directories, so that this store's
  // writers never find their directory pruned away under them. Fork-safe
  // (turbozarr/fork_safety.h): a fork child never finds it held.
  mutable internal::ForkSafeSharedMutex prune_mu_;
  mutable std::atomic<int> root_fd_{-1};
  mutable std::atomic<bool> openat2_works_{true};
  // False once the file system has refused RWF_NOWAIT: reads then block
  // from the start and never turn hints on.
  mutable std::atomic<bool> nowait_works_{true};
  // Hints are wanted while this is positive. Each read that had to wait
  // adds kCreditPerWaitingRead, up to kPrefetchCredit, and each hint takes
  // one off. While the data is not cached, reads that catch up with hints
  // still in flight keep it up; once it is, hints stop within
  // kPrefetchCredit of them. A read of cached data that meets the odd page
  // not cached (evicted, or still being read by someone) buys only a few
  // dozen hints. When hints keep so far ahead that no read waits, they
  // pause and the next waiting read restarts them.
  static constexpr int kPrefetchCredit = 256;
  static constexpr int kCreditPerWaitingRead = 64;
  mutable std::atomic<int> prefetch_credit_{0};
  // Enough threads that waits for directory entries and inodes overlap; a
  // queue a few reads' hints deep.
  static constexpr int kReadaheadThreads = 8;
  static constexpr size_t kReadaheadQueued = 1024;
  std::unique_ptr<internal::ReadaheadQueue> readahead_;
};

}  // namespace turbozarr
