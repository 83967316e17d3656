// `vcz query`: the sample list (-l), and the variants formatted by a
// bcftools-style format string (-f), rendered value for value as vcztools
// 0.2.0 renders them (numpy's str of each value, its rules for missing and
// fill values, its sample loops).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "turbozarr/utf8.h"
#include "turbozarr/vcz.h"
#include "vcz/query_format.h"
#include "vcz/regions.h"
#include "vcz/samples.h"
#include "vcz/variant_block.h"
#include "vcz/variant_scan.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz {
namespace {

using internal::FieldBlock;
using internal::FormatElement;

// The fixed VCF columns and the arrays that hold them.
const std::map<std::string, std::string, std::less<>> kReserved = {
    {"CHROM", "variant_contig"}, {"POS", "variant_position"}, {"ID", "variant_id"},
    {"REF", "variant_allele"},   {"ALT", "variant_allele"},   {"QUAL", "variant_quality"},
    {"FILTER", "variant_filter"}};

// What a tag reads, resolved once per query.
struct TagPlan {
  std::string tag;       // as written: "DP", "INFO/DP", "GT"
  std::string array;     // the VCZ array
  size_t slot = 0;       // its slot in the scan, and in each block
  std::optional<size_t> phased_slot;  // GT: call_genotype_phased's, if stored
  enum class Special { kNone, kChrom, kRef, kAlt, kFilter, kQual, kGt, kSample, kConstant }
      special = Special::kNone;
  std::string constant;  // kConstant: what every variant prints
};

class Query {
 public:
  Query(const VczDataset& d, std::ostream& out) : d_(d), out_(out) {}

  Status Run(const QueryOptions& options) {
    TZ_ASSIGN_OR_RETURN(elements_, internal::ParseQueryFormat(options.format));
    // As vcztools: a format without "\n" gets one, unless -N.
    if (options.format.find("\\n") == std::string::npos &&
        !options.disable_automatic_newline) {
      if (!elements_.empty() && elements_.back().kind == FormatElement::Kind::kText) {
        elements_.back().text += '\n';
      } else {
        FormatElement newline;
        newline.text = "\n";
        elements_.push_back(std::move(newline));
      }
    }
    for (const std::string& name : d_.ArrayNames()) {
      if (name.rfind("variant_", 0) == 0 || name.rfind("call_", 0) == 0) fields_.insert(name);
    }
    if (d_.Has("filter_id")) {
      TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> filters, d_.OpenArray("filter_id"));
      TZ_ASSIGN_OR_RETURN(filter_ids_, internal::ReadStrings(*filters));
    }
    TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                        internal::VariantScan::Make(
                            d_, options, internal::VariantScan::FilterSamples::kSelected));
    scan_ = &scan;
    TZ_RETURN_NOT_OK(Plan(elements_, /*in_loop=*/false));
    // The selected samples matter to the sample loops and per-sample filters
    // alone: a format without either never reads the sample table.
    const bool loop = std::any_of(elements_.begin(), elements_.end(), [](const FormatElement& e) {
      return e.kind == FormatElement::Kind::kSampleLoop;
    });
    if (loop || scan.sample_scope()) {
      TZ_ASSIGN_OR_RETURN(const std::vector<int64_t>* columns, scan.Columns());
      TZ_ASSIGN_OR_RETURN(const VczTables* tables, d_.tables());
      columns_ = *columns;
      for (int64_t c : columns_) samples_.push_back(tables->sample_ids[static_cast<size_t>(c)]);
    }
    std::string text;
    return scan.ForEachBlock([&](const internal::ScanBlock& block) -> Status {
      blocks_ = block.fields;
      text.clear();
      for (int64_t row : block.rows) {
        sample_pass_ = block.samples->empty()
                           ? nullptr
                           : block.samples->data() + row * static_cast<int64_t>(columns_.size());
        for (const FormatElement& e : elements_) Render(e, row, text);
      }
      out_ << text;
      if (!out_) return Status::IOError("writing the query's output failed");
      return Status::OK();
    });
  }

 private:
  // Resolves every tag of `elements` to its array, refusing what vcztools
  // refuses, with its words.
  Status Plan(const std::vector<FormatElement>& elements, bool in_loop) {
    for (const FormatElement& e : elements) {
      if (e.kind == FormatElement::Kind::kSampleLoop) {
        TZ_RETURN_NOT_OK(Plan(e.loop, true));
        continue;
      }
      if (e.kind == FormatElement::Kind::kText) continue;
      // A subfield is rendered outside the loop's per-sample values.
      const bool loop_tag = in_loop && e.kind == FormatElement::Kind::kTag;
      TZ_ASSIGN_OR_RETURN(TagPlan plan, Resolve(e.text, loop_tag));
      plans_.emplace(&e, std::move(plan));
    }
    return Status::OK();
  }

  Result<TagPlan> Resolve(const std::string& tag, bool in_loop) {
    TagPlan p;
    p.tag = tag;
    if (tag == "GT") {
      if (!in_loop) {
        return Status::NotFound(
            "no such tag defined: INFO/GT. FORMAT fields must be enclosed in square "
            "brackets, e.g. \"[ %GT]\"");
      }
      if (!fields_.count("call_genotype")) {
        return Status::NotFound("No mapping found for 'GT'");
      }
      p.array = "call_genotype";
      p.special = TagPlan::Special::kGt;
      TZ_ASSIGN_OR_RETURN(p.slot, scan_->Need("call_genotype"));
      if (fields_.count("call_genotype_phased")) {
        TZ_ASSIGN_OR_RETURN(p.phased_slot, scan_->Need("call_genotype_phased"));
      }
      return p;
    }
    if (tag == "SAMPLE") {
      if (!in_loop) return Status::NotFound("no such tag defined: INFO/SAMPLE");
      p.special = TagPlan::Special::kSample;
      return p;
    }
    // Candidates as vcztools orders them: FORMAT before INFO, then the fixed
    // column the name stands for.
    std::vector<std::string> candidates;
    const size_t slash = tag.find('/');
    const std::string field = slash == std::string::npos ? tag : tag.substr(slash + 1);
    if (slash == std::string::npos) {
      candidates = {"call_" + field, "variant_" + field};
    } else if (tag.compare(0, slash, "INFO") == 0) {
      candidates = {"variant_" + field};
    }
    std::vector<std::string> matches;
    for (const std::string& c : candidates) {
      if (fields_.count(c)) matches.push_back(c);
    }
    if (auto it = kReserved.find(tag); it != kReserved.end()) matches.push_back(it->second);
    if (matches.empty()) return Status::NotFound("No mapping found for '" + tag + "'");
    p.array = in_loop ? matches.front() : matches.back();
    if (!in_loop && p.array.rfind("call_", 0) == 0) {
      return Status::NotFound("no such tag defined: INFO/" + tag +
                                     ". FORMAT fields must be enclosed in square brackets, "
                                     "e.g. \"[ %" + tag + "]\"");
    }
    if (!fields_.count(p.array)) {
      // A dataset without the FILTER, QUAL or ID columns (as tskit2zarr
      // writes them) passes every record, with no quality or ID: what
      // `view` writes for it, and bcftools prints for the VCF.
      if (tag == "FILTER" || tag == "QUAL" || tag == "ID") {
        p.special = TagPlan::Special::kConstant;
        p.constant = tag == "FILTER" ? "PASS" : ".";
        return p;
      }
      return Status::NotFound(d_.Describe() + ": no array '" + p.array + "' for %" + tag);
    }
    TZ_ASSIGN_OR_RETURN(p.slot, scan_->Need(p.array));
    if (tag == "CHROM") {
      p.special = TagPlan::Special::kChrom;
      TZ_ASSIGN_OR_RETURN(contig_ids_, d_.tables());
    }
    if (tag == "REF") p.special = TagPlan::Special::kRef;
    if (tag == "ALT") p.special = TagPlan::Special::kAlt;
    if (tag == "FILTER") p.special = TagPlan::Special::kFilter;
    if (tag == "QUAL") p.special = TagPlan::Special::kQual;
    return p;
  }

  // numpy's rendering of a vector: trailing fill dropped, missing as ".".
  static std::vector<std::string> FormatVector(const FieldBlock& b, int64_t row, int64_t from,
                                               int64_t count) {
    int64_t end = count;
    while (end > 0 && b.IsFill(row, from + end - 1)) --end;
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(end));
    for (int64_t i = 0; i < end; ++i) {
      out.push_back(b.IsMissing(row, from + i) ? "." : b.Text(row, from + i));
    }
    return out;
  }
  // As FormatVector, over the elements at `at` (flat indexes of the row).
  static std::vector<std::string> FormatVectorAt(const FieldBlock& b, int64_t row,
                                                 const std::vector<int64_t>& at) {
    size_t end = at.size();
    while (end > 0 && b.IsFill(row, at[end - 1])) --end;
    std::vector<std::string> out;
    out.reserve(end);
    for (size_t i = 0; i < end; ++i) {
      out.push_back(b.IsMissing(row, at[i]) ? "." : b.Text(row, at[i]));
    }
    return out;
  }
  static std::vector<std::string> FormatVector(const std::vector<std::string>& strings) {
    size_t end = strings.size();
    while (end > 0 && strings[end - 1].empty()) --end;
    return {strings.begin(), strings.begin() + static_cast<std::ptrdiff_t>(end)};
  }
  static std::string Join(const std::vector<std::string>& parts, const char* sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out += sep;
      out += parts[i];
    }
    return out;
  }
  static bool AllMissing(const FieldBlock& b, int64_t row) {
    for (int64_t i = 0; i < b.per_variant(); ++i) {
      if (!b.IsMissing(row, i)) return false;
    }
    return true;
  }

  // What a tag holds for variant `row`, before the loop or subfield shapes
  // it: a vector (the values of a per-variant vector, or of every sample),
  // or a scalar; `missing` as vcztools decides it (all elements missing;
  // never for strings).
  struct Raw {
    bool vector = false;
    bool missing = false;
    std::string scalar;
    std::vector<std::string> items;  // vector: rendered by FormatVector
    const FieldBlock* block = nullptr;
  };

  Raw RawValue(const TagPlan& p, int64_t row) const {
    if (p.special == TagPlan::Special::kConstant) {
      Raw constant;
      constant.scalar = p.constant;
      return constant;
    }
    const FieldBlock& b = (*blocks_)[p.slot];
    Raw r;
    r.block = &b;
    // A string scalar is never "missing" to vcztools (it prints as it is);
    // a vector is when every element is.
    r.missing = !(b.is_string() && b.rank() == 1) && AllMissing(b, row);
    switch (p.special) {
      case TagPlan::Special::kChrom: {
        const int64_t c = b.Integer(row, 0);
        const std::vector<std::string>& contigs = contig_ids_->contig_ids;
        r.scalar = c >= 0 && c < static_cast<int64_t>(contigs.size())
                       ? contigs[static_cast<size_t>(c)]
                       : std::to_string(c);
        r.missing = false;
        return r;
      }
      case TagPlan::Special::kRef:
        r.scalar = b.String(row, 0);
        r.missing = false;
        return r;
      case TagPlan::Special::kAlt: {
        std::vector<std::string> alts;
        for (int64_t i = 1; i < b.per_variant(); ++i) alts.push_back(b.String(row, i));
        alts = FormatVector(alts);
        r.missing = false;
        if (alts.empty()) {
          r.scalar = ".";
        } else {
          r.vector = true;
          r.items = std::move(alts);
        }
        return r;
      }
      case TagPlan::Special::kFilter: {
        std::vector<std::string> names;
        for (int64_t i = 0; i < b.per_variant(); ++i) {
          if (b.Bool(row, i) && static_cast<size_t>(i) < filter_ids_.size()) {
            names.push_back(filter_ids_[static_cast<size_t>(i)]);
          }
        }
        if (names.empty()) {
          r.scalar = ".";
        } else {
          r.vector = true;
          r.items = FormatVector(names);
        }
        return r;
      }
      case TagPlan::Special::kQual: {
        const double q = b.Float(row, 0);
        if (std::isnan(q)) {
          r.scalar = ".";
        } else {
          char buf[64];
          std::snprintf(buf, sizeof(buf), "%g", q);
          r.scalar = buf;
        }
        return r;
      }
      default:
        break;
    }
    if (b.rank() == 1) {
      r.scalar = b.Text(row, 0);
      return r;
    }
    r.vector = true;
    if (b.rank() == 2) r.items = FormatVector(b, row, 0, b.per_variant());
    return r;
  }

  // A tag or subfield outside a sample loop: one string.
  std::string RenderTag(const FormatElement& e, int64_t row) const {
    const TagPlan& p = plans_.at(&e);
    Raw r = RawValue(p, row);
    const bool filter = p.special == TagPlan::Special::kFilter;
    if (e.kind == FormatElement::Kind::kSubfield) {
      if (r.missing) return ".";
      if (!r.vector) return e.subfield == 0 ? r.scalar : ".";
      std::vector<std::string> items =
          r.items.empty() && r.block ? FormatVector(*r.block, row, 0, r.block->per_variant())
                                     : r.items;
      return e.subfield < static_cast<int64_t>(items.size())
                 ? items[static_cast<size_t>(e.subfield)]
                 : ".";
    }
    if (r.missing) return ".";
    if (!r.vector) return r.scalar;
    if (r.items.empty() && r.block && r.block->rank() > 2) {
      r.items = FormatVector(*r.block, row, 0, r.block->per_variant());
    }
    return Join(r.items, filter ? ";" : ",");
  }

  // One element inside a sample loop: a list the loop zips over.
  std::vector<std::string> RenderInLoop(const FormatElement& e, int64_t row) const {
    const size_t n = samples_.size();
    switch (e.kind) {
      case FormatElement::Kind::kText:
        return std::vector<std::string>(n, e.text);
      case FormatElement::Kind::kSubfield:
      case FormatElement::Kind::kSampleLoop: {
        // vcztools renders these to one string and zips over its characters.
        const std::string s = e.kind == FormatElement::Kind::kSubfield ? RenderTag(e, row)
                                                                        : RenderLoop(e, row);
        std::vector<std::string> chars;
        for (size_t i = 0; i < s.size();) {
          size_t len = 1;
          const unsigned char c = static_cast<unsigned char>(s[i]);
          if (c >= 0xF0) len = 4; else if (c >= 0xE0) len = 3; else if (c >= 0xC0) len = 2;
          chars.push_back(s.substr(i, len));
          i += len;
        }
        return chars;
      }
      case FormatElement::Kind::kTag:
        break;
    }
    const TagPlan& p = plans_.at(&e);
    if (p.special == TagPlan::Special::kSample) return samples_;
    if (p.special == TagPlan::Special::kGt) return Genotypes(p, row);
    if (p.array.rfind("call_", 0) == 0) {
      // A call field: the selected samples' values (CheckFieldShape made sure
      // it has a column per sample), read straight from the block.
      const FieldBlock& b = (*blocks_)[p.slot];
      if (b.rank() == 2) return FormatVectorAt(b, row, columns_);
      return PerSampleVectors(b, row, columns_);
    }
    Raw r = RawValue(p, row);
    // A scalar is broadcast as numpy's str prints it, sentinel or not.
    if (!r.vector) return std::vector<std::string>(n, r.scalar);
    const FieldBlock& b = *r.block;
    if (p.special != TagPlan::Special::kNone || b.rank() == 2) {
      return r.items;  // a 1-D vector: each element stands for a sample
    }
    // A per-variant matrix, spread one row per "sample" as vcztools does.
    std::vector<int64_t> rows;
    for (int64_t s = 0; s < b.per_row_of(0) / b.per_row_of(1); ++s) rows.push_back(s);
    return PerSampleVectors(b, row, rows);
  }

  // Rows `rows` of a variant's 2-D value, each rendered and joined ("." when
  // it holds only fill).
  static std::vector<std::string> PerSampleVectors(const FieldBlock& b, int64_t row,
                                                   const std::vector<int64_t>& rows) {
    const int64_t width = b.per_row_of(1);
    std::vector<std::string> out;
    out.reserve(rows.size());
    for (int64_t s : rows) {
      std::vector<std::string> parts = FormatVector(b, row, s * width, width);
      out.push_back(parts.empty() ? "." : Join(parts, ","));
    }
    return out;
  }

  std::vector<std::string> Genotypes(const TagPlan& p, int64_t row) const {
    const FieldBlock& g = (*blocks_)[p.slot];
    const FieldBlock* phased = p.phased_slot ? &(*blocks_)[*p.phased_slot] : nullptr;
    const int64_t ploidy = g.per_row_of(1);
    std::vector<std::string> out;
    out.reserve(columns_.size());
    for (int64_t s : columns_) {
      const bool is_phased = phased != nullptr && phased->Bool(row, s);
      out.push_back(Join(FormatVector(g, row, s * ploidy, ploidy), is_phased ? "|" : "/"));
    }
    return out;
  }

  std::string RenderLoop(const FormatElement& loop, int64_t row) const {
    std::vector<std::vector<std::string>> columns;
    size_t rows = loop.loop.empty() ? 0 : SIZE_MAX;
    for (const FormatElement& e : loop.loop) {
      columns.push_back(RenderInLoop(e, row));
      rows = std::min(rows, columns.back().size());
    }
    std::string out;
    for (size_t s = 0; s < rows; ++s) {
      // A per-sample filter prints the samples that passed it.
      if (sample_pass_ != nullptr && (s >= columns_.size() || !sample_pass_[s])) continue;
      for (const auto& column : columns) out += column[s];
    }
    return out;
  }

  // Appends element `e` for variant `row` to `out`.
  void Render(const FormatElement& e, int64_t row, std::string& out) const {
    switch (e.kind) {
      case FormatElement::Kind::kText: out += e.text; break;
      case FormatElement::Kind::kSampleLoop: out += RenderLoop(e, row); break;
      default: out += RenderTag(e, row); break;
    }
  }

  const VczDataset& d_;
  std::ostream& out_;
  std::vector<FormatElement> elements_;
  std::set<std::string> fields_;
  std::unordered_map<const FormatElement*, TagPlan> plans_;  // elements_ is fixed by then
  internal::VariantScan* scan_ = nullptr;  // during Run
  std::vector<std::string> filter_ids_;
  const VczTables* contig_ids_ = nullptr;  // for %CHROM
  std::vector<std::string> samples_;  // the selected samples' IDs
  std::vector<int64_t> columns_;      // and their columns in the call arrays
  const std::vector<FieldBlock>* blocks_ = nullptr;  // this block's fields, by slot
  const uint8_t* sample_pass_ = nullptr;  // the row's samples that passed the filter
};

}  // namespace

Status WriteSampleList(const VczDataset& dataset, std::ostream& out) {
  // As vcztools: the samples that are not null (""), one per line.
  std::string text;
  bool first = true;
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  for (const std::string& id : tables->sample_ids) {
    if (id.empty()) continue;
    if (!first) text += '\n';
    text += id;
    first = false;
  }
  out << text << '\n';
  return Status::OK();
}

Status WriteQuery(const VczDataset& dataset, const QueryOptions& options,
                  std::ostream& out) {
  return Query(dataset, out).Run(options);
}

}  // namespace turbozarr::vcz
