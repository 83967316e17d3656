// CheckZipArchive (turbozarr/store_check.h): open the archive as a reader
// would; if its central directory is missing or damaged, recover its entries
// (zip_recovery.h: from an earlier directory an unfinished append left whole,
// and from local headers) and, asked to, write a new one.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "store/store_internal.h"
#include "store/zip_recovery.h"
#include "store/zip_store.h"
#include "turbozarr/store_check.h"

namespace turbozarr {
namespace {

Status OsError(const std::string& path, const char* what, int err) {
  return Status::IOError("zip archive '" + path + "': " + what + ": " + std::strerror(err));
}

Result<uint64_t> OpenedCount(const std::string& path) {
  ZipStoreOptions read_only;
  read_only.read_only = true;
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Store> store, OpenZipStore(path, read_only));
  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, store->List(""));
  return static_cast<uint64_t>(keys.size());
}

}  // namespace

Result<ZipArchiveCheck> CheckZipArchive(const std::string& path, bool repair) {
  ZipArchiveCheck check;
  const int fd = ::open(path.c_str(), (repair ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return OsError(path, "open", errno);
  internal::FileCloser closer(fd);  // closing it drops the lock
  // A writer holds this lock while it writes (ZipWriter): its archive has no
  // central directory yet because it is not finished, not because it broke.
  if (::flock(fd, (repair ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return Status::AlreadyExists("zip archive '" + path +
                                   "': a writer has it open; it is being written, and "
                                   "its central directory comes when the writer ends");
    }
    return OsError(path, "lock", errno);
  }
  Result<uint64_t> listed = OpenedCount(path);
  if (listed.ok()) {
    check.complete = true;
    check.entries = *listed;
    return check;
  }
  if (listed.status().code() != StatusCode::kCorruption) return listed.status();
  check.problem = listed.status().message();

  struct stat st;
  if (::fstat(fd, &st) != 0) return OsError(path, "stat", errno);
  const std::string where = "zip archive '" + path + "'";
  TZ_ASSIGN_OR_RETURN(zip::Recovery found,
                      zip::ScanLocalEntries(fd, static_cast<uint64_t>(st.st_size), where));
  // What the repaired archive will list: its keys (a directory may also
  // name entries that are not keys, and one name twice).
  std::set<std::string> keys;
  for (std::string& name : zip::RecoveredNames(found)) {
    if (ValidateKey(name).ok()) keys.insert(std::move(name));
  }
  check.entries = keys.size();
  if (found.earlier) {
    check.earlier_entries = found.earlier->entries.size();
    check.earlier_size = found.earlier->location.end;
  }
  check.damaged_entries = found.damaged;
  check.unchecked_entries = found.unchecked;
  check.unclaimed_bytes = found.unclaimed_bytes;
  if (!repair) return check;
  TZ_RETURN_NOT_OK(
      zip::AppendDirectory(fd, static_cast<uint64_t>(st.st_size), found, where));
  // The proof: it opens now, with every entry recovered.
  TZ_ASSIGN_OR_RETURN(uint64_t reopened, OpenedCount(path));
  if (reopened != check.entries) {
    return Status::Corruption(where + ": after the repair it lists " +
                              std::to_string(reopened) + " entries, not " +
                              std::to_string(check.entries));
  }
  check.repaired = true;
  return check;
}

}  // namespace turbozarr
