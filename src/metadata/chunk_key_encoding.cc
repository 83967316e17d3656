// ChunkKeyEncoding: the v3 "default" and "v2" encodings of chunk coordinates
// as store keys.
#include <string>

#include "metadata/metadata_fields.h"
#include "turbozarr/metadata.h"

namespace turbozarr {

std::string ChunkKeyEncoding::EncodeKey(const std::vector<int64_t>& chunk_coords) const {
  std::string key;
  if (kind == Kind::kDefault) {
    key = "c";
    for (int64_t c : chunk_coords) {
      key += separator;
      key += std::to_string(c);
    }
    return key;
  }
  if (chunk_coords.empty()) return "0";
  for (size_t i = 0; i < chunk_coords.size(); ++i) {
    if (i > 0) key += separator;
    key += std::to_string(chunk_coords[i]);
  }
  return key;
}

JsonDocument ChunkKeyEncoding::ToJson() const {
  JsonDocument j = JsonDocument::object();
  j["name"] = kind == Kind::kDefault ? "default" : "v2";
  j["configuration"] = {{"separator", std::string(1, separator)}};
  return j;
}

Result<ChunkKeyEncoding> ChunkKeyEncoding::FromJson(const JsonDocument& j) {
  const JsonDocument* name = &j;
  const JsonDocument* config = nullptr;
  if (j.is_object()) {
    auto it = j.find("name");
    if (it == j.end()) return Status::InvalidArgument("missing 'name'");
    name = &*it;
    auto c = j.find("configuration");
    if (c != j.end()) config = &*c;
  }
  if (!name->is_string()) {
    return Status::InvalidArgument("expected a name string, got " +
                                   internal::Describe(j));
  }
  ChunkKeyEncoding e;
  const std::string& n = name->get_ref<const std::string&>();
  if (n == "default") {
    e.kind = Kind::kDefault;
    e.separator = '/';
  } else if (n == "v2") {
    e.kind = Kind::kV2;
    e.separator = '.';
  } else {
    return Status::Unsupported("unsupported chunk key encoding '" + n + "'");
  }
  if (config != nullptr) {
    if (!config->is_object()) {
      return Status::InvalidArgument("configuration must be an object, got " +
                                     internal::Describe(*config));
    }
    auto sep = config->find("separator");
    if (sep != config->end()) {
      if (!sep->is_string() || (*sep != "/" && *sep != ".")) {
        return Status::InvalidArgument("separator must be \"/\" or \".\", got " +
                                       internal::Describe(*sep));
      }
      e.separator = sep->get_ref<const std::string&>()[0];
    }
  }
  return e;
}

}  // namespace turbozarr
