// Transfer: one HTTP request across its attempts, as the transport's
// driver (http_transport.cc) runs it through curl, and what curl tells of
// its answer as it arrives: the header and body callbacks that check the
// answer against the request (http_message.h) and write the body into its
// buffer or into the request's own memory (HttpRequest::into), and the
// socket hooks that keep each host's connection count (http_host_policy.h).
//
// Thread safety: the driver thread owns every Transfer and HostQueue; the
// callbacks run on it, inside curl.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/http_host_policy.h"
#include "store/http_message.h"
#include "store/http_transport.h"

namespace turbozarr::internal {

using Clock = std::chrono::steady_clock;

struct HostQueue;

// One request across its attempts.
struct Transfer {
  HttpRequest request;
  HttpTransport::Callback done;
  // The transport that sent it: its destructor cancels what it sent.
  const void* owner = nullptr;
  // Where the next attempt goes: request.url, or where redirects led.
  std::string url;
  // The server `url` points at: its policy and its queue of requests.
  HostQueue* host = nullptr;
  int attempts = 0;   // redirects included
  int redirects = 0;  // followed so far
  // When the request must have its answer (HttpOptions::deadline).
  Clock::time_point deadline = Clock::time_point::max();
  curl_slist* header_list = nullptr;
  // State of the current attempt.
  HttpResponse response;
  std::optional<uint64_t> content_length;
  Clock::time_point last_activity;
  std::string abort_reason;  // set when this side cut the attempt short
  char error[CURL_ERROR_SIZE] = {};
  Clock::time_point started;
  bool new_connection = false;  // started when no connection to the host was idle
  bool answered = false;        // a first byte of this attempt's answer came
  // Why the previous attempt failed, kept while a retry waits its turn.
  std::string last_failure;

  ~Transfer() { curl_slist_free_all(header_list); }

  void BeginAttempt(bool opens_connection) {
    ++attempts;
    started = Clock::now();
    new_connection = opens_connection;
    answered = false;
    response = HttpResponse();
    content_length.reset();
    abort_reason.clear();
    error[0] = '\0';
    last_activity = started;
  }
};

// What the driver keeps per server (scheme, host and port): the policy that
// paces requests to it, and the requests waiting their turn.
struct HostQueue {
  explicit HostQueue(HostPolicy::Limits limits) : policy(limits) {}
  HostPolicy policy;
  std::deque<std::unique_ptr<Transfer>> ready;
};

// `request` as a transfer due by options.deadline from now.
std::unique_ptr<Transfer> NewTransfer(const HttpOptions& options, const void* owner,
                                      HttpRequest request, HttpTransport::Callback done);

// curl's callbacks (CURLOPT_HEADERFUNCTION and CURLOPT_WRITEFUNCTION with
// the Transfer as `user`). A header or body that contradicts the request
// sets the transfer's abort_reason and fails the attempt.
size_t OnHeader(char* data, size_t size, size_t count, void* user);
size_t OnBody(char* data, size_t size, size_t count, void* user);

// Sockets are opened and closed here so that each host's policy knows how
// many connections it has (CURLOPT_OPENSOCKETFUNCTION and
// CURLOPT_CLOSESOCKETFUNCTION with the HostQueue as `host`: curl keeps a
// connection's close callback from the transfer that opened it, so `host`
// is never a transfer, which dies first).
curl_socket_t OnOpenSocket(void* host, curlsocktype, curl_sockaddr* address);
int OnCloseSocket(void* host, curl_socket_t fd);

// A failure that says the server or the path to it is overloaded.
bool IsConnectionFailure(CURLcode code);
// A failure worth another attempt.
bool IsRetryableCurlCode(CURLcode code);
// The start of the abort reason of an attempt that stalled.
constexpr std::string_view kNoDataReceived = "no data received";

// The wait a 429 or 503 answer asks for ("Retry-After: seconds"; a date is
// not read), at most an hour.
std::optional<std::chrono::milliseconds> RetryAfter(const HttpResponse& response);

}  // namespace turbozarr::internal
