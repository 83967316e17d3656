// BytesCodec: the zarr v3 "bytes" array->bytes codec. Fixed-size elements
// are stored packed in C order with a stated byte order; this is also how a
// v2 chunk's elements are laid out before its filters and compressor.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <bit>
#include <memory>
#include <optional>

#include "codec/codec_config.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class BytesCodec final : public ArrayToBytesCodec {
 public:
  // `endian` may be absent only for types without a byte order (1-byte
  // types, raw bits, fixed bytes).
  explicit BytesCodec(std::optional<std::endian> endian) : endian_(endian) {}

  // From the v3 configuration ({"endian": "little"|"big"}, optional) for
  // chunks of `spec`. Refuses variable-length types and a missing endian for
  // multi-byte types.
  static Result<std::shared_ptr<const BytesCodec>> Make(internal::CodecConfig& config,
                                                        const ArraySpec& spec);

  std::string name() const override { return "bytes"; }
  nlohmann::json ToJson() const override;
  Result<Buffer> Encode(const ChunkArray& array, const ArraySpec& spec) const override;
  Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const override;
  std::optional<size_t> EncodedSize(const ArraySpec& spec) const override;

  // The same as Encode/Decode, but handing the input's buffer on (swapped in
  // place if needed) instead of copying it.
  Result<Buffer> EncodeOwned(ChunkArray array, const ArraySpec& spec) const override;
  Result<ChunkArray> DecodeOwned(Buffer bytes, const ArraySpec& spec) const override;
  bool StoresElements() const override { return true; }
  // True when stored bytes must be swapped for `dtype` on this machine.
  bool NeedsSwap(const DataType& dtype) const override {
    return endian_ && *endian_ != std::endian::native && dtype.has_byte_order();
  }

  std::optional<std::endian> endian() const { return endian_; }

 private:
  std::optional<std::endian> endian_;
};

}  // namespace turbozarr
