// `turbozarr vcz ...`: VCF Zarr queries and outputs, with the subcommands,
// options and output bytes of vcztools (see docs/vcz.md):
//
//   turbozarr vcz index -n PATH    the number of records
//   turbozarr vcz index -s PATH    per contig: name, length, records
//   turbozarr vcz query -l PATH    the sample IDs
//   turbozarr vcz query -f FMT PATH  each variant formatted by FMT
#include <fstream>
#include <iostream>
#include <optional>

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

struct QueryCommandOptions {
  std::string url;
  bool list_samples = false;
  std::optional<std::string> format;
  bool no_newline = false;
  std::string output = "-";
  std::optional<std::string> regions, regions_file, targets, targets_file;
  std::optional<std::string> samples, samples_file;
  bool force_samples = false;
  std::optional<std::string> include, exclude;
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

Status RunQuery(const QueryCommandOptions& options) {
  if (!options.list_samples && !options.format) {
    return Status::InvalidArgument("Missing option -f / --format");
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<const vcz::VczDataset> dataset,
                      OpenDataset(options.url));
  // As bcftools query -l, the sample list ignores --output.
  if (options.list_samples) return vcz::WriteSampleList(*dataset, std::cout);
  vcz::QueryOptions query;
  query.format = *options.format;
  query.disable_automatic_newline = options.no_newline;
  query.regions = options.regions;
  query.regions_file = options.regions_file;
  query.targets = options.targets;
  query.targets_file = options.targets_file;
  query.samples = options.samples;
  query.samples_file = options.samples_file;
  query.force_samples = options.force_samples;
  query.warnings = &std::cerr;
  query.include = options.include;
  query.exclude = options.exclude;
  if (options.output == "-") return vcz::WriteQuery(*dataset, query, std::cout);
  std::ofstream file(options.output, std::ios::binary);
  if (!file) return Status::IOError("cannot open " + options.output + " for writing");
  TZ_RETURN_NOT_OK(vcz::WriteQuery(*dataset, query, file));
  file.close();
  if (!file) return Status::IOError("writing " + options.output + " failed");
  return Status::OK();
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

  auto query = std::make_shared<QueryCommandOptions>();
  CLI::App* query_app = app->add_subcommand(
      "query", "Transform VCZ into user-defined formats (as bcftools query)");
  query_app->add_option("PATH", query->url, "VCZ store directory or URL")->required();
  query_app->add_flag("-l,--list-samples", query->list_samples,
                      "List the sample IDs and exit.");
  query_app->add_option("-f,--format", query->format, "The format of the output.");
  query_app->add_flag("-N,--disable-automatic-newline", query->no_newline,
                      "Disable automatic addition of a missing newline character at the "
                      "end of the formatting expression.");
  query_app->add_option("-o,--output", query->output,
                        "File path to write output to (defaults to stdout '-').");
  query_app->add_option("-r,--regions", query->regions, "Regions to include.");
  query_app->add_option("-R,--regions-file", query->regions_file,
                        "File of regions to include.");
  query_app->add_option("-t,--targets", query->targets, "Target regions to include.");
  query_app->add_option("-T,--targets-file", query->targets_file,
                        "File of target regions to include.");
  query_app->add_option("-s,--samples", query->samples, "Samples to include.");
  query_app->add_option("-S,--samples-file", query->samples_file,
                        "File of sample names to include.");
  query_app->add_flag("--force-samples", query->force_samples,
                      "Only warn about unknown sample subsets.");
  query_app->add_option("-i,--include", query->include,
                        "Filter expression to include variant sites.");
  query_app->add_option("-e,--exclude", query->exclude,
                        "Filter expression to exclude variant sites.");

  return {app, [index, index_app, query, query_app]() -> Status {
            if (index_app->parsed()) return RunIndex(*index);
            if (query_app->parsed()) return RunQuery(*query);
            return Status::InvalidArgument("vcz: a subcommand is required");
          }};
}

}  // namespace turbozarr::cli
