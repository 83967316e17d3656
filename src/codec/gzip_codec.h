// GzipCodec: the zarr v3 "gzip" bytes->bytes codec and numcodecs' GZip
// (the same gzip member format, RFC 1952; numcodecs writes one member,
// readers accept several).
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/deflate_engine.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class GzipCodec final : public DeflateCodec, public internal::NumcodecsCodec {
 public:
  explicit GzipCodec(int level, bool numcodecs_name = false)
      : DeflateCodec(DeflateWrapper::kGzip, "gzip"),
        level_(level),
        numcodecs_name_(numcodecs_name) {}

  // {"level": 0-9}; required in v3, default 1 (numcodecs' default) in v2.
  static Result<std::shared_ptr<const GzipCodec>> Make(
      internal::CodecConfig& config, std::optional<int64_t> default_level,
      bool numcodecs_name);

  std::string name() const override {
    return numcodecs_name_ ? "numcodecs.gzip" : "gzip";
  }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override { return {{"id", "gzip"}, {"level", level_}}; }
  Result<Buffer> Encode(ByteView decoded) const override;

  int level() const { return level_; }

 private:
  int level_;
  bool numcodecs_name_;
};

}  // namespace turbozarr
