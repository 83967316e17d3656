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
  return internal::DeflateCompress(internal::DeflateWrapper::kZlib,
                                   level_ < 0 ? 6 : level_, decoded, "zlib");
}

Result<Buffer> ZlibCodec::Decode(ByteView encoded,
                                 std::optional<size_t> expected_size) const {
  return internal::DeflateDecompress(internal::DeflateWrapper::kZlib, encoded,
                                     expected_size, "zlib");
}

Status ZlibCodec::DecodeInto(ByteView encoded, MutableByteView out) const {
  return internal::DeflateDecompressInto(internal::DeflateWrapper::kZlib, encoded, out,
                                         "zlib");
}

}  // namespace turbozarr
