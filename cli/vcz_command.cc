// `turbozarr vcz ...`: VCF Zarr queries and outputs, with the subcommands,
// options and output bytes of vcztools (see docs/vcz.md):
//
//   turbozarr vcz index -n PATH    the number of records
//   turbozarr vcz index -s PATH    per contig: name, length, records
#include <iostream>

#include "cli/commands.h"
#include "cli/location.h"
#include "turbozarr/group.h"
#include "turbozarr/vcz.h"

namespace turbozarr::cli {
namespace {

struct IndexOptions {
  std::string url;
  bool nrecords = false;
  bool stats = false;
};

Result<std::shared_ptr<const vcz::VczDataset>> OpenDataset(const std::string& url) {
  TZ_ASSIGN_OR_RETURN(Location location, OpenLocation(url, "", ReadOnly()));
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> root,
                      Group::Open(location.store, location.path));
  return vcz::VczDataset::Open(std::move(root));
}

Status RunIndex(const IndexOptions& options) {
  // vcztools' two refusals, in its words.
  if (options.nrecords && options.stats) {
    return Status::InvalidArgument("Expected only one of --stats or --nrecords options");
  }
  if (!options.nrecords && !options.stats) {
    return Status::InvalidArgument("Building region indexes is not supported");
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<const vcz::VczDataset> dataset,
                      OpenDataset(options.url));
  return options.nrecords ? vcz::WriteRecordCount(*dataset, std::cout)
                          : vcz::WriteContigStats(*dataset, std::cout);
}

}  // namespace

Command AddVczCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "vcz", "Query VCF Zarr datasets and write them out as VCF, PLINK or BGEN");
  app->require_subcommand(1);

  auto index = std::make_shared<IndexOptions>();
  CLI::App* index_app = app->add_subcommand(
      "index", "Query the number of records in a VCZ dataset (-n) or per contig (-s)");
  index_app->add_option("PATH", index->url, "VCZ store directory or URL")->required();
  index_app->add_flag("-n,--nrecords", index->nrecords,
                      "Print the number of records (variants).");
  index_app->add_flag("-s,--stats", index->stats, "Print per contig stats.");

  return {app, [index, index_app]() -> Status {
            if (index_app->parsed()) return RunIndex(*index);
            return Status::InvalidArgument("vcz: a subcommand is required");
          }};
}

}  // namespace turbozarr::cli
