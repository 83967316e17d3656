// DecodeBitshuffledBytes: turbozarr's own decoder of the blosc 1.x frames
// that c-blosc decodes slowly: bitshuffled one-byte items (see
// bit_unshuffle.h) compressed by zstd or lz4, which is how bio2zarr and
// numcodecs store every int8 and bool array with bitshuffle.
//
// It reads the frame as c-blosc 1.21 does (header, block offsets, one
// stream per block for one-byte items, a stream as long as its block stored
// raw) and refuses what c-blosc refuses; each block is decompressed into a
// buffer that stays in the core's cache and unshuffled from there into the
// output. Any other frame (another item size, shuffle or compressor, a
// frame stored raw) is not this decoder's: the caller hands it to c-blosc.
//
// Thread safety: reentrant; a call's own threads each keep their buffers.
#pragma once

#include <optional>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

// Whether `encoded` (at least blosc's 16-byte header) is a frame this
// decoder takes.
bool IsBitshuffledBytesFrame(ByteView encoded);

// Decodes such a frame into `out`, whose size is the frame's decoded size,
// on up to `threads` threads. Corruption, naming the block, for a frame
// that does not decode.
Status DecodeBitshuffledBytes(ByteView encoded, MutableByteView out, int threads);

}  // namespace turbozarr::internal
