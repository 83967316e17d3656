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

uint32_t Crc32Sum(ByteView data, uint32_t) {
  return libdeflate_crc32(0, data.data(), data.size());
}
uint32_t Adler32Sum(ByteView data, uint32_t) {
  return libdeflate_adler32(1, data.data(), data.size());
}
uint32_t Crc32cSum(ByteView data, uint32_t) { return Crc32c(data); }
uint32_t Fletcher32Sum(ByteView data, uint32_t) { return Fletcher32(data); }

constexpr uint32_t Rotate(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

// lookup3's mix() and final() of three 32-bit words.
void Mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  a -= c; a ^= Rotate(c, 4);  c += b;
  b -= a; b ^= Rotate(a, 6);  a += c;
  c -= b; c ^= Rotate(b, 8);  b += a;
  a -= c; a ^= Rotate(c, 16); c += b;
  b -= a; b ^= Rotate(a, 19); a += c;
  c -= b; c ^= Rotate(b, 4);  b += a;
}

void Final(uint32_t& a, uint32_t& b, uint32_t& c) {
  c ^= b; c -= Rotate(b, 14);
  a ^= c; a -= Rotate(c, 11);
  b ^= a; b -= Rotate(a, 25);
  c ^= b; c -= Rotate(b, 16);
  a ^= c; a -= Rotate(c, 4);
  b ^= a; b -= Rotate(a, 14);
  c ^= b; c -= Rotate(b, 24);
}

// Up to 4 bytes from `p` as a little-endian word (missing bytes are zero):
// the tail of the data, which ends inside a 12-byte block.
uint32_t Word(const uint8_t* p, size_t n) {
  uint32_t w = 0;
  for (size_t i = 0; i < n && i < 4; ++i) w |= static_cast<uint32_t>(p[i]) << (8 * i);
  return w;
}

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

uint32_t JenkinsLookup3(ByteView data, uint32_t initval) {
  const auto* k = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  // The length enters modulo 2^32, as the reference's uint32 arithmetic has it.
  uint32_t a = 0xdeadbeef + static_cast<uint32_t>(n) + initval;
  uint32_t b = a, c = a;
  for (; n > 12; n -= 12, k += 12) {
    const auto* block = reinterpret_cast<const std::byte*>(k);
    a += internal::LoadLE32(block);
    b += internal::LoadLE32(block + 4);
    c += internal::LoadLE32(block + 8);
    Mix(a, b, c);
  }
  if (n == 0) return c;  // nothing left: no final mixing
  a += Word(k, n);
  if (n > 4) b += Word(k + 4, n - 4);
  if (n > 8) c += Word(k + 8, n - 8);
  Final(a, b, c);
  return c;
}

const Checksum32Codec::Algorithm Checksum32Codec::kCrc32 = {"crc32", Crc32Sum,
                                                            Location::kStart, true, false};
const Checksum32Codec::Algorithm Checksum32Codec::kAdler32 = {"adler32", Adler32Sum,
                                                              Location::kStart, true, false};
const Checksum32Codec::Algorithm Checksum32Codec::kCrc32c = {"crc32c", Crc32cSum,
                                                             Location::kEnd, true, false};
const Checksum32Codec::Algorithm Checksum32Codec::kFletcher32 = {
    "fletcher32", Fletcher32Sum, Location::kEnd, false, false};
const Checksum32Codec::Algorithm Checksum32Codec::kJenkinsLookup3 = {
    "jenkins_lookup3", JenkinsLookup3, Location::kEnd, false, true};

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
  int64_t seed = 0;
  if (algorithm.has_seed) {
    TZ_ASSIGN_OR_RETURN(seed, config.Int("initval", 0));
    if (seed < 0 || seed > 0xffffffff) {
      return config.Invalid("initval", std::to_string(seed) + " is not a 32-bit unsigned integer");
    }
    // numcodecs hashes "prefix" bytes ahead of the data; it cannot write
    // them to JSON, so no array carries one.
    if (const nlohmann::json prefix = config.Raw("prefix"); !prefix.is_null()) {
      return Status::Unsupported("codec " + config.codec() + ": field \"prefix\": " +
                                 prefix.dump() + " (only null is supported)");
    }
  }
  TZ_RETURN_NOT_OK(config.Finish());
  return std::make_shared<const Checksum32Codec>(algorithm, location, in_v3,
                                                 static_cast<uint32_t>(seed));
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
  if (algorithm_.has_seed) {
    j["initval"] = seed_;
    j["prefix"] = nullptr;
  }
  return j;
}

Result<Buffer> Checksum32Codec::Encode(ByteView decoded) const {
  Buffer out(decoded.size() + 4);
  const bool start = location_ == Location::kStart;
  if (!decoded.empty())
    std::memcpy(out.data() + (start ? 4 : 0), decoded.data(), decoded.size());
  internal::StoreLE32(out.data() + (start ? 0 : decoded.size()), algorithm_.sum(decoded, seed_));
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
  TZ_RETURN_NOT_OK(VerifySum(payload, start ? encoded.first(4) : encoded.subspan(n)));
  return payload;
}

void Checksum32Codec::EncodeAppend(Buffer& bytes) const {
  const uint32_t sum = algorithm_.sum(bytes.view(), seed_);
  const size_t n = bytes.size();
  bytes.Resize(n + 4);
  internal::StoreLE32(bytes.data() + n, sum);
}

Status Checksum32Codec::VerifySum(ByteView payload, ByteView sum) const {
  if (sum.size() != 4) {
    return Status::Corruption(std::string("codec ") + algorithm_.id + ": " +
                              std::to_string(sum.size()) + " bytes cannot hold the 4-byte checksum");
  }
  const uint32_t stored = internal::LoadLE32(sum.data());
  const uint32_t actual = algorithm_.sum(payload, seed_);
  if (stored != actual) {
    return Status::Corruption(std::string("codec ") + algorithm_.id +
                              ": checksum mismatch: expected " + Hex32(stored) +
                              " (stored), computed " + Hex32(actual));
  }
  return Status::OK();
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
