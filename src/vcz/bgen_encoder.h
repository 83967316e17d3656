// The pieces of a BGEN 1.2 file (layout 2, zlib, 8 bits per probability,
// biallelic) as vcztools 0.2.0 writes them: the header with its sample
// identifier block, one variant's genotype probability block built from
// hard calls, the zlib stream around it, and the variant's identifying
// data. `view-bgen` (bgen_writer.cc) puts them together.
//
// Hard calls become probabilities of 1.0 (255) and 0.0 (0): unphased
// diploid calls store P(0/0) and P(0/1); phased calls and haploid ones
// store, per haplotype, P(allele 0). A missing call has its ploidy byte's
// high bit set and zero probabilities.
//
// Thread safety: pure functions over values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::vcz::internal {

// The sample identifier block: its length, the number of samples, then each
// ID with a 16-bit length. InvalidArgument for an ID over 65,535 bytes.
Result<std::string> BgenSampleIdBlock(const std::vector<std::string>& sample_ids);

// The 4-byte offset, the 20-byte header and `sample_id_block` (empty when
// the header carries no sample IDs: its flag is then clear).
std::string BgenHeader(uint32_t num_variants, uint32_t num_samples,
                       const std::string& sample_id_block);

// The uncompressed genotype probability block of one variant, appended to
// `out`. `calls` holds two values per sample, (a, b), b = -2 for a haploid
// call; -1 is missing. InvalidArgument, in vcztools' words, for a value
// outside {-2, -1, 0, 1} or -2 in the first slot.
Status AppendBgenGenotypes(const int8_t* calls, size_t num_samples, bool phased,
                           std::string& out);

// The size of a genotype block where every sample has ploidy `ploidy`.
size_t BgenGenotypeBlockSize(size_t num_samples, size_t ploidy);

// `data` as a zlib stream at `level` (-1 to 9), appended to `out`, byte for
// byte as Python's zlib.compress makes it (the same calls into zlib, the
// same output buffer sizes, which decide the stored blocks of level 0).
Status AppendZlib(std::string_view data, int level, std::string& out);

// `data` as a zlib stream of stored blocks of 65,535 bytes, appended to
// `out`: the size is a function of the input's, as the fixed-size layout
// needs. ZlibStoredSize gives it.
void AppendZlibStored(std::string_view data, std::string& out);
size_t ZlibStoredSize(size_t data_size);

// A variant's identifying data: the five strings and the position.
struct BgenVariantText {
  std::string_view varid, rsid, chrom, allele1, allele2;
  uint32_t position = 0;
};

// One whole variant block: the identifying data, then the compressed
// genotype block (`compressed`, a zlib stream of `uncompressed_size` bytes).
void AppendBgenVariant(const BgenVariantText& text, std::string_view compressed,
                       size_t uncompressed_size, std::string& out);

}  // namespace turbozarr::vcz::internal
