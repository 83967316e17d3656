// ScaleOffsetCodec: the v3 "scale_offset" array->array codec (zarr-python
// 3.4, zarr-extensions): encodes (x - offset) * scale and decodes
// x / scale + offset in the array's own type.
//
// As zarr-python: integers compute exactly and a result outside the type's
// range is an error (InvalidArgument when encoding, Corruption when
// decoding), as is a stored integer that scale does not divide exactly;
// floats compute in their type (float16 through float32, as numpy), where
// overflow is infinity. offset and scale are scalars of the array's type in
// its v3 JSON spelling (numbers, "NaN", "0x..." bits, numeric strings),
// default 0 and 1; scale may not be 0. The fill value is encoded too.
//
// {"name": "scale_offset", "configuration": {"offset": 5, "scale": 10}};
// the configuration lists only fields that differ from their defaults.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class ScaleOffsetCodec final : public ArrayToArrayCodec {
 public:
  // Unsupported unless the array's type is an integer or a float.
  static Result<std::shared_ptr<const ScaleOffsetCodec>> Make(
      internal::CodecConfig& config, const ArraySpec& spec);

  ScaleOffsetCodec(nlohmann::json offset_json, nlohmann::json scale_json, DataType type,
                   Buffer offset, Buffer scale)
      : offset_json_(std::move(offset_json)),
        scale_json_(std::move(scale_json)),
        type_(type),
        offset_(std::move(offset)),
        scale_(std::move(scale)) {}

  std::string name() const override { return "scale_offset"; }
  nlohmann::json ToJson() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  Status Run(bool encode, const std::byte* src, std::byte* dst, int64_t n) const;

  nlohmann::json offset_json_, scale_json_;  // as given, null when absent
  DataType type_;
  Buffer offset_, scale_;  // one element of type_ each
};

}  // namespace turbozarr
