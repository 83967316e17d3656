#include "codec/packbits_codec.h"

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

// Bytes of the encoded chunk of n booleans: the padding count and the bits.
int64_t PackedSize(int64_t n) { return 1 + (n + 7) / 8; }

}  // namespace

Result<std::shared_ptr<const PackBitsCodec>> PackBitsCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3) {
  TZ_RETURN_NOT_OK(config.Finish());
  if (spec.dtype.id() != DataTypeId::kBool) {
    return Status::Unsupported("codec packbits: the array's data type " +
                               spec.dtype.ToString() + " is not bool");
  }
  return std::make_shared<const PackBitsCodec>(in_v3);
}

Result<ArraySpec> PackBitsCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded;
  encoded.shape = {PackedSize(decoded.num_elements())};
  encoded.dtype = DataType(DataTypeId::kUInt8);
  encoded.fill_value = DefaultFillValue(encoded.dtype);
  return encoded;
}

Result<ChunkArray> PackBitsCodec::Encode(ChunkArray decoded) const {
  const int64_t n = decoded.num_elements();
  ChunkArray out = internal::NewChunk({PackedSize(n)}, DataType(DataTypeId::kUInt8));
  auto* dst = reinterpret_cast<uint8_t*>(out.bytes.data());
  const auto* src = reinterpret_cast<const uint8_t*>(decoded.bytes.data());
  dst[0] = static_cast<uint8_t>((8 - n % 8) % 8);
  for (int64_t i = 0; i < (n + 7) / 8; ++i) {
    uint8_t byte = 0;
    for (int64_t j = 0; j < 8; ++j) {
      const int64_t k = i * 8 + j;
      if (k < n && src[k] != 0) byte |= static_cast<uint8_t>(0x80u >> j);
    }
    dst[1 + i] = byte;
  }
  return out;
}

Result<ChunkArray> PackBitsCodec::Decode(ChunkArray encoded,
                                         const ArraySpec& decoded) const {
  const int64_t n = decoded.num_elements();
  const DataType u8(DataTypeId::kUInt8);
  TZ_RETURN_NOT_OK(internal::CheckChunkElements(name(), encoded, u8, PackedSize(n)));
  const auto* src = reinterpret_cast<const uint8_t*>(encoded.bytes.data());
  if (src[0] != (8 - n % 8) % 8) {
    return Status::Corruption(
        "codec packbits: " + std::to_string(src[0]) + " padding bits recorded, " +
        std::to_string((8 - n % 8) % 8) + " expected for a chunk of " +
        std::to_string(n) + " elements");
  }
  ChunkArray out = internal::NewChunk(decoded.shape, DataType(DataTypeId::kBool));
  auto* dst = reinterpret_cast<uint8_t*>(out.bytes.data());
  for (int64_t k = 0; k < n; ++k) dst[k] = (src[1 + k / 8] >> (7 - k % 8)) & 1;
  return out;
}

}  // namespace turbozarr
