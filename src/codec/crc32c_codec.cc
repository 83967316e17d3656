#include "codec/crc32c_codec.h"

#include <cstdio>

#include "codec/raw_bytes.h"
#include "util/crc32c.h"

namespace turbozarr {
namespace {

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

}  // namespace

Result<std::shared_ptr<const Crc32cCodec>> Crc32cCodec::Make(
    internal::CodecConfig& config) {
  TZ_RETURN_NOT_OK(config.Finish());
  return std::make_shared<const Crc32cCodec>();
}

Result<std::shared_ptr<const Crc32cCodec>> Crc32cCodec::MakeNumcodecs(
    internal::CodecConfig& config, bool numcodecs_name) {
  TZ_ASSIGN_OR_RETURN(std::string loc, config.String("location", "end"));
  TZ_RETURN_NOT_OK(config.Finish());
  if (loc != "start" && loc != "end") {
    return config.Invalid("location",
                          "expected \"start\" or \"end\", got \"" + loc + "\"");
  }
  return std::make_shared<const Crc32cCodec>(
      loc == "start" ? Location::kStart : Location::kEnd, numcodecs_name);
}

nlohmann::json Crc32cCodec::ToJson() const {
  if (!numcodecs_name_ && location_ == Location::kEnd) return {{"name", "crc32c"}};
  return internal::NumcodecsV3Json(ToV2Json());
}

nlohmann::json Crc32cCodec::ToV2Json() const {
  return {{"id", "crc32c"},
          {"location", location_ == Location::kStart ? "start" : "end"}};
}

Result<Buffer> Crc32cCodec::Encode(ByteView decoded) const {
  Buffer out(decoded.size() + 4);
  const uint32_t crc = Crc32c(decoded);
  std::byte* payload = out.data() + (location_ == Location::kStart ? 4 : 0);
  std::byte* sum = out.data() + (location_ == Location::kStart ? 0 : decoded.size());
  if (!decoded.empty()) std::memcpy(payload, decoded.data(), decoded.size());
  internal::StoreLE32(sum, crc);
  return out;
}

Result<ByteView> Crc32cCodec::Verify(ByteView encoded) const {
  if (encoded.size() < 4) {
    return Status::Corruption("codec crc32c: " + std::to_string(encoded.size()) +
                              " bytes cannot hold the 4-byte checksum");
  }
  const size_t n = encoded.size() - 4;
  ByteView payload =
      location_ == Location::kStart ? encoded.subspan(4) : encoded.first(n);
  const std::byte* sum =
      location_ == Location::kStart ? encoded.data() : encoded.data() + n;
  const uint32_t stored = internal::LoadLE32(sum);
  const uint32_t actual = Crc32c(payload);
  if (stored != actual) {
    return Status::Corruption("codec crc32c: checksum mismatch: expected " +
                              Hex32(stored) + " (stored), computed " + Hex32(actual));
  }
  return payload;
}

Result<Buffer> Crc32cCodec::Decode(ByteView encoded,
                                   std::optional<size_t> expected_size) const {
  TZ_ASSIGN_OR_RETURN(ByteView payload, Verify(encoded));
  if (expected_size && payload.size() != *expected_size) {
    return Status::Corruption("codec crc32c: expected " + std::to_string(*expected_size) +
                              " bytes, got " + std::to_string(payload.size()));
  }
  return Buffer(payload);
}

}  // namespace turbozarr
