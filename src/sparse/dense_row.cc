#include "dense_row.h"

#include <array>
#include <bit>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace turbozarr::sparse::internal {
namespace {

// Eight bytes at a time: the high bit of each lane that is not zero (a lane
// of 0x7f.. plus 0x7f.. never carries into the next one).
template <typename Stored, typename Out>
int64_t DrainScalar(Stored* dense, int64_t columns, int32_t* indices, Out* values) {
  constexpr int kLanes = 8 / static_cast<int>(sizeof(Stored));
  constexpr int kBits = 8 * static_cast<int>(sizeof(Stored));
  constexpr uint64_t kLow = sizeof(Stored) == 1 ? 0x7f7f7f7f7f7f7f7fULL : 0x7fff7fff7fff7fffULL;
  constexpr uint64_t kHigh = ~kLow;
  constexpr uint64_t kLane = (uint64_t{1} << kBits) - 1;
  const int64_t words = (columns + kLanes - 1) / kLanes;
  int64_t n = 0;
  for (int64_t w = 0; w < words; ++w) {
    Stored* at = dense + w * kLanes;
    uint64_t x;
    std::memcpy(&x, at, 8);
    if (x == 0) continue;
    std::memset(at, 0, 8);
    uint64_t t = (((x & kLow) + kLow) | x) & kHigh;
    while (t != 0) {
      const int lane = std::countr_zero(t) / kBits;
      t &= t - 1;
      indices[n] = static_cast<int32_t>(w * kLanes + lane);
      values[n] = static_cast<Out>(static_cast<Stored>((x >> (lane * kBits)) & kLane));
      ++n;
    }
  }
  return n;
}

#if defined(__x86_64__)
// GCC 12 warns that the upper lanes of the intrinsics' _mm*_undefined
// operands may be uninitialised (they are by definition, and unused).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define TZ_DRAIN_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt")))

// Stores the first `count` (<= 16) of 16 uint32 lanes as Out at dst.
template <typename Out>
TZ_DRAIN_TARGET inline void StoreLanes(Out* dst, __m512i lanes, int count) {
  const __mmask16 m = static_cast<__mmask16>((uint32_t{1} << count) - 1);
  if constexpr (std::is_same_v<Out, float>) {
    _mm512_mask_storeu_ps(dst, m, _mm512_cvtepi32_ps(lanes));
  } else if constexpr (std::is_same_v<Out, double>) {
    _mm512_mask_storeu_pd(dst, static_cast<__mmask8>(m),
                          _mm512_cvtepi32_pd(_mm512_castsi512_si256(lanes)));
    _mm512_mask_storeu_pd(dst + 8, static_cast<__mmask8>(m >> 8),
                          _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(lanes, 1)));
  } else if constexpr (sizeof(Out) == 8) {
    _mm512_mask_storeu_epi64(dst, static_cast<__mmask8>(m),
                             _mm512_cvtepu32_epi64(_mm512_castsi512_si256(lanes)));
    _mm512_mask_storeu_epi64(dst + 8, static_cast<__mmask8>(m >> 8),
                             _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(lanes, 1)));
  } else if constexpr (sizeof(Out) == 4) {
    _mm512_mask_storeu_epi32(dst, m, lanes);
  } else if constexpr (sizeof(Out) == 2) {
    _mm256_mask_storeu_epi16(dst, m, _mm512_cvtepi32_epi16(lanes));
  } else {
    _mm_mask_storeu_epi8(dst, m, _mm512_cvtepi32_epi8(lanes));
  }
}

// 64 bytes at a time: the non-zero lanes and their positions compressed to
// the front of two registers, then widened and stored 16 at a time.
template <typename Stored, typename Out>
TZ_DRAIN_TARGET int64_t DrainAvx512(Stored* dense, int64_t columns, int32_t* indices,
                                    Out* values) {
  constexpr int kLanes = 64 / static_cast<int>(sizeof(Stored));
  static constexpr auto kIota = [] {
    std::array<Stored, kLanes> iota{};
    for (int i = 0; i < kLanes; ++i) iota[static_cast<size_t>(i)] = static_cast<Stored>(i);
    return iota;
  }();
  const __m512i iota = _mm512_loadu_si512(kIota.data());
  const __m512i zero = _mm512_setzero_si512();
  int64_t n = 0;
  for (int64_t base = 0; base < columns; base += kLanes) {
    const __m512i v = _mm512_loadu_si512(dense + base);
    __m512i vals, cols;
    int k;
    if constexpr (sizeof(Stored) == 1) {
      const __mmask64 m = _mm512_test_epi8_mask(v, v);
      if (m == 0) continue;
      vals = _mm512_maskz_compress_epi8(m, v);
      cols = _mm512_maskz_compress_epi8(m, iota);
      k = std::popcount(m);
    } else {
      const __mmask32 m = _mm512_test_epi16_mask(v, v);
      if (m == 0) continue;
      vals = _mm512_maskz_compress_epi16(m, v);
      cols = _mm512_maskz_compress_epi16(m, iota);
      k = std::popcount(m);
    }
    _mm512_storeu_si512(dense + base, zero);
    const __m512i offset = _mm512_set1_epi32(static_cast<int32_t>(base));
    for (int g = 0; g < k; g += 16) {
      const int count = k - g < 16 ? k - g : 16;
      __m512i c32, v32;
      if constexpr (sizeof(Stored) == 1) {
        c32 = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(cols));
        v32 = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(vals));
        cols = _mm512_alignr_epi32(zero, cols, 4);
        vals = _mm512_alignr_epi32(zero, vals, 4);
      } else {
        c32 = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(cols));
        v32 = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(vals));
        cols = _mm512_alignr_epi32(zero, cols, 8);
        vals = _mm512_alignr_epi32(zero, vals, 8);
      }
      _mm512_mask_storeu_epi32(indices + n, static_cast<__mmask16>((uint32_t{1} << count) - 1),
                               _mm512_add_epi32(c32, offset));
      StoreLanes(values + n, v32, count);
      n += count;
    }
  }
  return n;
}
#undef TZ_DRAIN_TARGET
#pragma GCC diagnostic pop

bool HasAvx512Vbmi2() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi2");
}
#else
bool HasAvx512Vbmi2() { return false; }
#endif

DrainKernel Fastest() {
  static const DrainKernel kernel =
      HasAvx512Vbmi2() ? DrainKernel::kAvx512 : DrainKernel::kScalar;
  return kernel;
}

}  // namespace

std::vector<DrainKernel> AvailableDrainKernels() {
  std::vector<DrainKernel> kernels{DrainKernel::kScalar};
  if (HasAvx512Vbmi2()) kernels.push_back(DrainKernel::kAvx512);
  return kernels;
}

std::string_view DrainKernelName(DrainKernel kernel) {
  return kernel == DrainKernel::kAvx512 ? "avx512-vbmi2" : "scalar";
}

template <typename Stored, typename Out>
int64_t DrainDenseRowWith(DrainKernel kernel, Stored* dense, int64_t columns, int32_t* indices,
                          Out* values) {
#if defined(__x86_64__)
  if (kernel == DrainKernel::kAvx512) {
    return DrainAvx512<Stored, Out>(dense, columns, indices, values);
  }
#endif
  (void)kernel;
  return DrainScalar<Stored, Out>(dense, columns, indices, values);
}

template <typename Stored, typename Out>
int64_t DrainDenseRow(Stored* dense, int64_t columns, int32_t* indices, Out* values) {
  return DrainDenseRowWith<Stored, Out>(Fastest(), dense, columns, indices, values);
}

#define TZ_DRAIN_INSTANTIATE(Stored, Out)                                                   \
  template int64_t DrainDenseRow<Stored, Out>(Stored*, int64_t, int32_t*, Out*);            \
  template int64_t DrainDenseRowWith<Stored, Out>(DrainKernel, Stored*, int64_t, int32_t*, \
                                                  Out*);
#define TZ_DRAIN_INSTANTIATE_ALL(Stored)  \
  TZ_DRAIN_INSTANTIATE(Stored, int8_t)    \
  TZ_DRAIN_INSTANTIATE(Stored, int16_t)   \
  TZ_DRAIN_INSTANTIATE(Stored, int32_t)   \
  TZ_DRAIN_INSTANTIATE(Stored, int64_t)   \
  TZ_DRAIN_INSTANTIATE(Stored, uint8_t)   \
  TZ_DRAIN_INSTANTIATE(Stored, uint16_t)  \
  TZ_DRAIN_INSTANTIATE(Stored, uint32_t)  \
  TZ_DRAIN_INSTANTIATE(Stored, uint64_t)  \
  TZ_DRAIN_INSTANTIATE(Stored, float)     \
  TZ_DRAIN_INSTANTIATE(Stored, double)
TZ_DRAIN_INSTANTIATE_ALL(uint8_t)
TZ_DRAIN_INSTANTIATE_ALL(uint16_t)
#undef TZ_DRAIN_INSTANTIATE_ALL
#undef TZ_DRAIN_INSTANTIATE

}  // namespace turbozarr::sparse::internal
