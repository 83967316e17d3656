#include "store/http_transfer.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

#include "store/store_internal.h"

namespace turbozarr::internal {

using std::chrono::milliseconds;

namespace {

// A Content-Length is trusted this far for reserving the body up front; a
// larger one (or a lying one) grows the buffer as bytes arrive.
constexpr uint64_t kMaxReserve = uint64_t{256} << 20;

// The first byte of an answer: the server took the request (and, on a new
// connection, the connection).
void NoteAnswered(Transfer& t) {
  if (t.answered) return;
  t.answered = true;
  // A request that sent a body waited for its upload too: not a sample of
  // the server's latency.
  std::optional<std::chrono::microseconds> first_byte;
  if (t.request.body.empty()) {
    first_byte =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t.started);
  }
  t.host->policy.Answered(t.new_connection, first_byte);
}

// Whether the answer now arriving for `t` is written to its request's
// `into` (HttpRequest::into): a successful answer to a GET that asked so.
bool PlacesBody(const Transfer& t) {
  return !t.request.into.empty() && t.request.method == "GET" &&
         t.response.status >= 200 && t.response.status <= 299;
}

}  // namespace

std::unique_ptr<Transfer> NewTransfer(const HttpOptions& options, const void* owner,
                                      HttpRequest request, HttpTransport::Callback done) {
  auto t = std::make_unique<Transfer>();
  t->owner = owner;
  t->request = std::move(request);
  t->url = t->request.url;
  t->done = std::move(done);
  if (options.deadline.count() > 0) t->deadline = Clock::now() + options.deadline;
  return t;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  Transfer& t = *static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  t.last_activity = Clock::now();
  NoteAnswered(t);
  std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {
    // Streams of one connection: the host needs no more connections.
    if (line.starts_with("HTTP/2") || line.starts_with("HTTP/3")) {
      t.host->policy.SetMultiplexed();
    }
    // A new response (after a redirect or a 100 Continue): start over.
    t.response.headers.clear();
    t.response.body.Clear();
    t.response.placed.reset();
    t.content_length.reset();
    const size_t sp = line.find(' ');
    long status = 0;
    if (sp != std::string_view::npos) {
      std::from_chars(line.data() + sp + 1, line.data() + line.size(), status);
    }
    t.response.status = status;
    return bytes;
  }
  if (TrimHeaderLine(line).empty()) {  // the end of this response's headers
    std::string why = CheckHeaders(t.request, t.response, t.content_length);
    if (!why.empty()) {
      t.abort_reason = std::move(why);
      return 0;  // fails the transfer and closes its connection
    }
    if (PlacesBody(t)) t.response.placed = 0;
    return bytes;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  std::string name = internal::AsciiLower(TrimHeaderLine(line.substr(0, colon)));
  std::string_view value = TrimHeaderLine(line.substr(colon + 1));
  if (name == "content-length" && t.request.method != "HEAD") {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc() && end == value.data() + value.size()) {
      t.content_length = n;
      if (!PlacesBody(t) || n > t.request.into.size()) {
        t.response.body.Reserve(static_cast<size_t>(std::min(n, kMaxReserve)));
      }
    }
  }
  t.response.headers.emplace_back(std::move(name), std::string(value));
  return bytes;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  Transfer& t = *static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  t.last_activity = Clock::now();
  const uint64_t have = t.response.body_size();
  if (t.content_length && have + bytes > *t.content_length) {
    t.abort_reason = "body longer than the " + std::to_string(*t.content_length) +
                     " bytes Content-Length announced";
    return 0;  // makes curl fail the transfer
  }
  if (t.response.placed) {
    const MutableByteView into = t.request.into;
    if (have + bytes <= into.size()) {
      std::memcpy(into.data() + have, data, bytes);
      t.response.placed = have + bytes;
      return bytes;
    }
    // Outgrown: the body moves to a buffer of its own.
    t.response.body.Reserve(static_cast<size_t>(
        std::min(std::max(t.content_length.value_or(0), have + bytes), kMaxReserve)));
    t.response.body.Append(ByteView(into.data(), have));
    t.response.placed.reset();
  }
  t.response.body.Append(ByteView(reinterpret_cast<const std::byte*>(data), bytes));
  return bytes;
}

curl_socket_t OnOpenSocket(void* host, curlsocktype, curl_sockaddr* address) {
  const curl_socket_t fd =
      ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (fd != CURL_SOCKET_BAD) static_cast<HostQueue*>(host)->policy.SocketOpened();
  return fd;
}

int OnCloseSocket(void* host, curl_socket_t fd) {
  static_cast<HostQueue*>(host)->policy.SocketClosed();
  return ::close(fd);
}

bool IsConnectionFailure(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

bool IsRetryableCurlCode(CURLcode code) {
  switch (code) {
    case CURLE_PARTIAL_FILE:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return IsConnectionFailure(code);
  }
}

std::optional<milliseconds> RetryAfter(const HttpResponse& response) {
  std::optional<std::string_view> v = response.Header("retry-after");
  if (!v) return std::nullopt;
  uint64_t seconds = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;  // a date
  return milliseconds(std::min<uint64_t>(seconds, 3600) * 1000);
}

}  // namespace turbozarr::internal
