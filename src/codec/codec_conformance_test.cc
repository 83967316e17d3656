// Runs every bytes->bytes codec, and chains built from them, through the
// shared conformance suites.
#include "testing/codec_conformance.h"

#include <blosc.h>

#include <cstring>

namespace turbozarr::testing {
namespace {

using nlohmann::json;

std::vector<CodecCase> AllBytesToBytes() {
  std::vector<CodecCase> v = {
      {"crc32c", {{"name", "crc32c"}}},
      {"zstd_default",
       {{"name", "zstd"}, {"configuration", {{"level", 0}, {"checksum", false}}}}},
      {"zstd_checksum",
       {{"name", "zstd"}, {"configuration", {{"level", 5}, {"checksum", true}}}}},
      {"zstd_negative_level", {{"name", "zstd"}, {"configuration", {{"level", -3}}}}},
      {"gzip_1", {{"name", "gzip"}, {"configuration", {{"level", 1}}}}},
      {"gzip_0", {{"name", "gzip"}, {"configuration", {{"level", 0}}}}},
      {"gzip_9", {{"name", "gzip"}, {"configuration", {{"level", 9}}}}},
      {"numcodecs_gzip", {{"name", "numcodecs.gzip"}, {"configuration", {{"level", 5}}}}},
      {"numcodecs_zstd", {{"name", "numcodecs.zstd"}, {"configuration", {{"level", 3}}}}},
      {"numcodecs_zlib", {{"name", "numcodecs.zlib"}, {"configuration", {{"level", 1}}}}},
      {"numcodecs_zlib_default",
       {{"name", "numcodecs.zlib"}, {"configuration", {{"level", -1}}}}},
      {"numcodecs_bz2", {{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}}},
      {"numcodecs_bz2_9", {{"name", "numcodecs.bz2"}, {"configuration", {{"level", 9}}}}},
      {"numcodecs_lz4", {{"name", "numcodecs.lz4"}, {"configuration", json::object()}}},
      {"numcodecs_lz4_fast",
       {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 8}}}}},
      {"numcodecs_crc32c_start",
       {{"name", "numcodecs.crc32c"}, {"configuration", {{"location", "start"}}}}},
      {"numcodecs_blosc",
       {{"name", "numcodecs.blosc"},
        {"configuration",
         {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", -1}, {"blocksize", 0}}}}},
  };
  // Every compressor this blosc has, with each shuffle.
  for (const char* cname : {"lz4", "lz4hc", "blosclz", "zstd", "zlib", "snappy"}) {
    if (blosc_compname_to_compcode(cname) < 0) continue;
    for (const char* shuffle : {"noshuffle", "shuffle", "bitshuffle"}) {
      v.push_back({std::string("blosc_") + cname + "_" + shuffle,
                   {{"name", "blosc"},
                    {"configuration",
                     {{"cname", cname},
                      {"clevel", 5},
                      {"shuffle", shuffle},
                      {"typesize", 4},
                      {"blocksize", 0}}}}});
    }
  }
  v.push_back({"blosc_small_blocks",
               {{"name", "blosc"},
                {"configuration",
                 {{"cname", "lz4"},
                  {"clevel", 9},
                  {"shuffle", "shuffle"},
                  {"typesize", 8},
                  {"blocksize", 256}}}}});
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, BytesToBytesConformance,
                         ::testing::ValuesIn(AllBytesToBytes()), CaseName<CodecCase>);

std::vector<ChainCase> AllChains() {
  json le = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  json be = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
  std::vector<ChainCase> v = {
      {"bytes_little", json::array({le})},
      {"bytes_big", json::array({be})},
      {"big_zstd_crc32c",
       json::array({be,
                    {{"name", "zstd"}, {"configuration", {{"level", 1}}}},
                    {{"name", "crc32c"}}})},
  };
  for (const CodecCase& c : AllBytesToBytes()) {
    v.push_back({"bytes_" + c.label, json::array({le, c.codec})});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, ChainConformance, ::testing::ValuesIn(AllChains()),
                         CaseName<ChainCase>);

}  // namespace
}  // namespace turbozarr::testing
