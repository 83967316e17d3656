// VCF Zarr (VCZ): variant calls stored as Zarr arrays in the layout that
// bio2zarr writes (VCF Zarr spec 0.4 and 0.5, Zarr v2 or v3), opened for the
// queries and outputs of `turbozarr vcz` (what vcztools does).
//
// VczDataset is the group of one dataset: the arrays it must have
// (variant_position, variant_contig, contig_id, sample_id) are checked when
// it is opened, with errors that name the dataset and the array; the small
// per-dataset tables (sample and contig names, contig lengths) are read on
// first use, together, and kept: a task that needs none of them (counting
// records, reading variant fields of every sample) never waits for them,
// which on a remote store is a round trip saved. Field arrays are opened on
// demand.
//
// Thread safety: a VczDataset is immutable once opened (its tables are read
// once, whichever thread asks first); share it freely.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/buffer.h"
#include "turbozarr/group.h"
#include "turbozarr/status.h"
#include "turbozarr/verify.h"

namespace turbozarr::vcz {

// One row of `region_index`, the per-chunk summary bio2zarr writes: which
// records of which contig a chunk of variants holds and the positions they
// span, so that a region query reads only the chunks that may overlap it.
struct RegionIndexRow {
  int64_t chunk = 0;      // index of the variant chunk
  int64_t contig = 0;     // index into contig_id
  int64_t start = 0;      // first position in the chunk (1-based)
  int64_t end = 0;        // last position in the chunk
  int64_t max_end = 0;    // the largest position + length - 1 in the chunk
  int64_t num_records = 0;
};

// The per-dataset tables: sample_id, contig_id and contig_length (when the
// dataset stores it), as read.
struct VczTables {
  std::vector<std::string> sample_ids;
  std::vector<std::string> contig_ids;
  std::optional<std::vector<int64_t>> contig_lengths;
};

class VczDataset {
 public:
  // Opens the dataset whose root group is `root`. NotFound when an array
  // every VCZ has is missing; Corruption when one has the wrong shape or type
  // (a contig or sample table that is not 1-D strings, say).
  static Result<std::shared_ptr<const VczDataset>> Open(std::shared_ptr<Group> root);

  const Group& root() const { return *root_; }
  // "VCZ dataset file:///x.vcz" (errors lead with it).
  std::string Describe() const;

  // Records: the length of variant_position.
  int64_t num_variants() const { return num_variants_; }
  // The length of sample_id (null samples, ID "", included).
  int64_t num_samples() const { return num_samples_; }
  // The length of contig_id.
  int64_t num_contigs() const { return contig_table_->shape()[0]; }
  // The tables, read on the first call (the three arrays at once); a read
  // that failed fails every call alike, with the array named.
  Result<const VczTables*> tables() const;

  // The names of the dataset's arrays, sorted.
  const std::vector<std::string>& ArrayNames() const { return members_; }
  // Whether the dataset has an array called `name`.
  bool Has(std::string_view name) const;
  // The array `name`; NotFound naming the dataset and the array if absent.
  Result<std::shared_ptr<Array>> OpenArray(std::string_view name) const;

  // The region_index table; NotFound (with the message vcztools gives) when
  // the dataset has none, Corruption when it is not (chunks, 6) integers or
  // names a contig the dataset does not have.
  Result<std::vector<RegionIndexRow>> ReadRegionIndex() const;

 private:
  VczDataset() = default;

  std::shared_ptr<Group> root_;
  std::vector<std::string> members_;  // array names, sorted
  int64_t num_variants_ = 0;
  int64_t num_samples_ = 0;
  std::shared_ptr<Array> sample_table_, contig_table_, length_table_;  // the last optional
  mutable std::once_flag tables_read_;
  mutable Status tables_status_;
  mutable VczTables tables_;
};

// `vcz index -n`: the number of records, and a newline.
Status WriteRecordCount(const VczDataset& dataset, std::ostream& out);
// `vcz index -s`: for each contig with records, in contig order, its name,
// its length ("." when the dataset stores none, or -1, the spec's missing
// value) and its number of records, tab-separated, as `bcftools index -s`
// prints them (vcztools 0.2.0 prints a missing length as -1).
Status WriteContigStats(const VczDataset& dataset, std::ostream& out);

// `vcz query -l`: the sample IDs (but null ones, ""), one per line.
Status WriteSampleList(const VczDataset& dataset, std::ostream& out);

// What `query` and `view` select: variants by position and by a filter,
// and the samples they print.
struct SubsetOptions {
  // -r / -R: the variants any base of which lies in a region
  // ("chr1:100-200,chr2", or a file of contig, start, end lines).
  std::optional<std::string> regions, regions_file;
  // -t / -T: the variants whose position lies in a target; a leading "^"
  // keeps those outside every target instead.
  std::optional<std::string> targets, targets_file;
  // -s / -S: the samples printed ("a,b", or a file of one per line; a
  // leading "^" keeps the others), and --force-samples: drop the names the
  // dataset lacks, with a warning to `warnings`, instead of refusing them.
  std::optional<std::string> samples, samples_file;
  bool force_samples = false;
  std::ostream* warnings = nullptr;
  // -i / -e: a bcftools filter expression ("INFO/DP>10 & FMT/GQ>20") that
  // keeps, or drops, the variants it holds for (docs/vcz.md has the
  // language and its rules).
  std::optional<std::string> include, exclude;
  // The variants numbered first .. stop-1 only (0-based, stop at most the
  // number of variants), on top of the rest: a part of the dataset for a
  // worker to take, or the first chunks. No command-line flag has it
  // (vcztools has none); turbozarr.vcz's `variants` does.
  std::optional<std::pair<int64_t, int64_t>> variants;
};

struct QueryOptions : SubsetOptions {
  // A bcftools-style format: %TAG, %INFO/TAG, %TAG{i}, [per-sample part],
  // \n and \t (docs/vcz.md lists the rules). A filter over FORMAT fields
  // decides per sample, and the sample loops print the samples that passed.
  std::string format;
  // -N: no newline added to a format that has none.
  bool disable_automatic_newline = false;
};
// `vcz query -f`: every variant formatted by `options.format`, as vcztools
// 0.2.0 renders it. InvalidArgument for a format that does not parse (with
// the position); NotFound, in vcztools' words, for a tag the dataset cannot
// answer or that belongs inside a sample loop.
Status WriteQuery(const VczDataset& dataset, const QueryOptions& options, std::ostream& out);

// What `view` and the exports add: -v / -V, the variant types kept or
// dropped (snps, indels, mnps, other); -m / -M, the least and most alleles
// (REF included) kept.
struct ExportOptions : SubsetOptions {
  std::optional<std::string> types, exclude_types;
  std::optional<int64_t> min_alleles, max_alleles;
};

struct ViewOptions : ExportOptions {
  bool header_only = false;     // -h: the header alone
  bool no_header = false;       // -H: the records alone
  bool no_update = false;       // -I: no AC/AN recomputed for a sample subset
  bool drop_genotypes = false;  // -G: no FORMAT, no sample columns
  // --fill-tags: INFO tags (AC, AN, AF, NS) computed from the genotypes of
  // the printed samples, replacing any stored value.
  std::optional<std::string> fill_tags;
  // The header's "##turbozarr_vcz_viewCommand=...; Date=..." line, or none
  // (--no-version).
  std::optional<std::string> command_line;
};
// `vcz view`: the selected variants and samples as a VCF, byte for byte as
// vcztools 0.2.0 writes it (but the version line). InvalidArgument, in
// vcztools' words, for options that do not go together.
Status WriteVcf(const VczDataset& dataset, const ViewOptions& options, std::ostream& out);

struct PlinkOptions : ExportOptions {
  std::string output;    // -o: the stem; STEM.bed, STEM.bim, STEM.fam
  bool no_bim = false;   // --no-bim
  bool no_fam = false;   // --no-fam
};
// `vcz view-plink`: the selected variants and samples as a PLINK 1 binary
// fileset, byte for byte as vcztools 0.2.0 writes it (A1 = ALT, A2 = REF;
// the .bed as plink2 --make-bed writes it for biallelic sites). Filters see
// the selected samples, and AC, AN, AF and NS in them are counted over
// those. InvalidArgument for a multi-allelic site kept, or a filter that
// decides per sample.
Status WritePlink(const VczDataset& dataset, const PlinkOptions& options);

struct BgenOptions : ExportOptions {
  // -o: the stem; STEM.bgen, with STEM.bgen.bgi (the bgenix index) and
  // STEM.sample (Oxford sample file) unless no_bgi / no_sample_file. None:
  // the .bgen alone, to the stream WriteBgen is given.
  std::optional<std::string> output;
  bool no_bgi = false;
  bool no_sample_file = false;
  bool no_header_samples = false;  // no sample IDs in the .bgen header
  bool unphased = false;           // every variant unphased, whatever call_genotype_phased says
  std::string variant_id_field = "rsid";  // the slot variant_id goes to: "rsid" or "varid"
  // zlib level of the genotype blocks, -1 to 9 (default 1; 0 stores).
  std::optional<int> compression_level;
  // Every variant block the same size (random access): stored blocks, the
  // five strings padded to `total_string_length` bytes (default 64) with
  // `pad_byte` (default '.') after a leading '.'; uniform ploidy only.
  bool fixed_variant_size = false;
  std::optional<int64_t> total_string_length;
  std::optional<char> pad_byte;
};
// `vcz view-bgen`: the selected biallelic variants and samples as BGEN 1.2
// (layout 2, zlib, 8-bit probabilities of the hard calls, phase per variant
// from call_genotype_phased), byte for byte as vcztools 0.2.0 writes it; the
// .bgen goes to `out` when options.output is none. Filters see the selected
// samples (as view-plink). InvalidArgument, in vcztools' words, for a
// multi-allelic site kept, options that do not go together, or a filter
// that decides per sample; nothing half-written stays behind on error.
Status WriteBgen(const VczDataset& dataset, const BgenOptions& options, std::ostream& out);

// One field's values for the selected variants and samples.
struct FieldValues {
  std::string name;             // "variant_DP", "call_GQ"
  DataType dtype;               // the array's (strings: as text, kString)
  // (variants kept, [samples selected,] the field's other dimensions).
  std::vector<int64_t> shape;
  Buffer bytes;                      // numbers and booleans, native order, C order
  std::vector<std::string> strings;  // strings, C order
};
// The fields `names` (VCZ array names, or "variant_index": the kept
// variants' row numbers, int64) of the variants and samples `options`
// select, filters included: what turbozarr.vcz.read returns as numpy
// arrays. NotFound naming the array for one the dataset lacks.
Result<std::vector<FieldValues>> ReadFields(const VczDataset& dataset,
                                            const SubsetOptions& options,
                                            const std::vector<std::string>& names);

// The same values a block of variants at a time (the smallest variant
// chunk among the fields read, at most 10,000 variants; 2^16 for
// variant_index alone), read ahead on a thread of its own while
// the caller works on the blocks before: at most `readahead_bytes` of
// decoded values wait (at least one block, whatever its size). What
// turbozarr.vcz.iter_blocks yields.
//
// Thread safety: one consumer; the read-ahead thread is its own.
class VariantBlockReader {
 public:
  static Result<std::unique_ptr<VariantBlockReader>> Open(
      std::shared_ptr<const VczDataset> dataset, const SubsetOptions& options,
      const std::vector<std::string>& names, int64_t readahead_bytes);
  // Stops the read-ahead thread (it finishes the block it is reading).
  ~VariantBlockReader();

  // The next block's fields (blocks without a kept variant are skipped),
  // or none after the last; the error that stopped the reading, if any.
  Result<std::optional<std::vector<FieldValues>>> Next();

  // The most bytes of decoded values that have waited at once (tests).
  int64_t peak_waiting_bytes() const;

 private:
  struct State;
  explicit VariantBlockReader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// What `verify` (turbozarr/verify.h) asks of a VCF Zarr dataset (a group
// with bio2zarr's vcf_zarr_version attribute or a variant_position array)
// beyond its arrays' bytes: it opens, its arrays' leading dimensions agree
// by the spec's names (variant_*: variants; call_*: variants, samples;
// sample_*: samples; contig_*: contigs; variant_filter: variants, filters),
// and its region_index, when present, reads. nullopt for other groups.
std::optional<LayoutReport> CheckDatasetLayout(const std::shared_ptr<Group>& group);

}  // namespace turbozarr::vcz
