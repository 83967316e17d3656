// `vcz view`: the selected variants and samples written as a VCF, as
// vcztools 0.2.0 writes it: its header (vcf_header.h), its records
// (vcf_records.h), its option rules and messages.
#include <set>
#include <string>
#include <vector>

#include "turbozarr/vcz.h"
#include "vcz/export_options.h"
#include "vcz/variant_scan.h"
#include "vcz/vcf_header.h"
#include "vcz/vcf_records.h"

namespace turbozarr::vcz {

Status WriteVcf(const VczDataset& dataset, const ViewOptions& options, std::ostream& out) {
  const bool subset = options.samples || options.samples_file;
  if (subset && options.drop_genotypes) {
    return Status::InvalidArgument("Cannot select samples and drop genotypes.");
  }
  std::set<std::string> fill_tags;
  if (options.fill_tags) {
    TZ_ASSIGN_OR_RETURN(fill_tags, internal::ParseFillTags(*options.fill_tags));
    if (options.no_update) {
      return Status::InvalidArgument("Cannot combine --no-update and --fill-tags.");
    }
    if (options.drop_genotypes) {
      return Status::InvalidArgument(
          "Cannot combine -G/--drop-genotypes and --fill-tags: tag computation requires "
          "call_genotype.");
    }
  } else if (subset && !options.no_update) {
    // As bcftools view -s: AC and AN follow the samples printed.
    fill_tags = {"AC", "AN"};
  }
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> extra, internal::TypeAndAlleleFilter(options));
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::VariantScan::Make(dataset, options,
                                                  internal::VariantScan::FilterSamples::kAll,
                                                  extra));
  if (options.drop_genotypes) scan.SetColumns({});
  std::vector<std::string> samples;
  for (int64_t c : scan.columns()) samples.push_back(dataset.sample_ids()[static_cast<size_t>(c)]);
  const internal::VcfFields fields =
      internal::ListVcfFields(dataset, !samples.empty(), fill_tags);
  if (!options.no_header) {
    internal::VcfHeaderOptions header;
    header.samples = samples;
    header.fill_tags = fill_tags;
    header.command_line = options.command_line;
    TZ_ASSIGN_OR_RETURN(std::string text, internal::VcfHeader(dataset, fields, header));
    out << text;
  }
  if (options.header_only) return out ? Status::OK() : Status::IOError("writing the VCF failed");
  TZ_ASSIGN_OR_RETURN(internal::VcfRecordEncoder encoder,
                      internal::VcfRecordEncoder::Make(dataset, fields, scan, scan.columns()));
  std::string text;
  return scan.ForEachBlock([&](const internal::ScanBlock& block) -> Status {
    text.clear();
    TZ_RETURN_NOT_OK(encoder.Encode(block, text));
    out << text;
    return out ? Status::OK() : Status::IOError("writing the VCF failed");
  });
}

}  // namespace turbozarr::vcz
