#include "store/http_options.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace turbozarr::internal {

namespace {

// Connections per host when neither the options nor the environment say.
constexpr int kDefaultMaxConnections = 32;

// TURBOZARR_HTTP_MAX_CONNECTIONS as a positive count, or 0.
int MaxConnectionsFromEnvironment() {
  const char* v = std::getenv("TURBOZARR_HTTP_MAX_CONNECTIONS");
  if (v == nullptr) return 0;
  int n = 0;
  const std::string_view text(v);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  return ec == std::errc() && end == text.data() + text.size() && n > 0 ? n : 0;
}

}  // namespace

HttpOptions Normalised(HttpOptions options) {
  options.max_concurrency = std::max(1, options.max_concurrency);
  options.max_retries = std::max(0, options.max_retries);
  if (options.max_connections <= 0) options.max_connections = MaxConnectionsFromEnvironment();
  if (options.max_connections <= 0) options.max_connections = kDefaultMaxConnections;
  options.max_connections = std::min(options.max_connections, options.max_concurrency);
  return options;
}

std::string OptionsKey(const HttpOptions& o) {
  std::string key;
  for (int64_t n : {o.connect_timeout.count(), o.idle_timeout.count(),
                    o.request_timeout.count(), o.deadline.count(),
                    int64_t{o.max_concurrency}, int64_t{o.max_connections},
                    int64_t{o.max_retries}, o.backoff_base.count(), o.backoff_max.count(),
                    static_cast<int64_t>(o.coalesce_gap),
                    static_cast<int64_t>(o.coalesce_max),
                    int64_t{o.redirects_to_other_hosts}, int64_t{o.verify_tls},
                    int64_t{o.http2}}) {
    key += std::to_string(n) + ',';
  }
  auto add = [&](const std::string& s) { key += std::to_string(s.size()) + ':' + s; };
  add(o.user_agent);
  add(o.ca_file);
  for (const std::string& h : o.headers) add(h);
  return key;
}

}  // namespace turbozarr::internal
