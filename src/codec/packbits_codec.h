// PackBitsCodec: numcodecs' "packbits" filter, an array->array codec that
// packs a chunk of booleans eight to a byte. The encoded chunk is a flat
// uint8 array of 1 + ceil(n / 8) bytes: first the number of padding bits in
// the last byte (0..7), then np.packbits of the elements in C order (the
// first element in the most significant bit).
//
// {"id": "packbits"} in v2 arrays of "|b1"; "numcodecs.packbits" in v3
// arrays of bool. Decoding checks the size and the padding count, so a
// truncated or foreign chunk is Corruption rather than a short read.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class PackBitsCodec final : public internal::NumcodecsFilter {
 public:
  // Unsupported unless the array's type is bool.
  static Result<std::shared_ptr<const PackBitsCodec>> Make(internal::CodecConfig& config,
                                                           const ArraySpec& spec,
                                                           bool in_v3);

  explicit PackBitsCodec(bool in_v3) : NumcodecsFilter("packbits", in_v3) {}

  nlohmann::json ToV2Json() const override { return {{"id", "packbits"}}; }
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;
};

}  // namespace turbozarr
