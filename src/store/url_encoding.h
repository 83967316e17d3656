// PercentEncode: the one percent-encoding of the stores that speak HTTP. The
// HTTP store builds its URLs with it and the S3 client both its URLs and the
// canonical request it signs, so the path a server receives is the path
// that was signed.
//
// It is AWS Signature Version 4's UriEncode exactly: every byte but the
// unreserved characters of RFC 3986 (A-Z, a-z, 0-9, '-', '.', '_', '~')
// becomes "%XX" with upper-case hex digits, byte by byte (so UTF-8 text is
// encoded per byte); '/' is kept in paths (Slash::kKeep) and encoded in
// query names and values and in bucket names (Slash::kEncode). A '%' in
// the input is encoded too: keys are never taken as already encoded.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace turbozarr {

enum class Slash { kKeep, kEncode };

std::string PercentEncode(std::string_view s, Slash slash);

}  // namespace turbozarr
