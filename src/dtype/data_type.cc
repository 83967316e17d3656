// DataType: sizes, names and the v3 / v2 spellings of every element type.
//
// The v3 spellings are those zarr-python 3 writes: core names ("int32",
// "float16", ...), "string", "variable_length_bytes", and
// {"name": "raw_bytes" | "null_terminated_bytes" | "fixed_length_utf32",
//  "configuration": {"length_bytes": N}} for the fixed-size byte types,
// {"name": "numpy.datetime64" | "numpy.timedelta64", "configuration":
//  {"unit": U, "scale_factor": N}} for times and {"name": "struct",
// "configuration": {"fields": [{"name": ..., "data_type": ...}, ...]}} for
// structs. The spec's "r<bits>" raw-bits names, "bytes", and the older
// "structured" spelling (fields as [name, type] pairs) are read as well.
#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "turbozarr/dtype.h"

namespace turbozarr {

struct DataType::Details {
  std::string unit;  // times: the unit, "generic" included
  int64_t scale = 1;
  std::vector<StructField> fields;
  std::vector<SwapSegment> segments;  // structs: from the fields
  bool operator==(const Details&) const = default;
};

namespace {

// Dumps JSON for an error message; never throws on invalid UTF-8.
std::string SafeDump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct NamedType {
  std::string_view v3_name;
  DataTypeId id;
  size_t size;
  char v2_kind;  // numpy kind character
};

constexpr std::array<NamedType, 14> kNumericTypes = {{
    {"bool", DataTypeId::kBool, 1, 'b'},
    {"int8", DataTypeId::kInt8, 1, 'i'},
    {"int16", DataTypeId::kInt16, 2, 'i'},
    {"int32", DataTypeId::kInt32, 4, 'i'},
    {"int64", DataTypeId::kInt64, 8, 'i'},
    {"uint8", DataTypeId::kUInt8, 1, 'u'},
    {"uint16", DataTypeId::kUInt16, 2, 'u'},
    {"uint32", DataTypeId::kUInt32, 4, 'u'},
    {"uint64", DataTypeId::kUInt64, 8, 'u'},
    {"float16", DataTypeId::kFloat16, 2, 'f'},
    {"float32", DataTypeId::kFloat32, 4, 'f'},
    {"float64", DataTypeId::kFloat64, 8, 'f'},
    {"complex64", DataTypeId::kComplex64, 8, 'c'},
    {"complex128", DataTypeId::kComplex128, 16, 'c'},
}};

const NamedType* FindNumeric(DataTypeId id) {
  for (const auto& t : kNumericTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

// The zarr-extensions low-precision types. numpy has no type string for
// them; in v2 TensorStore spells them by name alone ("bfloat16", stored
// little-endian).
struct LowPrecisionType {
  std::string_view name;
  DataTypeId id;
  size_t size;
  size_t bits;  // value bits
};

constexpr std::array<LowPrecisionType, 16> kLowPrecisionTypes = {{
    {"bfloat16", DataTypeId::kBFloat16, 2, 16},
    {"float8_e4m3fn", DataTypeId::kFloat8E4M3FN, 1, 8},
    {"float8_e5m2", DataTypeId::kFloat8E5M2, 1, 8},
    {"float8_e4m3fnuz", DataTypeId::kFloat8E4M3FNUZ, 1, 8},
    {"float8_e5m2fnuz", DataTypeId::kFloat8E5M2FNUZ, 1, 8},
    {"float8_e4m3b11fnuz", DataTypeId::kFloat8E4M3B11FNUZ, 1, 8},
    {"float8_e3m4", DataTypeId::kFloat8E3M4, 1, 8},
    {"float8_e4m3", DataTypeId::kFloat8E4M3, 1, 8},
    {"float8_e8m0fnu", DataTypeId::kFloat8E8M0FNU, 1, 8},
    {"float4_e2m1fn", DataTypeId::kFloat4E2M1FN, 1, 4},
    {"float6_e2m3fn", DataTypeId::kFloat6E2M3FN, 1, 6},
    {"float6_e3m2fn", DataTypeId::kFloat6E3M2FN, 1, 6},
    {"int2", DataTypeId::kInt2, 1, 2},
    {"int4", DataTypeId::kInt4, 1, 4},
    {"uint2", DataTypeId::kUInt2, 1, 2},
    {"uint4", DataTypeId::kUInt4, 1, 4},
}};

const LowPrecisionType* FindLowPrecision(DataTypeId id) {
  for (const auto& t : kLowPrecisionTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const LowPrecisionType* FindLowPrecision(std::string_view name) {
  for (const auto& t : kLowPrecisionTypes) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

[[maybe_unused]] bool IsSizedId(DataTypeId id) {
  return id == DataTypeId::kRawBits || id == DataTypeId::kFixedBytes ||
         id == DataTypeId::kFixedUnicode;
}

// The largest element a fixed-size type may have: numpy's limit (an
// itemsize is a C int). A document claiming more is not an array any tool
// can hold, and believing it would size chunk buffers by it.
constexpr size_t kMaxElementBytes = (size_t{1} << 31) - 1;

// Parses a positive decimal count that fills all of `s`.
std::optional<size_t> ParseCount(std::string_view s) {
  size_t n = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n == 0) return std::nullopt;
  return n;
}

// The {"length_bytes": N} configuration of the fixed-size byte types.
Result<size_t> ParseLengthBytes(const nlohmann::json& j, std::string_view name) {
  auto where = std::string("data_type '") + std::string(name) + "'";
  auto config = j.find("configuration");
  if (config == j.end() || !config->is_object()) {
    return Status::InvalidArgument(where + ": missing configuration object");
  }
  auto len = config->find("length_bytes");
  if (len == config->end() || !len->is_number_integer()) {
    return Status::InvalidArgument(where +
                                   ": configuration.length_bytes must be an integer");
  }
  if (config->size() != 1) {
    return Status::InvalidArgument(where +
                                   ": configuration has fields other than length_bytes");
  }
  int64_t n = len->get<int64_t>();
  if (n < 1 || static_cast<uint64_t>(n) > kMaxElementBytes) {
    return Status::InvalidArgument(where + ": length_bytes must be 1 to " +
                                   std::to_string(kMaxElementBytes) + ", got " +
                                   std::to_string(n));
  }
  return static_cast<size_t>(n);
}

nlohmann::json LengthBytesJson(std::string_view name, size_t n) {
  nlohmann::json j = nlohmann::json::object();
  j["name"] = name;
  j["configuration"] = {{"length_bytes", n}};
  return j;
}

Result<DataType> ParseV3Name(std::string_view name) {
  for (const auto& t : kNumericTypes) {
    if (t.v3_name == name) return DataType(t.id);
  }
  if (const LowPrecisionType* t = FindLowPrecision(name)) return DataType(t->id);
  // zarr-extensions' other names of the complex types, which zarrs reads.
  if (name == "complex_float32") return DataType(DataTypeId::kComplex64);
  if (name == "complex_float64") return DataType(DataTypeId::kComplex128);
  if (name == "string") return DataType(DataTypeId::kString);
  if (name == "bytes" || name == "variable_length_bytes")
    return DataType(DataTypeId::kBytes);
  if (name.size() > 1 && name[0] == 'r') {
    auto bits = ParseCount(name.substr(1));
    if (bits && *bits % 8 == 0) return DataType::Sized(DataTypeId::kRawBits, *bits / 8);
    return Status::InvalidArgument("data_type '" + std::string(name) +
                                   "': raw bits must be a positive multiple of 8");
  }
  return Status::Unsupported("unsupported data_type '" + std::string(name) + "'");
}

// ---- times ---------------------------------------------------------------

constexpr std::array<std::string_view, 14> kTimeUnits = {
    "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"};

// numpy keeps a unit's multiple in a C int.
constexpr int64_t kMaxTimeScale = (int64_t{1} << 31) - 1;

std::string_view TimeName(DataTypeId id) {
  return id == DataTypeId::kDateTime64 ? "datetime64" : "timedelta64";
}

// The v3 {"unit": U, "scale_factor": N} configuration of the time types.
Result<DataType> ParseV3Time(const nlohmann::json& j, DataTypeId id) {
  const std::string where = "data_type 'numpy." + std::string(TimeName(id)) + "'";
  auto config = j.find("configuration");
  if (config == j.end() || !config->is_object()) {
    return Status::InvalidArgument(where + ": missing configuration object");
  }
  auto unit = config->find("unit");
  auto scale = config->find("scale_factor");
  if (unit == config->end() || !unit->is_string()) {
    return Status::InvalidArgument(where + ": configuration.unit must be a string");
  }
  if (scale == config->end() || !scale->is_number_integer()) {
    return Status::InvalidArgument(where +
                                   ": configuration.scale_factor must be an integer");
  }
  if (config->size() != 2) {
    return Status::InvalidArgument(
        where + ": configuration has fields other than unit and scale_factor");
  }
  auto parsed = DataType::Time(id, unit->get_ref<const std::string&>(), scale->get<int64_t>());
  if (!parsed.ok()) return parsed.status().WithContext(where);
  return parsed;
}

// A v2 time type string after its byte order: "M8", "M8[ns]", "m8[10s]",
// "M8[2generic]" (zarr-python spells a generic multiple out).
Result<DataType> ParseV2Time(std::string_view typestr, std::string_view rest) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("dtype '" + std::string(typestr) + "': " +
                                   std::string(why));
  };
  const DataTypeId id = rest[0] == 'M' ? DataTypeId::kDateTime64 : DataTypeId::kTimeDelta64;
  if (rest.size() < 2 || rest[1] != '8') return bad("times are 8 bytes");
  std::string_view unit_part = rest.substr(2);
  if (unit_part.empty()) return DataType::Time(id, "generic", 1);
  if (unit_part.front() != '[' || unit_part.back() != ']') {
    return bad("expected a unit in brackets, as in 'M8[ns]'");
  }
  unit_part = unit_part.substr(1, unit_part.size() - 2);
  size_t digits = 0;
  while (digits < unit_part.size() && unit_part[digits] >= '0' && unit_part[digits] <= '9') {
    ++digits;
  }
  int64_t scale = 1;
  if (digits > 0) {
    auto [end, ec] = std::from_chars(unit_part.data(), unit_part.data() + digits, scale);
    if (ec != std::errc()) return bad("the unit's multiple is out of range");
  }
  auto parsed = DataType::Time(id, unit_part.substr(digits), scale);
  if (!parsed.ok()) return parsed.status().WithContext("dtype '" + std::string(typestr) + "'");
  return parsed;
}

// ---- structs -------------------------------------------------------------

// Structs nest; a document nesting deeper than this is refused before the
// recursion could exhaust the stack (numpy itself stops at 32 levels).
constexpr int kMaxStructDepth = 32;

Result<DataType> ParseV3DataTypeAt(const nlohmann::json& j, int depth);
Result<V2TypeString> ParseV2DataTypeAt(const nlohmann::json& j, int depth);

Result<DataType> ParseV3Struct(const nlohmann::json& j, std::string_view name, int depth) {
  const std::string where = "data_type '" + std::string(name) + "'";
  auto config = j.find("configuration");
  if (config == j.end() || !config->is_object()) {
    return Status::InvalidArgument(where + ": missing configuration object");
  }
  auto list = config->find("fields");
  if (list == config->end() || !list->is_array()) {
    return Status::InvalidArgument(where + ": configuration.fields must be a list");
  }
  if (config->size() != 1) {
    return Status::InvalidArgument(where + ": configuration has fields other than fields");
  }
  std::vector<StructField> fields;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& f = (*list)[i];
    const std::string at = where + ": field " + std::to_string(i);
    const nlohmann::json* field_name = nullptr;
    const nlohmann::json* field_type = nullptr;
    if (f.is_object()) {  // "struct": {"name": ..., "data_type": ...}
      auto n = f.find("name");
      auto t = f.find("data_type");
      if (n == f.end() || t == f.end() || f.size() != 2) {
        return Status::InvalidArgument(at + ": expected {\"name\", \"data_type\"}, got " +
                                       SafeDump(f));
      }
      field_name = &*n;
      field_type = &*t;
    } else if (f.is_array() && f.size() == 2) {  // "structured": [name, type]
      field_name = &f[0];
      field_type = &f[1];
    } else {
      return Status::InvalidArgument(at + ": expected a field object, got " + SafeDump(f));
    }
    if (!field_name->is_string()) {
      return Status::InvalidArgument(at + ": the name must be a string, got " +
                                     SafeDump(*field_name));
    }
    auto dtype = ParseV3DataTypeAt(*field_type, depth + 1);
    if (!dtype.ok()) {
      return dtype.status().WithContext(at + " ('" +
                                        field_name->get_ref<const std::string&>() + "')");
    }
    fields.push_back(StructField{field_name->get<std::string>(), *dtype, {}, 0});
  }
  auto parsed = DataType::Struct(std::move(fields));
  if (!parsed.ok()) return parsed.status().WithContext(where);
  return parsed;
}

// Folds one scalar's byte order into a struct's: '|' (none yet) takes the
// first multi-byte order; a second, different one is refused.
Status MergeByteOrder(char& order, char field_order, const nlohmann::json& j) {
  if (field_order == '|' || order == field_order) return Status::OK();
  if (order == '|') {
    order = field_order;
    return Status::OK();
  }
  return Status::Unsupported("dtype " + SafeDump(j) +
                             ": fields of both byte orders are not supported");
}

Result<V2TypeString> ParseV2Struct(const nlohmann::json& j, int depth) {
  const std::string where = "dtype " + SafeDump(j);
  if (depth > kMaxStructDepth) {
    return Status::InvalidArgument(where + ": structs nested more than " +
                                   std::to_string(kMaxStructDepth) + " deep");
  }
  if (j.empty()) return Status::InvalidArgument(where + ": a structured dtype needs fields");
  std::vector<StructField> fields;
  char order = '|';
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& f = j[i];
    const std::string at = where + ": field " + std::to_string(i);
    if (!f.is_array() || (f.size() != 2 && f.size() != 3) || !f[0].is_string()) {
      return Status::InvalidArgument(at + ": expected [name, type] or [name, type, shape], got " +
                                     SafeDump(f));
    }
    auto type = ParseV2DataTypeAt(f[1], depth + 1);
    if (!type.ok()) {
      return type.status().WithContext(at + " ('" + f[0].get<std::string>() + "')");
    }
    if (type->dtype.is_variable_length()) {
      return Status::Unsupported(at + ": object fields are not supported");
    }
    TZ_RETURN_NOT_OK(MergeByteOrder(order, type->byte_order, j));
    StructField field{f[0].get<std::string>(), type->dtype, {}, 0};
    if (f.size() == 3) {
      const nlohmann::json& shape = f[2];
      auto put = [&](const nlohmann::json& e) -> Status {
        if (!e.is_number_integer() || e.get<int64_t>() < 0 ||
            e.get<int64_t>() > static_cast<int64_t>(kMaxElementBytes)) {
          return Status::InvalidArgument(at + ": shape entries must be sizes, got " +
                                         SafeDump(shape));
        }
        field.shape.push_back(e.get<int64_t>());
        return Status::OK();
      };
      if (shape.is_array()) {
        for (const auto& e : shape) TZ_RETURN_NOT_OK(put(e));
      } else {
        TZ_RETURN_NOT_OK(put(shape));
      }
    }
    fields.push_back(std::move(field));
  }
  auto parsed = DataType::Struct(std::move(fields));
  if (!parsed.ok()) return parsed.status().WithContext(where);
  return V2TypeString{*parsed, order};
}

// The swap segments of a struct of `fields` (offsets set).
std::vector<DataType::SwapSegment> SegmentsOf(const std::vector<StructField>& fields) {
  std::vector<DataType::SwapSegment> out;
  for (const StructField& f : fields) {
    const size_t unit = f.dtype.swap_unit();
    for (size_t at = 0; at < f.size(); at += f.dtype.size()) {
      const size_t base = f.offset + at;
      for (const DataType::SwapSegment& s : f.dtype.swap_segments()) {  // a nested struct
        out.push_back({static_cast<uint32_t>(base + s.offset), s.bytes});
      }
      for (size_t k = 0; unit > 1 && k < f.dtype.size(); k += unit) {
        out.push_back({static_cast<uint32_t>(base + k), static_cast<uint32_t>(unit)});
      }
    }
  }
  return out;
}

}  // namespace

DataType::DataType(DataTypeId id) : id_(id) {
  assert(!IsSizedId(id) && "sized data types need DataType::Sized");
  assert(id != DataTypeId::kStruct && "structs need DataType::Struct");
  if (const NamedType* t = FindNumeric(id)) {
    size_ = t->size;
  } else if (const LowPrecisionType* l = FindLowPrecision(id)) {
    size_ = l->size;
  } else if (is_variable_length()) {
    size_ = sizeof(std::string);
  } else if (is_time()) {
    size_ = 8;
    details_ = std::make_shared<const Details>(Details{"generic", 1, {}, {}});
  } else {
    size_ = id == DataTypeId::kFixedUnicode ? 4 : 1;
  }
}

DataType DataType::Sized(DataTypeId id, size_t size) {
  assert(IsSizedId(id));
  DataType d;
  d.id_ = id;
  d.size_ = size;
  return d;
}

Result<DataType> DataType::Time(DataTypeId id, std::string_view unit, int64_t scale) {
  assert(id == DataTypeId::kDateTime64 || id == DataTypeId::kTimeDelta64);
  if (unit == "\xce\xbcs") unit = "us";  // numpy's spelling of the micro sign
  if (std::find(kTimeUnits.begin(), kTimeUnits.end(), unit) == kTimeUnits.end()) {
    return Status::InvalidArgument("unknown time unit '" + std::string(unit) +
                                   "' (expected Y, M, W, D, h, m, s, ms, us, ns, ps, fs, "
                                   "as or generic)");
  }
  if (scale < 1 || scale > kMaxTimeScale) {
    return Status::InvalidArgument("the unit's multiple must be 1 to " +
                                   std::to_string(kMaxTimeScale) + ", got " +
                                   std::to_string(scale));
  }
  DataType d;
  d.id_ = id;
  d.size_ = 8;
  d.details_ = std::make_shared<const Details>(Details{std::string(unit), scale, {}, {}});
  return d;
}

Result<DataType> DataType::Struct(std::vector<StructField> fields) {
  if (fields.empty()) return Status::InvalidArgument("a struct needs at least one field");
  std::set<std::string_view> names;
  size_t offset = 0;
  for (StructField& f : fields) {
    if (f.name.empty()) return Status::InvalidArgument("a struct field has an empty name");
    if (!names.insert(f.name).second) {
      return Status::InvalidArgument("struct field '" + f.name + "' appears twice");
    }
    if (f.dtype.is_variable_length()) {
      return Status::Unsupported("struct field '" + f.name + "' has the variable-length type " +
                                 f.dtype.ToString());
    }
    size_t count = 1;
    for (int64_t e : f.shape) {
      if (e < 0 || (e > 0 && count > kMaxElementBytes / static_cast<size_t>(e))) {
        return Status::InvalidArgument("struct field '" + f.name + "' is too large");
      }
      count *= static_cast<size_t>(e);
    }
    if (count > 0 && f.dtype.size() > kMaxElementBytes / count) {
      return Status::InvalidArgument("struct field '" + f.name + "' is too large");
    }
    f.offset = offset;
    offset += f.size();
    if (offset > kMaxElementBytes) {
      return Status::InvalidArgument("a struct larger than " +
                                     std::to_string(kMaxElementBytes) + " bytes");
    }
  }
  if (offset == 0) return Status::InvalidArgument("a struct of zero bytes");
  DataType d;
  d.id_ = DataTypeId::kStruct;
  d.size_ = offset;
  std::vector<SwapSegment> segments = SegmentsOf(fields);
  d.details_ =
      std::make_shared<const Details>(Details{"", 1, std::move(fields), std::move(segments)});
  return d;
}

size_t StructField::size() const {
  size_t count = 1;
  for (int64_t e : shape) count *= static_cast<size_t>(e);
  return dtype.size() * count;
}

bool DataType::operator==(const DataType& o) const {
  if (id_ != o.id_ || size_ != o.size_) return false;
  if (details_ == o.details_) return true;
  if (!details_ || !o.details_) return false;
  return *details_ == *o.details_;
}

const std::string& DataType::time_unit() const {
  static const std::string kNone;
  return details_ ? details_->unit : kNone;
}

int64_t DataType::time_scale() const { return details_ ? details_->scale : 1; }

const std::vector<StructField>& DataType::fields() const {
  static const std::vector<StructField> kNone;
  return details_ ? details_->fields : kNone;
}

size_t DataType::swap_unit() const {
  switch (id_) {
    case DataTypeId::kComplex64:
    case DataTypeId::kComplex128:
      return size_ / 2;
    case DataTypeId::kFixedUnicode:
      return 4;
    case DataTypeId::kRawBits:
    case DataTypeId::kFixedBytes:
    case DataTypeId::kString:
    case DataTypeId::kBytes:
    case DataTypeId::kStruct:
      return 1;
    default:
      return size_;
  }
}

size_t DataType::value_bits() const {
  if (const LowPrecisionType* t = FindLowPrecision(id_)) return t->bits;
  return size_ * 8;
}

bool DataType::has_byte_order() const {
  if (id_ != DataTypeId::kStruct) return swap_unit() > 1;
  return std::any_of(fields().begin(), fields().end(),
                     [](const StructField& f) { return f.dtype.has_byte_order(); });
}

const std::vector<DataType::SwapSegment>& DataType::swap_segments() const {
  static const std::vector<SwapSegment> kNone;
  return details_ ? details_->segments : kNone;
}

void DataType::SwapStructScalars(std::byte* data, size_t n) const {
  assert(id_ == DataTypeId::kStruct && n % size_ == 0);
  const std::vector<SwapSegment>& segments = swap_segments();
  for (size_t at = 0; at + size_ <= n; at += size_) {
    for (const SwapSegment& s : segments) {
      std::reverse(data + at + s.offset, data + at + s.offset + s.bytes);
    }
  }
}

nlohmann::json DataType::ToV3Json() const {
  if (const NamedType* t = FindNumeric(id_)) return std::string(t->v3_name);
  if (const LowPrecisionType* t = FindLowPrecision(id_)) return std::string(t->name);
  switch (id_) {
    case DataTypeId::kRawBits:
      return LengthBytesJson("raw_bytes", size_);
    case DataTypeId::kFixedBytes:
      return LengthBytesJson("null_terminated_bytes", size_);
    case DataTypeId::kFixedUnicode:
      return LengthBytesJson("fixed_length_utf32", size_);
    case DataTypeId::kString:
      return "string";
    case DataTypeId::kBytes:
      return "variable_length_bytes";
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64:
      return {{"name", "numpy." + std::string(TimeName(id_))},
              {"configuration", {{"unit", time_unit()}, {"scale_factor", time_scale()}}}};
    case DataTypeId::kStruct: {
      nlohmann::json list = nlohmann::json::array();
      for (const StructField& f : fields()) {
        nlohmann::json field = {{"name", f.name}, {"data_type", f.dtype.ToV3Json()}};
        // v3 structs have no subarray fields; kept so that nothing is lost
        // silently (ParseV3DataType refuses it back).
        if (!f.shape.empty()) field["shape"] = f.shape;
        list.push_back(std::move(field));
      }
      return {{"name", "struct"}, {"configuration", {{"fields", std::move(list)}}}};
    }
    default:
      return nullptr;  // unreachable: every id is covered above
  }
}

std::string DataType::ToV2TypeString(char byte_order) const {
  if (is_variable_length()) return "|O";
  if (id_ == DataTypeId::kStruct) return "|V" + std::to_string(size_);  // numpy's dtype.str
  // TensorStore's names, without a byte order: bfloat16 is little-endian.
  if (const LowPrecisionType* t = FindLowPrecision(id_)) return std::string(t->name);
  char order = swap_unit() == 1 ? '|' : (byte_order == '>' ? '>' : '<');
  std::string out(1, order);
  if (const NamedType* t = FindNumeric(id_)) {
    out += t->v2_kind;
    out += std::to_string(size_);
    return out;
  }
  switch (id_) {
    case DataTypeId::kRawBits:
      return out + "V" + std::to_string(size_);
    case DataTypeId::kFixedBytes:
      return out + "S" + std::to_string(size_);
    case DataTypeId::kFixedUnicode:
      return out + "U" + std::to_string(size_ / 4);
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64: {
      out += id_ == DataTypeId::kDateTime64 ? "M8" : "m8";
      if (time_unit() == "generic") {
        // numpy writes a plain "M8"; zarr-python spells a multiple out.
        return time_scale() == 1 ? out : out + "[" + std::to_string(time_scale()) + "generic]";
      }
      return out + "[" + (time_scale() == 1 ? "" : std::to_string(time_scale())) +
             time_unit() + "]";
    }
    default:
      return out;
  }
}

nlohmann::json DataType::ToV2Json(char byte_order) const {
  if (id_ != DataTypeId::kStruct) return ToV2TypeString(byte_order);
  nlohmann::json list = nlohmann::json::array();
  for (const StructField& f : fields()) {
    nlohmann::json field = {f.name, f.dtype.ToV2Json(byte_order)};
    if (!f.shape.empty()) field.push_back(f.shape);
    list.push_back(std::move(field));
  }
  return list;
}

std::string DataType::ToString() const {
  if (const NamedType* t = FindNumeric(id_)) return std::string(t->v3_name);
  if (const LowPrecisionType* t = FindLowPrecision(id_)) return std::string(t->name);
  switch (id_) {
    case DataTypeId::kRawBits:
      return "r" + std::to_string(size_ * 8);
    case DataTypeId::kFixedBytes:
      return "S" + std::to_string(size_);
    case DataTypeId::kFixedUnicode:
      return "U" + std::to_string(size_ / 4);
    case DataTypeId::kString:
      return "string";
    case DataTypeId::kBytes:
      return "bytes";
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64:
      return std::string(TimeName(id_)) + "[" +
             (time_scale() == 1 ? "" : std::to_string(time_scale())) + time_unit() + "]";
    case DataTypeId::kStruct: {
      std::string out = "struct{";
      for (const StructField& f : fields()) {
        if (&f != &fields().front()) out += ", ";
        out += f.name + ": " + f.dtype.ToString();
        if (!f.shape.empty()) {
          out += "[";
          for (size_t i = 0; i < f.shape.size(); ++i) {
            out += (i ? "," : "") + std::to_string(f.shape[i]);
          }
          out += "]";
        }
      }
      return out + "}";
    }
    default:
      return "unknown";
  }
}

Result<DataType> ParseV3DataType(const nlohmann::json& j) { return ParseV3DataTypeAt(j, 0); }

namespace {

Result<DataType> ParseV3DataTypeAt(const nlohmann::json& j, int depth) {
  if (depth > kMaxStructDepth) {
    return Status::InvalidArgument("data_type: structs nested more than " +
                                   std::to_string(kMaxStructDepth) + " deep");
  }
  if (j.is_string()) return ParseV3Name(j.get_ref<const std::string&>());
  if (!j.is_object()) {
    return Status::InvalidArgument("data_type must be a string or an object, got " +
                                   SafeDump(j));
  }
  auto name_it = j.find("name");
  if (name_it == j.end() || !name_it->is_string()) {
    return Status::InvalidArgument("data_type object has no string 'name': " +
                                   SafeDump(j));
  }
  const std::string& name = name_it->get_ref<const std::string&>();
  if (name == "raw_bytes" || name == "null_terminated_bytes" ||
      name == "fixed_length_utf32") {
    TZ_ASSIGN_OR_RETURN(size_t n, ParseLengthBytes(j, name));
    if (name == "raw_bytes") return DataType::Sized(DataTypeId::kRawBits, n);
    if (name == "null_terminated_bytes")
      return DataType::Sized(DataTypeId::kFixedBytes, n);
    if (n % 4 != 0) {
      return Status::InvalidArgument(
          "data_type 'fixed_length_utf32': length_bytes must be a multiple of 4, got " +
          std::to_string(n));
    }
    return DataType::Sized(DataTypeId::kFixedUnicode, n);
  }
  if (name == "numpy.datetime64") return ParseV3Time(j, DataTypeId::kDateTime64);
  if (name == "numpy.timedelta64") return ParseV3Time(j, DataTypeId::kTimeDelta64);
  if (name == "struct" || name == "structured") return ParseV3Struct(j, name, depth);
  // A core type may be spelled as an object with no (or empty) configuration.
  auto config = j.find("configuration");
  if (config != j.end() && !(config->is_object() && config->empty())) {
    return Status::Unsupported("unsupported data_type '" + name +
                               "' with configuration " + SafeDump(*config));
  }
  return ParseV3Name(name);
}

Result<V2TypeString> ParseV2DataTypeAt(const nlohmann::json& j, int depth) {
  if (j.is_string()) return ParseV2DataType(j.get_ref<const std::string&>());
  if (j.is_array()) return ParseV2Struct(j, depth);
  return Status::InvalidArgument("dtype: expected a type string or a list of fields, got " +
                                 SafeDump(j));
}

}  // namespace

Result<V2TypeString> ParseV2DataType(std::string_view typestr) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("dtype '" + std::string(typestr) +
                                   "': " + std::string(why));
  };
  if (const LowPrecisionType* t = FindLowPrecision(typestr)) {
    // TensorStore's spelling: the name alone, little-endian.
    return V2TypeString{DataType(t->id), t->size > 1 ? '<' : '|'};
  }
  if (typestr.size() < 2) return bad("too short for a numpy type string");
  char order = typestr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return bad("expected a byte order '<', '>' or '|'");
  }
  if (order == '=') order = '<';  // native: this library runs little-endian only
  char kind = typestr[1];
  std::string_view count_str = typestr.substr(2);
  DataType dtype;
  if (kind == 'M' || kind == 'm') {
    TZ_ASSIGN_OR_RETURN(dtype, ParseV2Time(typestr, typestr.substr(1)));
  } else if (kind == 'O') {
    if (!count_str.empty() && count_str != "8") return bad("unexpected object size");
    dtype = DataType(DataTypeId::kString);
  } else {
    auto count = ParseCount(count_str);
    if (!count) return bad("expected a positive size after the kind");
    bool found = false;
    if (kind == 'S' || kind == 'V' || kind == 'U') {
      if (*count > kMaxElementBytes / (kind == 'U' ? 4 : 1)) {
        return bad("elements larger than " + std::to_string(kMaxElementBytes) +
                   " bytes (numpy's limit)");
      }
      dtype = kind == 'S'   ? DataType::Sized(DataTypeId::kFixedBytes, *count)
              : kind == 'V' ? DataType::Sized(DataTypeId::kRawBits, *count)
                            : DataType::Sized(DataTypeId::kFixedUnicode, *count * 4);
      found = true;
    } else {
      for (const auto& t : kNumericTypes) {
        if (t.v2_kind == kind && t.size == *count) {
          dtype = DataType(t.id);
          found = true;
          break;
        }
      }
    }
    if (!found) {
      return Status::Unsupported("unsupported dtype '" + std::string(typestr) + "'");
    }
  }
  if (dtype.swap_unit() == 1) {
    order = '|';
  } else if (order == '|') {
    order = '<';  // numpy reads '|' on a multi-byte type as native order
  }
  return V2TypeString{dtype, order};
}

Result<V2TypeString> ParseV2DataTypeJson(const nlohmann::json& j) {
  return ParseV2DataTypeAt(j, 0);
}

}  // namespace turbozarr
