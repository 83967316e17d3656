// `turbozarr tree PATH`: the hierarchy below the group at PATH, one line per
// node, arrays with their shape and data type (Group::Tree). For an array,
// its one line.
#include <iostream>

#include "cli/commands.h"
#include "cli/location.h"
#include "turbozarr/array.h"
#include "turbozarr/group.h"

namespace turbozarr::cli {
namespace {

struct TreeOptions {
  std::string url;
  std::string path;
};

std::string ArrayLine(const Array& array) {
  std::string out = array.path().empty() ? "/" : array.path();
  out += " (";
  for (size_t d = 0; d < array.shape().size(); ++d) {
    if (d > 0) out += ", ";
    out += std::to_string(array.shape()[d]);
  }
  if (array.shape().size() == 1) out += ",";
  return out + ") " + array.dtype().ToString() + "\n";
}

Status RunTree(const TreeOptions& options) {
  TZ_ASSIGN_OR_RETURN(Location location,
                      OpenLocation(options.url, options.path, ReadOnly()));
  TZ_ASSIGN_OR_RETURN(NodeInfo node, InspectLocation(location));
  if (node.kind == NodeKind::kArray) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                        Array::Open(location.store, location.path));
    std::cout << ArrayLine(*array);
    return Status::OK();
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> group,
                      Group::Open(location.store, location.path));
  TZ_ASSIGN_OR_RETURN(std::string tree, group->Tree());
  std::cout << tree;
  return Status::OK();
}

}  // namespace

Command AddTreeCommand(CLI::App& parent) {
  auto options = std::make_shared<TreeOptions>();
  CLI::App* app =
      parent.add_subcommand("tree", "Show the hierarchy below the group at PATH");
  app->add_option("PATH", options->url, "Store directory or URL")->required();
  app->add_option("--path", options->path, "Node inside the store (default: its root)");
  return {app, [options] { return RunTree(*options); }};
}

}  // namespace turbozarr::cli
