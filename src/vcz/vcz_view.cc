// `vcz view`: the selected variants and samples written as a VCF, as
// vcztools 0.2.0 writes it: its header (vcf_header.h), its records
// (vcf_records.h), its option rules and messages.
#include <algorithm>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include "turbozarr/vcz.h"
#include "vcz/export_options.h"
#include "vcz/variant_scan.h"
#include "vcz/vcf_header.h"
#include "vcz/vcf_records.h"

namespace turbozarr::vcz {

Status WriteVcf(const VczDataset& dataset, const ViewOptions& options, std::ostream& out) {
  const bool subset = options.samples || options.samples_file;
  if (subset && options.drop_genotypes) {
    return Status::InvalidArgument("Cannot select samples and drop genotypes.");
  }
  std::set<std::string> fill_tags;
  if (options.fill_tags) {
    TZ_ASSIGN_OR_RETURN(fill_tags, internal::ParseFillTags(*options.fill_tags));
    if (options.no_update) {
      return Status::InvalidArgument("Cannot combine --no-update and --fill-tags.");
    }
    if (options.drop_genotypes) {
      return Status::InvalidArgument(
          "Cannot combine -G/--drop-genotypes and --fill-tags: tag computation requires "
          "call_genotype.");
    }
  } else if (subset && !options.no_update) {
    // As bcftools view -s: AC and AN follow the samples printed.
    fill_tags = {"AC", "AN"};
  }
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> extra, internal::TypeAndAlleleFilter(options));
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::VariantScan::Make(dataset, options,
                                                  internal::VariantScan::FilterSamples::kAll,
                                                  extra));
  if (options.drop_genotypes) scan.SetColumns({});
  TZ_ASSIGN_OR_RETURN(const std::vector<int64_t>* columns, scan.Columns());
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  std::vector<std::string> samples;
  for (int64_t c : *columns) samples.push_back(tables->sample_ids[static_cast<size_t>(c)]);
  const internal::VcfFields fields =
      internal::ListVcfFields(dataset, !samples.empty(), fill_tags);
  if (!options.no_header) {
    internal::VcfHeaderOptions header;
    header.samples = samples;
    header.fill_tags = fill_tags;
    header.command_line = options.command_line;
    TZ_ASSIGN_OR_RETURN(std::string text, internal::VcfHeader(dataset, fields, header));
    out << text;
  }
  if (options.header_only) return out ? Status::OK() : Status::IOError("writing the VCF failed");
  TZ_ASSIGN_OR_RETURN(internal::VcfRecordEncoder encoder,
                      internal::VcfRecordEncoder::Make(dataset, fields, scan, *columns));
  // Each block's rows are encoded in contiguous parts on as many threads as
  // the machine has (at most 4, as vcztools), and written in order.
  const size_t threads =
      std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  std::vector<std::string> texts(threads);
  std::vector<Status> statuses(threads);
  return scan.ForEachBlock([&](const internal::ScanBlock& block) -> Status {
    TZ_ASSIGN_OR_RETURN(const internal::VcfRecordEncoder::BlockCounts counts,
                        encoder.Count(block));
    const size_t parts = block.rows.size() >= 64 ? threads : 1;
    const size_t per_part = (block.rows.size() + parts - 1) / parts;
    auto encode = [&](size_t part) {
      internal::ScanBlock piece = block;
      const size_t from = std::min(block.rows.size(), part * per_part);
      const size_t to = std::min(block.rows.size(), from + per_part);
      piece.rows.assign(block.rows.begin() + static_cast<std::ptrdiff_t>(from),
                        block.rows.begin() + static_cast<std::ptrdiff_t>(to));
      texts[part].clear();
      statuses[part] = encoder.Encode(piece, counts, texts[part]);
    };
    std::vector<std::thread> workers;
    for (size_t part = 1; part < parts; ++part) workers.emplace_back(encode, part);
    encode(0);
    for (std::thread& w : workers) w.join();
    for (size_t part = 0; part < parts; ++part) {
      TZ_RETURN_NOT_OK(statuses[part]);
      out << texts[part];
    }
    return out ? Status::OK() : Status::IOError("writing the VCF failed");
  });
}

}  // namespace turbozarr::vcz
