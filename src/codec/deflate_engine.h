// The DEFLATE machinery behind the gzip and zlib codecs: libdeflate for
// whole-buffer compression and for decompression into a buffer of known
// size (several times faster than zlib), zlib's streaming inflate when the
// decoded size is unknown.
//
// Thread safety: immutable; all methods may be called concurrently (each
// thread keeps its own libdeflate compressors and decompressor).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "codec/sized_compressor.h"

namespace turbozarr {

enum class DeflateWrapper { kGzip, kZlib };

// The base of the gzip and zlib codecs, which differ only in the wrapper
// around the same DEFLATE data. Decoding reads a gzip stream (one or more
// members, optionally followed by zero padding, as Python's gzip module
// reads them) or one zlib stream (trailing bytes ignored, as Python's
// zlib.decompress does).
class DeflateCodec : public SizedCompressor {
 protected:
  // `family` ("gzip", "zlib") names the codec in errors.
  DeflateCodec(DeflateWrapper wrapper, std::string_view family)
      : SizedCompressor(family), wrapper_(wrapper), family_(family) {}

  // Compresses `data` at `level` (0-12, libdeflate's scale; 0-9 mean what
  // they mean to zlib).
  Result<Buffer> Compress(int level, ByteView data) const;

 private:
  // DEFLATE streams record no decoded size: `expected`, or nullopt.
  Result<std::optional<size_t>> DecodedSize(
      ByteView encoded, std::optional<size_t> expected) const override;
  Status DecompressInto(ByteView encoded, MutableByteView out,
                        bool caller_size) const override;
  Result<Buffer> DecodeGrowing(ByteView encoded) const override;

  DeflateWrapper wrapper_;
  std::string family_;
};

}  // namespace turbozarr
