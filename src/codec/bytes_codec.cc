#include "codec/bytes_codec.h"

#include "codec/raw_bytes.h"

namespace turbozarr {

Result<std::shared_ptr<const BytesCodec>> BytesCodec::Make(internal::CodecConfig& config,
                                                           const ArraySpec& spec) {
  if (spec.dtype.is_variable_length()) {
    return Status::InvalidArgument(
        "codec bytes: cannot encode the variable-length data type " +
        spec.dtype.ToString() + " (use vlen-utf8 or vlen-bytes)");
  }
  std::optional<std::endian> endian;
  if (config.Has("endian")) {
    TZ_ASSIGN_OR_RETURN(std::string e, config.String("endian"));
    if (e == "little") {
      endian = std::endian::little;
    } else if (e == "big") {
      endian = std::endian::big;
    } else {
      return config.Invalid("endian",
                            "expected \"little\" or \"big\", got \"" + e + "\"");
    }
  } else if (spec.dtype.has_byte_order()) {
    return config.Invalid(
        "endian", "is required for the multi-byte data type " + spec.dtype.ToString());
  }
  TZ_RETURN_NOT_OK(config.Finish());
  return std::make_shared<const BytesCodec>(endian);
}

nlohmann::json BytesCodec::ToJson() const {
  if (!endian_) return {{"name", "bytes"}};
  return {{"name", "bytes"},
          {"configuration",
           {{"endian", *endian_ == std::endian::little ? "little" : "big"}}}};
}

std::optional<size_t> BytesCodec::EncodedSize(const ArraySpec& spec) const {
  if (spec.dtype.is_variable_length()) return std::nullopt;
  return static_cast<size_t>(spec.num_elements()) * spec.dtype.size();
}

namespace {

// InvalidArgument (encoding) or Corruption (decoding) unless `size` is the
// byte size of a chunk of `spec`.
Status CheckSize(const ArraySpec& spec, size_t size, bool decoding) {
  if (spec.dtype.is_variable_length()) {
    return Status::InvalidArgument("codec bytes: cannot code the variable-length type " +
                                   spec.dtype.ToString());
  }
  const size_t expected = static_cast<size_t>(spec.num_elements()) * spec.dtype.size();
  if (size == expected) return Status::OK();
  std::string msg = "codec bytes: chunk of shape " + internal::ShapeString(spec.shape) +
                    " and type " + spec.dtype.ToString() + " needs " +
                    std::to_string(expected) + " bytes, got " + std::to_string(size);
  return decoding ? Status::Corruption(std::move(msg))
                  : Status::InvalidArgument(std::move(msg));
}

}  // namespace

Result<Buffer> BytesCodec::EncodeOwned(ChunkArray array, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSize(spec, array.bytes.size(), /*decoding=*/false));
  if (NeedsSwap(spec.dtype)) {
    internal::CopySwappedElements(array.bytes.data(), array.bytes.data(), array.bytes.size(), spec.dtype);
  }
  return std::move(array.bytes);
}

Result<ChunkArray> BytesCodec::DecodeOwned(Buffer bytes, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSize(spec, bytes.size(), /*decoding=*/true));
  if (NeedsSwap(spec.dtype)) {
    internal::CopySwappedElements(bytes.data(), bytes.data(), bytes.size(), spec.dtype);
  }
  ChunkArray out;
  out.shape = spec.shape;
  out.dtype = spec.dtype;
  out.bytes = std::move(bytes);
  return out;
}

Result<Buffer> BytesCodec::Encode(const ChunkArray& array, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSize(spec, array.bytes.size(), /*decoding=*/false));
  const size_t expected = array.bytes.size();
  if (!NeedsSwap(spec.dtype)) return Buffer(array.bytes.view());
  Buffer out(expected);
  internal::CopySwappedElements(out.data(), array.bytes.data(), expected, spec.dtype);
  return out;
}

Result<ChunkArray> BytesCodec::Decode(ByteView bytes, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSize(spec, bytes.size(), /*decoding=*/true));
  const size_t expected = bytes.size();
  ChunkArray out;
  out.shape = spec.shape;
  out.dtype = spec.dtype;
  if (!NeedsSwap(spec.dtype)) {
    out.bytes.Assign(bytes);
  } else {
    out.bytes.Resize(expected);
    internal::CopySwappedElements(out.bytes.data(), bytes.data(), expected, spec.dtype);
  }
  return out;
}

}  // namespace turbozarr
