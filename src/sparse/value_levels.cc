#include "value_levels.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace turbozarr::sparse::internal {
namespace {

// n (at most 64) bits of `bitmap` from bit `at`, the first in bit 0. Reads
// up to 9 bytes from byte at / 8: the padding keeps that inside.
inline uint64_t Bits(const uint8_t* bitmap, int64_t at, int n) {
  if (n == 0) return 0;
  const uint8_t* p = bitmap + (at >> 3);
  const unsigned shift = static_cast<unsigned>(at & 7);
  uint64_t w;
  std::memcpy(&w, p, 8);
  w >>= shift;
  if (shift + static_cast<unsigned>(n) > 64) w |= static_cast<uint64_t>(p[8]) << (64 - shift);
  return n == 64 ? w : w & ((uint64_t{1} << n) - 1);
}

inline uint64_t LowBits(int n) { return n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The low bits of `bits` put at the set bits of `mask`, in order (what
// BMI2's pdep does in one instruction).
inline uint64_t Deposit(uint64_t bits, uint64_t mask) {
  uint64_t out = 0;
  for (uint64_t m = mask; m; m &= m - 1) {
    if (bits & 1) out |= m & (~m + 1);
    bits >>= 1;
  }
  return out;
}

template <typename Stored>
void ExpandScalar(ValueCursor& c, const Stored* rest, int64_t n, Stored* out) {
  for (int64_t i = 0; i < n; i += 64) {
    const int m = static_cast<int>(std::min<int64_t>(64, n - i));
    const uint64_t ones = Bits(c.bitmaps[0], c.bit[0], m);
    c.bit[0] += m;
    uint64_t left = LowBits(m) & ~ones;
    int k = std::popcount(left);
    const uint64_t twos = Deposit(Bits(c.bitmaps[1], c.bit[1], k), left);
    c.bit[1] += k;
    left &= ~twos;
    k = std::popcount(left);
    const uint64_t threes = Deposit(Bits(c.bitmaps[2], c.bit[2], k), left);
    c.bit[2] += k;
    left &= ~threes;
    Stored* o = out + i;
    for (int j = 0; j < m; ++j) {
      o[j] = static_cast<Stored>(1 + ((twos >> j) & 1) + 2 * ((threes >> j) & 1));
    }
    for (; left; left &= left - 1) o[std::countr_zero(left)] = rest[c.rest++];
  }
}

// The same for bytes, 64 values a step: the levels' bits put in place with
// pdep, the rest expanded into the remaining lanes.
__attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi2,popcnt"))) void ExpandBytesAvx512(
    ValueCursor& c, const uint8_t* rest, int64_t n, uint8_t* out) {
  const __m512i one = _mm512_set1_epi8(1), two = _mm512_set1_epi8(2),
                three = _mm512_set1_epi8(3);
  for (int64_t i = 0; i < n; i += 64) {
    const int m = static_cast<int>(std::min<int64_t>(64, n - i));
    const uint64_t valid = LowBits(m);
    const uint64_t ones = Bits(c.bitmaps[0], c.bit[0], m);
    c.bit[0] += m;
    uint64_t left = valid & ~ones;
    int k = static_cast<int>(_mm_popcnt_u64(left));
    const uint64_t twos = _pdep_u64(Bits(c.bitmaps[1], c.bit[1], k), left);
    c.bit[1] += k;
    left &= ~twos;
    k = static_cast<int>(_mm_popcnt_u64(left));
    const uint64_t threes = _pdep_u64(Bits(c.bitmaps[2], c.bit[2], k), left);
    c.bit[2] += k;
    left &= ~threes;
    k = static_cast<int>(_mm_popcnt_u64(left));
    __m512i v = _mm512_maskz_expand_epi8(left, _mm512_maskz_loadu_epi8(LowBits(k), rest + c.rest));
    c.rest += k;
    v = _mm512_mask_mov_epi8(v, ones & valid, one);
    v = _mm512_mask_mov_epi8(v, twos, two);
    v = _mm512_mask_mov_epi8(v, threes, three);
    _mm512_mask_storeu_epi8(out + i, valid, v);
  }
}

bool HasAvx512Expand() {
  static const bool available =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") &&
      __builtin_cpu_supports("popcnt");
  return available;
}

__attribute__((target("popcnt"))) int64_t CountWordsPopcnt(const uint8_t* p, int64_t words) {
  int64_t total = 0;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t x;
    std::memcpy(&x, p + w * 8, 8);
    total += static_cast<int64_t>(_mm_popcnt_u64(x));
  }
  return total;
}

int64_t CountWords(const uint8_t* p, int64_t words) {
  static const bool popcnt = __builtin_cpu_supports("popcnt");
  if (popcnt) return CountWordsPopcnt(p, words);
  int64_t total = 0;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t x;
    std::memcpy(&x, p + w * 8, 8);
    total += std::popcount(x);
  }
  return total;
}

}  // namespace

template <typename Stored>
std::array<int64_t, kValueLevels> SplitValueLevels(Stored* values, int64_t n,
                                                   const std::array<uint8_t*, kValueLevels>& bitmaps) {
  std::array<int64_t, kValueLevels> bit{}, level{};
  int64_t rest = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Stored v = values[i];
    int l = 0;
    for (; l < kValueLevels; ++l) {
      const int64_t b = bit[static_cast<size_t>(l)]++;
      if (v == static_cast<Stored>(l + 1)) {
        bitmaps[static_cast<size_t>(l)][b >> 3] |= static_cast<uint8_t>(1u << (b & 7));
        ++level[static_cast<size_t>(l)];
        break;
      }
    }
    if (l == kValueLevels) values[rest++] = v;
  }
  return level;
}

int64_t CountBits(const uint8_t* bitmap, int64_t from, int64_t to) {
  int64_t total = 0;
  while (from < to && (from & 7) != 0) {
    total += (bitmap[from >> 3] >> (from & 7)) & 1;
    ++from;
  }
  const int64_t words = (to - from) / 64;
  total += CountWords(bitmap + (from >> 3), words);
  from += words * 64;
  for (; from < to; ++from) total += (bitmap[from >> 3] >> (from & 7)) & 1;
  return total;
}

ValueCursor ValueCursor::At(const std::array<const uint8_t*, kValueLevels>& bitmaps, int64_t at) {
  ValueCursor c;
  c.bitmaps = bitmaps;
  int64_t position = at;
  for (int l = 0; l < kValueLevels; ++l) {
    c.bit[static_cast<size_t>(l)] = position;
    position -= CountBits(bitmaps[static_cast<size_t>(l)], 0, position);
  }
  c.rest = position;
  return c;
}

std::vector<ExpandKernel> AvailableExpandKernels() {
  std::vector<ExpandKernel> kernels = {ExpandKernel::kScalar};
  if (HasAvx512Expand()) kernels.push_back(ExpandKernel::kAvx512);
  return kernels;
}

template <typename Stored>
void ExpandValuesWith(ExpandKernel kernel, ValueCursor& cursor, const Stored* rest, int64_t n,
                      Stored* out) {
  if constexpr (sizeof(Stored) == 1) {
    if (kernel == ExpandKernel::kAvx512) {
      ExpandBytesAvx512(cursor, reinterpret_cast<const uint8_t*>(rest), n,
                        reinterpret_cast<uint8_t*>(out));
      return;
    }
  }
  ExpandScalar(cursor, rest, n, out);
}

template <typename Stored>
void ExpandValues(ValueCursor& cursor, const Stored* rest, int64_t n, Stored* out) {
  ExpandValuesWith(HasAvx512Expand() ? ExpandKernel::kAvx512 : ExpandKernel::kScalar, cursor,
                   rest, n, out);
}

#define TZ_VALUE_LEVELS(T)                                                                    \
  template std::array<int64_t, kValueLevels> SplitValueLevels<T>(                             \
      T*, int64_t, const std::array<uint8_t*, kValueLevels>&);                                \
  template void ExpandValues<T>(ValueCursor&, const T*, int64_t, T*);                          \
  template void ExpandValuesWith<T>(ExpandKernel, ValueCursor&, const T*, int64_t, T*);
TZ_VALUE_LEVELS(uint8_t)
TZ_VALUE_LEVELS(uint16_t)
TZ_VALUE_LEVELS(uint32_t)
TZ_VALUE_LEVELS(float)
TZ_VALUE_LEVELS(double)
#undef TZ_VALUE_LEVELS

}  // namespace turbozarr::sparse::internal
