// `vcz view`: the selected variants and samples written as a VCF, as
// vcztools 0.2.0 writes it: its header (vcf_header.h), its records
// (vcf_records.h), its option rules and messages.
#include <set>
#include <string>
#include <vector>

#include "turbozarr/vcz.h"
#include "vcz/variant_scan.h"
#include "vcz/vcf_header.h"
#include "vcz/vcf_records.h"

namespace turbozarr::vcz {
namespace {

std::vector<std::string> Split(const std::string& s, char separator) {
  std::vector<std::string> parts;
  size_t from = 0;
  while (true) {
    const size_t at = s.find(separator, from);
    parts.push_back(s.substr(from, at - from));
    if (at == std::string::npos) return parts;
    from = at + 1;
  }
}

// A Python list of strings as vcztools' messages print it: ['a', 'b'].
std::string PythonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", '" : "'") + items[i] + "'";
  return out + "]";
}

// --fill-tags: the tags, checked as vcztools checks them.
Result<std::set<std::string>> ParseFillTags(const std::string& value) {
  const std::string supported = "AC, AF, AN, NS";
  std::vector<std::string> tags;
  for (const std::string& t : Split(value, ',')) {
    if (!t.empty()) tags.push_back(t);
  }
  if (tags.empty()) {
    return Status::InvalidArgument(
        "--fill-tags requires a non-empty comma-separated tag list; supported tags: " +
        supported + ".");
  }
  std::vector<std::string> deferred, unknown;
  for (const std::string& t : tags) {
    if (t == "MAF" || t == "AC_Hom" || t == "AC_Het" || t == "AC_Hemi") {
      deferred.push_back(t);
    } else if (t != "AC" && t != "AN" && t != "AF" && t != "NS") {
      unknown.push_back(t);
    }
  }
  if (!deferred.empty()) {
    return Status::InvalidArgument("--fill-tags tag(s) " + PythonList(deferred) +
                                   " not yet implemented.");
  }
  if (!unknown.empty()) {
    return Status::InvalidArgument("--fill-tags: unsupported tag(s) " + PythonList(unknown) +
                                   ". Supported: " + supported + ".");
  }
  return std::set<std::string>(tags.begin(), tags.end());
}

// -v/-V/-m/-M as the filter expression vcztools makes of them.
Result<std::optional<std::string>> TypeAndAlleleFilter(const ViewOptions& o) {
  auto types = [](const std::string& value, const char* option,
                  const char* joiner, const char* op) -> Result<std::string> {
    std::vector<std::string> invalid, parts;
    for (const std::string& t : Split(value, ',')) {
      if (t == "snps" || t == "indels" || t == "mnps") {
        parts.push_back(std::string("TYPE") + op + "\"" + t.substr(0, t.size() - 1) + "\"");
      } else if (t == "other") {
        parts.push_back(std::string("TYPE") + op + "\"other\"");
      } else {
        invalid.push_back(t);
      }
    }
    if (!invalid.empty()) {
      return Status::InvalidArgument("Invalid type(s) " + PythonList(invalid) + " in --" +
                                     option +
                                     "; valid types are: snps, indels, mnps, other.");
    }
    std::string joined;
    for (size_t i = 0; i < parts.size(); ++i) joined += (i > 0 ? joiner : "") + parts[i];
    return joined;
  };
  if (o.types && o.exclude_types) {
    return Status::InvalidArgument("Cannot use --types and --exclude-types together.");
  }
  std::vector<std::string> parts;
  if (o.types) {
    TZ_ASSIGN_OR_RETURN(parts.emplace_back(), types(*o.types, "types", " || ", "~"));
  }
  if (o.exclude_types) {
    TZ_ASSIGN_OR_RETURN(parts.emplace_back(),
                        types(*o.exclude_types, "exclude-types", " && ", "!~"));
  }
  if (o.min_alleles) {
    if (*o.min_alleles < 1) {
      return Status::InvalidArgument("--min-alleles must be >= 1, got " +
                                     std::to_string(*o.min_alleles));
    }
    if (*o.min_alleles >= 2) parts.push_back("N_ALT >= " + std::to_string(*o.min_alleles - 1));
  }
  if (o.max_alleles) {
    if (*o.max_alleles < 1) {
      return Status::InvalidArgument("--max-alleles must be >= 1, got " +
                                     std::to_string(*o.max_alleles));
    }
    parts.push_back("N_ALT <= " + std::to_string(*o.max_alleles - 1));
  }
  if (parts.empty()) return std::optional<std::string>();
  std::string expression;
  for (size_t i = 0; i < parts.size(); ++i) {
    expression += (i > 0 ? " && (" : "(") + parts[i] + ")";
  }
  return std::optional<std::string>(expression);
}

}  // namespace

Status WriteVcf(const VczDataset& dataset, const ViewOptions& options, std::ostream& out) {
  const bool subset = options.samples || options.samples_file;
  if (subset && options.drop_genotypes) {
    return Status::InvalidArgument("Cannot select samples and drop genotypes.");
  }
  std::set<std::string> fill_tags;
  if (options.fill_tags) {
    TZ_ASSIGN_OR_RETURN(fill_tags, ParseFillTags(*options.fill_tags));
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
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> extra, TypeAndAlleleFilter(options));
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
