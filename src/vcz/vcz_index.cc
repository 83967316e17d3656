// `vcz index -n` and `-s`: what the dataset holds, per contig, from the
// region index alone (no variant data is read).
#include <vector>

#include "turbozarr/vcz.h"

namespace turbozarr::vcz {

Status WriteRecordCount(const VczDataset& dataset, std::ostream& out) {
  out << dataset.num_variants() << '\n';
  return Status::OK();
}

Status WriteContigStats(const VczDataset& dataset, std::ostream& out) {
  TZ_ASSIGN_OR_RETURN(std::vector<RegionIndexRow> rows, dataset.ReadRegionIndex());
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  std::vector<int64_t> records(tables->contig_ids.size(), 0);
  for (const RegionIndexRow& row : rows) records[static_cast<size_t>(row.contig)] += row.num_records;
  const auto& lengths = tables->contig_lengths;
  for (size_t c = 0; c < records.size(); ++c) {
    if (records[c] == 0) continue;
    out << tables->contig_ids[c] << '\t';
    // -1 is the spec's missing value: "." as bcftools prints an unknown
    // length (vcztools 0.2.0 prints the -1).
    if (lengths && (*lengths)[c] >= 0) {
      out << (*lengths)[c];
    } else {
      out << '.';
    }
    out << '\t' << records[c] << '\n';
  }
  return Status::OK();
}

}  // namespace turbozarr::vcz
