// AsTypeCodec: numcodecs' "astype" filter, an array->array codec that stores
// the chunk's values converted to another numeric type (`encode_dtype`) and
// converts them back to the array's (`decode_dtype`) on decoding, both ways
// as numpy's astype does (numpy_cast.h: integers wrap around, floats
// truncate toward zero). Narrowing loses what the narrower type cannot hold.
//
// {"id": "astype", "encode_dtype": "<i2", "decode_dtype": "<f8"} in v2,
// "numcodecs.astype" with that configuration in v3. Only numeric,
// little-endian types; decode_dtype must be the array's type.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/numpy_cast.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class AsTypeCodec final : public internal::NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const AsTypeCodec>> Make(internal::CodecConfig& config,
                                                         const ArraySpec& spec,
                                                         bool in_v3);

  AsTypeCodec(internal::NumpyDtype encode, internal::NumpyDtype decode, bool in_v3)
      : NumcodecsFilter("astype", in_v3),
        encode_(std::move(encode)),
        decode_(std::move(decode)) {}

  nlohmann::json ToV2Json() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  internal::NumpyDtype encode_, decode_;
};

}  // namespace turbozarr
