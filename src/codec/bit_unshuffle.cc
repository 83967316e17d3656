#include "codec/bit_unshuffle.h"

#include <immintrin.h>

#include <cstring>

namespace turbozarr::internal {
namespace {

// Items [from, n) one group of 8 at a time: the group's byte of each plane
// makes a 64-bit word whose 8x8 bit transpose is the 8 items.
void UnshuffleScalar(const uint8_t* in, uint8_t* out, size_t n, size_t from) {
  const size_t plane = n / 8;
  for (size_t j = from / 8; j < plane; ++j) {
    uint64_t x = 0;
    for (int b = 0; b < 8; ++b) x |= uint64_t{in[static_cast<size_t>(b) * plane + j]} << (8 * b);
    // Transpose the 8x8 bit matrix whose row b is byte b: afterwards byte k
    // holds bit k of every row, i.e. item 8j+k.
    uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    x ^= t ^ (t << 28);
    std::memcpy(out + 8 * j, &x, 8);
  }
}

uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// 32 items per step: each plane's 32 bits, spread one per byte (byte i
// takes the byte of the word holding bit i, then tests its own bit).
__attribute__((target("avx2"))) void UnshuffleAvx2(const uint8_t* in, uint8_t* out,
                                                   size_t n) {
  const size_t plane = n / 8;
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  size_t j = 0;
  for (; j + 4 <= plane; j += 4) {
    __m256i items = _mm256_setzero_si256();
    for (int b = 0; b < 8; ++b) {
      const __m256i word = _mm256_set1_epi32(
          static_cast<int32_t>(Load32(in + static_cast<size_t>(b) * plane + j)));
      const __m256i bytes = _mm256_shuffle_epi8(word, spread);
      const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
      items = _mm256_or_si256(items, _mm256_and_si256(set, _mm256_set1_epi8(
                                                               static_cast<char>(1 << b))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * j), items);
  }
  UnshuffleScalar(in, out, n, 8 * j);
}

// 64 items per step: each plane's 64 bits are a byte mask.
__attribute__((target("avx512f,avx512bw"))) void UnshuffleAvx512(const uint8_t* in,
                                                                 uint8_t* out, size_t n) {
  const size_t plane = n / 8;
  size_t j = 0;
  for (; j + 8 <= plane; j += 8) {
    __m512i items = _mm512_setzero_si512();
    for (int b = 0; b < 8; ++b) {
      const __mmask64 bits = _cvtu64_mask64(Load64(in + static_cast<size_t>(b) * plane + j));
      items = _mm512_mask_add_epi8(items, bits, items,
                                   _mm512_set1_epi8(static_cast<char>(1 << b)));
    }
    _mm512_storeu_si512(out + 8 * j, items);
  }
  UnshuffleScalar(in, out, n, 8 * j);
}

bool HasAvx2() { return __builtin_cpu_supports("avx2"); }
bool HasAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

BitUnshuffleKernel Fastest() {
  static const BitUnshuffleKernel kernel = AvailableBitUnshuffleKernels().back();
  return kernel;
}

}  // namespace

std::vector<BitUnshuffleKernel> AvailableBitUnshuffleKernels() {
  std::vector<BitUnshuffleKernel> kernels = {BitUnshuffleKernel::kScalar};
  if (HasAvx2()) kernels.push_back(BitUnshuffleKernel::kAvx2);
  if (HasAvx512()) kernels.push_back(BitUnshuffleKernel::kAvx512);
  return kernels;
}

std::string_view BitUnshuffleKernelName(BitUnshuffleKernel kernel) {
  switch (kernel) {
    case BitUnshuffleKernel::kScalar: return "scalar";
    case BitUnshuffleKernel::kAvx2: return "avx2";
    case BitUnshuffleKernel::kAvx512: return "avx512";
  }
  return "?";
}

void BitUnshuffleBytesWith(BitUnshuffleKernel kernel, const uint8_t* in, uint8_t* out,
                           size_t n) {
  switch (kernel) {
    case BitUnshuffleKernel::kAvx512: return UnshuffleAvx512(in, out, n);
    case BitUnshuffleKernel::kAvx2: return UnshuffleAvx2(in, out, n);
    case BitUnshuffleKernel::kScalar: return UnshuffleScalar(in, out, n, 0);
  }
}

void BitUnshuffleBytes(const uint8_t* in, uint8_t* out, size_t n) {
  BitUnshuffleBytesWith(Fastest(), in, out, n);
}

}  // namespace turbozarr::internal
