// SizedCompressor: the base of the compressors whose decoders write into
// memory of a known size (lz4, blosc, zstd, bz2, zlib, gzip). Once the
// decoded size is known, from the caller or from the data's own header,
// Decode allocates once and runs the same decompression as DecodeInto into
// caller memory; only data that records no size (a zstd frame without its
// content size, a deflate or bzip2 stream) goes to a decoder that grows its
// output. A compressor supplies those steps; Decode and DecodeInto are
// written once, here.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <optional>
#include <string>

#include "turbozarr/codec.h"

namespace turbozarr {

class SizedCompressor : public BytesToBytesCodec {
 public:
  Result<Buffer> Decode(ByteView encoded,
                        std::optional<size_t> expected_size) const final;
  Status DecodeInto(ByteView encoded, MutableByteView out) const final;
  bool DecodesIntoCallerMemory() const final { return true; }

 protected:
  // `family` names the format in errors: "codec <family>: ...".
  explicit SizedCompressor(std::string_view family)
      : what_("codec " + std::string(family)) {}

  // The decoded size of `encoded`: the size its header records (checked
  // against `expected` when that is given), else `expected`, else nullopt
  // when neither knows it. Corruption for a header that disagrees with
  // `expected` or cannot be right (and must not drive an allocation), and
  // for data too short to decode.
  virtual Result<std::optional<size_t>> DecodedSize(
      ByteView encoded, std::optional<size_t> expected) const = 0;
  // Decompresses into `out`, of the size DecodedSize gave; Corruption unless
  // the data fills it exactly, and never writes past it. `caller_size`: the
  // size is the caller's rather than the header's, so running past it means
  // "more than expected".
  virtual Status DecompressInto(ByteView encoded, MutableByteView out,
                                bool caller_size) const = 0;
  // Decodes data whose size nobody knows (DecodedSize gave nullopt), growing
  // the output. The default, for formats that always record their size,
  // is Corruption.
  virtual Result<Buffer> DecodeGrowing(ByteView encoded) const;

  // "codec <family>", the start of every error.
  const std::string& what() const { return what_; }

 private:
  std::string what_;
};

// StreamCompressor: a SizedCompressor whose data records no decoded size
// (bzip2 and lzma streams, which may also come several in a row): the size
// is the caller's, and without one the output grows. A format supplies
// DecodeStreams; the rest is written once, here.
class StreamCompressor : public SizedCompressor {
 protected:
  using SizedCompressor::SizedCompressor;

  // Decodes the streams of `encoded` into `fixed` or, when `growable` is
  // given, into it (GrowOutput makes room); the decoded size. Corruption
  // for data that does not decode, or decodes past a fixed output.
  virtual Result<size_t> DecodeStreams(ByteView encoded, MutableByteView fixed,
                                       Buffer* growable) const = 0;
  // Doubles `growable`, keeping its first `used` bytes.
  Status GrowOutput(Buffer* growable, size_t used) const;

 private:
  Result<std::optional<size_t>> DecodedSize(ByteView encoded,
                                            std::optional<size_t> expected) const final;
  Status DecompressInto(ByteView encoded, MutableByteView out,
                        bool caller_size) const final;
  Result<Buffer> DecodeGrowing(ByteView encoded) const final;
};

}  // namespace turbozarr
