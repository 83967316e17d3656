// `turbozarr cat PATH [SELECTION]`: an array's values as text, with numpy's
// nested brackets. The selection is read in slabs along its first dimension
// so that printing a large array needs bounded memory.
#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/location.h"
#include "cli/selection_parser.h"
#include "cli/value_formatter.h"
#include "turbozarr/array.h"
#include "turbozarr/element_block.h"
#include "turbozarr/group.h"

namespace turbozarr::cli {
namespace {

// Decoded bytes per slab.
constexpr uint64_t kSlabBytes = uint64_t{32} << 20;

struct CatOptions {
  std::string url;
  std::string selection;
  std::string path;
};

Status RunCat(const CatOptions& options) {
  TZ_ASSIGN_OR_RETURN(Location location,
                      OpenLocation(options.url, options.path, ReadOnly()));
  TZ_ASSIGN_OR_RETURN(NodeInfo node, InspectLocation(location));
  if (node.kind != NodeKind::kArray) {
    return Status::InvalidArgument(location.Describe() +
                                   " is a group, not an array; "
                                   "use 'turbozarr tree' or 'turbozarr info'");
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                      Array::Open(location.store, location.path));
  TZ_ASSIGN_OR_RETURN(ParsedSelection parsed,
                      ParseSelection(options.selection, array->shape()));
  const Selection& selection = parsed.selection;
  const DataType& dtype = array->dtype();
  ArrayPrinter printer(dtype, parsed.result_shape, std::cout);

  if (selection.rank() == 0 || selection.num_elements() == 0) {
    ElementBlock block(dtype, selection.num_elements());
    TZ_RETURN_NOT_OK(array->Read(selection, block));
    printer.Add(block.data(), block.count());
    printer.Finish();
    return Status::OK();
  }
  const DimRange first = selection.dims()[0];
  const int64_t per_row = selection.num_elements() / first.count();
  const int64_t rows_per_slab = std::max<int64_t>(
      1, static_cast<int64_t>(kSlabBytes / (ElementMemoryEstimate(dtype) * per_row)));
  for (int64_t row = 0; row < first.count(); row += rows_per_slab) {
    const int64_t rows = std::min(rows_per_slab, first.count() - row);
    std::vector<DimRange> dims = selection.dims();
    dims[0].start = first.start + row * first.step;
    dims[0].stop = dims[0].start + (rows - 1) * first.step + 1;
    Selection slab(std::move(dims));
    ElementBlock block(dtype, slab.num_elements());
    TZ_RETURN_NOT_OK(array->Read(slab, block));
    printer.Add(block.data(), block.count());
  }
  printer.Finish();
  return Status::OK();
}

}  // namespace

Command AddCatCommand(CLI::App& parent) {
  auto options = std::make_shared<CatOptions>();
  CLI::App* app = parent.add_subcommand("cat", "Print the values of the array at PATH");
  app->add_option("PATH", options->url, "Store directory or URL")->required();
  app->add_option(
      "SELECTION", options->selection,
      "numpy-style selection, e.g. \"0:10, 5, ::2\" or \"-1\" (default: all)");
  app->add_option("--path", options->path, "Node inside the store (default: its root)");
  return {app, [options] { return RunCat(*options); }};
}

}  // namespace turbozarr::cli
