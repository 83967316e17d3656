// The rows of the codec table (see codec_table.h). A new codec adds its row
// here; nothing else in the library names codecs.
#include "codec/codec_table.h"

#include "codec/astype_codec.h"
#include "codec/categorize_codec.h"
#include "codec/zfpy_codec.h"
#include "codec/bit_packing_codec.h"
#include "codec/bitround_codec.h"
#include "codec/blosc_codec.h"
#include "codec/bytes_codec.h"
#include "codec/bz2_codec.h"
#include "codec/cast_value_codec.h"
#include "codec/checksum32_codec.h"
#include "codec/crc32c_codec.h"
#include "codec/delta_codec.h"
#include "codec/fixedscaleoffset_codec.h"
#include "codec/gzip_codec.h"
#include "codec/lz4_codec.h"
#include "codec/lzma_codec.h"
#include "codec/packbits_codec.h"
#include "codec/quantize_codec.h"
#include "codec/scale_offset_codec.h"
#include "codec/sharding/sharding_codec.h"
#include "codec/shuffle_codec.h"
#include "codec/transpose_codec.h"
#include "codec/vlen_codec.h"
#include "codec/zlib_codec.h"
#include "codec/zstd_codec.h"

namespace turbozarr::internal {
namespace {

using CodecPtr = std::shared_ptr<const Codec>;
using Spelling = CodecSpelling;
using ojson = nlohmann::ordered_json;

// Upcasts a factory's Result<shared_ptr<const X>>.
template <typename T>
Result<CodecPtr> Up(Result<std::shared_ptr<const T>> r) {
  if (!r.ok()) return r.status();
  return CodecPtr(std::move(r).value());
}

bool InV3(Spelling s) { return s == Spelling::kNumcodecsV3; }

// zarr-python writes blosc's five fields in this order; typesize follows the
// item size and the shuffle the typesize, as its evolve_from_array_spec does.
void CompleteBlosc(ojson& config, size_t itemsize) {
  if (!config.contains("typesize")) config["typesize"] = itemsize;
  if (!config.contains("shuffle")) {
    config["shuffle"] = config["typesize"] == 1 ? "bitshuffle" : "shuffle";
  }
  ojson ordered = ojson::object();
  for (const char* key : {"typesize", "cname", "clevel", "shuffle", "blocksize"}) {
    ordered[key] = config[key];
  }
  config = std::move(ordered);
}

Result<ojson> BloscShorthand(const ShorthandArgs& a) {
  // blosc[:cname[:clevel[:shuffle]]]
  TZ_RETURN_NOT_OK(a.AtMost(3));
  TZ_ASSIGN_OR_RETURN(int clevel, a.Int(1, 5));
  const std::string shuffle = a.String(2, a.itemsize() == 1 ? "bitshuffle" : "shuffle");
  static const char* const kShuffles[] = {"noshuffle", "shuffle", "bitshuffle"};
  int id = 0;
  while (id < 3 && shuffle != kShuffles[id]) ++id;
  if (id == 3) {
    return a.Invalid("shuffle '" + shuffle + "' is not noshuffle, shuffle or bitshuffle");
  }
  return ojson{{"cname", a.String(0, "lz4")},
               {"clevel", clevel},
               {"shuffle", a.v2() ? ojson(id) : ojson(shuffle)}};
}

std::vector<CodecRow> MakeTable() {
  using K = CodecKind;
  return {
      {.name = "bytes",
       .kind = K::kArrayToBytes,
       .make = [](CodecConfig& c, const ArraySpec& s,
                  Spelling) { return Up(BytesCodec::Make(c, s)); }},
      {.name = "packbits",  // zarr-extensions' (numcodecs' is the filter below)
       .kind = K::kArrayToBytes,
       .make = [](CodecConfig& c, const ArraySpec& s,
                  Spelling) { return Up(BitPackingCodec::Make(c, s)); }},
      {.name = "transpose",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& s,
                  Spelling) { return Up(TransposeCodec::Make(c, s)); }},
      {.name = "vlen-utf8",
       .numcodecs_id = "vlen-utf8",
       .numcodecs_in_v3 = false,
       .kind = K::kArrayToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec& s, Spelling) {
             return Up(VLenCodec::Make(VLenCodec::Flavor::kUtf8, c, s));
           }},
      {.name = "vlen-bytes",
       .numcodecs_id = "vlen-bytes",
       .numcodecs_in_v3 = false,
       .kind = K::kArrayToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec& s, Spelling) {
             return Up(VLenCodec::Make(VLenCodec::Flavor::kBytes, c, s));
           }},
      {.name = "sharding_indexed",
       .kind = K::kArrayToBytes,
       .make = [](CodecConfig& c, const ArraySpec& s,
                  Spelling) { return Up(ShardingCodec::Make(c, s)); }},
      {.name = "zstd",
       .numcodecs_id = "zstd",
       .kind = K::kBytesToBytes,
       .make = [](CodecConfig& c, const ArraySpec&,
                  Spelling s) { return Up(ZstdCodec::Make(c, InV3(s))); },
       .v3_defaults = R"({"level": 0, "checksum": false})",
       .numcodecs_defaults = R"({"level": 0, "checksum": false})",
       .complete_v2 = ZstdCodec::CompleteV2,
       .shorthand = [](const ShorthandArgs& a) { return a.OneInt("level", 3); }},
      {.name = "gzip",
       .numcodecs_id = "gzip",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec&, Spelling s) {
             return Up(GzipCodec::Make(c, s == Spelling::kV3 ? 5 : 1, InV3(s)));
           },
       .v3_defaults = R"({"level": 5})",
       .numcodecs_defaults = R"({"level": 1})",
       .shorthand = [](const ShorthandArgs& a) { return a.OneInt("level", 5); }},
      {.name = "blosc",
       .numcodecs_id = "blosc",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec& spec, Spelling s) {
             return s == Spelling::kV3 ? Up(BloscCodec::Make(c, spec))
                                       : Up(BloscCodec::MakeNumcodecs(c, spec, InV3(s)));
           },
       .v3_defaults = R"({"cname": "zstd", "clevel": 5, "blocksize": 0})",
       .complete_v3 = CompleteBlosc,
       .numcodecs_defaults =
           R"({"cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0})",
       .shorthand = BloscShorthand},
      {.numcodecs_id = "lz4",
       .kind = K::kBytesToBytes,
       .make = [](CodecConfig& c, const ArraySpec&,
                  Spelling) { return Up(Lz4Codec::Make(c)); },
       .numcodecs_defaults = R"({"acceleration": 1})",
       .shorthand = [](const ShorthandArgs& a) { return a.OneInt("acceleration", 1); }},
      {.numcodecs_id = "zlib",
       .kind = K::kBytesToBytes,
       .make = [](CodecConfig& c, const ArraySpec&,
                  Spelling) { return Up(ZlibCodec::Make(c)); },
       .numcodecs_defaults = R"({"level": 1})",
       .shorthand = [](const ShorthandArgs& a) { return a.OneInt("level", 6); }},
      {.numcodecs_id = "bz2",
       .kind = K::kBytesToBytes,
       .make = [](CodecConfig& c, const ArraySpec&,
                  Spelling) { return Up(Bz2Codec::Make(c)); },
       .numcodecs_defaults = R"({"level": 1})",
       .shorthand = [](const ShorthandArgs& a) { return a.OneInt("level", 9); }},
      {.numcodecs_id = "lzma",
       .kind = K::kBytesToBytes,
       .make = [](CodecConfig& c, const ArraySpec&,
                  Spelling s) { return Up(LzmaCodec::Make(c, InV3(s))); },
       .numcodecs_defaults = R"({"format": 1, "check": -1, "preset": null, "filters": null})",
       .shorthand = [](const ShorthandArgs& a) { return a.OneInt("preset", 6); }},
      {.name = "crc32c",
       .numcodecs_id = "crc32c",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec&, Spelling s) {
             return s == Spelling::kV3 ? Up(Crc32cCodec::Make(c))
                                       : Up(Crc32cCodec::MakeNumcodecs(c, InV3(s)));
           },
       // zarr-python writes the v3 crc32c bare, whatever it was given.
       .complete_v3 = [](ojson& config, size_t) { config = ojson::object(); },
       .shorthand = [](const ShorthandArgs& a) -> Result<ojson> {
         TZ_RETURN_NOT_OK(a.AtMost(0));
         return ojson::object();
       }},
      {.numcodecs_id = "delta",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(DeltaCodec::Make(c, spec, InV3(s))); }},
      {.numcodecs_id = "shuffle",
       .kind = K::kBytesToBytes,
       .make = [](CodecConfig& c, const ArraySpec&,
                  Spelling s) { return Up(ShuffleCodec::Make(c, InV3(s))); }},
      {.numcodecs_id = "crc32",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec&, Spelling s) {
             return Up(
                 Checksum32Codec::MakeNumcodecs(Checksum32Codec::kCrc32, c, InV3(s)));
           }},
      {.numcodecs_id = "adler32",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec&, Spelling s) {
             return Up(
                 Checksum32Codec::MakeNumcodecs(Checksum32Codec::kAdler32, c, InV3(s)));
           }},
      {.numcodecs_id = "fletcher32",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec&, Spelling s) {
             return Up(Checksum32Codec::MakeNumcodecs(Checksum32Codec::kFletcher32, c,
                                                      InV3(s)));
           }},
      {.numcodecs_id = "jenkins_lookup3",
       .kind = K::kBytesToBytes,
       .make =
           [](CodecConfig& c, const ArraySpec&, Spelling s) {
             return Up(Checksum32Codec::MakeNumcodecs(Checksum32Codec::kJenkinsLookup3, c,
                                                      InV3(s)));
           },
       .numcodecs_defaults = R"({"initval": 0, "prefix": null})"},
      {.numcodecs_id = "zfpy",
       .kind = K::kArrayToBytes,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(ZfpyCodec::Make(c, spec, InV3(s))); },
       .numcodecs_defaults = R"({"mode": 4, "tolerance": -1, "rate": -1, "precision": -1})",
       .complete_v2 = ZfpyCodec::CompleteV2},
      {.numcodecs_id = "categorize",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(CategorizeCodec::Make(c, spec, InV3(s))); }},
      {.numcodecs_id = "astype",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(AsTypeCodec::Make(c, spec, InV3(s))); }},
      {.numcodecs_id = "fixedscaleoffset",
       .kind = K::kArrayToArray,
       .make =
           [](CodecConfig& c, const ArraySpec& spec, Spelling s) {
             return Up(FixedScaleOffsetCodec::Make(c, spec, InV3(s)));
           }},
      {.numcodecs_id = "quantize",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(QuantizeCodec::Make(c, spec, InV3(s))); }},
      {.numcodecs_id = "bitround",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(BitRoundCodec::Make(c, spec, InV3(s))); }},
      {.numcodecs_id = "packbits",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling s) { return Up(PackBitsCodec::Make(c, spec, InV3(s))); }},
      {.name = "scale_offset",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling) { return Up(ScaleOffsetCodec::Make(c, spec)); }},
      {.name = "cast_value",
       .kind = K::kArrayToArray,
       .make = [](CodecConfig& c, const ArraySpec& spec,
                  Spelling) { return Up(CastValueCodec::Make(c, spec)); }},
  };
}

}  // namespace

const std::vector<CodecRow>& CodecTable() {
  static const std::vector<CodecRow> table = MakeTable();
  return table;
}

const CodecRow* FindCodecByName(std::string_view name) {
  for (const CodecRow& row : CodecTable()) {
    if (!row.name.empty() && row.name == name) return &row;
  }
  return nullptr;
}

const CodecRow* FindCodecByNumcodecsId(std::string_view id) {
  for (const CodecRow& row : CodecTable()) {
    if (!row.numcodecs_id.empty() && row.numcodecs_id == id) return &row;
  }
  return nullptr;
}

}  // namespace turbozarr::internal

namespace turbozarr {
namespace {

const char* KindName(CodecKind kind) {
  switch (kind) {
    case CodecKind::kArrayToArray:
      return "array->array";
    case CodecKind::kArrayToBytes:
      return "array->bytes";
    case CodecKind::kBytesToBytes:
      return "bytes->bytes";
  }
  return "";
}

nlohmann::ordered_json OrNull(std::string_view s) {
  return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
}

nlohmann::ordered_json ObjectOrEmpty(std::string_view text) {
  return text.empty() ? nlohmann::ordered_json::object()
                      : nlohmann::ordered_json::parse(text);
}

}  // namespace

nlohmann::ordered_json CodecTableJson() {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const internal::CodecRow& row : internal::CodecTable()) {
    rows.push_back({{"name", OrNull(row.name)},
                    {"numcodecs_id", OrNull(row.numcodecs_id)},
                    {"numcodecs_in_v3", row.numcodecs_in_v3},
                    {"kind", KindName(row.kind)},
                    {"v3_defaults", ObjectOrEmpty(row.v3_defaults)},
                    {"numcodecs_defaults", ObjectOrEmpty(row.numcodecs_defaults)},
                    {"shorthand", row.shorthand != nullptr}});
  }
  return rows;
}

}  // namespace turbozarr
