#include "vcz/vcf_records.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "vcz/genotype_counts.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz::internal {
namespace {

// Whether elements [from, from + n) of row `r` are all missing or padding,
// as vcztools' encoder decides it: a flag when unset; a string when it
// holds only "." characters (or nothing).
bool AllMissing(const FieldBlock& b, int64_t r, int64_t from, int64_t n) {
  if (b.is_bool()) return !b.Bool(r, from);
  for (int64_t i = from; i < from + n; ++i) {
    if (b.is_string()) {
      for (char c : b.String(r, i)) {
        if (c != '.') return false;
      }
    } else if (!b.IsMissing(r, i) && !b.IsFill(r, i)) {
      return false;
    }
  }
  return true;
}

// Decimal digits, without the allocation of std::to_string.
void AppendDecimal(int64_t value, std::string& out) {
  if (static_cast<uint64_t>(value) < 10) {  // most calls and counts
    out += static_cast<char>('0' + value);
    return;
  }
  if (static_cast<uint64_t>(value) < 100) {  // most depths and qualities
    const char two[2] = {static_cast<char>('0' + value / 10), static_cast<char>('0' + value % 10)};
    out.append(two, 2);
    return;
  }
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  out.append(buf, static_cast<size_t>(end - buf));
}

void AppendInt(int64_t value, std::string& out) {
  if (value == -1) {
    out += '.';
  } else {
    AppendDecimal(value, out);
  }
}

// AppendEntry for signed integers of type T at `at`: -2 (padding) ends the
// entry, -1 is ".". The type is dispatched once per entry, not per element.
template <typename T>
void AppendSignedEntry(const uint8_t* at, int64_t n, char separator, std::string& out) {
  for (int64_t c = 0; c < n; ++c) {
    T v;
    std::memcpy(&v, at + c * static_cast<int64_t>(sizeof(T)), sizeof(T));
    if (v == -2) break;
    if (c > 0) out += separator;
    if (v == -1) {
      out += '.';
    } else {
      AppendDecimal(v, out);
    }
  }
}

// Elements [from, from + n) of row `r`, as vcztools' encoder writes them:
// numbers up to the first padding element, `separator` between them and
// "." for a missing one; strings joined by "," with the empty ones (the
// padding) skipped.
void AppendEntry(const FieldBlock& b, int64_t r, int64_t from, int64_t n, char separator,
                 std::string& out) {
  switch (b.type_id()) {
    case DataTypeId::kInt8:
      return AppendSignedEntry<int8_t>(b.NumberAt(r, from), n, separator, out);
    case DataTypeId::kInt16:
      return AppendSignedEntry<int16_t>(b.NumberAt(r, from), n, separator, out);
    case DataTypeId::kInt32:
      return AppendSignedEntry<int32_t>(b.NumberAt(r, from), n, separator, out);
    default:
      break;
  }
  for (int64_t c = 0; c < n; ++c) {
    const int64_t i = from + c;
    if (b.is_string()) {
      const std::string& s = b.String(r, i);
      if (c > 0 && !s.empty()) out += ',';
      out += s;
      continue;
    }
    if (b.IsFill(r, i)) break;
    if (c > 0) out += separator;
    if (b.is_float()) {
      if (b.IsMissing(r, i)) {
        out += '.';
      } else {
        VcfRecordEncoder::AppendFloat(static_cast<float>(b.Float(r, i)), out);
      }
    } else {
      AppendInt(b.Integer(r, i), out);
    }
  }
}

// The same for a computed row of integers (-1 missing, -2 padding) or
// floats (the spec's NaN payloads).
bool AllMissing(const int32_t* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] != -1 && v[i] != -2) return false;
  }
  return true;
}
void AppendInts(const int32_t* v, int64_t n, std::string& out) {
  for (int64_t i = 0; i < n && v[i] != -2; ++i) {
    if (i > 0) out += ',';
    AppendInt(v[i], out);
  }
}
bool Same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool AllMissing(const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!Same(v[i], Float32Missing()) && !Same(v[i], Float32Fill())) return false;
  }
  return true;
}
void AppendFloats(const float* v, int64_t n, std::string& out) {
  for (int64_t i = 0; i < n && !Same(v[i], Float32Fill()); ++i) {
    if (i > 0) out += ',';
    if (Same(v[i], Float32Missing())) {
      out += '.';
    } else {
      VcfRecordEncoder::AppendFloat(v[i], out);
    }
  }
}

}  // namespace

void VcfRecordEncoder::AppendFloat(float value, std::string& out) {
  if (!std::isfinite(value) || std::fabs(value) > 2147483648.0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(value));
    out += buf;
    return;
  }
  if (value < 0) {
    out += '-';
    value = -value;
  }
  const int64_t thousandths = static_cast<int64_t>(std::round(static_cast<double>(value) * 1000));
  AppendDecimal(thousandths / 1000, out);
  const int64_t d3 = thousandths % 10, d2 = (thousandths / 10) % 10,
                d1 = (thousandths / 100) % 10;
  if (d1 + d2 + d3 == 0) return;
  out += '.';
  out += static_cast<char>('0' + d1);
  if (d2 + d3 == 0) return;
  out += static_cast<char>('0' + d2);
  if (d3 > 0) out += static_cast<char>('0' + d3);
}

Result<VcfRecordEncoder> VcfRecordEncoder::Make(const VczDataset& dataset,
                                                const VcfFields& fields, VariantScan& scan,
                                                std::vector<int64_t> columns) {
  VcfRecordEncoder e;
  e.dataset_ = dataset.Describe();
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  e.contigs_ = tables->contig_ids;
  e.columns_ = std::move(columns);
  TZ_ASSIGN_OR_RETURN(e.contig_, scan.Need("variant_contig"));
  TZ_ASSIGN_OR_RETURN(e.position_, scan.Need("variant_position"));
  TZ_ASSIGN_OR_RETURN(e.alleles_, scan.Need("variant_allele"));
  if (dataset.Has("variant_id")) {
    TZ_ASSIGN_OR_RETURN(e.id_, scan.Need("variant_id"));
  }
  if (dataset.Has("variant_quality")) {
    TZ_ASSIGN_OR_RETURN(e.quality_, scan.Need("variant_quality"));
  }
  // Without variant_filter every record passes.
  e.filters_ = {"PASS"};
  if (dataset.Has("variant_filter")) {
    TZ_ASSIGN_OR_RETURN(e.filter_, scan.Need("variant_filter"));
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> ids, dataset.OpenArray("filter_id"));
    TZ_ASSIGN_OR_RETURN(e.filters_, ReadStrings(*ids));
  }
  for (const VcfField& f : fields.info) {
    size_t slot = 0;
    if (f.computed) {
      e.counts_ = true;
    } else {
      TZ_ASSIGN_OR_RETURN(slot, scan.Need(f.array));
    }
    e.info_.push_back({f.key, slot, f.computed});
  }
  if (e.counts_ && !dataset.Has("call_genotype")) {
    return Status::InvalidArgument(dataset.Describe() +
                                   ": computing AC, AN, AF or NS needs call_genotype, which "
                                   "the dataset does not have");
  }
  if (!e.columns_.empty()) {
    for (const VcfField& f : fields.format) {
      TZ_ASSIGN_OR_RETURN(size_t slot, scan.Need(f.array));
      e.format_.push_back({f.key, slot});
    }
  }
  e.print_gt_ = fields.gt && !e.columns_.empty();
  if (e.print_gt_ || e.counts_) {
    TZ_ASSIGN_OR_RETURN(e.genotypes_, scan.Need("call_genotype"));
    if (dataset.Has("call_genotype_phased")) {
      TZ_ASSIGN_OR_RETURN(e.phased_, scan.Need("call_genotype_phased"));
    }
  }
  return e;
}

Result<VcfRecordEncoder::BlockCounts> VcfRecordEncoder::Count(const ScanBlock& block) const {
  BlockCounts c;
  if (!counts_) return c;
  const std::vector<FieldBlock>& f = *block.fields;
  TZ_ASSIGN_OR_RETURN(c.counts, CountGenotypes(&f[alleles_], &f[*genotypes_], columns_,
                                               block.count, dataset_));
  c.af = AlleleFrequencies(c.counts);
  return c;
}

Status VcfRecordEncoder::Encode(const ScanBlock& block, const BlockCounts& block_counts,
                                std::string& out) const {
  const std::vector<FieldBlock>& f = *block.fields;
  const GenotypeCounts& counts = block_counts.counts;
  const std::vector<float>& af = block_counts.af;
  const FieldBlock& alleles = f[alleles_];
  const int64_t num_samples = static_cast<int64_t>(columns_.size());
  for (const int64_t r : block.rows) {
    // CHROM, POS, ID, REF, ALT, QUAL
    const int64_t contig = f[contig_].Integer(r, 0);
    if (contig < 0 || contig >= static_cast<int64_t>(contigs_.size())) {
      return Status::Corruption(dataset_ + ": variant " + std::to_string(block.first + r) +
                                " names contig " + std::to_string(contig) + " of " +
                                std::to_string(contigs_.size()));
    }
    out += contigs_[static_cast<size_t>(contig)];
    out += '\t';
    const FieldBlock& pos = f[position_];
    if (AllMissing(pos, r, 0, 1)) {
      out += '.';
    } else {
      AppendEntry(pos, r, 0, 1, ',', out);
    }
    out += '\t';
    if (id_ && !AllMissing(f[*id_], r, 0, f[*id_].per_variant())) {
      AppendEntry(f[*id_], r, 0, f[*id_].per_variant(), ',', out);
    } else {
      out += '.';
    }
    out += '\t';
    if (AllMissing(alleles, r, 0, 1)) {
      out += '.';
    } else {
      AppendEntry(alleles, r, 0, 1, ',', out);
    }
    out += '\t';
    const int64_t alts = alleles.per_variant() - 1;
    if (alts < 1 || AllMissing(alleles, r, 1, alts)) {
      out += '.';
    } else {
      AppendEntry(alleles, r, 1, alts, ',', out);
    }
    out += '\t';
    if (quality_ && !AllMissing(f[*quality_], r, 0, 1)) {
      AppendEntry(f[*quality_], r, 0, 1, ',', out);
    } else {
      out += '.';
    }
    out += '\t';
    // FILTER: the names of the filters set, or "."; PASS without the array.
    if (!filter_) {
      out += "PASS";
    } else {
      const FieldBlock& filters = f[*filter_];
      bool any = false;
      for (int64_t k = 0; k < filters.per_variant() && k < static_cast<int64_t>(filters_.size());
           ++k) {
        if (!filters.Bool(r, k)) continue;
        if (any) out += ';';
        out += filters_[static_cast<size_t>(k)];
        any = true;
      }
      if (!any) out += '.';
    }
    out += '\t';
    // INFO: the fields with a value, KEY=VALUE (a flag: KEY), or ".".
    bool any_info = false;
    for (const Info& info : info_) {
      const size_t before = out.size();
      out += any_info ? ";" : "";
      out += info.key;
      bool missing;
      if (info.computed) {
        const std::string& tag = info.key;
        const size_t row = static_cast<size_t>(r);
        if (tag == "AC" || tag == "AF") {
          const size_t at = row * static_cast<size_t>(counts.max_alt);
          missing = tag == "AC" ? AllMissing(counts.ac.data() + at, counts.max_alt)
                                : AllMissing(af.data() + at, counts.max_alt);
          out += '=';
          if (tag == "AC") {
            AppendInts(counts.ac.data() + at, counts.max_alt, out);
          } else {
            AppendFloats(af.data() + at, counts.max_alt, out);
          }
        } else {
          const int32_t value = tag == "AN" ? counts.an[row] : counts.ns[row];
          missing = AllMissing(&value, 1);
          out += '=';
          AppendInts(&value, 1, out);
        }
      } else {
        const FieldBlock& b = f[info.slot];
        missing = AllMissing(b, r, 0, b.per_variant());
        if (!b.is_bool()) {
          out += '=';
          AppendEntry(b, r, 0, b.per_variant(), ',', out);
        }
      }
      if (missing) {
        out.resize(before);
      } else {
        any_info = true;
      }
    }
    if (!any_info) out += '.';
    if (num_samples > 0) WriteSamples(f, r, out);
    out += '\n';
  }
  return Status::OK();
}

// FORMAT and the sample columns of row `r`: GT first, then the fields that
// are not missing in every sample; "." for each when none is left.
void VcfRecordEncoder::WriteSamples(const std::vector<FieldBlock>& f, int64_t r,
                                    std::string& out) const {
  const FieldBlock* gt = print_gt_ ? &f[*genotypes_] : nullptr;
  const int64_t ploidy = gt != nullptr ? gt->per_row_of(1) : 0;
  bool gt_missing = true;
  if (gt != nullptr) {
    for (int64_t s : columns_) gt_missing = gt_missing && AllMissing(*gt, r, s * ploidy, ploidy);
  }
  // Reused from row to row: the encoder is shared by threads, so per thread.
  thread_local std::vector<const Format*> present;
  present.clear();
  for (const Format& field : format_) {
    const FieldBlock& b = f[field.slot];
    const int64_t width = b.per_row_of(1);
    bool missing = true;
    for (int64_t s : columns_) missing = missing && AllMissing(b, r, s * width, width);
    if (!missing) present.push_back(&field);
  }
  out += '\t';
  if (gt_missing && present.empty()) {
    out += '.';
    for (size_t s = 0; s < columns_.size(); ++s) out += "\t.";
    return;
  }
  bool first_key = gt_missing;
  if (!gt_missing) out += "GT";
  for (const Format* field : present) {
    if (!first_key) out += ':';
    first_key = false;
    out += field->key;
  }
  for (int64_t s : columns_) {
    out += '\t';
    bool first = true;
    if (!gt_missing) {
      const bool phased = phased_ && f[*phased_].Bool(r, s);
      AppendEntry(*gt, r, s * ploidy, ploidy, phased ? '|' : '/', out);
      first = false;
    }
    for (const Format* field : present) {
      if (!first) out += ':';
      first = false;
      const FieldBlock& b = f[field->slot];
      const int64_t width = b.per_row_of(1);
      AppendEntry(b, r, s * width, width, ',', out);
    }
  }
}

}  // namespace turbozarr::vcz::internal
