#include "store/url_origin.h"

#include <curl/curl.h>

#include "store/store_internal.h"

namespace turbozarr::internal {

size_t HttpSchemeLength(std::string_view url) {
  for (std::string_view scheme : {std::string_view("http://"), std::string_view("https://")}) {
    if (url.size() < scheme.size()) continue;
    bool same = true;
    for (size_t i = 0; i < scheme.size() && same; ++i) {
      char c = url[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = c == scheme[i];
    }
    if (same) return scheme.size();
  }
  return 0;
}

bool IsRedirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 ||
         status == 308;
}

std::optional<UrlOrigin> OriginOf(const std::string& url) {
  CURLU* u = curl_url();
  if (u == nullptr) return std::nullopt;
  std::optional<UrlOrigin> origin;
  if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char* scheme = nullptr;
    char* host = nullptr;
    char* port = nullptr;
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
      origin = UrlOrigin{internal::AsciiLower(scheme), internal::AsciiLower(host), port};
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(u);
  return origin;
}

std::string RedirectRefusal(const std::string& from, const std::string& to,
                            bool any_host) {
  std::optional<UrlOrigin> a = OriginOf(from);
  std::optional<UrlOrigin> b = OriginOf(to);
  if (!a || !b) return "redirected to a URL that cannot be parsed";
  if (a->scheme == "https" && b->scheme != "https") {
    return "redirected from https to " + b->scheme + " (" + b->host +
           "), which is refused";
  }
  if (any_host) return "";
  const bool same_place =
      a->host == b->host && (a->port == b->port || (a->scheme == "http" &&
                                                    b->scheme == "https"));
  if (same_place) return "";
  return "redirected from " + a->host + ":" + a->port + " to another host, " + b->host +
         ":" + b->port +
         ", which is refused (it would receive the request's headers and "
         "credentials; HttpOptions::redirects_to_other_hosts allows it)";
}

std::string HostKey(const std::string& url) {
  std::optional<UrlOrigin> o = OriginOf(url);
  return o ? o->scheme + "://" + o->host + ":" + o->port : std::string();
}

}  // namespace turbozarr::internal
