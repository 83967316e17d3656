// ZlibCodec: numcodecs' Zlib bytes->bytes codec, one zlib stream (RFC 1950),
// "zlib" in v2 and "numcodecs.zlib" in v3 arrays.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/deflate_engine.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class ZlibCodec final : public DeflateCodec, public internal::NumcodecsCodec {
 public:
  explicit ZlibCodec(int level)
      : DeflateCodec(DeflateWrapper::kZlib, "zlib"), level_(level) {}

  // {"level": -1-9} (default 1; -1 is zlib's default, 6).
  static Result<std::shared_ptr<const ZlibCodec>> Make(internal::CodecConfig& config);

  std::string name() const override { return "numcodecs.zlib"; }
  nlohmann::json ToJson() const override { return internal::NumcodecsV3Json(ToV2Json()); }
  nlohmann::json ToV2Json() const override { return {{"id", "zlib"}, {"level", level_}}; }
  Result<Buffer> Encode(ByteView decoded) const override;

 private:
  int level_;
};

}  // namespace turbozarr
