#include "codec/bitround_codec.h"

#include <cstring>

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

// The mantissa's width in bits, 0 for types bitround does not take.
int MantissaBits(DataTypeId id) {
  switch (id) {
    case DataTypeId::kFloat16:
      return 10;
    case DataTypeId::kBFloat16:
      return 7;
    case DataTypeId::kFloat32:
      return 23;
    case DataTypeId::kFloat64:
      return 52;
    default:
      return 0;
  }
}

template <typename U>
void RoundBits(std::byte* data, int64_t n, int drop) {
  const U mask = static_cast<U>(~U{0} << drop);
  const U half_minus_one = static_cast<U>((U{1} << (drop - 1)) - 1);
  for (int64_t i = 0; i < n; ++i) {
    U b = internal::LoadElement<U>(data + i * sizeof(U));
    b = static_cast<U>(b + ((b >> drop) & 1) + half_minus_one);
    internal::StoreElement(data + i * sizeof(U), static_cast<U>(b & mask));
  }
}

}  // namespace

Result<std::shared_ptr<const BitRoundCodec>> BitRoundCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3) {
  TZ_ASSIGN_OR_RETURN(int64_t keepbits, config.Int("keepbits"));
  TZ_RETURN_NOT_OK(config.Finish());
  const int bits = MantissaBits(spec.dtype.id());
  if (bits == 0) {
    return Status::Unsupported("codec bitround: the array's data type " +
                               spec.dtype.ToString() +
                               " is not bfloat16, float16, float32 or float64");
  }
  if (keepbits < 0 || keepbits > bits) {
    return config.Invalid("keepbits", std::to_string(keepbits) + " is not in 0.." +
                                          std::to_string(bits) + " for " +
                                          spec.dtype.ToString());
  }
  return std::make_shared<const BitRoundCodec>(static_cast<int>(keepbits), spec.dtype,
                                               in_v3);
}

Result<ChunkArray> BitRoundCodec::Encode(ChunkArray decoded) const {
  const int drop = MantissaBits(type_.id()) - keepbits_;
  if (drop == 0) return decoded;
  // Logical shifts on the unsigned integer: (b >> drop) & 1 is the same bit
  // numpy's arithmetic shift finds, and the sums wrap around alike.
  std::byte* data = decoded.bytes.data();
  const int64_t n = decoded.num_elements();
  switch (type_.size()) {
    case 2:
      RoundBits<uint16_t>(data, n, drop);
      break;
    case 4:
      RoundBits<uint32_t>(data, n, drop);
      break;
    default:
      RoundBits<uint64_t>(data, n, drop);
      break;
  }
  return decoded;
}

Result<ChunkArray> BitRoundCodec::Decode(ChunkArray encoded,
                                         const ArraySpec& decoded) const {
  TZ_RETURN_NOT_OK(
      internal::CheckChunkElements(name(), encoded, type_, decoded.num_elements()));
  return encoded;
}

}  // namespace turbozarr
