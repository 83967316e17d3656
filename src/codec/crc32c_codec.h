// Crc32cCodec: the zarr v3 "crc32c" bytes->bytes codec: appends the CRC-32C
// of the data as 4 little-endian bytes and checks it on decoding. It is the
// crc32c of numcodecs' 32-bit checksum family (checksum32_codec.h), whose
// layout it shares; numcodecs' CRC32C (location "start" or "end") is the
// same codec spelled "numcodecs.crc32c" or {"id": "crc32c"}.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/checksum32_codec.h"

namespace turbozarr {

class Crc32cCodec final : public Checksum32Codec {
 public:
  // `numcodecs_name`: write ToJson as "numcodecs.crc32c" rather than "crc32c".
  explicit Crc32cCodec(Location location = Location::kEnd, bool numcodecs_name = false)
      : Checksum32Codec(kCrc32c, location, numcodecs_name) {}

  // The zarr v3 codec: no configuration.
  static Result<std::shared_ptr<const Crc32cCodec>> Make(internal::CodecConfig& config);
  // numcodecs' CRC32C: {"location": "start"|"end"} (default "end").
  static Result<std::shared_ptr<const Crc32cCodec>> MakeNumcodecs(
      internal::CodecConfig& config, bool numcodecs_name);

  std::string name() const override { return in_v3() ? "numcodecs.crc32c" : "crc32c"; }
  nlohmann::json ToJson() const override;
};

}  // namespace turbozarr
