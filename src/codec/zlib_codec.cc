#include "codec/zlib_codec.h"

#include "codec/deflate_engine.h"

namespace turbozarr {

Result<std::shared_ptr<const ZlibCodec>> ZlibCodec::Make(internal::CodecConfig& config) {
  TZ_ASSIGN_OR_RETURN(int64_t level, config.Int("level", 1));
  TZ_RETURN_NOT_OK(config.Finish());
  if (level < -1 || level > 9) {
    return config.Invalid("level", "must be in [-1, 9], got " + std::to_string(level));
  }
  return std::make_shared<const ZlibCodec>(static_cast<int>(level));
}

Result<Buffer> ZlibCodec::Encode(ByteView decoded) const {
  return Compress(level_ < 0 ? 6 : level_, decoded);
}

}  // namespace turbozarr
