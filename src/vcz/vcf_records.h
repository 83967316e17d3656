// The VCF records of `vcz view`, byte for byte as vcztools 0.2.0's encoder
// writes them: floats with at most three decimals (trailing zeros dropped),
// "." for a missing value, vectors cut at their padding; an INFO field
// whose values are all missing is left out of the record (all of them: "."),
// a FORMAT field missing in every printed sample is left out of FORMAT, and
// GT comes first, "|" between phased alleles and "/" otherwise.
//
// Thread safety: an encoder is immutable once made; Encode may run on many
// threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"
#include "vcz/genotype_counts.h"
#include "vcz/variant_scan.h"
#include "vcz/vcf_header.h"

namespace turbozarr::vcz::internal {

class VcfRecordEncoder {
 public:
  // An encoder for `fields`, with the samples at `columns` (indexes into
  // sample_id) as sample columns; the arrays it reads are added to `scan`.
  static Result<VcfRecordEncoder> Make(const VczDataset& dataset, const VcfFields& fields,
                                       VariantScan& scan, std::vector<int64_t> columns);

  // The counts the computed INFO fields (--fill-tags) print, for every row
  // of `block` (nothing when none is printed): made once per block, then
  // shared by the threads that encode its parts.
  struct BlockCounts {
    GenotypeCounts counts;
    std::vector<float> af;
  };
  Result<BlockCounts> Count(const ScanBlock& block) const;

  // Appends the records of `block`'s kept rows to `out`, one line each,
  // given Count(block) (or of the block these rows are part of).
  Status Encode(const ScanBlock& block, const BlockCounts& counts, std::string& out) const;

  // vcztools' float text: rounded to three decimals, trailing zeros and a
  // trailing "." dropped ("0.687", "54.5", "3"); "nan" and "inf" as printf.
  static void AppendFloat(float value, std::string& out);

 private:
  struct Info {
    std::string key;
    size_t slot = 0;
    bool computed = false;  // AC, AN, AF or NS from the genotypes
  };
  struct Format {
    std::string key;
    size_t slot = 0;
  };

  std::string dataset_;
  std::vector<std::string> contigs_;
  std::vector<std::string> filters_;
  std::vector<int64_t> columns_;
  size_t contig_ = 0, position_ = 0, alleles_ = 0;
  std::optional<size_t> id_, quality_, filter_;
  std::vector<Info> info_;
  std::vector<Format> format_;
  std::optional<size_t> genotypes_, phased_;  // call_genotype: for GT or the counts
  bool print_gt_ = false;
  bool counts_ = false;  // a computed INFO field needs the genotype counts

  void WriteSamples(const std::vector<FieldBlock>& fields, int64_t row,
                    std::string& out) const;
};

}  // namespace turbozarr::vcz::internal
