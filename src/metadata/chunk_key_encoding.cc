// ChunkKeyEncoding: the v3 "default" and "v2" encodings of chunk coordinates
// as store keys.
#include <charconv>
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

std::optional<std::vector<int64_t>> ChunkKeyEncoding::DecodeKey(std::string_view key,
                                                               size_t rank) const {
  std::string_view rest = key;
  if (kind == Kind::kDefault) {
    if (!rest.starts_with('c')) return std::nullopt;
    rest.remove_prefix(1);
  } else if (rank == 0) {
    return key == "0" ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{})
                      : std::nullopt;
  }
  std::vector<int64_t> coords;
  coords.reserve(rank);
  for (size_t d = 0; d < rank; ++d) {
    // The default encoding puts a separator before every coordinate, v2
    // only between them.
    if (kind == Kind::kDefault || d > 0) {
      if (!rest.starts_with(separator)) return std::nullopt;
      rest.remove_prefix(1);
    }
    int64_t c = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), c);
    if (ec != std::errc() || c < 0) return std::nullopt;
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
    coords.push_back(c);
  }
  // The round trip refuses what from_chars lets through: leading zeros.
  if (!rest.empty() || EncodeKey(coords) != key) return std::nullopt;
  return coords;
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
