// zarr.json of an array (zarr v3): parsing with validation, and writing the
// fields zarr-python 3 writes.
#include <string>

#include "metadata/metadata_fields.h"
#include "metadata/rectilinear_grid.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using internal::Describe;
using internal::FieldError;
using internal::InField;
using internal::RequireField;

constexpr std::string_view kKnownFields[] = {
    "zarr_format",          "node_type",  "shape",  "data_type",  "chunk_grid",
    "chunk_key_encoding",   "fill_value", "codecs", "attributes", "dimension_names",
    "storage_transformers",
};

bool IsKnownField(std::string_view key) {
  for (std::string_view k : kKnownFields) {
    if (k == key) return true;
  }
  return false;
}

Status ParseChunkGrid(const JsonDocument& grid, std::string_view where,
                      ArrayMetadata& m) {
  if (!grid.is_object()) return FieldError(where, "chunk_grid", "expected an object");
  auto name = grid.find("name");
  if (name == grid.end() || !name->is_string()) {
    return FieldError(where, "chunk_grid.name", "missing or not a string");
  }
  if (*name != "regular" && *name != "rectilinear") {
    return Status::Unsupported(std::string(where) +
                               ": chunk_grid: unsupported chunk grid '" +
                               name->get<std::string>() + "'");
  }
  auto config = grid.find("configuration");
  if (config == grid.end() || !config->is_object()) {
    return FieldError(where, "chunk_grid.configuration", "missing or not an object");
  }
  if (*name == "rectilinear") return internal::ParseRectilinearGrid(*config, where, m);
  TZ_ASSIGN_OR_RETURN(const JsonDocument* chunk_shape,
                      RequireField(*config, "chunk_shape", where,
                                   "chunk_grid.configuration.chunk_shape"));
  TZ_ASSIGN_OR_RETURN(m.chunk_shape,
                      internal::ParseIntList(*chunk_shape, 1, where,
                                             "chunk_grid.configuration.chunk_shape"));
  if (m.chunk_shape.size() != m.shape.size()) {
    return FieldError(where, "chunk_grid.configuration.chunk_shape",
                      "has " + std::to_string(m.chunk_shape.size()) +
                          " dimensions but shape has " + std::to_string(m.shape.size()));
  }
  return Status::OK();
}

Status ParseDimensionNames(const JsonDocument& j, std::string_view where,
                           ArrayMetadata& m) {
  if (j.is_null()) return Status::OK();
  if (!j.is_array()) return FieldError(where, "dimension_names", "expected a list");
  if (j.size() != m.shape.size()) {
    return FieldError(where, "dimension_names",
                      "has " + std::to_string(j.size()) + " names but shape has " +
                          std::to_string(m.shape.size()) + " dimensions");
  }
  std::vector<std::optional<std::string>> names;
  for (const auto& e : j) {
    if (e.is_null()) {
      names.emplace_back(std::nullopt);
    } else if (e.is_string()) {
      names.emplace_back(e.get<std::string>());
    } else {
      return FieldError(where, "dimension_names",
                        "expected strings or null, got " + Describe(j));
    }
  }
  m.dimension_names = std::move(names);
  return Status::OK();
}

}  // namespace

Result<ArrayMetadata> ParseV3ArrayMetadata(const JsonDocument& j,
                                           std::string_view where) {
  if (!j.is_object()) return FieldError(where, "zarr.json", "expected a JSON object");
  TZ_RETURN_NOT_OK(internal::CheckZarrFormat(j, 3, where));
  ArrayMetadata m;
  m.zarr_format = 3;

  TZ_ASSIGN_OR_RETURN(const JsonDocument* node_type,
                      RequireField(j, "node_type", where, "node_type"));
  if (*node_type != "array") {
    return FieldError(where, "node_type",
                      "expected \"array\", got " + Describe(*node_type));
  }
  TZ_ASSIGN_OR_RETURN(const JsonDocument* shape,
                      RequireField(j, "shape", where, "shape"));
  TZ_ASSIGN_OR_RETURN(m.shape, internal::ParseIntList(*shape, 0, where, "shape"));

  TZ_ASSIGN_OR_RETURN(const JsonDocument* data_type,
                      RequireField(j, "data_type", where, "data_type"));
  auto dtype = ParseV3DataType(*data_type);
  if (!dtype.ok()) return InField(dtype.status(), where, "data_type");
  m.dtype = *dtype;
  m.v3_data_type = *data_type;

  TZ_ASSIGN_OR_RETURN(const JsonDocument* grid,
                      RequireField(j, "chunk_grid", where, "chunk_grid"));
  TZ_RETURN_NOT_OK(ParseChunkGrid(*grid, where, m));

  TZ_ASSIGN_OR_RETURN(const JsonDocument* cke,
                      RequireField(j, "chunk_key_encoding", where, "chunk_key_encoding"));
  auto encoding = ChunkKeyEncoding::FromJson(*cke);
  if (!encoding.ok()) return InField(encoding.status(), where, "chunk_key_encoding");
  m.chunk_key_encoding = *encoding;

  TZ_ASSIGN_OR_RETURN(const JsonDocument* fill,
                      RequireField(j, "fill_value", where, "fill_value"));
  auto fill_value = ParseFillValue(*fill, m.dtype, 3);
  if (!fill_value.ok()) return InField(fill_value.status(), where, "fill_value");
  m.fill_value = *std::move(fill_value);

  TZ_ASSIGN_OR_RETURN(const JsonDocument* codecs,
                      RequireField(j, "codecs", where, "codecs"));
  if (!codecs->is_array() || codecs->empty()) {
    return FieldError(where, "codecs",
                      "expected a non-empty list, got " + Describe(*codecs));
  }
  for (const auto& c : *codecs) {
    if (!c.is_object() && !c.is_string()) {
      return FieldError(where, "codecs", "expected codec objects, got " + Describe(c));
    }
  }
  m.codecs = *codecs;

  if (auto it = j.find("attributes"); it != j.end()) {
    if (!it->is_object()) return FieldError(where, "attributes", "expected an object");
    m.attributes = *it;
  }
  if (auto it = j.find("dimension_names"); it != j.end()) {
    TZ_RETURN_NOT_OK(ParseDimensionNames(*it, where, m));
  }
  if (auto it = j.find("storage_transformers"); it != j.end()) {
    if (!it->is_array())
      return FieldError(where, "storage_transformers", "expected a list");
    if (!it->empty()) {
      return Status::Unsupported(
          std::string(where) +
          ": storage_transformers: unsupported storage transformer " +
          Describe((*it)[0]));
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (IsKnownField(it.key())) continue;
    if (!internal::MayIgnore(it.value())) {
      return Status::Unsupported(std::string(where) + ": unsupported field '" + it.key() +
                                 "' (not marked must_understand: false)");
    }
    m.extra_fields[it.key()] = it.value();
  }
  TZ_RETURN_NOT_OK(internal::CheckSizes(m, where));
  return m;
}

JsonDocument ToV3Json(const ArrayMetadata& m) {
  JsonDocument j = JsonDocument::object();
  j["shape"] = m.shape;
  bool stored_spelling = false;
  if (!m.v3_data_type.is_null()) {
    auto parsed = ParseV3DataType(m.v3_data_type);
    stored_spelling = parsed.ok() && *parsed == m.dtype;
  }
  j["data_type"] = stored_spelling ? m.v3_data_type : m.dtype.ToV3Json();
  if (m.rectilinear()) {
    j["chunk_grid"] = internal::RectilinearGridToJson(m);
  } else {
    j["chunk_grid"] = {{"name", "regular"},
                       {"configuration", {{"chunk_shape", m.chunk_shape}}}};
  }
  j["chunk_key_encoding"] = m.chunk_key_encoding.ToJson();
  if (m.dtype.id() == DataTypeId::kRawBits && j["data_type"].is_string() &&
      m.fill_value.bytes.size() == m.dtype.size()) {
    // The spec's "r<bits>" spells its fill value as a list of byte values.
    JsonDocument bytes = JsonDocument::array();
    for (std::byte b : m.fill_value.bytes.view()) bytes.push_back(static_cast<int>(b));
    j["fill_value"] = std::move(bytes);
  } else {
    j["fill_value"] = FillValueToJson(m.fill_value, m.dtype, 3);
  }
  j["codecs"] = m.codecs;
  j["attributes"] = m.attributes;
  if (m.dimension_names) {
    JsonDocument names = JsonDocument::array();
    for (const auto& n : *m.dimension_names) {
      names.push_back(n ? JsonDocument(*n) : JsonDocument(nullptr));
    }
    j["dimension_names"] = std::move(names);
  }
  j["zarr_format"] = 3;
  j["node_type"] = "array";
  j["storage_transformers"] = JsonDocument::array();
  for (auto it = m.extra_fields.begin(); it != m.extra_fields.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = it.value();
  }
  return j;
}

}  // namespace turbozarr
