#include "codec/astype_codec.h"

namespace turbozarr {

using internal::NumpyDtype;

Result<std::shared_ptr<const AsTypeCodec>> AsTypeCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3) {
  TZ_ASSIGN_OR_RETURN(NumpyDtype encode,
                      internal::ReadNumpyDtype(config, "encode_dtype"));
  // zarr-python fills decode_dtype in from the array; numcodecs needs it.
  TZ_ASSIGN_OR_RETURN(
      NumpyDtype decode,
      internal::ReadNumpyDtype(config, "decode_dtype", spec.dtype.ToV2TypeString()));
  TZ_RETURN_NOT_OK(config.Finish());
  for (const auto& [key, dtype] :
       {std::pair{"encode_dtype", &encode}, std::pair{"decode_dtype", &decode}}) {
    if (!internal::IsNumericType(dtype->type.id())) {
      return internal::UnsupportedDtype(config, key, *dtype, "is not a numeric type");
    }
  }
  TZ_RETURN_NOT_OK(
      internal::RequireArrayType(config, "decode_dtype", decode, spec.dtype));
  return std::make_shared<const AsTypeCodec>(std::move(encode), std::move(decode), in_v3);
}

nlohmann::json AsTypeCodec::ToV2Json() const {
  return {{"id", "astype"},
          {"encode_dtype", encode_.spelled},
          {"decode_dtype", decode_.spelled}};
}

Result<ArraySpec> AsTypeCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded = decoded;
  encoded.dtype = encode_.type;
  encoded.fill_value.bytes = Buffer(encode_.type.size());
  internal::CastElements(decoded.fill_value.bytes.data(), decode_.type.id(),
                         encoded.fill_value.bytes.data(), encode_.type.id(), 1);
  return encoded;
}

Result<ChunkArray> AsTypeCodec::Encode(ChunkArray decoded) const {
  std::vector<int64_t> shape = decoded.shape;
  return internal::CastChunk(std::move(decoded), encode_.type, std::move(shape));
}

Result<ChunkArray> AsTypeCodec::Decode(ChunkArray encoded,
                                       const ArraySpec& decoded) const {
  TZ_RETURN_NOT_OK(internal::CheckChunkElements(name(), encoded, encode_.type,
                                                decoded.num_elements()));
  return internal::CastChunk(std::move(encoded), decode_.type, decoded.shape);
}

}  // namespace turbozarr
