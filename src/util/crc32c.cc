#include "util/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define TZ_CRC32C_X86 1
#endif

namespace turbozarr {
namespace internal {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // Castagnoli, bit-reversed

// kTables[k][b] is the CRC of byte b followed by k zero bytes, which lets the
// portable loop fold eight input bytes per step (slicing-by-8).
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1)));
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (int b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

}  // namespace

uint32_t Crc32cPortable(uint32_t crc, const uint8_t* p, size_t n) {
  uint32_t c = ~crc;
  while (n >= 8) {
    uint64_t v = LoadLE64(p) ^ c;
    c = kTables[7][v & 0xFF] ^ kTables[6][(v >> 8) & 0xFF] ^
        kTables[5][(v >> 16) & 0xFF] ^ kTables[4][(v >> 24) & 0xFF] ^
        kTables[3][(v >> 32) & 0xFF] ^ kTables[2][(v >> 40) & 0xFF] ^
        kTables[1][(v >> 48) & 0xFF] ^ kTables[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  return ~c;
}

#ifdef TZ_CRC32C_X86

__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(uint32_t crc, const uint8_t* p,
                                                          size_t n) {
  uint64_t c = ~crc;
  // Four independent loads per iteration keep the instruction pipeline fed;
  // the crc32 dependency chain itself is the limit (one 8-byte step per
  // 3 cycles), which is well past memory bandwidth for chunk-sized inputs.
  while (n >= 32) {
    uint64_t a, b, d, e;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    std::memcpy(&d, p + 16, 8);
    std::memcpy(&e, p + 24, 8);
    c = _mm_crc32_u64(c, a);
    c = _mm_crc32_u64(c, b);
    c = _mm_crc32_u64(c, d);
    c = _mm_crc32_u64(c, e);
    p += 32;
    n -= 32;
  }
  while (n >= 8) {
    uint64_t a;
    std::memcpy(&a, p, 8);
    c = _mm_crc32_u64(c, a);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}

bool Crc32cHardwareAvailable() {
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
}

#else

uint32_t Crc32cHardware(uint32_t crc, const uint8_t* p, size_t n) {
  return Crc32cPortable(crc, p, n);
}
bool Crc32cHardwareAvailable() { return false; }

#endif

}  // namespace internal

uint32_t Crc32cExtend(uint32_t crc, ByteView b) {
  const auto* p = reinterpret_cast<const uint8_t*>(b.data());
  if (internal::Crc32cHardwareAvailable())
    return internal::Crc32cHardware(crc, p, b.size());
  return internal::Crc32cPortable(crc, p, b.size());
}

uint32_t Crc32c(ByteView data) { return Crc32cExtend(0, data); }

}  // namespace turbozarr
