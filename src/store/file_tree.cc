#include "store/file_tree.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <mutex>
#include <system_error>
#include <unordered_set>

#include "turbozarr/store.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr::internal {

bool IsAbsent(int err) { return err == ENOENT || err == ENOTDIR; }

bool TempFileWriterEnded(std::string_view name) {
  if (!name.starts_with(kTempFilePrefix)) return false;
  name.remove_prefix(kTempFilePrefix.size());
  unsigned long pid = 0;
  const char* end = name.data() + name.size();
  auto [p, ec] = std::from_chars(name.data(), end, pid, 16);
  if (ec != std::errc() || p == name.data() || p == end || *p != '-' || pid == 0 ||
      pid > static_cast<unsigned long>(INT32_MAX)) {
    return false;  // not a name this library makes: leave it alone
  }
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

void SweepDirectoryOnce(const std::string& dir, int64_t min_age_seconds) {
  thread_local std::string last;
  if (dir == last) return;
  static ForkSafeMutex* mu = new ForkSafeMutex();  // never destroyed
  static auto* swept = new std::unordered_set<std::string>();
  {
    std::lock_guard<ForkSafeMutex> lock(*mu);
    if (!swept->insert(dir).second) {
      last = dir;
      return;
    }
  }
  last = dir;
  RemoveEndedTempFiles(dir, min_age_seconds);
}

int RemoveEndedTempFiles(const std::string& dir, int64_t min_age_seconds,
                         std::vector<std::string>* removed) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  const time_t now = ::time(nullptr);
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (!TempFileWriterEnded(name)) continue;
    const std::string path = dir + "/" + std::string(name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (now - st.st_mtime < min_age_seconds) continue;
    if (::unlink(path.c_str()) == 0) {
      ++n;
      if (removed != nullptr) removed->push_back(path);
    }
  }
  ::closedir(d);
  return n;
}

int MakeDirectories(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) return 0;
  if (errno != ENOENT) return errno;
  size_t slash = dir.rfind('/');
  if (slash == 0 || slash == std::string::npos) return ENOENT;
  std::string parent = dir.substr(0, slash);
  if (int err = MakeDirectories(parent); err != 0) return err;
  if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) return 0;
  return errno;
}

namespace {

// Calls visit(name, is_file) for each file (temporary files left out) and
// subdirectory of `dir` whose name is expressible as a key, in the order
// the directory gives them, until visit returns false. An errno if `dir`
// cannot be opened, else 0.
template <typename Visit>
int VisitDirectory(const std::string& dir, Visit visit) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return errno;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    if (name.find('\\') != std::string_view::npos) continue;  // not expressible as a key
    unsigned char type = e->d_type;
    std::string path;
    struct stat st;
    if (type == DT_UNKNOWN) {  // some file systems leave the type to lstat
      path = dir + "/" + std::string(name);
      if (::lstat(path.c_str(), &st) != 0) continue;  // removed meanwhile
      type = S_ISREG(st.st_mode)   ? DT_REG
             : S_ISDIR(st.st_mode) ? DT_DIR
             : S_ISLNK(st.st_mode) ? DT_LNK
                                   : DT_UNKNOWN;
    }
    if (type == DT_LNK) {
      if (path.empty()) path = dir + "/" + std::string(name);
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      type = DT_REG;
    }
    bool go_on = true;
    if (type == DT_REG) {
      if (!name.starts_with(kTempFilePrefix)) go_on = visit(name, true);
    } else if (type == DT_DIR) {
      go_on = visit(name, false);
    }
    if (!go_on) break;
  }
  ::closedir(d);
  return 0;
}

}  // namespace

int ReadDirectory(const std::string& dir, std::vector<std::string>* files,
                  std::vector<std::string>* subdirs) {
  return VisitDirectory(dir, [&](std::string_view name, bool is_file) {
    (is_file ? files : subdirs)->emplace_back(name);
    return true;
  });
}

Status ListFilesBelow(const std::string& dir, const std::string& key,
                      std::vector<std::string>* out) {
  std::vector<std::string> files, subdirs;
  int err = ReadDirectory(dir, &files, &subdirs);
  if (IsAbsent(err)) return Status::OK();  // removed while we were listing
  if (err != 0) {
    return Status::IOError("prefix '" + key + "': list " + dir + ": " +
                           std::generic_category().message(err));
  }
  for (const std::string& f : files) out->push_back(JoinKey(key, f));
  for (const std::string& s : subdirs) {
    TZ_RETURN_NOT_OK(ListFilesBelow(dir + "/" + s, JoinKey(key, s), out));
  }
  return Status::OK();
}

bool HasAnyFile(const std::string& dir) {
  // Stops at the first file: an array's directory may hold many thousands
  // of chunks, and listing a group looks into each of its members.
  bool found = false;
  std::vector<std::string> subdirs;
  if (VisitDirectory(dir, [&](std::string_view name, bool is_file) {
        if (is_file) {
          found = true;
          return false;
        }
        subdirs.emplace_back(name);
        return true;
      }) != 0) {
    return false;
  }
  if (found) return true;
  return std::any_of(subdirs.begin(), subdirs.end(),
                     [&](const std::string& s) { return HasAnyFile(dir + "/" + s); });
}

}  // namespace turbozarr::internal
