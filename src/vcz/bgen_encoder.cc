#include "vcz/bgen_encoder.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <iterator>

namespace turbozarr::vcz::internal {
namespace {

constexpr uint32_t kHeaderLength = 20;
// Flags: zlib-compressed genotype blocks, layout 2, sample IDs present.
constexpr uint32_t kCompressionZlib = 1, kLayout2 = 2 << 2, kSampleIdsPresent = 1u << 31;
constexpr uint8_t kPloidyMissing = 0x80;
constexpr uint8_t kBitsPerProbability = 8;

void PutU16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>(v >> 8));
}

void PutU32(std::string& out, uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void PutU32At(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// The output sizes Python's zlib.compress gives deflate, one after another
// (CPython's blocks output buffer); the last repeats.
constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;
constexpr size_t kPythonOutputBlocks[] = {32 * kKiB,  64 * kKiB,  256 * kKiB, 1 * kMiB,
                                          4 * kMiB,   8 * kMiB,   16 * kMiB,  16 * kMiB,
                                          32 * kMiB,  32 * kMiB,  32 * kMiB,  32 * kMiB,
                                          64 * kMiB,  64 * kMiB,  128 * kMiB, 128 * kMiB,
                                          256 * kMiB};

}  // namespace

Result<std::string> BgenSampleIdBlock(const std::vector<std::string>& sample_ids) {
  std::string body;
  for (const std::string& id : sample_ids) {
    if (id.size() > 0xFFFF) {
      return Status::InvalidArgument("Sample ID '" + id.substr(0, 40) +
                                     "...' exceeds BGEN's 65535-byte sample-id limit.");
    }
    PutU16(body, static_cast<uint16_t>(id.size()));
    body += id;
  }
  std::string block;
  PutU32(block, static_cast<uint32_t>(8 + body.size()));
  PutU32(block, static_cast<uint32_t>(sample_ids.size()));
  return block + body;
}

std::string BgenHeader(uint32_t num_variants, uint32_t num_samples,
                       const std::string& sample_id_block) {
  std::string out;
  // The offset of the first variant block, counted from the end of itself.
  PutU32(out, kHeaderLength + static_cast<uint32_t>(sample_id_block.size()));
  PutU32(out, kHeaderLength);
  PutU32(out, num_variants);
  PutU32(out, num_samples);
  out += "bgen";
  PutU32(out, kCompressionZlib | kLayout2 | (sample_id_block.empty() ? 0 : kSampleIdsPresent));
  return out + sample_id_block;
}

size_t BgenGenotypeBlockSize(size_t num_samples, size_t ploidy) {
  // N, K, Pmin, Pmax; a ploidy byte per sample; the phased flag and the
  // bits per probability; a probability per haplotype (phased or haploid)
  // or two per diploid genotype.
  return 8 + num_samples + 2 + ploidy * num_samples;
}

Status AppendBgenGenotypes(const int8_t* calls, size_t num_samples, bool phased,
                           std::string& out) {
  const size_t start = out.size();
  out.resize(start + BgenGenotypeBlockSize(num_samples, 2));
  char* block = out.data() + start;
  char* ploidy = block + 8;
  char* probability = ploidy + num_samples + 2;
  uint8_t pmin = 2, pmax = 1;
  size_t p = 0;
  // Four samples at 0/0 (most calls): their bytes at once.
  const uint64_t ref_probabilities = phased ? ~uint64_t{0} : 0x00FF00FF00FF00FFull;
  size_t s = 0;
  const auto four_ref = [&] {
    uint64_t four;
    std::memcpy(&four, calls + 2 * s, sizeof four);
    return four == 0;
  };
  while (s < num_samples) {
    if (s + 4 <= num_samples && four_ref()) {
      std::memset(ploidy + s, 2, 4);
      std::memcpy(probability + p, &ref_probabilities, sizeof ref_probabilities);
      p += 8;
      s += 4;
      pmax = 2;
      continue;
    }
    const int8_t a = calls[2 * s], b = calls[2 * s + 1];
    if (a < -2 || a > 1 || b < -2 || b > 1) {
      return Status::InvalidArgument(
          "BGEN encoder: genotype value out of range; biallelic input expects values in "
          "{-2, -1, 0, 1}");
    }
    if (a == -2) {
      return Status::InvalidArgument(
          "BGEN encoder: -2 in genotype slot 0 (zero-ploidy / unused sample) is not "
          "representable in BGEN");
    }
    if (b == -2) {  // haploid
      ploidy[s] = static_cast<char>(a == -1 ? (kPloidyMissing | 1) : 1);
      probability[p++] = static_cast<char>(a == 0 ? 0xFF : 0);
      pmin = 1;
    } else if (a < 0 || b < 0) {  // a missing diploid call
      ploidy[s] = static_cast<char>(kPloidyMissing | 2);
      probability[p++] = 0;
      probability[p++] = 0;
      pmax = 2;
    } else {
      ploidy[s] = 2;
      if (phased) {
        probability[p++] = static_cast<char>(a == 0 ? 0xFF : 0);
        probability[p++] = static_cast<char>(b == 0 ? 0xFF : 0);
      } else {
        probability[p++] = static_cast<char>(a == 0 && b == 0 ? 0xFF : 0);
        probability[p++] = static_cast<char>(a != b ? 0xFF : 0);
      }
      pmax = 2;
    }
    ++s;
  }
  if (num_samples == 0) pmin = pmax = 2;
  PutU32At(block, static_cast<uint32_t>(num_samples));
  block[4] = 2;  // K, the number of alleles
  block[5] = 0;
  block[6] = static_cast<char>(pmin);
  block[7] = static_cast<char>(pmax);
  block[8 + num_samples] = phased ? 1 : 0;
  block[8 + num_samples + 1] = static_cast<char>(kBitsPerProbability);
  out.resize(start + 8 + num_samples + 2 + p);
  return Status::OK();
}

Status AppendZlib(std::string_view data, int level, std::string& out) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::InvalidArgument("zlib compression level " + std::to_string(level) +
                                   " is not in -1..9");
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  size_t block = 0;
  int result = Z_OK;
  do {
    const size_t size = kPythonOutputBlocks[std::min(block++, std::size(kPythonOutputBlocks) - 1)];
    const size_t at = out.size();
    out.resize(at + size);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + at);
    z.avail_out = static_cast<uInt>(size);
    result = deflate(&z, Z_FINISH);
    out.resize(at + size - z.avail_out);
  } while (result == Z_OK && z.avail_out == 0);
  deflateEnd(&z);
  if (result != Z_STREAM_END) {
    return Status::IOError("zlib compression failed (" + std::to_string(result) + ")");
  }
  return Status::OK();
}

size_t ZlibStoredSize(size_t data_size) {
  const size_t blocks = data_size == 0 ? 1 : (data_size + 65534) / 65535;
  return 2 + 5 * blocks + data_size + 4;
}

void AppendZlibStored(std::string_view data, std::string& out) {
  out += "\x78\x01";  // deflate, 32 KiB window, no dictionary, level 0
  size_t at = 0;
  do {
    const size_t n = std::min<size_t>(65535, data.size() - at);
    const bool last = at + n == data.size();
    out.push_back(last ? 1 : 0);  // BFINAL, BTYPE 00 (stored)
    PutU16(out, static_cast<uint16_t>(n));
    PutU16(out, static_cast<uint16_t>(~n));
    out.append(data.substr(at, n));
    at += n;
  } while (at < data.size());
  const uLong adler = adler32(adler32(0, nullptr, 0),
                              reinterpret_cast<const Bytef*>(data.data()),
                              static_cast<uInt>(data.size()));
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((adler >> shift) & 0xFF));
}

void AppendBgenVariant(const BgenVariantText& text, std::string_view compressed,
                       size_t uncompressed_size, std::string& out) {
  for (std::string_view s : {text.varid, text.rsid, text.chrom}) {
    PutU16(out, static_cast<uint16_t>(s.size()));
    out.append(s);
  }
  PutU32(out, text.position);
  PutU16(out, 2);  // K
  for (std::string_view s : {text.allele1, text.allele2}) {
    PutU32(out, static_cast<uint32_t>(s.size()));
    out.append(s);
  }
  PutU32(out, static_cast<uint32_t>(4 + compressed.size()));
  PutU32(out, static_cast<uint32_t>(uncompressed_size));
  out.append(compressed);
}

}  // namespace turbozarr::vcz::internal
