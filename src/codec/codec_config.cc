#include "codec/codec_config.h"

#include <cmath>
#include <cstdint>

namespace turbozarr::internal {

Result<CodecConfig> CodecConfig::Make(std::string codec, const nlohmann::json& config) {
  CodecConfig c;
  c.codec_ = std::move(codec);
  c.used_.insert("id");  // a v2 codec object names itself
  if (config.is_null()) return c;
  if (!config.is_object()) {
    return Status::InvalidArgument(
        "codec " + c.codec_ + ": configuration must be an object, got " + config.dump());
  }
  c.config_ = config;
  return c;
}

bool CodecConfig::Has(std::string_view key) const {
  return config_.find(key) != config_.end();
}

Status CodecConfig::Invalid(std::string_view key, std::string_view what) const {
  std::string msg = "codec " + codec_ + ": field \"";
  msg += key;
  msg += "\": ";
  msg += what;
  return Status::InvalidArgument(std::move(msg));
}

Result<int64_t> CodecConfig::Int(std::string_view key, std::optional<int64_t> fallback) {
  used_.insert(std::string(key));
  auto it = config_.find(key);
  if (it == config_.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Invalid(key, "is required");
  }
  if (it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX) {
    return Invalid(key, "out of range: " + it->dump());
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_float()) {
    // JSON writers may spell an integer as 5.0.
    const double d = it->get<double>();
    if (d >= -9.0e18 && d <= 9.0e18 && d == std::trunc(d)) return static_cast<int64_t>(d);
  }
  return Invalid(key, "expected an integer, got " + it->dump());
}

Result<bool> CodecConfig::Bool(std::string_view key, std::optional<bool> fallback) {
  used_.insert(std::string(key));
  auto it = config_.find(key);
  if (it == config_.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Invalid(key, "is required");
  }
  if (it->is_boolean()) return it->get<bool>();
  return Invalid(key, "expected true or false, got " + it->dump());
}

Result<std::string> CodecConfig::String(std::string_view key,
                                        std::optional<std::string> fallback) {
  used_.insert(std::string(key));
  auto it = config_.find(key);
  if (it == config_.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Invalid(key, "is required");
  }
  if (it->is_string()) return it->get<std::string>();
  return Invalid(key, "expected a string, got " + it->dump());
}

nlohmann::json CodecConfig::Raw(std::string_view key) {
  used_.insert(std::string(key));
  auto it = config_.find(key);
  return it == config_.end() ? nlohmann::json() : *it;
}

Status CodecConfig::Finish() const {
  for (auto it = config_.begin(); it != config_.end(); ++it) {
    if (!used_.contains(it.key())) {
      return Invalid(it.key(), "unknown field (value " + it.value().dump() + ")");
    }
  }
  return Status::OK();
}

}  // namespace turbozarr::internal
