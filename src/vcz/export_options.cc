#include "vcz/export_options.h"

namespace turbozarr::vcz::internal {

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
Result<std::optional<std::string>> TypeAndAlleleFilter(const ExportOptions& o) {
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


Result<VariantScan> MakeExportScan(const VczDataset& dataset, const ExportOptions& options,
                                   const std::string& format, const std::string& record) {
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> extra, TypeAndAlleleFilter(options));
  TZ_ASSIGN_OR_RETURN(VariantScan scan, VariantScan::Make(dataset, options,
                                                          VariantScan::FilterSamples::kSubsetFirst,
                                                          extra));
  if (scan.sample_scope()) {
    return Status::InvalidArgument("Sample-scope variant filters are not supported in " + format +
                                   ": " + record + " holds every sample; filter on INFO fields "
                                   "instead");
  }
  return scan;
}

}  // namespace turbozarr::vcz::internal
