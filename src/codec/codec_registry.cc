// The codec registry: builds codecs from their v3 ({"name": ...}) and v2
// ({"id": ...}) JSON by looking their names up in the codec table, and gives
// back the numcodecs JSON of codecs that have one.
#include "codec/codec_registry.h"

#include "codec/codec_config.h"
#include "codec/codec_table.h"

namespace turbozarr {
namespace {

using internal::CodecConfig;
using internal::CodecSpelling;
using CodecPtr = std::shared_ptr<const Codec>;

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
  if (const internal::CodecRow* row = internal::FindCodecByName(name)) {
    return row->make(config, spec, CodecSpelling::kV3);
  }
  constexpr std::string_view kPrefix = "numcodecs.";
  if (name.starts_with(kPrefix)) {
    const internal::CodecRow* row =
        internal::FindCodecByNumcodecsId(std::string_view(name).substr(kPrefix.size()));
    if (row && row->numcodecs_in_v3) {
      return row->make(config, spec, CodecSpelling::kNumcodecsV3);
    }
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
  if (const internal::CodecRow* row = internal::FindCodecByNumcodecsId(id)) {
    return row->make(config, spec, CodecSpelling::kV2);
  }
  return Status::Unsupported("codec \"" + id + "\" is not supported");
}

Result<nlohmann::json> ToV2Json(const Codec& codec) {
  if (const auto* n = dynamic_cast<const internal::NumcodecsCodec*>(&codec)) {
    return n->ToV2Json();
  }
  return Status::Unsupported("codec " + codec.name() +
                             " has no zarr v2 (numcodecs) form");
}

}  // namespace turbozarr
