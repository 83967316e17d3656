// `vcz view-bgen`: the selected biallelic variants and samples as BGEN 1.2,
// as vcztools 0.2.0 writes it (its option rules and messages, its two
// layouts: variable-size blocks at a zlib level, or fixed-size blocks for
// random access), with the bgenix index and the Oxford sample file beside
// it. Blocks of variants are encoded on up to 4 threads and written in
// order.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "turbozarr/vcz.h"
#include "vcz/bgen_encoder.h"
#include "vcz/bgen_index.h"
#include "vcz/export_options.h"
#include "vcz/samples.h"
#include "vcz/variant_scan.h"

namespace turbozarr::vcz {
namespace {

using internal::FieldBlock;

// Where each array a variant block needs sits among the scan's fields.
struct Slots {
  size_t alleles = 0, contig = 0, position = 0, genotype = 0;
  std::optional<size_t> id, phased;
};

// What stays the same for every variant of one command.
struct Layout {
  const VczDataset* dataset = nullptr;
  const std::vector<int64_t>* columns = nullptr;
  const std::vector<std::string>* contig_ids = nullptr;
  Slots slots;
  bool id_in_rsid = true;  // variant_id goes to the rsid slot, else to varid
  bool fixed = false;
  int level = 1;
  // The fixed-size layout: the strings' byte budget, the filler, and the
  // genotype block size every variant must have.
  size_t total_string_length = 64;
  char pad_byte = '.';
  size_t genotype_block_size = 0;
};

// A variant's four strings as vcztools reads them: "." for an empty ALT or
// ID, or a dataset without IDs.
struct VariantText {
  std::string_view chrom, allele1, allele2, id;
};

Result<VariantText> TextOf(const Layout& layout, const std::vector<FieldBlock>& f, int64_t r) {
  const FieldBlock& alleles = f[layout.slots.alleles];
  for (int64_t k = 2; k < alleles.per_variant(); ++k) {
    if (!alleles.String(r, k).empty()) {
      return Status::InvalidArgument(
          "Multi-allelic variants are not supported in BGEN output. Use --max-alleles 2 to "
          "skip them, or split with bcftools norm -m- before conversion.");
    }
  }
  VariantText text;
  text.chrom = layout.contig_ids->at(
      static_cast<size_t>(f[layout.slots.contig].Integer(r, 0)));
  text.allele1 = alleles.String(r, 0);
  text.allele2 = alleles.per_variant() > 1 ? std::string_view(alleles.String(r, 1)) : "";
  if (text.allele2.empty()) text.allele2 = ".";
  text.id = layout.slots.id ? std::string_view(f[*layout.slots.id].String(r, 0)) : ".";
  if (text.id.empty()) text.id = ".";
  return text;
}

// The fixed-size layout's padding field: "." and then the filler, up to
// the byte budget (Slack() has checked that it fits).
std::string Padding(const Layout& layout, const VariantText& t) {
  const size_t used = t.chrom.size() + t.allele1.size() + t.allele2.size() + t.id.size();
  return "." + std::string(layout.total_string_length - used - 1, layout.pad_byte);
}

// The padding field's room in every kept row of a block, checked as
// vcztools checks a chunk: the row with the least room names the error.
Status CheckSlack(const Layout& layout, const internal::ScanBlock& block) {
  int64_t worst_row = -1, worst = 0, worst_used = 0;
  for (int64_t r : block.rows) {
    TZ_ASSIGN_OR_RETURN(const VariantText t, TextOf(layout, *block.fields, r));
    const int64_t used =
        static_cast<int64_t>(t.chrom.size() + t.allele1.size() + t.allele2.size() + t.id.size());
    const int64_t slack = static_cast<int64_t>(layout.total_string_length) - used;
    if (worst_row < 0 || slack < worst) worst_row = r, worst = slack, worst_used = used;
  }
  if (worst_row >= 0 && worst < 1) {
    TZ_ASSIGN_OR_RETURN(const VariantText t, TextOf(layout, *block.fields, worst_row));
    return Status::InvalidArgument(
        "variant at " + std::string(t.chrom) + ":" +
        std::to_string((*block.fields)[layout.slots.position].Integer(worst_row, 0)) +
        ": chrom/allele1/allele2/variant_id byte sum is " + std::to_string(worst_used) +
        ", leaving no room for the padding field's leading '.' under total_string_length=" +
        std::to_string(layout.total_string_length));
  }
  return Status::OK();
}

// The slots of the rsid and varid fields: variant_id in one, the padding
// field ("." or the fixed layout's) in the other.
std::pair<std::string_view, std::string_view> IdSlots(const Layout& layout,
                                                      const VariantText& t,
                                                      const std::string& padding) {
  return layout.id_in_rsid ? std::pair<std::string_view, std::string_view>{t.id, padding}
                           : std::pair<std::string_view, std::string_view>{padding, t.id};
}

// What one thread encodes: the rows [from, to) of a block's kept rows.
struct Part {
  std::string bytes;
  std::vector<int64_t> sizes;  // of each variant block
  int64_t mixed_phase = 0;     // variants phased for some samples only
  Status status;
};

Status EncodeRows(const Layout& layout, const internal::ScanBlock& block, size_t from, size_t to,
                  Part& part) {
  const std::vector<FieldBlock>& f = *block.fields;
  const FieldBlock& genotypes = f[layout.slots.genotype];
  const std::vector<int64_t>& columns = *layout.columns;
  const int64_t ploidy = genotypes.per_row_of(1);
  const bool int8_calls = genotypes.type_id() == DataTypeId::kInt8;
  const bool consecutive = internal::Consecutive(columns);
  // Diploid int8 calls of consecutive samples are already the (a, b) pairs
  // the encoder takes, in place.
  const bool in_place = int8_calls && consecutive && ploidy == 2 && !columns.empty();
  std::vector<int8_t> calls(2 * columns.size());
  std::string genotype_block, compressed;
  for (size_t i = from; i < to; ++i) {
    const int64_t r = block.rows[i];
    TZ_ASSIGN_OR_RETURN(const VariantText t, TextOf(layout, f, r));
    // The calls of the selected samples as (a, b) pairs, b = -2 when haploid.
    const int8_t* pairs = calls.data();
    if (in_place) pairs = reinterpret_cast<const int8_t*>(genotypes.NumberAt(r, columns[0] * 2));
    for (size_t s = 0; s < columns.size() && !in_place; ++s) {
      const int64_t first = columns[s] * ploidy;
      const int8_t* call8 =
          int8_calls ? reinterpret_cast<const int8_t*>(genotypes.NumberAt(r, first)) : nullptr;
      for (int64_t k = 0; k < 2; ++k) {
        int64_t v = -2;
        if (k < ploidy) v = call8 ? call8[k] : genotypes.Integer(r, first + k);
        calls[2 * s + static_cast<size_t>(k)] =
            static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127));
      }
    }
    bool phased = false;
    if (layout.slots.phased) {
      const FieldBlock& p = f[*layout.slots.phased];
      const bool bytes = p.dtype().size() == 1;  // bool, as the spec stores it
      bool all = true, any = false;
      for (int64_t c : columns) {
        const bool b = bytes ? *p.NumberAt(r, c) != 0 : p.Integer(r, c) != 0;
        all = all && b;
        any = any || b;
      }
      phased = all;
      if (any && !all) ++part.mixed_phase;
    }
    genotype_block.clear();
    TZ_RETURN_NOT_OK(
        internal::AppendBgenGenotypes(pairs, columns.size(), phased, genotype_block));
    compressed.clear();
    if (layout.fixed) {
      if (genotype_block.size() != layout.genotype_block_size) {
        return Status::InvalidArgument(
            "The fixed-size BGEN layout requires uniform ploidy across all samples and "
            "variants; the variant at " + std::string(t.chrom) + ":" +
            std::to_string(f[layout.slots.position].Integer(r, 0)) +
            " has mixed ploidy. Leave out --fixed-variant-size.");
      }
      internal::AppendZlibStored(genotype_block, compressed);
    } else {
      TZ_RETURN_NOT_OK(internal::AppendZlib(genotype_block, layout.level, compressed));
    }
    const std::string padding = layout.fixed ? Padding(layout, t) : ".";
    const auto [rsid, varid] = IdSlots(layout, t, padding);
    internal::BgenVariantText text{varid, rsid, t.chrom, t.allele1, t.allele2,
                                   static_cast<uint32_t>(f[layout.slots.position].Integer(r, 0))};
    const size_t before = part.bytes.size();
    internal::AppendBgenVariant(text, compressed, genotype_block.size(), part.bytes);
    part.sizes.push_back(static_cast<int64_t>(part.bytes.size() - before));
  }
  return Status::OK();
}

// vcztools' checks of the options, in its words.
Status CheckOptions(const BgenOptions& o) {
  if (o.variant_id_field != "rsid" && o.variant_id_field != "varid") {
    return Status::InvalidArgument("variant_id_field must be 'rsid' or 'varid' (got '" +
                                   o.variant_id_field + "')");
  }
  if (o.compression_level && (*o.compression_level < -1 || *o.compression_level > 9)) {
    return Status::InvalidArgument("--compression-level " +
                                   std::to_string(*o.compression_level) +
                                   " is not in the range -1<=x<=9.");
  }
  if (!o.fixed_variant_size && (o.total_string_length || o.pad_byte)) {
    return Status::InvalidArgument(
        "total_string_length / pad_byte require fixed_variant_size=True");
  }
  if (o.fixed_variant_size && o.compression_level && *o.compression_level != 0) {
    return Status::InvalidArgument(
        "fixed_variant_size=True requires compression_level=0 (fixed-size variant blocks have "
        "a deterministic block size); got compression_level=" +
        std::to_string(*o.compression_level));
  }
  if (o.fixed_variant_size) {
    if (o.pad_byte == '\0') return Status::InvalidArgument("pad_byte must not be the NUL byte");
    const int64_t length = o.total_string_length.value_or(64);
    if (length < 5) {
      return Status::InvalidArgument("total_string_length must be >= 5 (got " +
                                     std::to_string(length) + ")");
    }
    if (length > 0xFFFF) {
      return Status::InvalidArgument("total_string_length=" + std::to_string(length) +
                                     " exceeds BGEN length-prefix width 65535");
    }
  }
  return Status::OK();
}

// The Oxford .sample file: two header lines, then each sample as ID_1 and
// ID_2 with no missing data.
Status WriteSampleFile(const std::vector<std::string>& ids, const std::string& path) {
  std::string text = "ID_1 ID_2 missing\n0 0 0\n";
  for (const std::string& id : ids) {
    if (id.find_first_of(" \t\n\r\v\f") != std::string::npos) {
      return Status::InvalidArgument("Sample ID '" + id +
                                     "' contains whitespace; Oxford .sample files are "
                                     "whitespace-separated.");
    }
    text += id + " " + id + " 0\n";
  }
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  return file ? Status::OK() : Status::IOError("writing " + path + " failed");
}

Status Write(const VczDataset& dataset, const BgenOptions& options, internal::VariantScan& scan,
             std::ostream& out, const std::string& bgen_path,
             const std::optional<std::string>& sample_path,
             const std::optional<std::string>& bgi_path) {
  Layout layout;
  layout.dataset = &dataset;
  TZ_ASSIGN_OR_RETURN(layout.columns, scan.Columns());
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  layout.contig_ids = &tables->contig_ids;
  layout.id_in_rsid = options.variant_id_field == "rsid";
  layout.fixed = options.fixed_variant_size;
  layout.level = options.compression_level.value_or(layout.fixed ? 0 : 1);
  layout.total_string_length = static_cast<size_t>(options.total_string_length.value_or(64));
  layout.pad_byte = options.pad_byte.value_or('.');
  // The header gives the number of variants: with a filter, that takes a
  // pass over what the filter reads first.
  TZ_ASSIGN_OR_RETURN(const int64_t num_variants, scan.Count());
  Slots& slots = layout.slots;
  TZ_ASSIGN_OR_RETURN(slots.genotype, scan.Need("call_genotype"));
  TZ_ASSIGN_OR_RETURN(slots.alleles, scan.Need("variant_allele"));
  TZ_ASSIGN_OR_RETURN(slots.contig, scan.Need("variant_contig"));
  TZ_ASSIGN_OR_RETURN(slots.position, scan.Need("variant_position"));
  if (dataset.Has("variant_id")) {
    TZ_ASSIGN_OR_RETURN(slots.id, scan.Need("variant_id"));
  }
  if (!options.unphased && dataset.Has("call_genotype_phased")) {
    TZ_ASSIGN_OR_RETURN(slots.phased, scan.Need("call_genotype_phased"));
  }
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> genotype_array, dataset.OpenArray("call_genotype"));
  const std::vector<int64_t>& shape = genotype_array->metadata().shape;
  const int64_t ploidy = shape.size() == 3 ? shape[2] : 0;
  if (ploidy != 1 && ploidy != 2) {
    std::string text;
    for (int64_t d : shape) text += (text.empty() ? "" : ", ") + std::to_string(d);
    return Status::InvalidArgument("BGEN output requires call_genotype.shape[2] in (1, 2); "
                                   "got shape (" + text + ").");
  }
  const std::vector<int64_t>& columns = *layout.columns;
  layout.genotype_block_size =
      internal::BgenGenotypeBlockSize(columns.size(), static_cast<size_t>(ploidy));
  std::vector<std::string> sample_ids;
  for (int64_t c : columns) sample_ids.push_back(tables->sample_ids[static_cast<size_t>(c)]);

  if (options.no_header_samples && !sample_path && options.warnings) {
    *options.warnings << "warning: no sample IDs in the BGEN header and no .sample file leave "
                         "sample IDs nowhere in the output; downstream tools (REGENIE, SAIGE, "
                         "bgen-reader) will not be able to associate genotypes with sample "
                         "IDs.\n";
  }
  if (sample_path) TZ_RETURN_NOT_OK(WriteSampleFile(sample_ids, *sample_path));
  std::string sample_block;
  if (!options.no_header_samples) {
    TZ_ASSIGN_OR_RETURN(sample_block, internal::BgenSampleIdBlock(sample_ids));
  }
  const std::string header = internal::BgenHeader(static_cast<uint32_t>(num_variants),
                                                  static_cast<uint32_t>(columns.size()),
                                                  sample_block);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  std::optional<internal::BgenIndexWriter> index;
  if (bgi_path) {
    TZ_ASSIGN_OR_RETURN(internal::BgenIndexWriter writer,
                        internal::BgenIndexWriter::Create(*bgi_path));
    index.emplace(std::move(writer));
  }
  int64_t offset = static_cast<int64_t>(header.size());
  int64_t mixed_phase = 0;
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  std::vector<Part> parts(threads);
  TZ_RETURN_NOT_OK(scan.ForEachBlock([&](const internal::ScanBlock& block) -> Status {
    if (layout.fixed) TZ_RETURN_NOT_OK(CheckSlack(layout, block));
    const size_t used = block.rows.size() >= 16 ? threads : 1;
    const size_t per_part = (block.rows.size() + used - 1) / used;
    auto encode = [&](size_t p) {
      Part& part = parts[p];
      part.bytes.clear();
      part.sizes.clear();
      const size_t from = std::min(block.rows.size(), p * per_part);
      part.status = EncodeRows(layout, block, from, std::min(block.rows.size(), from + per_part),
                               part);
    };
    std::vector<std::thread> workers;
    for (size_t p = 1; p < used; ++p) workers.emplace_back(encode, p);
    encode(0);
    for (std::thread& w : workers) w.join();
    size_t row = 0;
    for (size_t p = 0; p < used; ++p) {
      Part& part = parts[p];
      TZ_RETURN_NOT_OK(part.status);
      out.write(part.bytes.data(), static_cast<std::streamsize>(part.bytes.size()));
      mixed_phase += std::exchange(part.mixed_phase, 0);
      for (int64_t size : part.sizes) {
        const int64_t r = block.rows[row++];
        if (index) {
          TZ_ASSIGN_OR_RETURN(const VariantText t, TextOf(layout, *block.fields, r));
          const std::string padding = layout.fixed ? Padding(layout, t) : ".";
          internal::BgiRow bgi;
          bgi.chromosome = t.chrom;
          bgi.position = (*block.fields)[slots.position].Integer(r, 0);
          bgi.rsid = IdSlots(layout, t, padding).first;
          bgi.allele1 = t.allele1;
          bgi.allele2 = t.allele2;
          bgi.file_start_position = offset;
          bgi.size_in_bytes = size;
          TZ_RETURN_NOT_OK(index->Add(bgi));
        }
        offset += size;
      }
    }
    return out ? Status::OK() : Status::IOError("writing " + bgen_path + " failed");
  }));
  out.flush();
  if (!out) return Status::IOError("writing " + bgen_path + " failed");
  if (index) TZ_RETURN_NOT_OK(index->Commit());
  if (mixed_phase > 0 && options.warnings) {
    *options.warnings << "warning: " << mixed_phase
                      << " variant(s) had mixed phase across samples; emitted as unphased "
                         "(BGEN has one phase flag per variant).\n";
  }
  return Status::OK();
}

}  // namespace

Status WriteBgen(const VczDataset& dataset, const BgenOptions& options, std::ostream& out) {
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::MakeExportScan(dataset, options, "BGEN output",
                                               "a variant block"));
  TZ_RETURN_NOT_OK(CheckOptions(options));
  if (!options.output) return Write(dataset, options, scan, out, "the BGEN output", {}, {});
  const std::string bgen_path = *options.output + ".bgen";
  std::optional<std::string> sample_path, bgi_path;
  if (!options.no_sample_file) sample_path = *options.output + ".sample";
  if (!options.no_bgi) bgi_path = bgen_path + ".bgi";
  Status s;
  {
    std::ofstream file(bgen_path, std::ios::binary);
    s = file ? Write(dataset, options, scan, file, bgen_path, sample_path, bgi_path)
             : Status::IOError("cannot open " + bgen_path + " for writing");
  }
  if (!s.ok()) {
    // Nothing half-written stays behind.
    for (const std::optional<std::string>& path : {std::optional(bgen_path), sample_path, bgi_path}) {
      if (path) std::remove(path->c_str());
    }
  }
  return s;
}

}  // namespace turbozarr::vcz
