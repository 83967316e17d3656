// Helpers for reading the fields of a metadata document. Every failure is a
// Status whose message names the document (`where`) and the field, e.g.
// "array 'a/b': chunk_grid.configuration.chunk_shape: expected ...".
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/metadata.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

// Corruption: "<where>: <field>: <why>".
Status FieldError(std::string_view where, std::string_view field, std::string_view why);

// Puts `where` and `field` in front of a lower layer's message. A stored
// document that fails validation is corrupt, so InvalidArgument becomes
// Corruption; Unsupported stays Unsupported.
Status InField(const Status& s, std::string_view where, std::string_view field);

// The member `key` of object `obj`, or Corruption naming `field` when absent.
Result<const JsonDocument*> RequireField(const JsonDocument& obj,
                                           std::string_view key, std::string_view where,
                                           std::string_view field);

// ArrayMetadata::CheckSizes, as Corruption of the stored document.
Status CheckSizes(const ArrayMetadata& m, std::string_view where);

// A list of integers, each >= `min_value`.
Result<std::vector<int64_t>> ParseIntList(const JsonDocument& j, int64_t min_value,
                                          std::string_view where, std::string_view field);

// Checks `j["zarr_format"] == expected`.
Status CheckZarrFormat(const JsonDocument& j, int expected, std::string_view where);

// JSON for a message: compact, never throwing on bad UTF-8, cut when long.
std::string Describe(const JsonDocument& j);

// True for an object saying {"must_understand": false}: the spec lets a reader
// ignore such an extension it does not know.
bool MayIgnore(const JsonDocument& j);

}  // namespace turbozarr::internal
