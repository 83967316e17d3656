// FaultHttpServer: a small HTTP/1.1 server on a loopback port, inside the test
// process, that serves values from memory and misbehaves on request: error
// statuses, connections dropped or reset, stalls, wrong lengths, ignored or
// wrong ranges. HTTP clients are tested against it for what a real server
// rarely does on cue.
//
// It also takes writes as a small S3 does, so that the S3 store can be
// tested against it: PUT stores the body, DELETE removes, POST "?delete"
// removes the <Key>s listed, every answer about a value carries its ETag,
// and If-Match / If-None-Match conditions are honoured (412 when they fail).
// Signatures are not checked. S3 path-style keys are "bucket/key".
//
// Requests are numbered from 0 in the order they arrive; a fault policy picks
// each one's fault. Every connection is kept alive between requests unless a
// fault closes it. Connections and request parsing are LoopbackHttpServer's,
// ranges and status lines testing/http_range_answer.h's.
//
// Thread safety: every method may be called from any thread while the server
// runs; the policy is called under the server's lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "testing/loopback_http_server.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/status.h"

namespace turbozarr {

enum class HttpFault {
  kNone,
  kStatus500,
  kStatus503,  // with "Retry-After: 0"
  kStatus503RetryAfter1s,  // with "Retry-After: 1" (never drawn at random)
  kStatus429,
  kCloseBeforeReply,  // reads the request, closes without a word
  kResetBeforeReply,  // reads the request, resets the connection
  kCloseMidBody,      // correct headers, half the body, close
  kStallBeforeReply,  // waits stall() before answering
  kStallMidBody,      // half the body, waits stall(), the rest
  kLengthTooLong,     // Content-Length 7 more than the body sent, then close
  kLengthTooShort,    // Content-Length 7 less than the body sent, then close
                      // (HEAD answers keep their true length)
  kIgnoreRange,       // 200 with the whole value whatever the Range
  kShiftedRange,      // 206 (truly labelled) for the range one byte further on
  kShortRange,        // 206 whose Content-Range and body stop one byte early
  kRedirectSameHost,   // 307 to the same path and server, "?redirected" added
  kRedirectOtherHost,  // 307 to the same path at http://localhost:<port>: the
                       // same server under another host name
  kApplyThenReset,     // a PUT, DELETE or POST is carried out, then the
                       // connection reset without an answer; a GET is reset
  kStatus403,          // "403 Forbidden", as S3 answers a reader who may not
                       // list the bucket for a key that is absent
};

const char* HttpFaultName(HttpFault fault);

// A fault for request `n`, drawn from `seed` and `n` alone (so a run can be
// repeated): none but for one request in `one_in`, which gets one of the
// faults above that a client can notice, redirects to the same host among
// them if `with_redirects`. A short Content-Length is drawn only for ranged
// requests (`range` not empty): on a whole answer no client can tell it
// from a shorter value.
HttpFault RandomHttpFault(uint64_t seed, uint64_t n, const std::string& range, int one_in,
                          bool with_redirects);

class FaultHttpServer;

// Client options under which a fault costs milliseconds: connections given
// 1 s, a stalled answer 200 ms, 4 retries 2 to 20 ms apart. Tests change
// what their faults need.
HttpOptions FastHttpOptions();

// Options of an S3 store whose endpoint is `server` (path-style, region
// us-east-1, credentials it does not check), with `http` for the transport.
S3Options S3OptionsFor(const FaultHttpServer& server, HttpOptions http = {});

class FaultHttpServer {
 public:
  // Called with the request's number, its path (query included) and its
  // Range header ("" if none).
  using Policy = std::function<HttpFault(uint64_t request_number, const std::string& path,
                                         const std::string& range)>;

  FaultHttpServer() = default;
  ~FaultHttpServer() { http_.Stop(); }  // before the values the handler reads go

  // Binds 127.0.0.1 on a free port and starts serving.
  Status Start() { return http_.Start(); }
  // "http://127.0.0.1:<port>"
  std::string url() const { return http_.url(); }
  int port() const { return http_.port(); }

  // Serves `value` at "/" + path (whatever query string follows).
  void Put(const std::string& path, std::string value);
  // The value at `path`, if any (written by a client or by Put).
  std::optional<std::string> Value(const std::string& path) const;
  // Paths that have a value, in order.
  std::vector<std::string> Paths() const;
  // The next requests get these faults in order; later ones the policy's.
  void QueueFaults(std::vector<HttpFault> faults);
  // Picks the fault of each request the queue does not cover (none by default).
  void SetPolicy(Policy policy);
  void set_stall(std::chrono::milliseconds d) { stall_ms_ = d.count(); }

  // The last request received: method, path (decoded, then the query string
  // as sent), headers ("name: value", names in lower case) and body.
  struct Received {
    std::string method;
    std::string path;
    std::vector<std::string> headers;
    std::string body;
  };
  Received last_request() const;

  // Requests received so far, and connections accepted so far.
  uint64_t requests() const { return http_.requests(); }
  uint64_t connections() const { return http_.connections(); }

 private:
  // Numbers `req`, picks its fault and answers; false when the connection
  // must close.
  bool Handle(int fd, const HttpServerRequest& req);
  bool Answer(int fd, const HttpServerRequest& req, HttpFault fault);
  // Carries out a PUT, DELETE or POST "?delete" and answers it (unless
  // `fault` resets the connection first).
  bool AnswerWrite(int fd, const HttpServerRequest& req, HttpFault fault);
  // Waits stall() or until the server stops; false if stopped.
  bool Stall();

  std::atomic<int64_t> stall_ms_{1000};

  mutable std::mutex mu_;
  uint64_t numbered_ = 0;  // requests numbered so far
  std::map<std::string, std::shared_ptr<const std::string>> values_;
  std::vector<HttpFault> queued_;
  size_t next_queued_ = 0;
  Policy policy_;
  Received last_;
  // Last, so that its connection threads end before the members above go.
  LoopbackHttpServer http_{
      [this](int fd, const HttpServerRequest& req) { return Handle(fd, req); }};
};

}  // namespace turbozarr
