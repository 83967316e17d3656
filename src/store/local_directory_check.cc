// CheckLocalDirectory (turbozarr/store_check.h): a walk for the temporary
// files of interrupted writes, by the naming rule file_tree.h keeps.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "store/file_tree.h"
#include "turbozarr/store_check.h"

namespace turbozarr {

namespace fs = std::filesystem;

Result<LocalDirectoryCheck> CheckLocalDirectory(const std::string& root, bool repair) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return Status::InvalidArgument("'" + root + "' is not a directory");
  }
  LocalDirectoryCheck check;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied,
                                      ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(internal::kTempFilePrefix)) continue;
    if (!it->is_regular_file(ec)) continue;
    const std::string relative = fs::relative(it->path(), root, ec).string();
    if (internal::TempFileWriterEnded(name)) {
      check.ended_writes.push_back(relative);
    } else {
      check.running_writes.push_back(relative);
    }
  }
  if (ec) return Status::IOError("walking '" + root + "': " + ec.message());
  std::sort(check.ended_writes.begin(), check.ended_writes.end());
  std::sort(check.running_writes.begin(), check.running_writes.end());
  if (repair) {
    for (const std::string& f : check.ended_writes) {
      const std::string path = root + "/" + f;
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return Status::IOError("removing '" + path + "': " + std::strerror(errno));
      }
    }
    check.repaired = true;
  }
  return check;
}

}  // namespace turbozarr
