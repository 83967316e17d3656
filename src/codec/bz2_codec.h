// Bz2Codec: numcodecs' BZ2 bytes->bytes codec ("bz2" in v2, "numcodecs.bz2"
// in v3 arrays): one bzip2 stream; readers accept several concatenated, as
// Python's bz2.decompress does.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class Bz2Codec final : public BytesToBytesCodec, public internal::NumcodecsCodec {
 public:
  explicit Bz2Codec(int level) : level_(level) {}

  // {"level": 1-9 (default 1)}, bzip2's block size in 100 kB units.
  static Result<std::shared_ptr<const Bz2Codec>> Make(internal::CodecConfig& config);

  std::string name() const override { return "numcodecs.bz2"; }
  nlohmann::json ToJson() const override { return internal::NumcodecsV3Json(ToV2Json()); }
  nlohmann::json ToV2Json() const override { return {{"id", "bz2"}, {"level", level_}}; }
  Result<Buffer> Encode(ByteView decoded) const override;
  Result<Buffer> Decode(ByteView encoded,
                        std::optional<size_t> expected_size) const override;
  Status DecodeInto(ByteView encoded, MutableByteView out) const override;
  bool DecodesIntoCallerMemory() const override { return true; }

 private:
  int level_;
};

}  // namespace turbozarr
