#include "codec/cast_value_codec.h"

#include <cstring>
#include <utility>

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

using internal::CastMapEntry;
using internal::CastOutOfRange;
using internal::CastRounding;
using internal::CodecConfig;
using internal::ValueCast;

constexpr std::pair<std::string_view, CastRounding> kRoundings[] = {
    {"nearest-even", CastRounding::kNearestEven},
    {"towards-zero", CastRounding::kTowardsZero},
    {"towards-positive", CastRounding::kTowardsPositive},
    {"towards-negative", CastRounding::kTowardsNegative},
    {"nearest-away", CastRounding::kNearestAway},
};

Result<CastRounding> ReadRounding(CodecConfig& config, std::string& spelled) {
  TZ_ASSIGN_OR_RETURN(spelled, config.String("rounding", "nearest-even"));
  for (const auto& [name, mode] : kRoundings) {
    if (spelled == name) return mode;
  }
  return config.Invalid("rounding", "\"" + spelled +
                                        "\" is not one of nearest-even, towards-zero, "
                                        "towards-positive, towards-negative, nearest-away");
}

// Absent (or "error", the spec's name for it), "clamp" or "wrap".
Result<CastOutOfRange> ReadOutOfRange(CodecConfig& config, nlohmann::json& spelled) {
  spelled = config.Raw("out_of_range");
  if (spelled.is_null() || spelled == "error") return CastOutOfRange::kError;
  if (spelled == "clamp") return CastOutOfRange::kClamp;
  if (spelled == "wrap") return CastOutOfRange::kWrap;
  return config.Invalid("out_of_range",
                        spelled.dump() + " is not one of \"clamp\", \"wrap\", \"error\"");
}

Status CheckType(std::string_view what, const DataType& type) {
  if (internal::IsValueCastType(type.id())) return Status::OK();
  return Status::Unsupported("codec cast_value: " + std::string(what) + " " + type.ToString() +
                             " is not an integer type or float16, float32, float64");
}

// One scalar of `type` as v3 metadata spells it: an integer for integer
// types; a number, "NaN", "Infinity" or "-Infinity" (or "0x" bits) for
// floats.
Result<std::array<std::byte, 8>> ReadScalar(const CodecConfig& config, const std::string& where,
                                            const nlohmann::json& j, const DataType& type) {
  Result<FillValue> v = ParseFillValue(j, type, 3);
  if ((type.is_integer() && !j.is_number_integer()) || !v.ok() ||
      v->bytes.size() != type.size()) {
    return config.Invalid("scalar_map",
                          where + ": " + j.dump() + " is not a value of " + type.ToString());
  }
  std::array<std::byte, 8> out{};
  std::memcpy(out.data(), v->bytes.data(), type.size());
  return out;
}

// Two scalars of `type` that are the same number (every NaN is the same).
bool SameScalar(const std::array<std::byte, 8>& a, const std::array<std::byte, 8>& b,
                const DataType& type) {
  bool same = false;
  internal::VisitNumericType(type.id(), [&]<typename T>() {
    const T x = internal::LoadElement<T>(a.data());
    const T y = internal::LoadElement<T>(b.data());
    if constexpr (internal::kIsFloat<T>) {
      const double dx = internal::FloatValue(x), dy = internal::FloatValue(y);
      same = (std::isnan(dx) && std::isnan(dy)) || dx == dy;
    } else {
      same = x == y;
    }
  });
  return same;
}

// One direction of "scalar_map": [[source, target], ...] (null: none). A
// source given again replaces the earlier entry's target, in its place.
// `spelled` receives the pairs as written back.
Result<std::vector<CastMapEntry>> ReadMap(const CodecConfig& config, std::string_view direction,
                                          const nlohmann::json& list, const DataType& from,
                                          const DataType& to, nlohmann::json& spelled) {
  std::vector<CastMapEntry> entries;
  spelled = nlohmann::json::array();
  if (list.is_null()) return entries;
  const std::string where = "\"" + std::string(direction) + "\"";
  if (!list.is_array()) return config.Invalid("scalar_map", where + " must be a list of pairs");
  for (const nlohmann::json& pair : list) {
    if (!pair.is_array() || pair.size() != 2) {
      return config.Invalid("scalar_map",
                            where + ": " + pair.dump() + " is not a [source, target] pair");
    }
    CastMapEntry e;
    TZ_ASSIGN_OR_RETURN(e.from, ReadScalar(config, where + " source", pair[0], from));
    TZ_ASSIGN_OR_RETURN(e.to, ReadScalar(config, where + " target", pair[1], to));
    size_t i = 0;
    while (i < entries.size() && !SameScalar(entries[i].from, e.from, from)) ++i;
    if (i < entries.size()) {
      entries[i].to = e.to;
      spelled[i][1] = pair[1];
    } else {
      entries.push_back(e);
      spelled.push_back(pair);
    }
  }
  return entries;
}

}  // namespace

Result<std::shared_ptr<const CastValueCodec>> CastValueCodec::Make(CodecConfig& config,
                                                                   const ArraySpec& spec) {
  const nlohmann::json type_json = config.Raw("data_type");
  if (type_json.is_null()) return config.Invalid("data_type", "is required");
  std::string rounding_spelled;
  nlohmann::json out_of_range_spelled;
  ValueCast encode;
  TZ_ASSIGN_OR_RETURN(encode.rounding, ReadRounding(config, rounding_spelled));
  TZ_ASSIGN_OR_RETURN(encode.out_of_range, ReadOutOfRange(config, out_of_range_spelled));
  const nlohmann::json map_json = config.Raw("scalar_map");
  TZ_RETURN_NOT_OK(config.Finish());
  Result<DataType> target = ParseV3DataType(type_json);
  if (!target.ok()) return config.Invalid("data_type", type_json.dump() + " is not a data type");
  encode.from = spec.dtype;
  encode.to = *target;
  TZ_RETURN_NOT_OK(CheckType("the array's data type", encode.from));
  TZ_RETURN_NOT_OK(CheckType("data_type", encode.to));
  if (encode.out_of_range == CastOutOfRange::kWrap && !encode.to.is_integer()) {
    return config.Invalid("out_of_range", "\"wrap\" needs an integer data_type, not " +
                                              encode.to.ToString());
  }
  ValueCast decode = encode;
  std::swap(decode.from, decode.to);

  nlohmann::json json_config = {{"data_type", encode.to.ToV3Json()}};
  if (encode.rounding != CastRounding::kNearestEven) json_config["rounding"] = rounding_spelled;
  if (!out_of_range_spelled.is_null()) json_config["out_of_range"] = out_of_range_spelled;
  if (!map_json.is_null()) {
    if (!map_json.is_object()) {
      return config.Invalid("scalar_map", "must be an object with \"encode\" and \"decode\"");
    }
    nlohmann::json map_spelled = nlohmann::json::object();
    for (const auto& [key, value] : map_json.items()) {
      const bool encoding = key == "encode";
      if (!encoding && key != "decode") {
        return config.Invalid("scalar_map", "unknown member \"" + key + "\"");
      }
      ValueCast& cast = encoding ? encode : decode;
      nlohmann::json pairs;
      TZ_ASSIGN_OR_RETURN(cast.map, ReadMap(config, key, value, cast.from, cast.to, pairs));
      if (!value.is_null()) map_spelled[key] = std::move(pairs);
    }
    json_config["scalar_map"] = std::move(map_spelled);
  }
  return std::make_shared<const CastValueCodec>(
      std::move(encode), std::move(decode),
      nlohmann::json{{"name", "cast_value"}, {"configuration", std::move(json_config)}});
}

Result<ArraySpec> CastValueCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded = decoded;
  encoded.dtype = encode_.to;
  encoded.fill_value.bytes = Buffer(encode_.to.size());
  if (decoded.fill_value.bytes.size() == encode_.from.size()) {
    Status s = internal::CastValues(encode_, decoded.fill_value.bytes.data(),
                                    encoded.fill_value.bytes.data(), 1);
    if (!s.ok()) {
      return Status::InvalidArgument("codec cast_value: the fill value: " + s.message());
    }
  }
  return encoded;
}

Result<ChunkArray> CastValueCodec::Encode(ChunkArray decoded) const {
  ChunkArray encoded = internal::NewChunk(decoded.shape, encode_.to);
  Status s = internal::CastValues(encode_, decoded.bytes.data(), encoded.bytes.data(),
                                  decoded.num_elements());
  if (!s.ok()) return Status::InvalidArgument("codec cast_value: " + s.message());
  return encoded;
}

Result<ChunkArray> CastValueCodec::Decode(ChunkArray encoded, const ArraySpec& decoded) const {
  TZ_RETURN_NOT_OK(internal::CheckChunkElements(name(), encoded, decode_.from,
                                                decoded.num_elements()));
  ChunkArray out = internal::NewChunk(decoded.shape, decode_.to);
  Status s = internal::CastValues(decode_, encoded.bytes.data(), out.bytes.data(),
                                  encoded.num_elements());
  if (!s.ok()) {
    return Status::Corruption("codec cast_value: a stored value has no value in the array's "
                              "type: " + s.message());
  }
  return out;
}

}  // namespace turbozarr
