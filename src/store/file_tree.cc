#include "store/file_tree.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "turbozarr/store.h"

namespace turbozarr::internal {

bool IsAbsent(int err) { return err == ENOENT || err == ENOTDIR; }

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

int ReadDirectory(const std::string& dir, std::vector<std::string>* files,
                  std::vector<std::string>* subdirs) {
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
    if (type == DT_REG) {
      if (!name.starts_with(kTempFilePrefix)) files->emplace_back(name);
    } else if (type == DT_DIR) {
      subdirs->emplace_back(name);
    }
  }
  ::closedir(d);
  return 0;
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
  std::vector<std::string> files, subdirs;
  if (ReadDirectory(dir, &files, &subdirs) != 0) return false;
  if (!files.empty()) return true;
  return std::any_of(subdirs.begin(), subdirs.end(),
                     [&](const std::string& s) { return HasAnyFile(dir + "/" + s); });
}

}  // namespace turbozarr::internal
