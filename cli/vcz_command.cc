// `turbozarr vcz ...`: VCF Zarr queries and outputs, with the subcommands,
// options and output bytes of vcztools (see docs/vcz.md):
//
//   turbozarr vcz index -n PATH    the number of records
//   turbozarr vcz index -s PATH    per contig: name, length, records
//   turbozarr vcz query -l PATH    the sample IDs
//   turbozarr vcz query -f FMT PATH  each variant formatted by FMT
//   turbozarr vcz view PATH        the variants as a VCF
//   turbozarr vcz view-plink -o STEM PATH  as PLINK 1 .bed/.bim/.fam
//   turbozarr vcz view-bgen [-o STEM] PATH  as BGEN 1.2 (.bgen, .bgen.bgi, .sample)
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
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
  vcz::SubsetOptions subset;
};

struct ViewCommandOptions {
  std::string url;
  std::string output = "-";
  vcz::ViewOptions view;
  bool no_version = false;
};

// The subset options every command that selects variants takes.
void AddSubsetOptions(CLI::App* app, vcz::SubsetOptions& o) {
  app->add_option("-r,--regions", o.regions, "Regions to include.");
  app->add_option("-R,--regions-file", o.regions_file, "File of regions to include.");
  app->add_option("-t,--targets", o.targets, "Target regions to include.");
  app->add_option("-T,--targets-file", o.targets_file, "File of target regions to include.");
  app->add_option("-s,--samples", o.samples, "Samples to include.");
  app->add_option("-S,--samples-file", o.samples_file, "File of sample names to include.");
  app->add_flag("--force-samples", o.force_samples, "Only warn about unknown sample subsets.");
  app->add_option("-i,--include", o.include, "Filter expression to include variant sites.");
  app->add_option("-e,--exclude", o.exclude, "Filter expression to exclude variant sites.");
}

// Runs `write` on standard output ("-") or on the file `output`.
Status WriteTo(const std::string& output, const std::function<Status(std::ostream&)>& write) {
  if (output == "-") return write(std::cout);
  std::ofstream file(output, std::ios::binary);
  if (!file) return Status::IOError("cannot open " + output + " for writing");
  TZ_RETURN_NOT_OK(write(file));
  file.close();
  if (!file) return Status::IOError("writing " + output + " failed");
  return Status::OK();
}

// -v/-V/-m/-M, for view and the exports.
void AddExportOptions(CLI::App* app, vcz::ExportOptions& o) {
  app->add_option("-v,--types", o.types,
                  "Comma-separated variant types to include (snps, indels, mnps, other).");
  app->add_option("-V,--exclude-types", o.exclude_types,
                  "Comma-separated variant types to exclude.");
  app->add_option("-m,--min-alleles", o.min_alleles, "Minimum number of alleles (REF included).");
  app->add_option("-M,--max-alleles", o.max_alleles, "Maximum number of alleles (REF included).");
  AddSubsetOptions(app, o);
}

struct PlinkCommandOptions {
  std::string url;
  vcz::PlinkOptions plink;
};

struct BgenCommandOptions {
  std::string url;
  vcz::BgenOptions bgen;
  std::optional<std::string> pad_byte;  // checked to be one ASCII character
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
  static_cast<vcz::SubsetOptions&>(query) = options.subset;
  query.format = *options.format;
  query.disable_automatic_newline = options.no_newline;
  query.warnings = &std::cerr;
  return WriteTo(options.output,
                 [&](std::ostream& out) { return vcz::WriteQuery(*dataset, query, out); });
}

Status RunView(const ViewCommandOptions& options, const std::string& command_line) {
  // As vcztools: plain VCF only.
  const std::string suffix = options.output.substr(options.output.rfind('.') + 1);
  if (options.output != "-" && (suffix == "gz" || suffix == "bcf" || suffix == "bgz")) {
    return Status::InvalidArgument("Only uncompressed VCF output supported, suffix ." + suffix +
                                   " not allowed");
  }
  vcz::ViewOptions view = options.view;
  view.warnings = &std::cerr;
  if (!options.no_version) {
    // The command and the time, as vcztools stamps its header.
    char date[64];
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm local{};
    localtime_r(&t, &local);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &local);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            now.time_since_epoch()).count() % 1000000;
    char fraction[16];
    std::snprintf(fraction, sizeof fraction, ".%06lld", static_cast<long long>(micros));
    view.command_line = "##turbozarr_vcz_viewCommand=" + command_line + "; Date=" + date +
                        fraction;
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<const vcz::VczDataset> dataset,
                      OpenDataset(options.url));
  return WriteTo(options.output,
                 [&](std::ostream& out) { return vcz::WriteVcf(*dataset, view, out); });
}

Status RunBgen(BgenCommandOptions& options) {
  if (options.pad_byte) {
    const std::string& p = *options.pad_byte;
    if (p.size() != 1 || static_cast<unsigned char>(p[0]) > 127) {
      return Status::InvalidArgument("Invalid value for '--pad-byte': --pad-byte must be a "
                                     "single ASCII character (got '" + p + "')");
    }
    options.bgen.pad_byte = p[0];
  }
  options.bgen.warnings = &std::cerr;
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<const vcz::VczDataset> dataset, OpenDataset(options.url));
  return vcz::WriteBgen(*dataset, options.bgen, std::cout);
}

}  // namespace

Command AddVczCommand(CLI::App& parent, const std::string& command_line) {
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
  AddSubsetOptions(query_app, query->subset);

  auto view = std::make_shared<ViewCommandOptions>();
  CLI::App* view_app = app->add_subcommand(
      "view", "Convert VCZ to VCF with subsetting and filtering (as bcftools view)");
  view_app->set_help_flag("--help", "Print this help message and exit");  // -h is header-only
  view_app->add_option("PATH", view->url, "VCZ store directory or URL")->required();
  view_app->add_option("-o,--output", view->output,
                       "File path to write output to (defaults to stdout '-').");
  view_app->add_flag("-h,--header-only", view->view.header_only, "Output the VCF header only.");
  view_app->add_flag("-H,--no-header", view->view.no_header, "Suppress the header in VCF output.");
  view_app->add_flag("--no-version", view->no_version,
                     "Do not append version and command line information to the output VCF "
                     "header.");
  view_app->add_flag("-I,--no-update", view->view.no_update,
                     "Do not recalculate INFO fields for the sample subset.");
  view_app->add_flag("-G,--drop-genotypes", view->view.drop_genotypes, "Drop genotypes.");
  view_app->add_option("--fill-tags", view->view.fill_tags,
                       "Comma-separated INFO tags to (re)compute: AC, AF, AN, NS.");
  AddExportOptions(view_app, view->view);

  auto plink = std::make_shared<PlinkCommandOptions>();
  CLI::App* plink_app = app->add_subcommand(
      "view-plink", "Generate a PLINK 1 binary fileset (.bed/.bim/.fam) from a VCZ dataset");
  plink_app->add_option("PATH", plink->url, "VCZ store directory or URL")->required();
  plink_app->add_option("-o,--output", plink->plink.output,
                        "Output stem; -o foo writes foo.bed, plus foo.bim and foo.fam unless "
                        "--no-bim/--no-fam is given.")
      ->required();
  plink_app->add_flag("--no-bim", plink->plink.no_bim, "Skip the .bim variant-info sidecar.");
  plink_app->add_flag("--no-fam", plink->plink.no_fam, "Skip the .fam sample-info sidecar.");
  AddExportOptions(plink_app, plink->plink);

  auto bgen = std::make_shared<BgenCommandOptions>();
  CLI::App* bgen_app = app->add_subcommand(
      "view-bgen", "Generate BGEN 1.2 output (layout 2, zlib, 8-bit probabilities) from a VCZ "
                   "dataset");
  bgen_app->add_option("PATH", bgen->url, "VCZ store directory or URL")->required();
  bgen_app->add_option("-o,--output", bgen->bgen.output,
                       "Output stem; absent: the .bgen to stdout (no sidecars); -o foo writes "
                       "foo.bgen plus, by default, foo.bgen.bgi and foo.sample.");
  bgen_app->add_option("--compression-level", bgen->bgen.compression_level,
                       "zlib level of the genotype blocks, -1 to 9 (default 1; 0 with "
                       "--fixed-variant-size, which requires it).")
      ->check(CLI::Range(-1, 9));
  bgen_app->add_flag("--fixed-variant-size", bgen->bgen.fixed_variant_size,
                     "Every variant block the same number of bytes (random access); uniform "
                     "ploidy only.");
  bgen_app->add_option("--variant-id-field", bgen->bgen.variant_id_field,
                       "Which BGEN slot carries variant_id; the other is '.'.")
      ->check(CLI::IsMember({"rsid", "varid"}));
  bgen_app->add_option("--total-string-length", bgen->bgen.total_string_length,
                       "Combined byte budget (default 64) of the five string slots, with "
                       "--fixed-variant-size.");
  bgen_app->add_option("--pad-byte", bgen->pad_byte,
                       "ASCII character filling the padding slot after its leading '.' "
                       "(default '.'), with --fixed-variant-size.");
  bgen_app->add_flag("--unphased", bgen->bgen.unphased,
                     "Every variant unphased, whatever call_genotype_phased says.");
  bgen_app->add_flag("--no-header-samples", bgen->bgen.no_header_samples,
                     "No sample IDs in the BGEN header.");
  bgen_app->add_flag("--no-sample-file", bgen->bgen.no_sample_file,
                     "Skip the Oxford .sample sidecar.");
  bgen_app->add_flag("--no-bgi", bgen->bgen.no_bgi, "Skip the bgenix .bgen.bgi index sidecar.");
  AddExportOptions(bgen_app, bgen->bgen);

  return {app, [index, index_app, query, query_app, view, view_app, plink, plink_app, bgen,
                bgen_app, command_line]() -> Status {
            if (index_app->parsed()) return RunIndex(*index);
            if (query_app->parsed()) return RunQuery(*query);
            if (view_app->parsed()) return RunView(*view, command_line);
            if (plink_app->parsed()) {
              plink->plink.warnings = &std::cerr;
              TZ_ASSIGN_OR_RETURN(std::shared_ptr<const vcz::VczDataset> dataset,
                                  OpenDataset(plink->url));
              return vcz::WritePlink(*dataset, plink->plink);
            }
            if (bgen_app->parsed()) return RunBgen(*bgen);
            return Status::InvalidArgument("vcz: a subcommand is required");
          }};
}

}  // namespace turbozarr::cli
