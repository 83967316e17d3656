// Checksums of stored chunks: whether an array's codecs carry one that every
// reader verifies, and how turbozarr adds one where it chooses the layout
// (sparse tiles, OME-Zarr images, the command line's converted copies) or
// where CreateOptions::checksum asks (docs/guarantees.md, "Checksums").
//
// Thread safety: free functions of values.
#pragma once

#include "turbozarr/metadata.h"

namespace turbozarr {

// Whether every stored chunk of an array with `metadata` carries a check of
// its bytes that decoding verifies (a checksum codec, zstd's content
// checksum, or a compressor whose format holds one: gzip, zlib, bz2), so
// that a damaged chunk reads as Corruption, never as other numbers. For a
// sharded array, its inner chunks'.
bool HasChecksum(const ArrayMetadata& metadata);

// Gives `metadata` a checksum unless HasChecksum already holds: v3 a crc32c
// codec last in the (inner) chunks' chain; v2 zstd's content checksum when
// the compressor is zstd, else numcodecs' crc32c as the last filter.
void AddChecksum(ArrayMetadata& metadata);

}  // namespace turbozarr
