// Standard base64 (RFC 4648, with '=' padding), as Python's
// base64.standard_b64encode / b64decode spell it; zarr-python stores the fill
// values of byte-string data types this way.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace turbozarr::internal {

std::string Base64Encode(std::string_view bytes);
// Nullopt when `text` is not padded base64 of the standard alphabet.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace turbozarr::internal
