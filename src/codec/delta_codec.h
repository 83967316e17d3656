// DeltaCodec: numcodecs' "delta" filter, an array->array codec that stores
// the first element of a chunk and then each element's difference from the
// one before it (in the chunk's memory order), so that slowly changing
// values compress well. Decoding is the running sum.
//
// The arithmetic is numcodecs': in the element type, integers wrapping
// around, floats added one after another as numpy's cumsum does. Only
// `astype` equal to `dtype` is supported (numcodecs' default); a narrower
// `astype` is Unsupported rather than guessed at, as is a `dtype` other than
// the array's (numcodecs would reinterpret the bytes).
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>
#include <string>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class DeltaCodec final : public ArrayToArrayCodec, public internal::NumcodecsCodec {
 public:
  // From numcodecs' config {"dtype": "<i4", "astype": "<i4"} for chunks of
  // `spec`. `in_v3`: the codec appears as "numcodecs.delta" in a v3 array.
  static Result<std::shared_ptr<const DeltaCodec>> Make(internal::CodecConfig& config,
                                                        const ArraySpec& spec, bool in_v3);

  DeltaCodec(std::string dtype, DataType type, bool in_v3)
      : dtype_(std::move(dtype)), type_(type), in_v3_(in_v3) {}

  std::string name() const override { return in_v3_ ? "numcodecs.delta" : "delta"; }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override { return decoded; }
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

 private:
  std::string dtype_;  // as numcodecs spells it, e.g. "<i4"
  DataType type_;
  bool in_v3_;
};

}  // namespace turbozarr
