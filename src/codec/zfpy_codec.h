// ZfpyCodec: numcodecs' "zfpy" codec, zfp's lossy (or reversible)
// compression of 1- to 4-dimensional arrays of float32, float64, int32 or
// int64, through libzfp as the zfpy package calls it: a full zfp header
// (type, shape, mode) before the stream, so that a chunk decodes alone.
// zfp compresses blocks of 4^d values across the chunk's dimensions, so it
// needs the chunk's shape and type: an array->bytes codec (the serializer),
// where zarr-python has it in v3 ("numcodecs.zfpy") and where numcodecs
// runs it in v2 (the "compressor", handed the chunk as an array).
//
// Configuration as numcodecs writes it: "mode" 4 (fixed accuracy,
// "tolerance"), 2 (fixed rate, "rate": bits per value) or 3 (fixed
// precision, "precision": bit planes); a negative parameter means zfp's
// reversible mode, as zfpy reads it. v2 also carries "compression_kwargs"
// and all three parameters, written back as numcodecs writes them.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class ZfpyCodec final : public ArrayToBytesCodec, public internal::NumcodecsCodec {
 public:
  enum Mode { kFixedRate = 2, kFixedPrecision = 3, kFixedAccuracy = 4 };

  static Result<std::shared_ptr<const ZfpyCodec>> Make(internal::CodecConfig& config,
                                                       const ArraySpec& spec, bool in_v3);
  // A v2 configuration (defaults filled in) as numcodecs writes it: id,
  // mode, compression_kwargs (the mode's parameter), tolerance, rate,
  // precision, then anything else.
  static void CompleteV2(nlohmann::ordered_json& config);

  // `fields`: the configuration as read ("id" left out), written back as
  // read in v3; in v2 numcodecs' full form.
  ZfpyCodec(Mode mode, double parameter, nlohmann::json fields, bool in_v3)
      : mode_(mode), parameter_(parameter), fields_(std::move(fields)), in_v3_(in_v3) {}

  std::string name() const override { return in_v3_ ? "numcodecs.zfpy" : "zfpy"; }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<Buffer> Encode(const ChunkArray& array, const ArraySpec& spec) const override;
  Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const override;

 private:
  Mode mode_;
  double parameter_;  // the mode's tolerance, rate or precision; < 0: reversible
  nlohmann::json fields_;
  bool in_v3_;
};

}  // namespace turbozarr
