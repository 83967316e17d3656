// FixedScaleOffsetCodec: numcodecs' "fixedscaleoffset" filter, an
// array->array codec that stores round((x - offset) * scale) converted to
// `astype` (often a narrow integer), and decodes y / scale + offset
// converted back to `dtype`. Lossy: values keep 1/scale of precision.
//
// The arithmetic is numpy 2's, step by step, as numcodecs writes it:
//  - x - offset in the array's type when it is a float or offset is an
//    integer (integers wrapping around), else in float64; then * scale the
//    same way (in float64 once a float scale meets integers);
//  - np.around: round half to even; astype: numpy's conversion
//    (numpy_cast.h), wrapping around out of the integer's range;
//  - decoding divides in astype when it is a float, else in float64 (true
//    division), adds offset, and converts to dtype.
// An integer offset or scale outside an integer dtype's range is refused by
// numpy 2 when encoding; here such a codec decodes but will not encode.
//
// {"id": "fixedscaleoffset", "scale": 10, "offset": 1000, "dtype": "<f8",
// "astype": "|u1"}; "numcodecs.fixedscaleoffset" in v3. Numeric
// little-endian types; dtype must be the array's.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>
#include <string>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/numpy_cast.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class FixedScaleOffsetCodec final : public internal::NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const FixedScaleOffsetCodec>> Make(
      internal::CodecConfig& config, const ArraySpec& spec, bool in_v3);

  struct Params {
    nlohmann::json offset, scale;  // as given: an integer or a float
    internal::NumpyDtype dtype, astype;
    std::string encode_error;  // why numpy would refuse to encode; empty if it would not
  };
  FixedScaleOffsetCodec(Params p, bool in_v3)
      : NumcodecsFilter("fixedscaleoffset", in_v3), p_(std::move(p)) {}

  nlohmann::json ToV2Json() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  Status EncodeElements(const std::byte* src, std::byte* dst, int64_t n) const;

  Params p_;
};

}  // namespace turbozarr
