// The codec table: one row per codec the library knows, saying everything
// about it that is not the codec's own coding: its names (v3, numcodecs),
// how to build it, the configuration zarr-python writes for it, and its
// `turbozarr cp --codec` shorthand. The registry (MakeCodec, MakeV2Codec),
// metadata completion (CompleteCodecJson) and the shorthands
// (CodecFromShorthand) all read it, as does the Python package through
// turbozarr._core, so a new codec is its own files plus one row.
//
// Thread safety: the table is built once, on first use, and immutable.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codec/codec_config.h"
#include "turbozarr/codec.h"

namespace turbozarr::internal {

// How a codec was named: by its v3 name ("zstd"), as numcodecs in a v3 array
// ("numcodecs.zstd") or by its numcodecs id in a v2 array ({"id": "zstd"}).
enum class CodecSpelling { kV3, kNumcodecsV3, kV2 };

// The arguments of a --codec shorthand: for "zstd:3", "3". Reading one
// gives the fallback when it is absent or empty.
class ShorthandArgs {
 public:
  ShorthandArgs(std::string_view text, std::vector<std::string_view> args,
                size_t itemsize, int zarr_format)
      : text_(text), args_(std::move(args)), itemsize_(itemsize), v2_(zarr_format == 2) {}

  // InvalidArgument unless there are at most `n` arguments.
  Status AtMost(size_t n) const;
  Result<int> Int(size_t i, int fallback) const;
  std::string String(size_t i, std::string_view fallback) const;
  // InvalidArgument "invalid codec '<text>': <what>".
  Status Invalid(std::string_view what) const;
  // The shorthand's one optional integer argument as {key: value}.
  Result<nlohmann::ordered_json> OneInt(const char* key, int fallback) const;

  size_t itemsize() const { return itemsize_; }  // the array's (1 for strings)
  bool v2() const { return v2_; }                // spelled for a v2 array

 private:
  std::string_view text_;
  std::vector<std::string_view> args_;
  size_t itemsize_;
  bool v2_;
};

struct CodecRow {
  // The v3 name ("zstd"); empty for codecs only numcodecs has ("lz4").
  std::string_view name = {};
  // The numcodecs id ("zstd"), empty for none. Such a codec is also
  // "numcodecs.<id>" in a v3 array, unless `numcodecs_in_v3` is false.
  std::string_view numcodecs_id = {};
  bool numcodecs_in_v3 = true;
  CodecKind kind;
  // Builds the codec from its configuration for chunks of `spec`.
  Result<std::shared_ptr<const Codec>> (*make)(CodecConfig& config, const ArraySpec& spec,
                                               CodecSpelling spelling);
  // The fields zarr-python fills in when a v3 configuration leaves them
  // out, in its order (a JSON object, "" for none) ...
  std::string_view v3_defaults = {};
  // ... and what a fixed list cannot say: fields that follow the array's
  // item size, say (null: nothing more).
  void (*complete_v3)(nlohmann::ordered_json& config, size_t itemsize) = nullptr;
  // numcodecs' defaults, which zarr-python writes out in full for a v2
  // {"id": ...} (a JSON object, "" for none) ...
  std::string_view numcodecs_defaults = {};
  // ... and what a fixed list cannot say: fields that follow others (null:
  // nothing more).
  void (*complete_v2)(nlohmann::ordered_json& config) = nullptr;
  // The --codec shorthand (named as the codec is: "zstd", "lz4"): the
  // configuration fields its arguments set, for a v3 name spelled as in v3,
  // else as in numcodecs (null: no shorthand).
  Result<nlohmann::ordered_json> (*shorthand)(const ShorthandArgs& args) = nullptr;

  // The name a shorthand and a listing use: `name`, else `numcodecs_id`.
  std::string_view label() const { return name.empty() ? numcodecs_id : name; }
};

// Every row, in the order of the table (the order listings show).
const std::vector<CodecRow>& CodecTable();
// The row of the v3 name `name`, or of the numcodecs id `id`; null if none.
const CodecRow* FindCodecByName(std::string_view name);
const CodecRow* FindCodecByNumcodecsId(std::string_view id);

}  // namespace turbozarr::internal
