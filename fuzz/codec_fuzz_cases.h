// The cases of codec_fuzzer: for each decoder family a small fixed array
// spec and codec configuration. The first input byte picks a case and the
// rest is handed to that decoder. Shared with make_fuzz_seeds, which encodes
// sample chunks with the same cases so that the fuzzer starts from valid
// encodings. Every codec of the codec table (src/codec/codec_table.cc) has a
// case; tz_codec_test checks that, and that each case's codecs build.
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "turbozarr/codec.h"

namespace turbozarr::fuzz {

// What an encode -> decode round trip of decoded data must give back.
enum class RoundTrip {
  kExact,       // the decoded data itself (lossless codecs)
  kIdempotent,  // after one lossy round, the same again; encoding may refuse
                // values a decoder made (a lossy filter, e.g. bitround)
  kDecodes,     // something that decodes (zfp: lossy and not idempotent)
};

struct CodecCase {
  std::string name;
  ArraySpec spec;
  // Either a v3 codecs list decoded as a whole chain (`chain`), or one
  // bytes->bytes codec: v3 JSON, or numcodecs JSON when `numcodecs`.
  nlohmann::json codec;
  bool chain = false;
  bool numcodecs = false;
  RoundTrip round_trip = RoundTrip::kExact;
};

inline ArraySpec MakeSpec(std::vector<int64_t> shape, DataType dtype) {
  ArraySpec spec;
  spec.shape = std::move(shape);
  spec.dtype = dtype;
  spec.fill_value = DefaultFillValue(dtype);
  return spec;
}

inline std::vector<CodecCase> CodecCases() {
  using json = nlohmann::json;
  const ArraySpec u16 = MakeSpec({16}, DataType(DataTypeId::kUInt16));
  const ArraySpec f8 = MakeSpec({8}, DataType(DataTypeId::kFloat64));
  auto numcodecs = [](const char* id, json config) {
    return json{{"name", std::string("numcodecs.") + id},
                {"configuration", std::move(config)}};
  };
  const json little = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  const json gzip1 = {{"name", "gzip"}, {"configuration", {{"level", 1}}}};
  const json sharding = {{"name", "sharding_indexed"},
                         {"configuration",
                          {{"chunk_shape", {4}},
                           {"codecs", json::array({little, gzip1})},
                           {"index_codecs", json::array({little, {{"name", "crc32c"}}})},
                           {"index_location", "end"}}}};
  return {
      {"bytes", u16, json::array({little}), true, false},
      {"blosc",
       u16,
       {{"name", "blosc"},
        {"configuration",
         {{"cname", "lz4"},
          {"clevel", 5},
          {"shuffle", "shuffle"},
          {"typesize", 2},
          {"blocksize", 0}}}},
       false,
       false},
      {"gzip", u16, {{"name", "gzip"}, {"configuration", {{"level", 5}}}}, false, false},
      {"zstd",
       u16,
       {{"name", "zstd"}, {"configuration", {{"level", 3}, {"checksum", true}}}},
       false,
       false},
      {"crc32c", u16, {{"name", "crc32c"}}, false, false},
      {"vlen-utf8", MakeSpec({4}, DataType(DataTypeId::kString)),
       json::array({{{"name", "vlen-utf8"}}}), true, false},
      {"vlen-bytes", MakeSpec({4}, DataType(DataTypeId::kBytes)),
       json::array({{{"name", "vlen-bytes"}}}), true, false},
      {"lz4", u16, {{"id", "lz4"}, {"acceleration", 1}}, false, true},
      {"zlib", u16, {{"id", "zlib"}, {"level", 6}}, false, true},
      {"bz2", u16, {{"id", "bz2"}, {"level", 9}}, false, true},
      {"sharding", u16, json::array({sharding}), true, false},
      {"delta", u16,
       json::array({{{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<u2"}}}},
                    little}),
       true, false},
      {"shuffle", u16, {{"id", "shuffle"}, {"elementsize", 2}}, false, true},
      {"crc32", u16, {{"id", "crc32"}}, false, true},
      {"adler32", u16, {{"id", "adler32"}, {"location", "end"}}, false, true},
      {"fletcher32", u16, {{"id", "fletcher32"}}, false, true},
      {"jenkins_lookup3", u16, {{"id", "jenkins_lookup3"}, {"initval", 5}}, false, true},
      {"fixedscaleoffset", f8,
       json::array(
           {numcodecs(
                "fixedscaleoffset",
                {{"offset", 1000}, {"scale", 10}, {"dtype", "<f8"}, {"astype", "<i2"}}),
            little}),
       true, false, RoundTrip::kIdempotent},
      {"quantize", f8, json::array({numcodecs("quantize", {{"digits", 2}}), little}),
       true, false, RoundTrip::kIdempotent},
      {"bitround", f8, json::array({numcodecs("bitround", {{"keepbits", 7}}), little}),
       true, false, RoundTrip::kIdempotent},
      {"astype", f8,
       json::array({numcodecs("astype", {{"encode_dtype", "<f4"}}), little}), true,
       false, RoundTrip::kIdempotent},
      {"zfpy", MakeSpec({4, 5}, DataType(DataTypeId::kFloat64)),
       json::array({numcodecs("zfpy", {{"mode", 4}, {"tolerance", 1e-3}})}), true, false,
       RoundTrip::kDecodes},
      {"categorize", MakeSpec({6}, DataType::Sized(DataTypeId::kFixedUnicode, 24)),
       json::array({numcodecs("categorize", {{"labels", {"female", "male"}}, {"dtype", "<U6"}}),
                    little}),
       true, false, RoundTrip::kIdempotent},
      {"packbits", MakeSpec({13}, DataType(DataTypeId::kBool)),
       json::array({numcodecs("packbits", json::object()), little}), true, false},
      {"packbits-v3", MakeSpec({13}, DataType(DataTypeId::kInt4)),
       json::array({{{"name", "packbits"}, {"configuration", {{"padding_encoding", "first_byte"}}}}}),
       true, false},
      {"bytes-bfloat16", MakeSpec({8}, DataType(DataTypeId::kBFloat16)),
       json::array({{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}}), true, false},
      {"scale_offset", MakeSpec({8}, DataType(DataTypeId::kInt32)),
       json::array(
           {{{"name", "scale_offset"}, {"configuration", {{"offset", 3}, {"scale", 4}}}},
            little}),
       true, false, RoundTrip::kIdempotent},
      {"cast_value", f8,
       json::array({{{"name", "cast_value"},
                     {"configuration",
                      {{"data_type", "int16"},
                       {"rounding", "nearest-away"},
                       {"scalar_map", {{"decode", json::array({json::array({-1, "NaN"})})}}}}}},
                    little}),
       true, false, RoundTrip::kIdempotent},
      {"transpose", MakeSpec({4, 4}, DataType(DataTypeId::kUInt16)),
       json::array(
           {{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}}, little}),
       true, false},
      {"lzma", u16, {{"id", "lzma"}, {"preset", 1}}, false, true},
      {"lzma-alone", u16, {{"id", "lzma"}, {"format", 2}, {"preset", 1}}, false, true},
      {"lzma-raw", u16,
       {{"id", "lzma"},
        {"format", 3},
        {"filters", json::array({{{"id", 3}, {"dist", 2}}, {{"id", 33}, {"preset", 1}}})}},
       false, true},
      // Bitshuffled one-byte items in blocks of 1 KiB: turbozarr's own blosc
      // decoder (src/codec/blosc_frame.h); the blosc case's 32 bytes are
      // stored raw.
      {"blosc-bitshuffle-bytes",
       MakeSpec({4096}, DataType(DataTypeId::kUInt8)),
       {{"name", "blosc"},
        {"configuration",
         {{"cname", "zstd"},
          {"clevel", 5},
          {"shuffle", "bitshuffle"},
          {"typesize", 1},
          {"blocksize", 1024}}}},
       false,
       false},
  };
}

// Builds the single bytes->bytes codec of a non-chain case.
inline Result<std::shared_ptr<const BytesToBytesCodec>> MakeBytesCodec(
    const CodecCase& c) {
  Result<std::shared_ptr<const Codec>> codec =
      c.numcodecs ? MakeV2Codec(c.codec, c.spec) : MakeCodec(c.codec, c.spec);
  if (!codec.ok()) return codec.status();
  auto b2b = std::dynamic_pointer_cast<const BytesToBytesCodec>(*codec);
  if (!b2b) return Status::InvalidArgument(c.name + " is not a bytes->bytes codec");
  return b2b;
}

}  // namespace turbozarr::fuzz
