// The options `view` and the exports share, read as vcztools reads them:
// -v/-V/-m/-M made into the filter expression vcztools makes of them, and
// view's --fill-tags list, with vcztools' refusals and words.
//
// Thread safety: pure functions over values.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"
#include "vcz/variant_scan.h"

namespace turbozarr::vcz::internal {

// -v/-V/-m/-M as one expression ("(TYPE~\"snp\") && (N_ALT >= 1)"), or
// none when none is given. InvalidArgument for an unknown type, -v with -V,
// or fewer than one allele.
Result<std::optional<std::string>> TypeAndAlleleFilter(const ExportOptions& options);

// The scan of an export (view-plink, view-bgen): the selection, with
// -v/-V/-m/-M added to the filter, which sees the selected samples.
// InvalidArgument for a filter that decides per sample, since a record of
// the output (`record`: "a .bed row") holds every sample.
Result<VariantScan> MakeExportScan(const VczDataset& dataset, const ExportOptions& options,
                                   const std::string& format, const std::string& record);

// --fill-tags "AC,AN": the tags (AC, AN, AF, NS); InvalidArgument for an
// empty list, a tag vcztools has not implemented (MAF, AC_Hom, AC_Het,
// AC_Hemi) or another tag.
Result<std::set<std::string>> ParseFillTags(const std::string& value);

// "a,b" split at every `separator` (empty parts kept).
std::vector<std::string> Split(const std::string& s, char separator);

// A list as Python prints one of strings, for vcztools' messages: ['a', 'b'].
std::string PythonList(const std::vector<std::string>& items);

}  // namespace turbozarr::vcz::internal
