// Codec JSON the way zarr-python writes it (CompleteCodecJson) and from the
// CLI's shorthands (CodecFromShorthand), both from the codec table's rows.
#include <charconv>

#include "codec/codec_registry.h"
#include "codec/codec_table.h"

namespace turbozarr {
namespace {

using nlohmann::ordered_json;
using internal::CodecRow;

// `fields` over `defaults` (a row's JSON object text) where they are absent,
// in the order of `fields` and then of `defaults`.
void FillDefaults(ordered_json& fields, std::string_view defaults) {
  if (defaults.empty()) return;
  const ordered_json parsed = ordered_json::parse(defaults);
  for (const auto& [key, value] : parsed.items()) {
    if (!fields.contains(key)) fields[key] = value;
  }
}

Result<ordered_json> CompleteV3(const ordered_json& codec, size_t itemsize) {
  if (!codec.is_object() || !codec.contains("name")) {
    return Status::InvalidArgument("a v3 codec needs a \"name\": " + codec.dump());
  }
  const ordered_json& name = codec["name"];
  ordered_json config = codec.value("configuration", ordered_json::object());
  if (!config.is_object()) {
    return Status::InvalidArgument("codec " + name.dump() +
                                   ": configuration must be an object, got " +
                                   config.dump());
  }
  const CodecRow* row =
      name.is_string() ? internal::FindCodecByName(name.get<std::string>()) : nullptr;
  if (row != nullptr) {
    FillDefaults(config, row->v3_defaults);
    if (row->complete_v3 != nullptr) row->complete_v3(config, itemsize);
  }
  ordered_json out = {{"name", name}};
  // zarr-python writes numcodecs' codecs with their configuration even when
  // it is empty, and reads them only so.
  const bool numcodecs = name.is_string() && name.get<std::string>().starts_with("numcodecs.");
  if (!config.empty() || numcodecs) out["configuration"] = std::move(config);
  return out;
}

Result<ordered_json> CompleteV2(const ordered_json& codec) {
  if (!codec.is_object() || !codec.contains("id")) {
    return Status::InvalidArgument("a v2 (numcodecs) codec needs an \"id\": " +
                                   codec.dump());
  }
  const ordered_json& id = codec["id"];
  ordered_json out = {{"id", id}};
  const CodecRow* row =
      id.is_string() ? internal::FindCodecByNumcodecsId(id.get<std::string>()) : nullptr;
  if (row != nullptr) FillDefaults(out, row->numcodecs_defaults);
  // What the caller gave replaces a default in its place, as dict.update.
  for (const auto& [key, value] : codec.items()) out[key] = value;
  if (row != nullptr && row->complete_v2 != nullptr) row->complete_v2(out);
  return out;
}

std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    size_t end = text.find(':', begin);
    parts.push_back(text.substr(begin, end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

Status UnknownShorthand(std::string_view text) {
  std::string names;
  for (const CodecRow& row : internal::CodecTable()) {
    if (row.shorthand != nullptr) names += std::string(row.label()) + ", ";
  }
  names.resize(names.size() - 2);
  return Status::InvalidArgument("unknown codec '" + std::string(text) +
                                 "': expected " + names + " or none");
}

}  // namespace

Result<ordered_json> CompleteCodecJson(const ordered_json& codec, size_t itemsize,
                                       int zarr_format) {
  return zarr_format == 2 ? CompleteV2(codec) : CompleteV3(codec, itemsize);
}

Result<nlohmann::json> CodecFromShorthand(std::string_view text, const DataType& dtype,
                                          int zarr_format) {
  std::vector<std::string_view> parts = SplitColons(text);
  const std::string_view label = parts[0];
  parts.erase(parts.begin());
  const size_t itemsize = dtype.is_variable_length() ? 1 : dtype.size();
  internal::ShorthandArgs args(text, std::move(parts), itemsize, zarr_format);
  if (label == "none") {
    TZ_RETURN_NOT_OK(args.AtMost(0));
    return nlohmann::json(nullptr);
  }
  const CodecRow* row = nullptr;
  for (const CodecRow& r : internal::CodecTable()) {
    if (r.shorthand != nullptr && r.label() == label) row = &r;
  }
  if (row == nullptr) return UnknownShorthand(text);
  TZ_ASSIGN_OR_RETURN(ordered_json fields, row->shorthand(args));
  ordered_json codec;
  if (zarr_format == 3 && !row->name.empty()) {
    const ordered_json named = {{"name", row->name}, {"configuration", fields}};
    TZ_ASSIGN_OR_RETURN(codec, CompleteV3(named, itemsize));
  } else {
    fields["id"] = row->numcodecs_id;
    TZ_ASSIGN_OR_RETURN(codec, CompleteV2(fields));
  }
  nlohmann::json out = nlohmann::json::parse(codec.dump());
  return zarr_format == 3 && row->name.empty() ? internal::NumcodecsV3Json(out) : out;
}

namespace internal {

Status ShorthandArgs::Invalid(std::string_view what) const {
  return Status::InvalidArgument("invalid codec '" + std::string(text_) + "': " +
                                 std::string(what));
}

Status ShorthandArgs::AtMost(size_t n) const {
  if (args_.size() <= n) return Status::OK();
  return Invalid("expected at most " + std::to_string(n + 1) + " ':'-separated parts");
}

Result<int> ShorthandArgs::Int(size_t i, int fallback) const {
  if (args_.size() <= i || args_[i].empty()) return fallback;
  const std::string_view text = args_[i];
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Invalid("'" + std::string(text) + "' is not an integer");
  }
  return value;
}

std::string ShorthandArgs::String(size_t i, std::string_view fallback) const {
  return std::string(args_.size() <= i || args_[i].empty() ? fallback : args_[i]);
}

Result<ordered_json> ShorthandArgs::OneInt(const char* key, int fallback) const {
  TZ_RETURN_NOT_OK(AtMost(1));
  TZ_ASSIGN_OR_RETURN(int value, Int(0, fallback));
  return ordered_json{{key, value}};
}

}  // namespace internal
}  // namespace turbozarr
