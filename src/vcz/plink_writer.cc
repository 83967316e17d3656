// `vcz view-plink`: the selected variants and samples as a PLINK 1 binary
// fileset (.bed, .bim, .fam), as vcztools 0.2.0 writes it: A1 = ALT and
// A2 = REF (plink 2's convention), contig names as plink 2 writes them
// (chr1 -> 1, chrM -> MT), the .bed as plink2 --make-bed writes it.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "turbozarr/vcz.h"
#include "vcz/export_options.h"
#include "vcz/samples.h"
#include "vcz/variant_scan.h"

namespace turbozarr::vcz {
namespace {

// The two-bit codes of a .bed genotype.
constexpr uint8_t kHomA1 = 0x0, kHomA2 = 0x3, kHet = 0x2, kMissing = 0x1;

// A diploid call (b = -2: haploid) as its .bed code: ALT/ALT, REF/REF,
// het, or missing for anything else (a missing or a third allele).
uint8_t BedCode(int64_t a, int64_t b) {
  if (b == -2) return a == 0 ? kHomA2 : a == 1 ? kHomA1 : kMissing;
  if (a < 0 || a > 1 || b < 0 || b > 1) return kMissing;
  static constexpr uint8_t kBySum[3] = {kHomA2, kHet, kHomA1};
  return kBySum[a + b];
}

// One variant's .bed bytes (`out`, zeroed) from int8 calls: `call(s)` is
// sample s's first allele, ploidy 1 or 2. Four samples whose calls are all
// REF (the usual case) are one 0xFF byte, told apart by one 8-byte compare
// when the samples are consecutive.
template <typename CallOf>
void EncodeBedRow(CallOf call, size_t samples, int64_t ploidy, bool consecutive, char* out) {
  size_t s = 0;
  if (consecutive && ploidy == 2) {
    for (; s + 4 <= samples; s += 4) {
      uint64_t calls;
      std::memcpy(&calls, call(s), sizeof calls);
      if (calls == 0) {
        out[s / 4] = static_cast<char>(0xFF);
        continue;
      }
      uint8_t byte = 0;
      for (size_t j = 0; j < 4; ++j) {
        const int8_t* g = call(s + j);
        byte = static_cast<uint8_t>(byte | (BedCode(g[0], g[1]) << (2 * j)));
      }
      out[s / 4] = static_cast<char>(byte);
    }
  }
  for (; s < samples; ++s) {
    const int8_t* g = call(s);
    const uint8_t code = BedCode(g[0], ploidy == 2 ? g[1] : -2);
    out[s / 4] = static_cast<char>(static_cast<uint8_t>(out[s / 4]) | (code << (2 * (s % 4))));
  }
}

// A contig name as plink 2 writes it: "chr" dropped from 1-22, X, Y and
// MT, chrM as MT, any other name as it is.
std::string PlinkContig(const std::string& name) {
  if (name.rfind("chr", 0) != 0) return name;
  const std::string rest = name.substr(3);
  if (rest == "M") return "MT";
  if (rest == "X" || rest == "Y" || rest == "MT") return rest;
  if (!rest.empty() && rest.size() <= 2 && rest.find_first_not_of("0123456789") == std::string::npos &&
      rest[0] != '0') {
    const int n = std::stoi(rest);
    if (n >= 1 && n <= 22) return rest;
  }
  return name;
}

Status Write(std::ofstream& file, const std::string& path, const std::string& bytes) {
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return file ? Status::OK() : Status::IOError("writing " + path + " failed");
}

Status WriteFiles(const VczDataset& dataset, const PlinkOptions& options,
                  internal::VariantScan& scan, const std::vector<std::string>& paths) {
  TZ_ASSIGN_OR_RETURN(const std::vector<int64_t>* selected, scan.Columns());
  const std::vector<int64_t>& columns = *selected;
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  if (!options.no_fam) {
    std::string fam;
    for (int64_t c : columns) {
      const std::string& id = tables->sample_ids[static_cast<size_t>(c)];
      if (id.find_first_of(" \t\n\r\v\f") != std::string::npos) {
        return Status::InvalidArgument("Sample ID '" + id +
                                       "' contains whitespace; PLINK FAM is "
                                       "whitespace-separated.");
      }
      fam += id + "\t" + id + "\t0\t0\t0\t-9\n";
    }
    std::ofstream file(paths[2], std::ios::binary);
    if (!file) return Status::IOError("cannot open " + paths[2] + " for writing");
    TZ_RETURN_NOT_OK(Write(file, paths[2], fam));
  }
  TZ_ASSIGN_OR_RETURN(const size_t alleles_slot, scan.Need("variant_allele"));
  TZ_ASSIGN_OR_RETURN(const size_t contig_slot, scan.Need("variant_contig"));
  TZ_ASSIGN_OR_RETURN(const size_t position_slot, scan.Need("variant_position"));
  TZ_ASSIGN_OR_RETURN(const size_t genotype_slot, scan.Need("call_genotype"));
  std::optional<size_t> id_slot;
  if (dataset.Has("variant_id")) {
    TZ_ASSIGN_OR_RETURN(id_slot, scan.Need("variant_id"));
  }
  std::ofstream bim, bed(paths[0], std::ios::binary);
  if (!bed) return Status::IOError("cannot open " + paths[0] + " for writing");
  if (!options.no_bim) {
    bim.open(paths[1], std::ios::binary);
    if (!bim) return Status::IOError("cannot open " + paths[1] + " for writing");
  }
  TZ_RETURN_NOT_OK(Write(bed, paths[0], std::string("\x6c\x1b\x01", 3)));
  const size_t row_bytes = (columns.size() + 3) / 4;
  const bool consecutive = internal::Consecutive(columns);
  std::string bim_text, bed_bytes;
  return scan.ForEachBlock([&](const internal::ScanBlock& block) -> Status {
    const std::vector<internal::FieldBlock>& f = *block.fields;
    const internal::FieldBlock& alleles = f[alleles_slot];
    const internal::FieldBlock& genotypes = f[genotype_slot];
    const int64_t ploidy = genotypes.per_row_of(1);
    if (ploidy > 2) {
      return Status::Unsupported(dataset.Describe() + ": PLINK 1 binary output holds diploid "
                                 "and haploid calls, not ploidy " + std::to_string(ploidy));
    }
    bim_text.clear();
    bed_bytes.assign(block.rows.size() * row_bytes, '\0');
    size_t out_row = 0;
    for (int64_t r : block.rows) {
      for (int64_t k = 2; k < alleles.per_variant(); ++k) {
        if (!alleles.String(r, k).empty()) {
          return Status::InvalidArgument(
              "Multi-allelic variants are not supported in PLINK 1 binary output (plink 2 "
              "--make-bed has the same restriction). Use --max-alleles 2 to skip them, or "
              "split with bcftools norm -m- before conversion.");
        }
      }
      const int64_t contig = f[contig_slot].Integer(r, 0);
      const std::string alt = alleles.per_variant() > 1 ? alleles.String(r, 1) : "";
      bim_text += PlinkContig(tables->contig_ids.at(static_cast<size_t>(contig)));
      bim_text += '\t';
      bim_text += id_slot ? f[*id_slot].String(r, 0) : ".";
      bim_text += "\t0\t" + std::to_string(f[position_slot].Integer(r, 0)) + "\t";
      bim_text += alt.empty() ? "." : alt;
      bim_text += '\t';
      bim_text += alleles.String(r, 0);
      bim_text += '\n';
      char* out = bed_bytes.data() + out_row * row_bytes;
      if (genotypes.type_id() == DataTypeId::kInt8) {
        auto call = [&](size_t s) {
          return reinterpret_cast<const int8_t*>(genotypes.NumberAt(r, columns[s] * ploidy));
        };
        EncodeBedRow(call, columns.size(), ploidy, consecutive, out);
        ++out_row;
        continue;
      }
      for (size_t s = 0; s < columns.size(); ++s) {
        const int64_t first = columns[s] * ploidy;
        const int64_t a = genotypes.Integer(r, first);
        const int64_t b = ploidy == 2 ? genotypes.Integer(r, first + 1) : -2;
        out[s / 4] = static_cast<char>(static_cast<uint8_t>(out[s / 4]) |
                                       (BedCode(a, b) << (2 * (s % 4))));
      }
      ++out_row;
    }
    if (!options.no_bim) TZ_RETURN_NOT_OK(Write(bim, paths[1], bim_text));
    return Write(bed, paths[0], bed_bytes);
  });
}

}  // namespace

Status WritePlink(const VczDataset& dataset, const PlinkOptions& options) {
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::MakeExportScan(dataset, options, "PLINK 1 binary output",
                                               "a .bed row"));
  const std::vector<std::string> paths = {options.output + ".bed", options.output + ".bim",
                                          options.output + ".fam"};
  Status s = WriteFiles(dataset, options, scan, paths);
  if (!s.ok()) {
    // Nothing half-written stays behind.
    for (const std::string& path : paths) std::remove(path.c_str());
  }
  return s;
}

}  // namespace turbozarr::vcz
