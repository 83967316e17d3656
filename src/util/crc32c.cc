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

namespace {

// The crc32 instruction's result is ready 3 cycles after it starts, so one
// chain of them takes 8 bytes per 3 cycles (about 8 GB/s) while the unit
// could start one every cycle. Blocks of 3 x kStreamBytes are therefore
// summed as three independent chains, one per third, and joined after: the
// register after A + B is the register after A moved over |B| zero bytes,
// xor the register of B alone (the CRC is linear), and that move over a
// fixed number of zeros is a linear map of 32 bits, a table per byte.
constexpr size_t kStreamBytes = 4096;

// The register `c` (not inverted) after `n` zero bytes, a byte at a time.
uint32_t AfterZeros(uint32_t c, size_t n) {
  while (n-- > 0) c = (c >> 8) ^ kTables[0][c & 0xFF];
  return c;
}

struct ZerosShift {
  std::array<std::array<uint32_t, 256>, 4> table{};
  ZerosShift() {
    std::array<uint32_t, 32> bit{};
    for (int b = 0; b < 32; ++b) bit[b] = AfterZeros(uint32_t{1} << b, kStreamBytes);
    for (int k = 0; k < 4; ++k) {
      for (uint32_t v = 0; v < 256; ++v) {
        uint32_t out = 0;
        for (int b = 0; b < 8; ++b) {
          if (v & (1u << b)) out ^= bit[8 * k + b];
        }
        table[k][v] = out;
      }
    }
  }
  uint32_t operator()(uint32_t c) const {
    return table[0][c & 0xFF] ^ table[1][(c >> 8) & 0xFF] ^ table[2][(c >> 16) & 0xFF] ^
           table[3][c >> 24];
  }
};

}  // namespace

__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(uint32_t crc, const uint8_t* p,
                                                          size_t n) {
  static const ZerosShift shift;
  uint64_t c = ~crc;
  while (n >= 3 * kStreamBytes) {
    uint64_t c1 = 0, c2 = 0;
    const uint8_t* p1 = p + kStreamBytes;
    const uint8_t* p2 = p + 2 * kStreamBytes;
    for (size_t i = 0; i < kStreamBytes; i += 8) {
      uint64_t a, b, d;
      std::memcpy(&a, p + i, 8);
      std::memcpy(&b, p1 + i, 8);
      std::memcpy(&d, p2 + i, 8);
      c = _mm_crc32_u64(c, a);
      c1 = _mm_crc32_u64(c1, b);
      c2 = _mm_crc32_u64(c2, d);
    }
    c = shift(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c1);
    c = shift(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c2);
    p += 3 * kStreamBytes;
    n -= 3 * kStreamBytes;
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
