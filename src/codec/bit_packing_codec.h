// BitPackingCodec: the zarr-extensions "packbits" array->bytes codec, which
// stores each element in as many bits as its type needs (int4 in 4, bool in
// 1) or in a chosen range of its bits. The elements are laid end to end in C
// order as one bit sequence, least significant bit first within each byte;
// the bits of an element are its components' (real then imaginary for
// complex numbers), each from `first_bit` to `last_bit` of its little-endian
// value. The sequence is padded with zero bits to whole bytes, and the
// number of padding bits may be stored in an extra first or last byte.
//
// {"name": "packbits", "configuration": {"padding_encoding": "none" |
// "first_byte" | "last_byte", "first_bit": null | n, "last_bit": null | n}},
// all optional (none, 0 and the component's top bit). It takes bool, the
// integers, the floats (low-precision ones included) and complex numbers;
// decoding sign-extends signed integers from their top stored bit and
// zero-extends the rest. (numcodecs' "packbits" filter for v2 bool arrays is
// PackBitsCodec.)
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class BitPackingCodec final : public ArrayToBytesCodec {
 public:
  enum class Padding { kNone, kFirstByte, kLastByte };

  // Unsupported for types it cannot pack (strings, bytes, times, structs);
  // InvalidArgument for a bit range outside the type's components.
  static Result<std::shared_ptr<const BitPackingCodec>> Make(internal::CodecConfig& config,
                                                             const ArraySpec& spec);

  BitPackingCodec(Padding padding, int first_bit, int last_bit, bool first_given,
                  bool last_given, int component_bits, int num_components, bool is_signed);

  std::string name() const override { return "packbits"; }
  nlohmann::json ToJson() const override;
  Result<Buffer> Encode(const ChunkArray& array, const ArraySpec& spec) const override;
  Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const override;
  std::optional<size_t> EncodedSize(const ArraySpec& spec) const override;

 private:
  Padding padding_;
  int first_bit_;
  int last_bit_;
  bool first_given_;
  bool last_given_;
  int component_bits_;  // N: the bits of one component of the type
  int num_components_;  // 2 for complex numbers, else 1
  bool is_signed_;
};

}  // namespace turbozarr
