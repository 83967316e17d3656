// CodecConfig: reads one codec's JSON configuration field by field, so that
// every codec reports a bad or unknown field the same way:
// InvalidArgument "codec zstd: field \"level\": expected an integer, got \"x\"".
//
// Fields are consumed as they are read; Finish() refuses fields nobody read,
// which catches misspellings ("clevl") instead of silently using defaults.
//
// Thread safety: a value used by one thread while a codec is being built.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"
#include "util/shape_string.h"

namespace turbozarr::internal {

class CodecConfig {
 public:
  // `config` is the "configuration" object of a v3 codec, or a v2 codec's
  // object (whose "id" is then ignored); null means no configuration.
  static Result<CodecConfig> Make(std::string codec, const nlohmann::json& config);

  const std::string& codec() const { return codec_; }
  bool Has(std::string_view key) const;

  // Each returns the field's value, `fallback` when absent, or
  // InvalidArgument naming the codec and field when of the wrong type.
  Result<int64_t> Int(std::string_view key,
                      std::optional<int64_t> fallback = std::nullopt);
  Result<bool> Bool(std::string_view key, std::optional<bool> fallback = std::nullopt);
  Result<std::string> String(std::string_view key,
                             std::optional<std::string> fallback = std::nullopt);
  // The raw value (null JSON when absent).
  nlohmann::json Raw(std::string_view key);

  // InvalidArgument naming the first field that was never read.
  Status Finish() const;

  // InvalidArgument "codec <codec>: field "<key>": <what>".
  Status Invalid(std::string_view key, std::string_view what) const;

 private:
  std::string codec_;
  nlohmann::json config_ = nlohmann::json::object();
  std::set<std::string, std::less<>> used_;
};

}  // namespace turbozarr::internal
