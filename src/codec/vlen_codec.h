// VLenCodec: the "vlen-utf8" and "vlen-bytes" array->bytes codecs for
// variable-length strings and byte strings, in numcodecs' VLenUTF8/VLenBytes
// layout (the same bytes in v2 filters and v3 codecs):
//
//   uint32 LE item count, then per item: uint32 LE length, then the bytes.
//
// vlen-utf8 also checks that every item is valid UTF-8 (numcodecs would
// refuse to decode anything else).
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class VLenCodec final : public ArrayToBytesCodec, public internal::NumcodecsCodec {
 public:
  enum class Flavor { kUtf8, kBytes };
  explicit VLenCodec(Flavor flavor) : flavor_(flavor) {}

  // From the (empty) configuration, for chunks of a variable-length `spec`.
  static Result<std::shared_ptr<const VLenCodec>> Make(Flavor flavor,
                                                       internal::CodecConfig& config,
                                                       const ArraySpec& spec);

  std::string name() const override {
    return flavor_ == Flavor::kUtf8 ? "vlen-utf8" : "vlen-bytes";
  }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override { return {{"id", name()}}; }
  Result<Buffer> Encode(const ChunkArray& array, const ArraySpec& spec) const override;
  Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const override;

  Flavor flavor() const { return flavor_; }

 private:
  Flavor flavor_;
};

namespace internal {
// True when s is well-formed UTF-8 (no overlongs, surrogates or values past
// U+10FFFF), as Python's decoder demands.
bool IsValidUtf8(std::string_view s);
}  // namespace internal

}  // namespace turbozarr
