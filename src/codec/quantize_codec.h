// QuantizeCodec: numcodecs' "quantize" filter, a lossy array->array codec
// for floats that keeps about `digits` decimal digits after the point:
// round(x * 2^bits) / 2^bits, converted to `astype`, with numcodecs'
//   precision = 10^-digits; e = floor(log10(precision)) (ceil if >= 0);
//   bits = ceil(log2(10^-e))
// computed in double as Python's math module does, and the rounding (half
// to even) and division in the array's float type. Decoding only converts
// astype back to dtype.
//
// {"id": "quantize", "digits": 3, "dtype": "<f8", "astype": "<f4"};
// "numcodecs.quantize" in v3 (where zarr-python keeps the array's type, so
// astype must equal dtype there). Float, little-endian types; dtype must be
// the array's.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/numpy_cast.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class QuantizeCodec final : public internal::NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const QuantizeCodec>> Make(internal::CodecConfig& config,
                                                           const ArraySpec& spec,
                                                           bool in_v3);

  QuantizeCodec(int64_t digits, double scale, internal::NumpyDtype dtype,
                internal::NumpyDtype astype, bool in_v3)
      : NumcodecsFilter("quantize", in_v3),
        digits_(digits),
        scale_(scale),
        dtype_(std::move(dtype)),
        astype_(std::move(astype)) {}

  // numcodecs' 2^bits for `digits`; InvalidArgument where Python's math
  // raises (digits so large that 10^-digits is 0).
  static Result<double> ScaleFor(int64_t digits);

  nlohmann::json ToV2Json() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  void EncodeElements(const std::byte* src, std::byte* dst, int64_t n) const;

  int64_t digits_;
  double scale_;
  internal::NumpyDtype dtype_, astype_;
};

}  // namespace turbozarr
