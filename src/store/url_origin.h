// The origin of a URL (scheme, host name, port): what keys a host's queue
// in the HTTP transport, and what a redirect may and may not change.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace turbozarr::internal {

// The scheme, host name (lower case) and port (the scheme's default if none
// is written) of an absolute URL.
struct UrlOrigin {
  std::string scheme;
  std::string host;
  std::string port;
};

// The length of `url`'s "http://" or "https://" (7 or 8), matched without
// regard to case, or 0 if it starts with neither: the only schemes the HTTP
// and S3 stores speak.
size_t HttpSchemeLength(std::string_view url);

// nullopt if `url` is not an absolute URL.
std::optional<UrlOrigin> OriginOf(const std::string& url);

// "scheme://host:port" of `url`, the key of its host's queue; "" if it
// cannot be parsed (curl will say why when the request is sent).
std::string HostKey(const std::string& url);

// 301, 302, 303, 307 or 308.
bool IsRedirect(long status);

// Why a redirect from `from` to `to` is not followed, or "" if it is: the
// same host name and port, or http to https on the same host name, unless
// `any_host`; never from https to http, which would send in clear what was
// meant to be encrypted.
std::string RedirectRefusal(const std::string& from, const std::string& to, bool any_host);

}  // namespace turbozarr::internal
