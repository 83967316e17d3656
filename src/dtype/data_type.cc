// DataType: sizes, names and the v3 / v2 spellings of every element type.
//
// The v3 spellings are those zarr-python 3 writes: core names ("int32",
// "float16", ...), "string", "variable_length_bytes", and
// {"name": "raw_bytes" | "null_terminated_bytes" | "fixed_length_utf32",
//  "configuration": {"length_bytes": N}} for the fixed-size byte types. The
// spec's "r<bits>" raw-bits names and "bytes" are read as well.
#include <array>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

#include "turbozarr/dtype.h"

namespace turbozarr {
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

}  // namespace

DataType::DataType(DataTypeId id) : id_(id) {
  assert(!IsSizedId(id) && "sized data types need DataType::Sized");
  if (const NamedType* t = FindNumeric(id)) {
    size_ = t->size;
  } else if (is_variable_length()) {
    size_ = sizeof(std::string);
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
      return 1;
    default:
      return size_;
  }
}

nlohmann::json DataType::ToV3Json() const {
  if (const NamedType* t = FindNumeric(id_)) return std::string(t->v3_name);
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
    default:
      return nullptr;  // unreachable: every id is covered above
  }
}

std::string DataType::ToV2TypeString(char byte_order) const {
  if (is_variable_length()) return "|O";
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
    default:
      return out;
  }
}

std::string DataType::ToString() const {
  if (const NamedType* t = FindNumeric(id_)) return std::string(t->v3_name);
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
    default:
      return "unknown";
  }
}

Result<DataType> ParseV3DataType(const nlohmann::json& j) {
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
  // A core type may be spelled as an object with no (or empty) configuration.
  auto config = j.find("configuration");
  if (config != j.end() && !(config->is_object() && config->empty())) {
    return Status::Unsupported("unsupported data_type '" + name +
                               "' with configuration " + SafeDump(*config));
  }
  return ParseV3Name(name);
}

Result<V2TypeString> ParseV2DataType(std::string_view typestr) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("dtype '" + std::string(typestr) +
                                   "': " + std::string(why));
  };
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
    return Status::Unsupported("dtype '" + std::string(typestr) +
                               "': datetime types are not supported");
  }
  if (kind == 'O') {
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

}  // namespace turbozarr
