// Runs every codec of the codec table through the shared conformance
// suites: bytes->bytes codecs on their own and in chains, the others in
// chains; and checks that no row of the table is left out, here or in the
// fuzz target's cases.
#include "testing/codec_conformance.h"

#include <blosc.h>

#include <cstring>
#include <set>

#include "codec/codec_table.h"
#include "fuzz/codec_fuzz_cases.h"

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
      {"numcodecs_lzma", {{"name", "numcodecs.lzma"}, {"configuration", {{"preset", 1}}}}},
      {"numcodecs_lzma_alone",
       {{"name", "numcodecs.lzma"}, {"configuration", {{"format", 2}, {"preset", 0}}}}},
      {"numcodecs_lzma_raw_delta",
       {{"name", "numcodecs.lzma"},
        {"configuration",
         {{"format", 3},
          {"filters", json::array({{{"id", 3}, {"dist", 2}}, {{"id", 33}, {"preset", 0}}})}}}}},
      {"numcodecs_lz4_fast",
       {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 8}}}}},
      {"numcodecs_crc32c_start",
       {{"name", "numcodecs.crc32c"}, {"configuration", {{"location", "start"}}}}},
      {"numcodecs_blosc",
       {{"name", "numcodecs.blosc"},
        {"configuration",
         {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", -1}, {"blocksize", 0}}}}},
      {"numcodecs_shuffle",
       {{"name", "numcodecs.shuffle"}, {"configuration", {{"elementsize", 4}}}},
       4},
      {"numcodecs_shuffle_1",
       {{"name", "numcodecs.shuffle"}, {"configuration", {{"elementsize", 1}}}}},
      {"numcodecs_crc32",
       {{"name", "numcodecs.crc32"}, {"configuration", json::object()}}},
      {"numcodecs_crc32_end",
       {{"name", "numcodecs.crc32"}, {"configuration", {{"location", "end"}}}}},
      {"numcodecs_adler32",
       {{"name", "numcodecs.adler32"}, {"configuration", json::object()}}},
      {"numcodecs_fletcher32",
       {{"name", "numcodecs.fletcher32"}, {"configuration", json::object()}}},
      {"numcodecs_jenkins_lookup3",
       {{"name", "numcodecs.jenkins_lookup3"}, {"configuration", {{"initval", 77}}}}},
      // The same codecs as a v2 array names them.
      {"v2_blosc",
       {{"id", "blosc"},
        {"cname", "zstd"},
        {"clevel", 3},
        {"shuffle", 2},
        {"blocksize", 0}},
       1,
       true},
      {"v2_zstd", {{"id", "zstd"}, {"level", 1}}, 1, true},
      {"v2_gzip", {{"id", "gzip"}, {"level", 6}}, 1, true},
      {"v2_lz4", {{"id", "lz4"}, {"acceleration", 1}}, 1, true},
      {"v2_zlib", {{"id", "zlib"}, {"level", 9}}, 1, true},
      {"v2_bz2", {{"id", "bz2"}, {"level", 2}}, 1, true},
      {"v2_lzma", {{"id", "lzma"}, {"format", 1}, {"check", 10}, {"preset", 0}}, 1, true},
      {"v2_crc32c", {{"id", "crc32c"}}, 1, true},
      {"v2_shuffle", {{"id", "shuffle"}, {"elementsize", 2}}, 2, true},
      {"v2_crc32", {{"id", "crc32"}}, 1, true},
      {"v2_adler32_end", {{"id", "adler32"}, {"location", "end"}}, 1, true},
      {"v2_fletcher32", {{"id", "fletcher32"}}, 1, true},
      {"v2_jenkins_lookup3", {{"id", "jenkins_lookup3"}, {"initval", 0}, {"prefix", nullptr}},
       1, true},
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

// Chains for the codecs that only run in one: array->array and
// array->bytes codecs, and bytes->bytes codecs that need whole elements.
std::vector<ChainCase> AllChains() {
  const json le = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  const json be = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
  const json zstd = {{"name", "zstd"}, {"configuration", {{"level", 1}}}};
  const json crc = {{"name", "crc32c"}};
  auto delta = [](const char* dtype) {
    return json{{"name", "numcodecs.delta"}, {"configuration", {{"dtype", dtype}}}};
  };
  auto sharding = [&](json inner, const char* location) {
    return json{{"name", "sharding_indexed"},
                {"configuration",
                 {{"chunk_shape", {2, 2}},
                  {"codecs", std::move(inner)},
                  {"index_codecs", json::array({le, crc})},
                  {"index_location", location}}}};
  };
  auto numcodecs = [](const char* id, json config) {
    return json{{"name", std::string("numcodecs.") + id},
                {"configuration", std::move(config)}};
  };
  const DataType i32(DataTypeId::kInt32), u8(DataTypeId::kUInt8), i16(DataTypeId::kInt16);
  const DataType f8(DataTypeId::kFloat64), c16(DataTypeId::kComplex128);
  const DataType f4(DataTypeId::kFloat32), f2(DataTypeId::kFloat16),
      b1(DataTypeId::kBool);
  const DataType u64(DataTypeId::kUInt64);
  const DataType str(DataTypeId::kString), bytes(DataTypeId::kBytes);
  const DataType bf16(DataTypeId::kBFloat16), e4m3(DataTypeId::kFloat8E4M3FN),
      fp4(DataTypeId::kFloat4E2M1FN), i4(DataTypeId::kInt4), u2(DataTypeId::kUInt2);
  const std::vector<std::vector<int64_t>> grid = {{2, 2}, {4, 6}, {0, 2}, {16, 8}};
  std::vector<ChainCase> v = {
      {"bytes_little", json::array({le})},
      {"bytes_big", json::array({be})},
      {"big_zstd_crc32c", json::array({be, zstd, crc})},
      {"transpose_reversed",
       json::array({{{"name", "transpose"}, {"configuration", {{"order", "F"}}}}, le})},
      {"transpose_2d_zstd",
       json::array(
           {{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}}, be, zstd}),
       {},
       {{1, 1}, {3, 5}, {0, 4}, {64, 33}, {16, 8}}},
      {"delta_i4", json::array({delta("<i4"), le}), {i32}},
      {"delta_u1_zstd", json::array({delta("|u1"), le, zstd}), {u8}},
      {"delta_i2_big", json::array({delta("<i2"), be, crc}), {i16}},
      {"fixedscaleoffset_f8_u1",
       json::array(
           {numcodecs(
                "fixedscaleoffset",
                {{"offset", 1000}, {"scale", 10}, {"dtype", "<f8"}, {"astype", "|u1"}}),
            le, crc}),
       {f8},
       {},
       true},
      {"fixedscaleoffset_i4_int",
       json::array({numcodecs("fixedscaleoffset",
                              {{"offset", 7}, {"scale", 3}, {"dtype", "<i4"}}),
                    le}),
       {i32},
       {},
       true},
      {"quantize_f4",
       json::array({numcodecs("quantize", {{"digits", 2}, {"dtype", "<f4"}}), le}),
       {f4},
       {},
       true},
      {"quantize_f8_as_f4",
       json::array(
           {numcodecs("quantize", {{"digits", 3}, {"dtype", "<f8"}, {"astype", "<f4"}}),
            le, zstd}),
       {f8},
       {},
       true},
      {"bitround",
       json::array({numcodecs("bitround", {{"keepbits", 5}}), le, zstd}),
       {f8, f4, f2},
       {},
       true},
      {"astype_widening",
       json::array(
           {numcodecs("astype", {{"encode_dtype", "<f8"}, {"decode_dtype", "<u8"}}), be}),
       {u64},
       {},
       true},
      {"astype_u1_as_f8",
       json::array(
           {numcodecs("astype", {{"encode_dtype", "<f8"}, {"decode_dtype", "|u1"}}), le}),
       {u8}},
      // Reversible: the lossy modes are no fixed points (a decoded chunk
      // encodes to other bits); zfpy_codec_test checks their bytes.
      {"zfpy_reversible",
       json::array({numcodecs("zfpy", {{"mode", 4}}), zstd}),
       {f8, f4},
       {{1}, {3, 5}, {64, 33}, {2, 3, 4, 5}}},
      {"zfpy_reversible_ints",
       json::array({numcodecs("zfpy", {{"mode", 2}, {"rate", -1}})}),
       {i32, DataType(DataTypeId::kInt64)},
       {{7}, {16, 9}, {5, 4, 3}}},
      {"categorize_u6",
       json::array({numcodecs("categorize",
                              {{"labels", {"", "a", "\u00fcn\u00efco"}}, {"dtype", "<U6"}}),
                    le, zstd}),
       {DataType::Sized(DataTypeId::kFixedUnicode, 24)},
       {},
       true},
      {"packbits",
       json::array({numcodecs("packbits", json::object()), le, zstd}),
       {b1},
       {},
       true},
      // zarr-extensions' packbits: sub-byte types lose their high bits, and
      // a bit range the rest, so these are fixed points after one trip.
      {"packbits_v3",
       json::array({{{"name", "packbits"}}}),
       {i4, u2, fp4, b1, bf16, e4m3, i16, c16},
       {},
       true},
      {"packbits_v3_bits_zstd",
       json::array({{{"name", "packbits"},
                     {"configuration",
                      {{"padding_encoding", "first_byte"}, {"first_bit", 1}, {"last_bit", 6}}}},
                    zstd}),
       {u8, i32},
       {},
       true},
      {"bytes_low_precision", json::array({be}), {bf16, e4m3, i4, fp4}},
      {"scale_offset_default",
       json::array({{{"name", "scale_offset"}}, le}),
       {u8, i32, f8}},
      {"scale_offset_float",
       json::array({{{"name", "scale_offset"},
                     {"configuration", {{"offset", 0.5}, {"scale", "4"}}}},
                    le}),
       {f8, f4, f2},
       {},
       true},
      {"cast_value_int",
       json::array({{{"name", "cast_value"},
                     {"configuration", {{"data_type", "uint8"}, {"out_of_range", "wrap"}}}},
                    le}),
       {u8, i32},
       {},
       true},
      {"cast_value_float",
       json::array({{{"name", "cast_value"},
                     {"configuration", {{"data_type", "float32"}, {"out_of_range", "clamp"}}}},
                    le}),
       {f8, f4, f2},
       {},
       true},
      {"shuffle_4",
       json::array(
           {le,
            {{"name", "numcodecs.shuffle"}, {"configuration", {{"elementsize", 4}}}},
            zstd}),
       {i32, f8, c16}},
      {"vlen_utf8", json::array({{{"name", "vlen-utf8"}}}), {str}},
      {"vlen_utf8_zstd_crc32c", json::array({{{"name", "vlen-utf8"}}, zstd, crc}), {str}},
      {"vlen_bytes", json::array({{{"name", "vlen-bytes"}}}), {bytes}},
      {"vlen_bytes_gzip",
       json::array({{{"name", "vlen-bytes"}},
                    {{"name", "gzip"}, {"configuration", {{"level", 1}}}}}),
       {bytes}},
      {"sharding_end", json::array({sharding(json::array({le}), "end")}), {}, grid},
      {"sharding_start_zstd",
       json::array({sharding(json::array({be, zstd, crc}), "start")}),
       {},
       grid},
      {"sharding_vlen",
       json::array({sharding(json::array({{{"name", "vlen-utf8"}}}), "end")}),
       {str},
       grid},
  };
  for (const CodecCase& c : AllBytesToBytes()) {
    if (c.granule == 1 && !c.v2) {
      v.push_back({"bytes_" + c.label, json::array({le, c.codec})});
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, ChainConformance, ::testing::ValuesIn(AllChains()),
                         CaseName<ChainCase>);

// Adds every codec name ("name" or numcodecs "id") that `j` spells, nested
// ones (inside sharding) included, to `out`.
void CollectCodecNames(const json& j, std::set<std::string>& out) {
  if (j.is_array()) {
    for (const json& e : j) CollectCodecNames(e, out);
  } else if (j.is_object()) {
    for (const char* key : {"name", "id"}) {
      if (j.contains(key) && j[key].is_string()) out.insert(j[key].get<std::string>());
    }
    for (const auto& [key, value] : j.items()) CollectCodecNames(value, out);
  }
}

// The spellings a row must be tested in: its v3 name, "numcodecs.<id>" in v3
// arrays, and its numcodecs id in v2 arrays.
std::vector<std::string> Spellings(const internal::CodecRow& row) {
  std::vector<std::string> s;
  if (!row.name.empty()) s.emplace_back(row.name);
  if (!row.numcodecs_id.empty() && row.numcodecs_in_v3) {
    s.push_back("numcodecs." + std::string(row.numcodecs_id));
  }
  return s;
}

TEST(ConformanceCoverage, EveryCodecOfTheTableHasCases) {
  std::set<std::string> v3, v2;
  for (const CodecCase& c : AllBytesToBytes()) CollectCodecNames(c.codec, c.v2 ? v2 : v3);
  for (const ChainCase& c : AllChains()) CollectCodecNames(c.codecs, v3);
  for (const internal::CodecRow& row : internal::CodecTable()) {
    for (const std::string& name : Spellings(row)) {
      EXPECT_TRUE(v3.contains(name)) << "no conformance case spells " << name;
    }
    if (row.kind == CodecKind::kBytesToBytes && !row.numcodecs_id.empty()) {
      EXPECT_TRUE(v2.contains(std::string(row.numcodecs_id)))
          << "no v2 conformance case for " << row.numcodecs_id;
    }
  }
}

TEST(ConformanceCoverage, TheFuzzerDecodesEveryCodecOfTheTable) {
  std::set<std::string> fuzzed;
  for (const fuzz::CodecCase& c : fuzz::CodecCases()) {
    CollectCodecNames(c.codec, fuzzed);
    // The fixed configurations are valid (else the fuzzer aborts at once).
    if (c.chain) {
      EXPECT_TRUE(CodecChain::FromJson(c.codec, c.spec).ok()) << c.name;
    } else {
      EXPECT_TRUE(fuzz::MakeBytesCodec(c).ok()) << c.name;
    }
  }
  for (const internal::CodecRow& row : internal::CodecTable()) {
    const bool found = fuzzed.contains(std::string(row.name)) ||
                       fuzzed.contains(std::string(row.numcodecs_id)) ||
                       fuzzed.contains("numcodecs." + std::string(row.numcodecs_id));
    EXPECT_TRUE(found) << "no fuzz case decodes " << row.label();
  }
}

}  // namespace
}  // namespace turbozarr::testing
