#include "codec/checksum32_codec.h"

#include <libdeflate.h>

#include <cstdio>
#include <cstring>

#include "codec/raw_bytes.h"
#include "util/crc32c.h"

namespace turbozarr {
namespace {

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

uint32_t Crc32Sum(ByteView data) { return libdeflate_crc32(0, data.data(), data.size()); }
uint32_t Adler32Sum(ByteView data) {
  return libdeflate_adler32(1, data.data(), data.size());
}
uint32_t Crc32cSum(ByteView data) { return Crc32c(data); }

}  // namespace

uint32_t Fletcher32(ByteView data) {
  // Sums of up to 360 words fit 32 bits before the carries are folded in.
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t words = data.size() / 2;
  uint32_t sum1 = 0, sum2 = 0;
  while (words > 0) {
    size_t block = words > 360 ? 360 : words;
    words -= block;
    for (; block > 0; --block, p += 2) {
      sum1 += static_cast<uint32_t>(p[0]) << 8 | p[1];
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (data.size() % 2 != 0) {
    sum1 += static_cast<uint32_t>(p[0]) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return sum2 << 16 | sum1;
}

const Checksum32Codec::Algorithm Checksum32Codec::kCrc32 = {"crc32", Crc32Sum,
                                                            Location::kStart, true};
const Checksum32Codec::Algorithm Checksum32Codec::kAdler32 = {"adler32", Adler32Sum,
                                                              Location::kStart, true};
const Checksum32Codec::Algorithm Checksum32Codec::kCrc32c = {"crc32c", Crc32cSum,
                                                             Location::kEnd, true};
const Checksum32Codec::Algorithm Checksum32Codec::kFletcher32 = {"fletcher32", Fletcher32,
                                                                 Location::kEnd, false};

Result<std::shared_ptr<const Checksum32Codec>> Checksum32Codec::MakeNumcodecs(
    const Algorithm& algorithm, internal::CodecConfig& config, bool in_v3) {
  Location location = algorithm.default_location;
  if (algorithm.has_location) {
    TZ_ASSIGN_OR_RETURN(
        std::string loc,
        config.String("location", location == Location::kStart ? "start" : "end"));
    if (loc != "start" && loc != "end") {
      return config.Invalid("location",
                            "expected \"start\" or \"end\", got \"" + loc + "\"");
    }
    location = loc == "start" ? Location::kStart : Location::kEnd;
  }
  TZ_RETURN_NOT_OK(config.Finish());
  return std::make_shared<const Checksum32Codec>(algorithm, location, in_v3);
}

std::string Checksum32Codec::name() const {
  return in_v3_ ? std::string("numcodecs.") + algorithm_.id : algorithm_.id;
}

nlohmann::json Checksum32Codec::ToJson() const {
  return internal::NumcodecsV3Json(ToV2Json());
}

nlohmann::json Checksum32Codec::ToV2Json() const {
  nlohmann::json j = {{"id", algorithm_.id}};
  if (algorithm_.has_location) {
    j["location"] = location_ == Location::kStart ? "start" : "end";
  }
  return j;
}

Result<Buffer> Checksum32Codec::Encode(ByteView decoded) const {
  Buffer out(decoded.size() + 4);
  const bool start = location_ == Location::kStart;
  if (!decoded.empty())
    std::memcpy(out.data() + (start ? 4 : 0), decoded.data(), decoded.size());
  internal::StoreLE32(out.data() + (start ? 0 : decoded.size()), algorithm_.sum(decoded));
  return out;
}

Result<ByteView> Checksum32Codec::Verify(ByteView encoded) const {
  const std::string codec = std::string("codec ") + algorithm_.id + ": ";
  if (encoded.size() < 4) {
    return Status::Corruption(codec + std::to_string(encoded.size()) +
                              " bytes cannot hold the 4-byte checksum");
  }
  const size_t n = encoded.size() - 4;
  const bool start = location_ == Location::kStart;
  ByteView payload = start ? encoded.subspan(4) : encoded.first(n);
  const uint32_t stored = internal::LoadLE32(encoded.data() + (start ? 0 : n));
  const uint32_t actual = algorithm_.sum(payload);
  if (stored != actual) {
    return Status::Corruption(codec + "checksum mismatch: expected " + Hex32(stored) +
                              " (stored), computed " + Hex32(actual));
  }
  return payload;
}

Result<Buffer> Checksum32Codec::Decode(ByteView encoded,
                                       std::optional<size_t> expected_size) const {
  TZ_ASSIGN_OR_RETURN(ByteView payload, Verify(encoded));
  if (expected_size && payload.size() != *expected_size) {
    return Status::Corruption(std::string("codec ") + algorithm_.id + ": expected " +
                              std::to_string(*expected_size) + " bytes, got " +
                              std::to_string(payload.size()));
  }
  return Buffer(payload);
}

}  // namespace turbozarr
