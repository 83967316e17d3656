// BitUnshuffle: undoes blosc's bitshuffle of one-byte items, the layout of
// every bitshuffled int8 or bool array (VCF Zarr genotypes, masks, phasing).
//
// A bitshuffled block of n bytes (n a multiple of 8) is eight bit planes of
// n/8 bytes: bit k of byte j of plane b is bit b of item 8j+k. c-blosc 1.x
// vectorises its unshuffle only for items of an even size (4 for AVX2); for
// one-byte items it runs a scalar 8x8 bit transpose with a store per byte,
// which is most of the time a decoder spends on these chunks. Here each
// plane's bits become byte masks directly: AVX-512BW turns 64 bits into 64
// bytes in one instruction, AVX2 32 bits into 32 bytes in a few, and the
// scalar path transposes 8x8 bits in a register and stores 8 bytes at once.
// The CPU is asked once which to use.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace turbozarr::internal {

enum class BitUnshuffleKernel { kScalar, kAvx2, kAvx512 };

// The kernels this CPU runs, slowest first (the scalar one always).
std::vector<BitUnshuffleKernel> AvailableBitUnshuffleKernels();
std::string_view BitUnshuffleKernelName(BitUnshuffleKernel kernel);

// Writes the n items of the bitshuffled block `in` to `out` (n a multiple
// of 8; in and out do not overlap), with the fastest kernel of this CPU.
void BitUnshuffleBytes(const uint8_t* in, uint8_t* out, size_t n);
// The same with a chosen kernel, which must be available (for tests).
void BitUnshuffleBytesWith(BitUnshuffleKernel kernel, const uint8_t* in, uint8_t* out,
                           size_t n);

}  // namespace turbozarr::internal
