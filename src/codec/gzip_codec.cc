#include "codec/gzip_codec.h"

#include "codec/deflate_engine.h"

namespace turbozarr {

Result<std::shared_ptr<const GzipCodec>> GzipCodec::Make(
    internal::CodecConfig& config, std::optional<int64_t> default_level,
    bool numcodecs_name) {
  TZ_ASSIGN_OR_RETURN(int64_t level, config.Int("level", default_level));
  TZ_RETURN_NOT_OK(config.Finish());
  if (level < 0 || level > 9) {
    return config.Invalid("level", "must be in [0, 9], got " + std::to_string(level));
  }
  return std::make_shared<const GzipCodec>(static_cast<int>(level), numcodecs_name);
}

nlohmann::json GzipCodec::ToJson() const {
  if (numcodecs_name_) return internal::NumcodecsV3Json(ToV2Json());
  return {{"name", "gzip"}, {"configuration", {{"level", level_}}}};
}

Result<Buffer> GzipCodec::Encode(ByteView decoded) const {
  return Compress(level_, decoded);
}

}  // namespace turbozarr
