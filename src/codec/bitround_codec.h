// BitRoundCodec: numcodecs' "bitround" filter, a lossy array->array codec
// for floats that keeps `keepbits` bits of the mantissa, rounding to
// nearest with ties to even on the bits as integers, as numcodecs does:
//   b += ((b >> drop) & 1) + (1 << (drop - 1)) - 1;  b &= ~0 << drop
// with drop = mantissa bits - keepbits, in the same-width integer, wrapping
// around (so a NaN may round to another NaN or an infinity, as there).
// keepbits equal to the mantissa's width (10, 23, 52 for float16/32/64)
// changes nothing. Decoding is the identity: the stored values are floats.
//
// {"id": "bitround", "keepbits": 10}; "numcodecs.bitround" in v3.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class BitRoundCodec final : public internal::NumcodecsFilter {
 public:
  // Unsupported unless the array's type is float16, float32 or float64;
  // InvalidArgument for keepbits < 0 or more than the mantissa holds.
  static Result<std::shared_ptr<const BitRoundCodec>> Make(internal::CodecConfig& config,
                                                           const ArraySpec& spec,
                                                           bool in_v3);

  BitRoundCodec(int keepbits, DataType type, bool in_v3)
      : NumcodecsFilter("bitround", in_v3), keepbits_(keepbits), type_(type) {}

  nlohmann::json ToV2Json() const override {
    return {{"id", "bitround"}, {"keepbits", keepbits_}};
  }
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override {
    return decoded;
  }
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  int keepbits_;
  DataType type_;
};

}  // namespace turbozarr
