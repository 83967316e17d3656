// Bz2Codec: numcodecs' BZ2 bytes->bytes codec ("bz2" in v2, "numcodecs.bz2"
// in v3 arrays): one bzip2 stream; readers accept several concatenated, as
// Python's bz2.decompress does.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/sized_compressor.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class Bz2Codec final : public StreamCompressor, public internal::NumcodecsCodec {
 public:
  explicit Bz2Codec(int level) : StreamCompressor("bz2"), level_(level) {}

  // {"level": 1-9 (default 1)}, bzip2's block size in 100 kB units.
  static Result<std::shared_ptr<const Bz2Codec>> Make(internal::CodecConfig& config);

  std::string name() const override { return "numcodecs.bz2"; }
  nlohmann::json ToJson() const override { return internal::NumcodecsV3Json(ToV2Json()); }
  nlohmann::json ToV2Json() const override { return {{"id", "bz2"}, {"level", level_}}; }
  Result<Buffer> Encode(ByteView decoded) const override;

 private:
  Result<size_t> DecodeStreams(ByteView encoded, MutableByteView fixed,
                               Buffer* growable) const override;

  int level_;
};

}  // namespace turbozarr
