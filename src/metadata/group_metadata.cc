// Group metadata: zarr.json of a group (v3, with zarr-python's inline
// consolidated metadata), .zgroup/.zattrs (v2) and v2's .zmetadata.
#include <string>

#include "metadata/metadata_fields.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using internal::Describe;
using internal::FieldError;

Status ParseConsolidated(const JsonDocument& c, std::string_view where,
                         GroupMetadata& m) {
  if (c.is_null()) return Status::OK();
  if (!c.is_object()) {
    return FieldError(where, "consolidated_metadata",
                      "expected an object, got " + Describe(c));
  }
  auto kind = c.find("kind");
  if (kind == c.end() || *kind != "inline") {
    // Another kind of consolidation is an extension we may skip if allowed.
    if (internal::MayIgnore(c)) {
      m.extra_fields["consolidated_metadata"] = c;
      return Status::OK();
    }
    return Status::Unsupported(
        std::string(where) + ": consolidated_metadata: unsupported kind " +
        (kind == c.end() ? std::string("(none)") : Describe(*kind)));
  }
  auto metadata = c.find("metadata");
  if (metadata == c.end() || !metadata->is_object()) {
    return FieldError(where, "consolidated_metadata.metadata",
                      "missing or not an object");
  }
  std::map<std::string, JsonDocument> members;
  for (auto it = metadata->begin(); it != metadata->end(); ++it) {
    if (!it->is_object()) {
      return FieldError(where, "consolidated_metadata.metadata." + it.key(),
                        "expected an object");
    }
    members.emplace(it.key(), it.value());
  }
  m.consolidated = std::move(members);
  return Status::OK();
}

}  // namespace

Result<GroupMetadata> ParseV3GroupMetadata(const JsonDocument& j,
                                           std::string_view where) {
  if (!j.is_object()) return FieldError(where, "zarr.json", "expected a JSON object");
  TZ_RETURN_NOT_OK(internal::CheckZarrFormat(j, 3, where));
  GroupMetadata m;
  m.zarr_format = 3;
  TZ_ASSIGN_OR_RETURN(const JsonDocument* node_type,
                      internal::RequireField(j, "node_type", where, "node_type"));
  if (*node_type != "group") {
    return FieldError(where, "node_type",
                      "expected \"group\", got " + Describe(*node_type));
  }
  if (auto it = j.find("attributes"); it != j.end()) {
    if (!it->is_object()) return FieldError(where, "attributes", "expected an object");
    m.attributes = *it;
  }
  if (auto it = j.find("consolidated_metadata"); it != j.end()) {
    TZ_RETURN_NOT_OK(ParseConsolidated(*it, where, m));
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key == "zarr_format" || key == "node_type" || key == "attributes" ||
        key == "consolidated_metadata") {
      continue;
    }
    if (!internal::MayIgnore(it.value())) {
      return Status::Unsupported(std::string(where) + ": unsupported field '" + key +
                                 "' (not marked must_understand: false)");
    }
    m.extra_fields[key] = it.value();
  }
  return m;
}

JsonDocument ToV3Json(const GroupMetadata& m) {
  JsonDocument j = JsonDocument::object();
  j["attributes"] = m.attributes;
  j["zarr_format"] = 3;
  if (m.consolidated) {
    JsonDocument metadata = JsonDocument::object();
    for (const auto& [path, doc] : *m.consolidated) metadata[path] = doc;
    j["consolidated_metadata"] = {{"kind", "inline"},
                                  {"must_understand", false},
                                  {"metadata", std::move(metadata)}};
  }
  j["node_type"] = "group";
  for (auto it = m.extra_fields.begin(); it != m.extra_fields.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = it.value();
  }
  return j;
}

Result<GroupMetadata> ParseV2GroupMetadata(const JsonDocument& zgroup,
                                           const JsonDocument& zattrs,
                                           std::string_view where) {
  if (!zgroup.is_object()) return FieldError(where, ".zgroup", "expected a JSON object");
  TZ_RETURN_NOT_OK(internal::CheckZarrFormat(zgroup, 2, where));
  GroupMetadata m;
  m.zarr_format = 2;
  if (!zattrs.is_null()) {
    if (!zattrs.is_object()) {
      return FieldError(where, ".zattrs",
                        "expected a JSON object, got " + Describe(zattrs));
    }
    m.attributes = zattrs;
  }
  for (auto it = zgroup.begin(); it != zgroup.end(); ++it) {
    if (it.key() != "zarr_format") m.extra_fields[it.key()] = it.value();
  }
  return m;
}

JsonDocument ToV2ZgroupJson(const GroupMetadata& m) {
  JsonDocument j = {{"zarr_format", 2}};
  for (auto it = m.extra_fields.begin(); it != m.extra_fields.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = it.value();
  }
  return j;
}

Result<V2ConsolidatedMetadata> ParseV2ConsolidatedMetadata(const JsonDocument& j,
                                                           std::string_view where) {
  if (!j.is_object()) return FieldError(where, ".zmetadata", "expected a JSON object");
  auto format = j.find("zarr_consolidated_format");
  if (format == j.end() || !format->is_number_integer() || format->get<int64_t>() != 1) {
    return FieldError(where, "zarr_consolidated_format",
                      "expected 1, got " + (format == j.end() ? std::string("nothing")
                                                              : Describe(*format)));
  }
  auto metadata = j.find("metadata");
  if (metadata == j.end() || !metadata->is_object()) {
    return FieldError(where, "metadata", "missing or not an object");
  }
  V2ConsolidatedMetadata out;
  for (auto it = metadata->begin(); it != metadata->end(); ++it) {
    if (!it->is_object()) {
      return FieldError(where, "metadata." + it.key(), "expected an object");
    }
    out.emplace(it.key(), it.value());
  }
  return out;
}

JsonDocument ToV2ConsolidatedJson(const V2ConsolidatedMetadata& m) {
  JsonDocument metadata = JsonDocument::object();
  for (const auto& [key, doc] : m) metadata[key] = doc;
  return {{"metadata", std::move(metadata)}, {"zarr_consolidated_format", 1}};
}

}  // namespace turbozarr
