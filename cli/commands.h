// The subcommands of `turbozarr`. Each Add*Command registers its options on
// the application and returns the subcommand with the function that runs it
// once the command line has been parsed.
//
// A command reports failure as a Status; main prints "turbozarr: <message>"
// and exits with the command's exit_status for it, by default 2 for
// InvalidArgument (a usage error) and 1 otherwise.
//
// Thread safety: commands run once, on the main thread.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "turbozarr/status.h"

namespace turbozarr::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<Status()> run;
  // The exit status for a failure; null: the default above.
  std::function<int(const Status&)> exit_status = {};
};

Command AddInfoCommand(CLI::App& parent);
Command AddTreeCommand(CLI::App& parent);
Command AddCatCommand(CLI::App& parent);
Command AddCpCommand(CLI::App& parent);
Command AddFsckCommand(CLI::App& parent);
Command AddVerifyCommand(CLI::App& parent);
// `command_line`: the arguments after the program's name, for the header
// line `vcz view` stamps its output with.
Command AddVczCommand(CLI::App& parent, const std::string& command_line);
Command AddOmeCommand(CLI::App& parent);

}  // namespace turbozarr::cli
