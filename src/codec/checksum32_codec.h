// Checksum32Codec: numcodecs' 32-bit checksums, bytes->bytes codecs that add
// a 4-byte little-endian sum of the data and check it on decoding:
//
//   crc32      zlib's CRC-32,           first by default ("location")
//   adler32    zlib's Adler-32,         first by default ("location")
//   crc32c     CRC-32C (Castagnoli),    last by default ("location")
//   fletcher32 HDF5's Fletcher-32,      always last (no configuration)
//   jenkins_lookup3 Bob Jenkins' lookup3 hash (HDF5's), always last,
//              seeded by "initval" (default 0); "prefix" must be null
//
// as numcodecs 0.16 lays them out: payload and sum, or sum and payload, for
// location "start" or "end". HDF5's Fletcher-32 sums the data as big-endian
// 16-bit words (an odd last byte as the high byte of a word) with
// end-around carry, sum2 << 16 | sum1. In v2 arrays they are {"id": ...}
// filters or compressors, in v3 "numcodecs.<id>" (crc32c also has its own v3
// codec, Crc32cCodec).
//
// Decoding never reads past the data: fewer than 4 bytes, or a sum that
// differs, is Corruption naming the codec and both sums.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class Checksum32Codec : public BytesToBytesCodec, public internal::NumcodecsCodec {
 public:
  enum class Location { kStart, kEnd };
  // One checksum of the family.
  struct Algorithm {
    const char* id;  // numcodecs' codec_id
    uint32_t (*sum)(ByteView data, uint32_t seed);
    Location default_location;
    bool has_location;  // numcodecs takes a "location" field
    bool has_seed;      // ... and "initval" and "prefix" (jenkins_lookup3)
  };
  static const Algorithm kCrc32, kAdler32, kCrc32c, kFletcher32, kJenkinsLookup3;

  // From numcodecs' configuration ({"location": "start"|"end"} where the
  // algorithm has one). `in_v3`: spelled "numcodecs.<id>" in a v3 array.
  static Result<std::shared_ptr<const Checksum32Codec>> MakeNumcodecs(
      const Algorithm& algorithm, internal::CodecConfig& config, bool in_v3);

  Checksum32Codec(const Algorithm& algorithm, Location location, bool in_v3,
                  uint32_t seed = 0)
      : algorithm_(algorithm), location_(location), in_v3_(in_v3), seed_(seed) {}

  std::string name() const override;
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<Buffer> Encode(ByteView decoded) const override;
  Result<Buffer> Decode(ByteView encoded,
                        std::optional<size_t> expected_size) const override;
  std::optional<size_t> EncodedSize(size_t decoded) const override { return decoded + 4; }
  bool IsChecksum() const override { return true; }
  // Checks the sum of `encoded` and returns the payload without copying it.
  Result<ByteView> Verify(ByteView encoded) const override;
  // Checks `sum`, the 4 stored bytes, against `payload` held elsewhere (a
  // chunk's elements read straight into the caller's memory).
  Status VerifySum(ByteView payload, ByteView sum) const;
  // Location "end": the sum is appended to the payload's own buffer (a
  // compressor's output has the room, so nothing is copied).
  bool EncodesByAppending() const override { return location_ == Location::kEnd; }
  void EncodeAppend(Buffer& bytes) const override;

  Location location() const { return location_; }
  bool in_v3() const { return in_v3_; }

 private:
  const Algorithm& algorithm_;
  Location location_;
  bool in_v3_;
  uint32_t seed_;  // jenkins_lookup3's initval
};

// HDF5's Fletcher-32 of `data`, as numcodecs computes it.
uint32_t Fletcher32(ByteView data);
// Bob Jenkins' lookup3 hash of `data` (hashlittle, byte by byte, as HDF5
// and numcodecs compute it), seeded by `initval`.
uint32_t JenkinsLookup3(ByteView data, uint32_t initval);

}  // namespace turbozarr
