// The VCF that `vcz view` writes: which INFO and FORMAT fields it has, and
// its header, built from the dataset as vcztools 0.2.0 builds it: the
// fields in name order (GT first among FORMAT), Number and Type from each
// array's dimension names and data type, descriptions from its
// "description" attribute (or the VCF spec's reserved keys), the filters
// and contigs from their tables, and the group's "source" and
// "vcf_meta_information" attributes.
//
// Thread safety: pure functions over an immutable dataset.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"

namespace turbozarr::vcz::internal {

// One INFO or FORMAT field of the output.
struct VcfField {
  std::string key;      // "DP"
  std::string array;    // "variant_DP"; the stored array, if any
  bool computed = false;  // a --fill-tags value (AC, AN, AF, NS) made from the genotypes
};

struct VcfFields {
  std::vector<VcfField> info;    // in name order
  std::vector<VcfField> format;  // in name order, without GT
  bool gt = false;               // call_genotype is stored and samples are printed
};

// The fields of `dataset`'s VCF: every variant_ array but the fixed
// columns (and _mask / _fill companions), `fill_tags` (AC, AN, AF, NS)
// computed in place of any stored one, and the call_ arrays when `samples`
// are printed.
VcfFields ListVcfFields(const VczDataset& dataset, bool samples,
                        const std::set<std::string>& fill_tags);

struct VcfHeaderOptions {
  std::vector<std::string> samples;  // the sample columns
  std::set<std::string> fill_tags;
  // The "##turbozarr_vcz_viewCommand=...; Date=..." line, unless absent
  // (--no-version).
  std::optional<std::string> command_line;
};

// The header: "##" lines and the "#CHROM" line. InvalidArgument naming the
// array when a field's Number cannot be told from its dimension names.
Result<std::string> VcfHeader(const VczDataset& dataset, const VcfFields& fields,
                              const VcfHeaderOptions& options);

}  // namespace turbozarr::vcz::internal
