// Lz4Codec: numcodecs' LZ4 bytes->bytes codec ("lz4" in v2, "numcodecs.lz4"
// in v3 arrays). Its framing is numcodecs' own, not the LZ4 frame format:
//
//   uint32 LE decoded size, then one LZ4 block (LZ4_compress_fast).
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/sized_compressor.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class Lz4Codec final : public SizedCompressor, public internal::NumcodecsCodec {
 public:
  explicit Lz4Codec(int acceleration)
      : SizedCompressor("lz4"), acceleration_(acceleration) {}

  // {"acceleration": int >= 1 (default 1)}.
  static Result<std::shared_ptr<const Lz4Codec>> Make(internal::CodecConfig& config);

  std::string name() const override { return "numcodecs.lz4"; }
  nlohmann::json ToJson() const override { return internal::NumcodecsV3Json(ToV2Json()); }
  nlohmann::json ToV2Json() const override {
    return {{"id", "lz4"}, {"acceleration", acceleration_}};
  }
  Result<Buffer> Encode(ByteView decoded) const override;

 private:
  // The size header, checked against the block and `expected`.
  Result<std::optional<size_t>> DecodedSize(
      ByteView encoded, std::optional<size_t> expected) const override;
  Status DecompressInto(ByteView encoded, MutableByteView out,
                        bool caller_size) const override;

  int acceleration_;
};

}  // namespace turbozarr
