// The DEFLATE machinery behind the gzip and zlib codecs: libdeflate for
// whole-buffer compression and for decompression into a buffer of known
// size (several times faster than zlib), zlib's streaming inflate when the
// decoded size is unknown.
//
// Thread safety: functions may be called from any thread; each thread keeps
// its own libdeflate compressors and decompressor.
#pragma once

#include <optional>
#include <string_view>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

enum class DeflateWrapper { kGzip, kZlib };

// Compresses `data` at `level` (0-12, libdeflate's scale; 0-9 mean what
// they mean to zlib).
Result<Buffer> DeflateCompress(DeflateWrapper wrapper, int level, ByteView data,
                               std::string_view codec);

// Decompresses a gzip stream (one or more members, optionally followed by
// zero padding, as Python's gzip module reads them) or one zlib stream
// (trailing bytes ignored, as Python's zlib.decompress does). Corruption
// names `codec` when the data is malformed or, given `expected_size`, decodes
// to another size.
Result<Buffer> DeflateDecompress(DeflateWrapper wrapper, ByteView data,
                                 std::optional<size_t> expected_size,
                                 std::string_view codec);

// The same with the decoded size fixed: decompresses straight into `out`,
// which the data must fill exactly (else Corruption); never writes past it.
Status DeflateDecompressInto(DeflateWrapper wrapper, ByteView data, MutableByteView out,
                             std::string_view codec);

}  // namespace turbozarr::internal
