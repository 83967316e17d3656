// turbozarr: inspect, print and copy Zarr arrays and groups (v2 and v3).
//
//   turbozarr info PATH            what is stored at PATH
//   turbozarr tree PATH            the hierarchy below a group
//   turbozarr cat PATH [SEL]       an array's values, e.g. SEL = "0:10, 5, ::2"
//   turbozarr cp SRC DST [...]     copy, converting format, chunks and codecs
//   turbozarr fsck PATH            what interrupted writes left behind
//   turbozarr verify PATH          every stored chunk read and checked
//   turbozarr vcz ...              VCF Zarr queries and outputs (vcz_command.cc)
//   turbozarr ome ...              OME-Zarr images and pyramids (ome_command.cc)
//   turbozarr sparse ...           sparse counts: served by the Python package,
//                                  whose `turbozarr` handles it before reaching here
//
// Exit status: 0 on success, 2 for usage errors, 1 for every other failure,
// with "turbozarr: <message>" on stderr.
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "turbozarr/version.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int ReportFailure(const turbozarr::Status& status,
                  const turbozarr::cli::Command* command = nullptr) {
  std::cout.flush();
  std::cerr << "turbozarr: " << status.message() << "\n";
  if (command != nullptr && command->exit_status) return command->exit_status(status);
  return status.code() == turbozarr::StatusCode::kInvalidArgument ? kExitUsage
                                                                  : kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  CLI::App app("Inspect, print and copy Zarr arrays and groups (formats 2 and 3).",
               "turbozarr");
  app.require_subcommand(1);
  app.set_version_flag("--version", "turbozarr " + std::string(turbozarr::Version()));
  app.footer(
      "PATH is a store: a local directory, file:///dir, a zip archive (x.zip,\n"
      "zip:///x.zip) or memory://. A directory inside a hierarchy (or inside an\n"
      "archive: x.zip/a/b) opens the node there directly; --path names a node\n"
      "inside the store instead.");

  std::string command_line;  // the arguments, as `vcz view` records them
  for (int i = 1; i < argc; ++i) command_line += (i > 1 ? " " : "") + std::string(argv[i]);
  std::vector<turbozarr::cli::Command> commands = {
      turbozarr::cli::AddInfoCommand(app),
      turbozarr::cli::AddTreeCommand(app),
      turbozarr::cli::AddCatCommand(app),
      turbozarr::cli::AddCpCommand(app),
      turbozarr::cli::AddFsckCommand(app),
      turbozarr::cli::AddVerifyCommand(app),
      turbozarr::cli::AddVczCommand(app, command_line),
      turbozarr::cli::AddOmeCommand(app),
  };

  if (argc > 1 && std::string(argv[1]) == "sparse") {
    // Its converters read .h5ad and 10x files through the Python package.
    std::cerr << "turbozarr: 'sparse' runs in Python: use the turbozarr command that pip\n"
                 "installs with the package, or python -m turbozarr sparse ...\n";
    return kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version requests come through here too, with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "turbozarr: " << e.what() << "\n"
              << "Run 'turbozarr --help' for usage.\n";
    return kExitUsage;
  }

  for (const turbozarr::cli::Command& command : commands) {
    if (!command.app->parsed()) continue;
    try {
      turbozarr::Status status = command.run();
      if (!status.ok()) return ReportFailure(status, &command);
      std::cout.flush();
      return std::cout.good() ? 0 : kExitFailure;
    } catch (const std::bad_alloc&) {
      return ReportFailure(turbozarr::Status::IOError("out of memory"));
    } catch (const std::exception& e) {
      return ReportFailure(turbozarr::Status::IOError(e.what()));
    }
  }
  return kExitUsage;  // unreachable: require_subcommand(1)
}
