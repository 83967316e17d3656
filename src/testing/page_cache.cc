#include "testing/page_cache.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace turbozarr {

namespace {

// Writes back and drops the file's pages once; true when none is left.
bool DropOnce(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // Only clean pages can be dropped.
  const bool dropped =
      ::fdatasync(fd) == 0 && ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return dropped && CachedFraction(path) == 0.0;
}

// File systems whose files live in the page cache and never leave it.
bool InMemoryFileSystem(const std::string& path) {
  struct statfs fs;
  return ::statfs(path.c_str(), &fs) == 0 &&
         (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

}  // namespace

bool EvictFromPageCache(const std::string& path) {
  if (InMemoryFileSystem(path)) return false;
  // Under heavy writeback (right after a build) the kernel may keep some
  // pages through one drop; a few more tries, apart, take them.
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (DropOnce(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

double CachedFraction(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return -1;
  }
  if (st.st_size == 0) {
    ::close(fd);
    return 1;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  // Mapping a file reads nothing; mincore then reports its cached pages.
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  const int rc = ::mincore(map, size, resident.data());
  ::munmap(map, size);
  if (rc != 0) return -1;
  size_t cached = 0;
  for (unsigned char r : resident) cached += r & 1;
  return static_cast<double>(cached) / static_cast<double>(resident.size());
}

}  // namespace turbozarr
