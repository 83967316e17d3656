#include "vcz/vcf_header.h"

#include <map>
#include <sstream>

#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz::internal {
namespace {

// The VCF spec's reserved INFO and FORMAT keys (tables 1 and 2), whose
// descriptions stand in for a missing "description" attribute.
const std::map<std::string, std::string, std::less<>> kInfoDescriptions = {
    {"AA", "Ancestral allele"},
    {"AC", "Allele count in genotypes"},
    {"AD", "Total read depth for each allele"},
    {"ADF", "Read depth for each allele on the forward strand"},
    {"ADR", "Read depth for each allele on the reverse strand"},
    {"AF", "Allele frequency for each ALT allele in the same order as listed"},
    {"AN", "Total number of alleles in called genotypes"},
    {"BQ", "RMS base quality"},
    {"CIGAR", "Cigar string describing how to align an alternate allele to the referenceallele"},
    {"DB", "dbSNP membership"},
    {"DP", "Combined depth across samples"},
    {"END", "End position on CHROM"},
    {"H2", "HapMap2 membership"},
    {"H3", "HapMap3 membership"},
    {"MQ", "RMS mapping quality"},
    {"MQ0", "Number of MAPQ == 0 reads"},
    {"NS", "Number of samples with data"},
    {"SB", "Strand bias"},
    {"SOMATIC", "Somatic mutation"},
    {"VALIDATED", "Validated by follow-up experiment"},
    {"1000G", "1000 Genomes membership"}};
const std::map<std::string, std::string, std::less<>> kFormatDescriptions = {
    {"AD", "Read depth for each allele"},
    {"ADF", "Read depth for each allele on the forward strand"},
    {"ADR", "Read depth for each allele on the reverse strand"},
    {"DP", "Read depth"},
    {"EC", "Expected alternate allele counts"},
    {"FT", "Filter indicating if this genotype was \"called\""},
    {"GL", "Genotype likelihoods"},
    {"GP", "Genotype posterior probabilities"},
    {"GQ", "Conditional genotype quality"},
    {"GT", "Genotype"},
    {"HQ", "Haplotype quality"},
    {"MQ", "RMS mapping quality"},
    {"PL", "Phred-scaled genotype likelihoods rounded to the closest integer"},
    {"PP", "Phred-scaled genotype posterior probabilities rounded to the closest integer"},
    {"PQ", "Phasing quality"},
    {"PS", "Phase set"}};

// The computed fields' header lines, as vcztools writes them when the
// dataset stores no such field: Number, Type, Description.
struct ComputedInfo {
  const char* number;
  const char* type;
  const char* description;
};
const std::map<std::string, ComputedInfo, std::less<>> kComputedInfo = {
    {"AC", {"A", "Integer", "Allele count in genotypes"}},
    {"AN", {"1", "Integer", "Total number of alleles in called genotypes"}},
    {"AF", {"A", "Float", "Allele frequency"}},
    {"NS", {"1", "Integer", "Number of samples with data"}}};

// The fixed columns' arrays, which are not INFO fields.
const std::set<std::string, std::less<>> kFixedArrays = {
    "variant_contig", "variant_position", "variant_length", "variant_id",
    "variant_id_mask", "variant_allele", "variant_quality", "variant_filter"};

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// An array's dimension names: v3's dimension_names, or v2's
// _ARRAY_DIMENSIONS attribute; "" for each one not named.
std::vector<std::string> DimensionNames(const Array& array) {
  std::vector<std::string> names(array.shape().size());
  const ArrayMetadata& m = array.metadata();
  if (m.dimension_names) {
    for (size_t i = 0; i < names.size() && i < m.dimension_names->size(); ++i) {
      names[i] = (*m.dimension_names)[i].value_or("");
    }
  } else if (auto it = m.attributes.find("_ARRAY_DIMENSIONS");
             it != m.attributes.end() && it->is_array()) {
    for (size_t i = 0; i < names.size() && i < it->size(); ++i) {
      if ((*it)[i].is_string()) names[i] = (*it)[i].get<std::string>();
    }
  }
  return names;
}

// The VCF Number of an array, from its type and last dimension's name.
Result<std::string> VcfNumber(const std::string& category, const std::string& key,
                              const Array& array) {
  if (array.dtype().id() == DataTypeId::kBool) return std::string("0");
  const size_t rank = array.shape().size();
  if ((category == "INFO" && rank == 1) || (category == "FORMAT" && rank == 2)) {
    return std::string("1");
  }
  const std::vector<std::string> dims = DimensionNames(array);
  const std::string& last = dims.back();
  if (last == "alt_alleles") return std::string("A");
  if (last == "alleles") return std::string("R");
  if (last == "genotypes") return std::string("G");
  if (last == category + "_" + key + "_dim") return std::to_string(array.shape().back());
  return Status::InvalidArgument(array.Describe() + ": cannot tell the VCF Number of " +
                                 category + "/" + key + " from its dimension name '" + last +
                                 "'");
}

std::string VcfType(const Array& array) {
  const DataType& t = array.dtype();
  if (t.is_low_precision_float()) return "Float";
  switch (t.id()) {
    case DataTypeId::kBool: return "Flag";
    case DataTypeId::kFloat16: case DataTypeId::kFloat32: case DataTypeId::kFloat64:
      return "Float";
    case DataTypeId::kFixedBytes: case DataTypeId::kFixedUnicode:
      return t.size() == (t.id() == DataTypeId::kFixedBytes ? 1u : 4u) ? "Character" : "String";
    case DataTypeId::kString: case DataTypeId::kBytes: return "String";
    default: return "Integer";
  }
}

std::string Description(const Array& array, const std::string& key,
                        const std::map<std::string, std::string, std::less<>>& reserved) {
  const nlohmann::json& attrs = array.metadata().attributes;
  if (auto it = attrs.find("description"); it != attrs.end() && it->is_string()) {
    return it->get<std::string>();
  }
  auto r = reserved.find(key);
  return r == reserved.end() ? "" : r->second;
}

}  // namespace

VcfFields ListVcfFields(const VczDataset& dataset, bool samples,
                        const std::set<std::string>& fill_tags) {
  VcfFields out;
  std::set<std::string> keys;  // INFO keys, in name order
  for (const std::string& name : dataset.ArrayNames()) {
    if (EndsWith(name, "_fill") || EndsWith(name, "_mask")) continue;
    if (name.rfind("variant_", 0) == 0 && !kFixedArrays.count(name)) {
      keys.insert(name.substr(8));
    } else if (samples && name.rfind("call_", 0) == 0) {
      const std::string key = name.substr(5);
      if (key == "genotype") {
        out.gt = true;
      } else if (key != "genotype_phased") {
        out.format.push_back({key, name, false});
      }
    }
  }
  for (const std::string& tag : fill_tags) keys.insert(tag);
  for (const std::string& key : keys) {
    out.info.push_back({key, "variant_" + key, fill_tags.count(key) > 0});
  }
  return out;
}

Result<std::string> VcfHeader(const VczDataset& dataset, const VcfFields& fields,
                              const VcfHeaderOptions& options) {
  std::ostringstream h;
  h << "##fileformat=VCFv4.3\n";
  const nlohmann::json& attrs = dataset.root().attributes();
  if (auto it = attrs.find("source"); it != attrs.end() && it->is_string()) {
    h << "##source=" << it->get<std::string>() << "\n";
  }
  for (const VcfField& f : fields.info) {
    if (f.computed && !dataset.Has(f.array)) {
      const ComputedInfo& c = kComputedInfo.at(f.key);
      h << "##INFO=<ID=" << f.key << ",Number=" << c.number << ",Type=" << c.type
        << ",Description=\"" << c.description << "\">\n";
      continue;
    }
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> a, dataset.OpenArray(f.array));
    // Only arrays along the variants are INFO fields.
    const std::vector<std::string> dims = DimensionNames(*a);
    if (!dims.empty() && !dims[0].empty() && dims[0] != "variants") continue;
    TZ_ASSIGN_OR_RETURN(std::string number, VcfNumber("INFO", f.key, *a));
    h << "##INFO=<ID=" << f.key << ",Number=" << number << ",Type=" << VcfType(*a)
      << ",Description=\"" << Description(*a, f.key, kInfoDescriptions) << "\">\n";
  }
  std::vector<std::string> filters = {"PASS"}, descriptions;
  if (dataset.Has("filter_id")) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> ids, dataset.OpenArray("filter_id"));
    TZ_ASSIGN_OR_RETURN(filters, ReadStrings(*ids));
  }
  if (dataset.Has("filter_description")) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> d, dataset.OpenArray("filter_description"));
    TZ_ASSIGN_OR_RETURN(descriptions, ReadStrings(*d));
  }
  for (size_t i = 0; i < filters.size(); ++i) {
    h << "##FILTER=<ID=" << filters[i] << ",Description=\""
      << (i < descriptions.size() ? descriptions[i] : "") << "\">\n";
  }
  if (fields.gt) h << "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n";
  for (const VcfField& f : fields.format) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> a, dataset.OpenArray(f.array));
    const std::vector<std::string> dims = DimensionNames(*a);
    if (dims.size() < 2 || (!dims[0].empty() && (dims[0] != "variants" || dims[1] != "samples"))) {
      continue;
    }
    TZ_ASSIGN_OR_RETURN(std::string number, VcfNumber("FORMAT", f.key, *a));
    h << "##FORMAT=<ID=" << f.key << ",Number=" << number << ",Type=" << VcfType(*a)
      << ",Description=\"" << Description(*a, f.key, kFormatDescriptions) << "\">\n";
  }
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  const auto& lengths = tables->contig_lengths;
  for (size_t i = 0; i < tables->contig_ids.size(); ++i) {
    h << "##contig=<ID=" << tables->contig_ids[i];
    // As vcztools: the stored length, -1 (unknown) included.
    if (lengths) h << ",length=" << (*lengths)[i];
    h << ">\n";
  }
  if (options.command_line) h << *options.command_line << "\n";
  if (auto it = attrs.find("vcf_meta_information"); it != attrs.end() && it->is_array()) {
    for (const nlohmann::json& line : *it) {
      if (!line.is_array() || line.size() != 2 || !line[0].is_string()) continue;
      const std::string key = line[0].get<std::string>();
      if (key == "fileformat" || key == "source") continue;
      h << "##" << key << "="
        << (line[1].is_string() ? line[1].get<std::string>() : line[1].dump()) << "\n";
    }
  }
  h << "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO";
  if (!options.samples.empty()) {
    h << "\tFORMAT";
    for (const std::string& s : options.samples) h << "\t" << s;
  }
  h << "\n";
  return h.str();
}

}  // namespace turbozarr::vcz::internal
