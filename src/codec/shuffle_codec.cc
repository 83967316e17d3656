#include "codec/shuffle_codec.h"

#include <string>

namespace turbozarr {
namespace {

// Byte k of element i moves to k * count + i (shuffle) or back (unshuffle).
Buffer Transpose(ByteView in, size_t elementsize, bool shuffle) {
  Buffer out(in.size());
  const size_t count = in.size() / elementsize;
  const std::byte* src = in.data();
  std::byte* dst = out.data();
  for (size_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < elementsize; ++k) {
      const size_t element_order = i * elementsize + k;
      const size_t grouped = k * count + i;
      if (shuffle) {
        dst[grouped] = src[element_order];
      } else {
        dst[element_order] = src[grouped];
      }
    }
  }
  return out;
}

std::string PartialElements(size_t bytes, size_t elementsize) {
  return "codec shuffle: " + std::to_string(bytes) + " bytes are not a whole number of " +
         std::to_string(elementsize) + "-byte elements";
}

}  // namespace

Result<std::shared_ptr<const ShuffleCodec>> ShuffleCodec::Make(internal::CodecConfig& config,
                                                               bool in_v3) {
  TZ_ASSIGN_OR_RETURN(int64_t elementsize, config.Int("elementsize", 4));
  TZ_RETURN_NOT_OK(config.Finish());
  if (elementsize < 0) return config.Invalid("elementsize", "must not be negative");
  return std::make_shared<const ShuffleCodec>(elementsize, in_v3);
}

nlohmann::json ShuffleCodec::ToV2Json() const {
  return {{"id", "shuffle"}, {"elementsize", elementsize_}};
}

nlohmann::json ShuffleCodec::ToJson() const {
  return internal::NumcodecsV3Json(ToV2Json());
}

Result<Buffer> ShuffleCodec::Encode(ByteView decoded) const {
  if (elementsize_ <= 1) return Buffer(decoded);
  const size_t size = static_cast<size_t>(elementsize_);
  if (decoded.size() % size != 0) {
    return Status::InvalidArgument(PartialElements(decoded.size(), size));
  }
  return Transpose(decoded, size, /*shuffle=*/true);
}

Result<Buffer> ShuffleCodec::Decode(ByteView encoded,
                                    std::optional<size_t> expected_size) const {
  if (expected_size && *expected_size != encoded.size()) {
    return Status::Corruption("codec shuffle: expected " + std::to_string(*expected_size) +
                              " bytes, got " + std::to_string(encoded.size()));
  }
  if (elementsize_ <= 1) return Buffer(encoded);
  const size_t size = static_cast<size_t>(elementsize_);
  if (encoded.size() % size != 0) {
    return Status::Corruption(PartialElements(encoded.size(), size));
  }
  return Transpose(encoded, size, /*shuffle=*/false);
}

}  // namespace turbozarr
