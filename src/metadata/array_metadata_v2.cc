// .zarray / .zattrs of an array (zarr v2): parsing with validation, and
// writing the fields zarr-python writes, in its order.

#include <string>

#include "metadata/metadata_fields.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using internal::Describe;
using internal::FieldError;
using internal::InField;
using internal::RequireField;

constexpr std::string_view kKnownFields[] = {
    "zarr_format", "shape",      "chunks",
    "dtype",       "compressor", "fill_value",
    "order",       "filters",    "dimension_separator",
};

bool IsKnownField(std::string_view key) {
  for (std::string_view k : kKnownFields) {
    if (k == key) return true;
  }
  return false;
}

// Whether a struct's stored bytes are big-endian (its base64 fill value too).
bool StructBytesAreSwapped(const ArrayMetadata& m) {
  return m.dtype.id() == DataTypeId::kStruct && m.v2_byte_order == '>';
}

// A numcodecs configuration: an object with a string "id".
Status CheckNumcodecs(const JsonDocument& j, std::string_view where,
                      std::string_view field) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
    return FieldError(where, field,
                      "expected an object with a string \"id\", got " + Describe(j));
  }
  return Status::OK();
}

// numpy's object dtype holds Python objects; the first filter says how they
// are stored. Only UTF-8 strings and bytes are supported.
Status ResolveObjectDtype(const JsonDocument& filters, std::string_view where,
                          ArrayMetadata& m) {
  if (filters.is_array()) {
    for (const auto& f : filters) {
      const std::string& id = f["id"].get_ref<const std::string&>();
      if (id == "vlen-utf8") {
        m.dtype = DataType(DataTypeId::kString);
        return Status::OK();
      }
      if (id == "vlen-bytes") {
        m.dtype = DataType(DataTypeId::kBytes);
        return Status::OK();
      }
      if (id == "vlen-array" || id == "json2" || id == "pickle" || id == "msgpack2" ||
          id == "json") {
        return Status::Unsupported(std::string(where) +
                                   ": filters: unsupported object codec '" + id + "'");
      }
    }
  }
  return FieldError(
      where, "filters",
      "dtype \"|O\" needs a vlen-utf8 or vlen-bytes filter, got " + Describe(filters));
}

}  // namespace

Result<ArrayMetadata> ParseV2ArrayMetadata(const JsonDocument& zarray,
                                           const JsonDocument& zattrs,
                                           std::string_view where) {
  if (!zarray.is_object()) return FieldError(where, ".zarray", "expected a JSON object");
  TZ_RETURN_NOT_OK(internal::CheckZarrFormat(zarray, 2, where));
  ArrayMetadata m;
  m.zarr_format = 2;

  TZ_ASSIGN_OR_RETURN(const JsonDocument* shape,
                      RequireField(zarray, "shape", where, "shape"));
  TZ_ASSIGN_OR_RETURN(m.shape, internal::ParseIntList(*shape, 0, where, "shape"));
  TZ_ASSIGN_OR_RETURN(const JsonDocument* chunks,
                      RequireField(zarray, "chunks", where, "chunks"));
  TZ_ASSIGN_OR_RETURN(m.chunk_shape, internal::ParseIntList(*chunks, 1, where, "chunks"));
  if (m.chunk_shape.size() != m.shape.size()) {
    return FieldError(where, "chunks",
                      "has " + std::to_string(m.chunk_shape.size()) +
                          " dimensions but shape has " + std::to_string(m.shape.size()));
  }

  TZ_ASSIGN_OR_RETURN(const JsonDocument* dtype,
                      RequireField(zarray, "dtype", where, "dtype"));
  if (!dtype->is_string() && !dtype->is_array()) {
    return FieldError(where, "dtype",
                      "expected a string or a list of fields, got " + Describe(*dtype));
  }
  auto typestr = ParseV2DataTypeJson(*dtype);
  if (!typestr.ok()) return InField(typestr.status(), where, "dtype");
  m.dtype = typestr->dtype;
  m.v2_byte_order = typestr->byte_order;

  m.v2_compressor = nullptr;
  if (auto it = zarray.find("compressor"); it != zarray.end() && !it->is_null()) {
    TZ_RETURN_NOT_OK(CheckNumcodecs(*it, where, "compressor"));
    m.v2_compressor = *it;
  }
  m.v2_filters = nullptr;
  if (auto it = zarray.find("filters"); it != zarray.end() && !it->is_null()) {
    if (!it->is_array()) {
      return FieldError(where, "filters",
                        "expected a list or null, got " + Describe(*it));
    }
    for (const auto& f : *it) TZ_RETURN_NOT_OK(CheckNumcodecs(f, where, "filters"));
    m.v2_filters = *it;
  }
  if (typestr->dtype.is_variable_length()) {
    TZ_RETURN_NOT_OK(ResolveObjectDtype(m.v2_filters, where, m));
  }

  if (auto it = zarray.find("order"); it != zarray.end()) {
    if (*it != "C" && *it != "F") {
      return FieldError(where, "order", "expected \"C\" or \"F\", got " + Describe(*it));
    }
    m.v2_order = it->get_ref<const std::string&>()[0];
  }

  const JsonDocument null_fill;
  auto fill_it = zarray.find("fill_value");
  const JsonDocument& fill = fill_it == zarray.end() ? null_fill : *fill_it;
  m.v2_fill_value_null = fill.is_null();
  auto fill_value = ParseFillValue(fill, m.dtype, 2);
  if (!fill_value.ok()) return InField(fill_value.status(), where, "fill_value");
  m.fill_value = *std::move(fill_value);
  if (StructBytesAreSwapped(m)) {
    // A struct's base64 fill value holds its bytes as stored.
    if (m.fill_value.bytes.size() == m.dtype.size()) {
      m.dtype.SwapStructScalars(m.fill_value.bytes.data(), m.fill_value.bytes.size());
    }
  }

  m.chunk_key_encoding.kind = ChunkKeyEncoding::Kind::kV2;
  m.chunk_key_encoding.separator = '.';
  if (auto it = zarray.find("dimension_separator");
      it != zarray.end() && !it->is_null()) {
    if (*it != "." && *it != "/") {
      return FieldError(where, "dimension_separator",
                        "expected \".\" or \"/\", got " + Describe(*it));
    }
    m.chunk_key_encoding.separator = it->get_ref<const std::string&>()[0];
  }

  if (!zattrs.is_null()) {
    if (!zattrs.is_object()) {
      return FieldError(where, ".zattrs",
                        "expected a JSON object, got " + Describe(zattrs));
    }
    m.attributes = zattrs;
  }
  // v2 has no must_understand; fields other writers add are kept and written
  // back, as zarr-python 2 ignored them.
  for (auto it = zarray.begin(); it != zarray.end(); ++it) {
    if (!IsKnownField(it.key())) m.extra_fields[it.key()] = it.value();
  }

  // Sizes first: building a codec chain multiplies the chunk shape out.
  TZ_RETURN_NOT_OK(internal::CheckSizes(m, where));
  // The equivalent v3 codecs, for display and for conversion to v3. A chain
  // that cannot be built is reported by MakeCodecChain when data is read.
  if (auto chain = m.MakeCodecChain(); chain.ok()) m.codecs = chain->ToJson();
  return m;
}

JsonDocument ToV2ZarrayJson(const ArrayMetadata& m) {
  JsonDocument j = JsonDocument::object();
  j["shape"] = m.shape;
  j["chunks"] = m.chunk_shape;
  j["dtype"] = m.dtype.ToV2Json(m.v2_byte_order);
  if (m.v2_fill_value_null) {
    j["fill_value"] = nullptr;
  } else if (StructBytesAreSwapped(m) && m.fill_value.bytes.size() == m.dtype.size()) {
    FillValue stored{Buffer(m.fill_value.bytes.view())};
    m.dtype.SwapStructScalars(stored.bytes.data(), stored.bytes.size());
    j["fill_value"] = FillValueToJson(stored, m.dtype, 2);
  } else {
    j["fill_value"] = FillValueToJson(m.fill_value, m.dtype, 2);
  }
  j["order"] = std::string(1, m.v2_order == 'F' ? 'F' : 'C');
  JsonDocument filters = m.v2_filters;
  if (m.dtype.is_variable_length() && filters.is_null()) {
    // The object codec must be named for a reader to decode "|O" chunks.
    std::string id = m.dtype.id() == DataTypeId::kString ? "vlen-utf8" : "vlen-bytes";
    filters = JsonDocument::array({{{"id", id}}});
  }
  j["filters"] = std::move(filters);
  j["dimension_separator"] = std::string(1, m.chunk_key_encoding.separator);
  j["compressor"] = m.v2_compressor;
  j["zarr_format"] = 2;
  for (auto it = m.extra_fields.begin(); it != m.extra_fields.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = it.value();
  }
  return j;
}

}  // namespace turbozarr
