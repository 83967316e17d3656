// HttpTransport: HTTP(S) requests over libcurl's multi interface, shared by
// the stores that talk to web servers and object stores.
//
// One driver thread owns a curl multi handle and runs every transfer of the
// transport, so any number of requests (from one FetchMany or from many
// threads calling Fetch at once) are in flight together without a thread
// each. Transports made with equal options share one driver, kept a minute
// after its last transport goes, so stores opened one after the other on
// the same server reuse its connections.
// Each request is a Transfer (store/http_transfer.h), whose curl callbacks
// check its answer as it arrives.
// Connections are kept open in the multi handle's cache and reused;
// finished easy handles go back to a pool. At most
// HttpOptions::max_concurrency transfers run at once; the rest queue, per
// host, and a HostPolicy (store/http_host_policy.h) paces each host's.
//
// A response is complete and self-consistent or it is not returned: an
// attempt is retried, with exponential backoff and jitter, on HTTP 5xx (not
// 501/505), 429 and 408, on a connection refused, reset or timed out, on an
// attempt that receives nothing for idle_timeout, on a body whose length
// differs from Content-Length, and on a 206 whose Content-Range or length is
// not the range asked for. When the retries run out, a failed status is
// returned as the response (callers read its code) and every other failure
// as an IOError naming the method, URL, cause and number of attempts; so is
// a request unanswered at its deadline (HttpOptions::deadline). Redirects
// are followed here rather than by curl, so that one to another host is
// refused before anything is sent to it.
//
// Fork: a child made by fork() has neither the driver thread nor the right
// to the parent's connections (a request sent on one would interleave with
// the parent's on the same socket). The first request in the child abandons
// the parent's driver, its multi handle and connections (never closed, so
// nothing is sent on them, e.g. a TLS close_notify) and makes a new one with
// the same options; requests the parent had in flight are not the child's.
//
// Thread safety: Fetch, FetchMany and Submit may be called from any number of
// threads at once. Completion callbacks run on the driver thread: they must be
// quick and must not call Fetch or FetchMany (that would wait for itself).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "store/http_message.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr {

class HttpTransport {
 public:
  using Callback = std::function<void(Result<HttpResponse>)>;

  explicit HttpTransport(HttpOptions options);
  // Cancels what is still queued or running (callbacks get Cancelled) and
  // stops the driver thread.
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Starts `request`; `done` runs on the driver thread with the outcome.
  void Submit(HttpRequest request, Callback done);

  // Sends one request and waits for its outcome.
  Result<HttpResponse> Fetch(HttpRequest request);

  // Sends all requests at once (up to max_concurrency in flight) and waits for
  // every outcome; answers in the order asked.
  std::vector<Result<HttpResponse>> FetchMany(std::vector<HttpRequest> requests);

  // Held apart from the driver, so that reading them never races with a
  // fork child's renewal of the driver.
  const HttpOptions& options() const { return options_; }

 private:
  class Driver;
  // The driver of this process: renewed in a fork child before its first
  // request.
  Driver& driver();
  // Hands out the driver of this process and fork generation for some
  // options, shared with every other transport made with equal options.
  class DriverRegistry;
  void AbandonDriver();

  const HttpOptions options_;
  std::shared_ptr<Driver> driver_;
  internal::ForkEpoch epoch_;
};

}  // namespace turbozarr
