// `turbozarr fsck PATH [--repair]`: what interrupted writes left in a store.
// A local directory: the temporary files of killed writers (every value is
// old or new; these are only litter), listed, and with --repair removed when
// their writer has ended. A zip archive: whether it opens and lists (an
// archive whose writer was killed before writing its central directory does
// not, and the message says so). Exit status 0 when nothing is left to do, 1
// when something is.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "turbozarr/open_store.h"
#include "turbozarr/store.h"
#include "turbozarr/store_check.h"

namespace turbozarr::cli {
namespace {

namespace fs = std::filesystem;

struct FsckOptions {
  std::string path;
  bool repair = false;
};

Status CheckDirectory(const FsckOptions& options) {
  TZ_ASSIGN_OR_RETURN(LocalDirectoryCheck check,
                      CheckLocalDirectory(options.path, options.repair));
  for (const std::string& f : check.ended_writes) {
    std::cout << (check.repaired ? "removed " : "ended write ") << f << "\n";
  }
  for (const std::string& f : check.running_writes) {
    std::cout << "running write " << f << "\n";
  }
  const size_t ended = check.ended_writes.size();
  std::cout << options.path << ": " << ended << " temporary file" << (ended == 1 ? "" : "s")
            << " of ended writes" << (check.repaired && ended > 0 ? " removed" : "") << ", "
            << check.running_writes.size() << " of writes still running\n";
  if (ended > 0 && !check.repaired) {
    return Status::Corruption(options.path + ": " + std::to_string(ended) +
                               " temporary file" + (ended == 1 ? "" : "s") +
                               " of ended writes; run with --repair to remove them");
  }
  return Status::OK();
}

Status CheckZip(const FsckOptions& options) {
  StoreOptions read_only;
  read_only.read_only = true;
  Result<std::shared_ptr<Store>> store = OpenStore(options.path, read_only);
  if (!store.ok()) return store.status();
  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, (*store)->List(""));
  std::cout << options.path << ": a complete zip archive of " << keys.size() << " entr"
            << (keys.size() == 1 ? "y" : "ies") << "\n";
  return Status::OK();
}

Status RunFsck(const FsckOptions& options) {
  std::error_code ec;
  if (fs::is_directory(options.path, ec)) return CheckDirectory(options);
  if (fs::is_regular_file(options.path, ec)) return CheckZip(options);
  return Status::InvalidArgument("fsck checks a local directory or a zip archive; '" +
                                 options.path + "' is neither");
}

}  // namespace

Command AddFsckCommand(CLI::App& parent) {
  auto options = std::make_shared<FsckOptions>();
  CLI::App* app = parent.add_subcommand(
      "fsck", "Check a local store or zip archive for what interrupted writes left");
  app->add_option("PATH", options->path, "Store directory or zip archive")->required();
  app->add_flag("--repair", options->repair,
                "Remove the temporary files of writes whose writer has ended");
  return {app, [options] { return RunFsck(*options); }};
}

}  // namespace turbozarr::cli
