#include "metadata/metadata_fields.h"

namespace turbozarr::internal {

Status FieldError(std::string_view where, std::string_view field, std::string_view why) {
  return Status::Corruption(std::string(where) + ": " + std::string(field) + ": " +
                            std::string(why));
}

Status InField(const Status& s, std::string_view where, std::string_view field) {
  if (s.ok()) return s;
  StatusCode code =
      s.code() == StatusCode::kInvalidArgument ? StatusCode::kCorruption : s.code();
  return Status(code,
                std::string(where) + ": " + std::string(field) + ": " + s.message());
}

Result<const JsonDocument*> RequireField(const JsonDocument& obj,
                                           std::string_view key, std::string_view where,
                                           std::string_view field) {
  auto it = obj.find(key);
  if (it == obj.end()) return FieldError(where, field, "missing");
  return &*it;
}

Result<std::vector<int64_t>> ParseIntList(const JsonDocument& j, int64_t min_value,
                                          std::string_view where,
                                          std::string_view field) {
  if (!j.is_array())
    return FieldError(where, field, "expected a list, got " + Describe(j));
  std::vector<int64_t> out;
  out.reserve(j.size());
  for (const auto& e : j) {
    if (!e.is_number_integer() ||
        (e.is_number_unsigned() && e.get<uint64_t>() > INT64_MAX)) {
      return FieldError(where, field, "expected integers, got " + Describe(j));
    }
    int64_t v = e.get<int64_t>();
    if (v < min_value) {
      return FieldError(
          where, field,
          "value " + std::to_string(v) + " is below " + std::to_string(min_value));
    }
    out.push_back(v);
  }
  return out;
}

Status CheckZarrFormat(const JsonDocument& j, int expected, std::string_view where) {
  auto it = j.find("zarr_format");
  if (it == j.end()) return FieldError(where, "zarr_format", "missing");
  if (!it->is_number_integer() || it->get<int64_t>() != expected) {
    return FieldError(where, "zarr_format",
                      "expected " + std::to_string(expected) + ", got " + Describe(*it));
  }
  return Status::OK();
}

std::string Describe(const JsonDocument& j) {
  std::string s = j.dump(-1, ' ', false, JsonDocument::error_handler_t::replace);
  constexpr size_t kMax = 200;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...";
  return s;
}

bool MayIgnore(const JsonDocument& j) {
  if (!j.is_object()) return false;
  auto it = j.find("must_understand");
  return it != j.end() && it->is_boolean() && !it->get<bool>();
}

Status CheckSizes(const ArrayMetadata& m, std::string_view where) {
  Status s = m.CheckSizes();
  return s.ok() ? s : InField(s, where, "shape");
}

}  // namespace turbozarr::internal
