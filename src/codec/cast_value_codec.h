// CastValueCodec: the v3 "cast_value" array->array codec (zarr-extensions,
// zarr-python 3.4): stores the chunk's values converted to another numeric
// type by value (not by bits), with a rounding mode, an out-of-range rule
// and an optional scalar map, and converts them back the same way on
// decoding (value_cast.h says how, value for value as zarr-python's
// backend).
//
// {"name": "cast_value", "configuration": {"data_type": "uint8",
//   "rounding": "towards-zero", "out_of_range": "clamp",
//   "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}
// rounding: "nearest-even" (default), "towards-zero", "towards-positive",
// "towards-negative", "nearest-away"; out_of_range: absent (an error),
// "clamp" or "wrap" (integer targets only). The array's type and data_type
// are int8 ... uint64, float16, float32 or float64. Scalar map entries are
// [source, target] pairs; a source given twice keeps its last target, as
// zarr-python's dict does. The fill value is encoded too.
//
// A value with no result is InvalidArgument when writing and Corruption
// when reading (the stored value has no value in the array's type).
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/value_cast.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class CastValueCodec final : public ArrayToArrayCodec {
 public:
  static Result<std::shared_ptr<const CastValueCodec>> Make(internal::CodecConfig& config,
                                                            const ArraySpec& spec);

  CastValueCodec(internal::ValueCast encode, internal::ValueCast decode, nlohmann::json json)
      : encode_(std::move(encode)), decode_(std::move(decode)), json_(std::move(json)) {}

  std::string name() const override { return "cast_value"; }
  nlohmann::json ToJson() const override { return json_; }
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  internal::ValueCast encode_;  // the array's type -> data_type
  internal::ValueCast decode_;  // data_type -> the array's type
  nlohmann::json json_;
};

}  // namespace turbozarr
