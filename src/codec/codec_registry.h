// The codec registry's internal side: how codecs built from JSON remember
// their spelling, and the interface of codecs that numcodecs (zarr v2) also
// knows. The public entry points (MakeCodec, MakeV2Codec, ToV2Json) are in
// turbozarr/codec.h.
//
// Thread safety: everything here is immutable after construction.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "turbozarr/codec.h"

namespace turbozarr::internal {

// A codec that numcodecs implements too, so that it can appear in a v2
// .zarray (as {"id": ...}) and in a v3 zarr.json as "numcodecs.<id>".
class NumcodecsCodec {
 public:
  virtual ~NumcodecsCodec() = default;
  // The object numcodecs' get_config() returns, "id" first.
  virtual nlohmann::json ToV2Json() const = 0;
};

// zarr-python 3 writes a numcodecs codec in a v3 array as
// {"name": "numcodecs.<id>", "configuration": <its config without "id">}.
inline nlohmann::json NumcodecsV3Json(const nlohmann::json& v2) {
  nlohmann::json config = v2;
  std::string id = config["id"].get<std::string>();
  config.erase("id");
  return {{"name", "numcodecs." + id}, {"configuration", config}};
}

// An array->array codec numcodecs has (a filter): {"id": <id>} in a v2
// array, "numcodecs.<id>" in a v3 one, its configuration numcodecs' in both,
// so that a filter writes only ToV2Json.
class NumcodecsFilter : public ArrayToArrayCodec, public NumcodecsCodec {
 public:
  // `id`: a string literal. `in_v3`: spelled "numcodecs.<id>".
  NumcodecsFilter(const char* id, bool in_v3) : id_(id), in_v3_(in_v3) {}
  std::string name() const override {
    return in_v3_ ? std::string("numcodecs.") + id_ : std::string(id_);
  }
  nlohmann::json ToJson() const override { return NumcodecsV3Json(ToV2Json()); }

 private:
  const char* id_;
  bool in_v3_;
};

}  // namespace turbozarr::internal
