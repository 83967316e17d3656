// `turbozarr fsck PATH [--repair]`: what interrupted writes left in a store.
// A local directory: the temporary files of killed writers (every value is
// old or new; these are only litter), listed, and with --repair removed when
// their writer has ended. A zip archive: whether it opens and lists; one
// whose writer was killed before writing its central directory does not,
// and fsck says how many entries its local headers hold whole, and with
// --repair writes the central directory that lists them. Exit status 0 when
// nothing is left to do, 1 when something is.
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

std::string Entries(uint64_t n) {
  return std::to_string(n) + (n == 1 ? " entry" : " entries");
}

Status CheckZip(const FsckOptions& options) {
  TZ_ASSIGN_OR_RETURN(ZipArchiveCheck check, CheckZipArchive(options.path, options.repair));
  if (check.complete) {
    std::cout << options.path << ": a complete zip archive of " << Entries(check.entries)
              << "\n";
    return Status::OK();
  }
  std::cout << options.path << ": " << check.problem << "\n";
  if (check.earlier_size > 0) {
    std::cout << options.path << ": an append that did not finish: the archive's "
              << "earlier central directory, of " << Entries(check.earlier_entries)
              << ", is whole in its first " << check.earlier_size
              << " bytes; its entries are kept\n";
  }
  std::cout << options.path << ": " << Entries(check.entries)
            << (check.earlier_size > 0 ? " in all, those after it whole in their local "
                                         "headers"
                                       : " whole in their local headers");
  if (check.damaged_entries > 0) {
    std::cout << "; " << Entries(check.damaged_entries) << " cut short or failing "
              << (check.damaged_entries == 1 ? "its" : "their")
              << " CRC-32 (the write in progress), left out";
  }
  if (check.unchecked_entries > 0) {
    std::cout << "; " << Entries(check.unchecked_entries)
              << " compressed, which recovery cannot check, left out";
  }
  std::cout << "; " << check.unclaimed_bytes << " bytes in no whole entry\n";
  if (check.repaired) {
    std::cout << options.path << ": repaired: a central directory of "
              << Entries(check.entries) << " written; the archive opens\n";
    return Status::OK();
  }
  return Status::Corruption(options.path +
                            ": the central directory is missing or damaged; run with "
                            "--repair to write one listing the " +
                            Entries(check.entries) + " recovered");
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
                "Remove the temporary files of writes whose writer has ended; rebuild "
                "the central directory of a zip archive whose writer ended before "
                "writing it");
  return {app, [options] { return RunFsck(*options); }};
}

}  // namespace turbozarr::cli
