// CRC-32C (Castagnoli polynomial, reflected, as in iSCSI, ext4 and the zarr
// v3 "crc32c" codec): the checksum zarr appends to chunks and shard indexes.
//
// Crc32c() uses the SSE4.2 crc32 instruction when the CPU has it (checked
// once at run time) and a slicing-by-8 table otherwise, so one binary runs on
// every x86-64 machine and is fast on the ones that can be.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstddef>
#include <cstdint>

#include "turbozarr/buffer.h"

namespace turbozarr {

// The CRC-32C of `data`; Crc32c("123456789") == 0xE3069283.
uint32_t Crc32c(ByteView data);

// The CRC-32C of the concatenation a + b given crc == Crc32c(a), so a
// checksum can be computed over pieces.
uint32_t Crc32cExtend(uint32_t crc, ByteView b);

namespace internal {

// The two implementations, exposed so tests can compare them. Both take and
// return the pre/post-inverted form used by Crc32cExtend.
uint32_t Crc32cPortable(uint32_t crc, const uint8_t* data, size_t n);
// REQUIRES: Crc32cHardwareAvailable().
uint32_t Crc32cHardware(uint32_t crc, const uint8_t* data, size_t n);
bool Crc32cHardwareAvailable();

}  // namespace internal
}  // namespace turbozarr
