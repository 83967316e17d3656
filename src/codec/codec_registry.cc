// The codec registry: builds codecs from their v3 ({"name": ...}) and v2
// ({"id": ...}) JSON by name, and gives back the numcodecs JSON of codecs
// that have one.
#include "codec/codec_registry.h"

#include "codec/blosc_codec.h"
#include "codec/bytes_codec.h"
#include "codec/bz2_codec.h"
#include "codec/codec_config.h"
#include "codec/crc32c_codec.h"
#include "codec/delta_codec.h"
#include "codec/gzip_codec.h"
#include "codec/lz4_codec.h"
#include "codec/sharding/sharding_codec.h"
#include "codec/shuffle_codec.h"
#include "codec/transpose_codec.h"
#include "codec/vlen_codec.h"
#include "codec/zlib_codec.h"
#include "codec/zstd_codec.h"

namespace turbozarr {
namespace {

using internal::CodecConfig;
using CodecPtr = std::shared_ptr<const Codec>;

// Upcasts a factory's Result<shared_ptr<const X>>.
template <typename T>
Result<CodecPtr> Up(Result<std::shared_ptr<const T>> r) {
  if (!r.ok()) return r.status();
  return CodecPtr(std::move(r).value());
}

// numcodecs codecs, by id, as they appear in v2 arrays (`in_v3` false) and,
// with a "numcodecs." prefix, in v3 arrays.
Result<CodecPtr> MakeNumcodecs(const std::string& id, CodecConfig& config,
                               const ArraySpec& spec, bool in_v3) {
  if (id == "blosc") return Up(BloscCodec::MakeNumcodecs(config, spec, in_v3));
  if (id == "zstd") return Up(ZstdCodec::Make(config, in_v3));
  if (id == "gzip") return Up(GzipCodec::Make(config, 1, in_v3));
  if (id == "lz4") return Up(Lz4Codec::Make(config));
  if (id == "zlib") return Up(ZlibCodec::Make(config));
  if (id == "bz2") return Up(Bz2Codec::Make(config));
  if (id == "crc32c") return Up(Crc32cCodec::MakeNumcodecs(config, in_v3));
  if (id == "delta") return Up(DeltaCodec::Make(config, spec, in_v3));
  if (id == "shuffle") return Up(ShuffleCodec::Make(config, in_v3));
  if (!in_v3 && id == "vlen-utf8") {
    return Up(VLenCodec::Make(VLenCodec::Flavor::kUtf8, config, spec));
  }
  if (!in_v3 && id == "vlen-bytes") {
    return Up(VLenCodec::Make(VLenCodec::Flavor::kBytes, config, spec));
  }
  return Status::Unsupported("codec \"" + std::string(in_v3 ? "numcodecs." : "") + id +
                             "\" is not supported");
}

}  // namespace

Result<CodecPtr> MakeCodec(const nlohmann::json& j, const ArraySpec& spec) {
  std::string name;
  nlohmann::json configuration;
  if (j.is_string()) {
    name = j.get<std::string>();
  } else if (j.is_object() && j.contains("name") && j["name"].is_string()) {
    name = j["name"].get<std::string>();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "configuration") {
        configuration = it.value();
      } else if (it.key() != "name" && it.key() != "must_understand") {
        return Status::InvalidArgument("codec " + name + ": unknown member \"" +
                                       it.key() + "\"");
      }
    }
  } else {
    return Status::InvalidArgument(
        "a codec must be {\"name\": ..., \"configuration\": ...}, got " + j.dump());
  }
  TZ_ASSIGN_OR_RETURN(CodecConfig config, CodecConfig::Make(name, configuration));
  if (name == "bytes") return Up(BytesCodec::Make(config, spec));
  if (name == "transpose") return Up(TransposeCodec::Make(config, spec));
  if (name == "vlen-utf8")
    return Up(VLenCodec::Make(VLenCodec::Flavor::kUtf8, config, spec));
  if (name == "vlen-bytes") {
    return Up(VLenCodec::Make(VLenCodec::Flavor::kBytes, config, spec));
  }
  if (name == "sharding_indexed") return Up(ShardingCodec::Make(config, spec));
  if (name == "blosc") return Up(BloscCodec::Make(config, spec));
  if (name == "zstd") return Up(ZstdCodec::Make(config, false));
  if (name == "gzip") return Up(GzipCodec::Make(config, 5, false));
  if (name == "crc32c") return Up(Crc32cCodec::Make(config));
  constexpr std::string_view kPrefix = "numcodecs.";
  if (name.starts_with(kPrefix)) {
    return MakeNumcodecs(name.substr(kPrefix.size()), config, spec, /*in_v3=*/true);
  }
  return Status::Unsupported("codec \"" + name + "\" is not supported");
}

Result<CodecPtr> MakeV2Codec(const nlohmann::json& j, const ArraySpec& spec) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
    return Status::InvalidArgument("a zarr v2 codec must be {\"id\": ..., ...}, got " +
                                   j.dump());
  }
  const std::string id = j["id"].get<std::string>();
  TZ_ASSIGN_OR_RETURN(CodecConfig config, CodecConfig::Make(id, j));
  return MakeNumcodecs(id, config, spec, /*in_v3=*/false);
}

Result<nlohmann::json> ToV2Json(const Codec& codec) {
  if (const auto* n = dynamic_cast<const internal::NumcodecsCodec*>(&codec)) {
    return n->ToV2Json();
  }
  return Status::Unsupported("codec " + codec.name() +
                             " has no zarr v2 (numcodecs) form");
}

}  // namespace turbozarr
