#include "codec/crc32c_codec.h"

namespace turbozarr {

Result<std::shared_ptr<const Crc32cCodec>> Crc32cCodec::Make(
    internal::CodecConfig& config) {
  TZ_RETURN_NOT_OK(config.Finish());
  return std::make_shared<const Crc32cCodec>();
}

Result<std::shared_ptr<const Crc32cCodec>> Crc32cCodec::MakeNumcodecs(
    internal::CodecConfig& config, bool numcodecs_name) {
  TZ_ASSIGN_OR_RETURN(auto generic,
                      Checksum32Codec::MakeNumcodecs(kCrc32c, config, false));
  return std::make_shared<const Crc32cCodec>(generic->location(), numcodecs_name);
}

nlohmann::json Crc32cCodec::ToJson() const {
  if (!in_v3() && location() == Location::kEnd) return {{"name", "crc32c"}};
  return internal::NumcodecsV3Json(ToV2Json());
}

}  // namespace turbozarr
