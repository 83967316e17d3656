// ShuffleCodec: numcodecs' "shuffle" filter, a bytes->bytes codec that
// groups the k-th byte of every element together (all first bytes, then all
// second bytes, ...) for elements of `elementsize` bytes, so that a
// compressor after it sees runs of similar bytes. Decoding puts the bytes
// back. An elementsize of 0 or 1 leaves the bytes as they are; a size that
// is not a whole number of elements is InvalidArgument (encode) or
// Corruption (decode), as numcodecs refuses it.
//
// numcodecs filters the stored bytes, so it goes in the chain after the
// bytes codec (which puts them in the array's byte order) and before the
// compressor.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class ShuffleCodec final : public BytesToBytesCodec, public internal::NumcodecsCodec {
 public:
  // From numcodecs' config {"elementsize": 4} (default 4). `in_v3`: the codec
  // appears as "numcodecs.shuffle" in a v3 array.
  static Result<std::shared_ptr<const ShuffleCodec>> Make(internal::CodecConfig& config,
                                                          bool in_v3);

  ShuffleCodec(int64_t elementsize, bool in_v3) : elementsize_(elementsize), in_v3_(in_v3) {}

  std::string name() const override { return in_v3_ ? "numcodecs.shuffle" : "shuffle"; }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<Buffer> Encode(ByteView decoded) const override;
  Result<Buffer> Decode(ByteView encoded, std::optional<size_t> expected_size) const override;
  std::optional<size_t> EncodedSize(size_t decoded) const override { return decoded; }

 private:
  int64_t elementsize_;
  bool in_v3_;
};

}  // namespace turbozarr
