// Crc32cCodec: the zarr v3 "crc32c" bytes->bytes codec (and numcodecs'
// CRC32C): appends the CRC-32C of the data as 4 little-endian bytes, or, for
// numcodecs' location "start", puts them first. Decoding checks the sum.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class Crc32cCodec final : public BytesToBytesCodec, public internal::NumcodecsCodec {
 public:
  enum class Location { kStart, kEnd };
  // `numcodecs_name`: write ToJson as "numcodecs.crc32c" rather than "crc32c".
  explicit Crc32cCodec(Location location = Location::kEnd, bool numcodecs_name = false)
      : location_(location), numcodecs_name_(numcodecs_name) {}

  // The zarr v3 codec: no configuration.
  static Result<std::shared_ptr<const Crc32cCodec>> Make(internal::CodecConfig& config);
  // numcodecs' CRC32C: {"location": "start"|"end"} (default "end").
  static Result<std::shared_ptr<const Crc32cCodec>> MakeNumcodecs(
      internal::CodecConfig& config, bool numcodecs_name);

  std::string name() const override {
    return numcodecs_name_ ? "numcodecs.crc32c" : "crc32c";
  }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<Buffer> Encode(ByteView decoded) const override;
  Result<Buffer> Decode(ByteView encoded,
                        std::optional<size_t> expected_size) const override;
  std::optional<size_t> EncodedSize(size_t decoded) const override { return decoded + 4; }
  bool IsChecksum() const override { return true; }
  // Checks the sum of `encoded` and returns the payload without copying it.
  Result<ByteView> Verify(ByteView encoded) const override;

 private:
  Location location_;
  bool numcodecs_name_;
};

}  // namespace turbozarr
