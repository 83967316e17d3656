// ThrottledHttpServer: serves the values of any Store over HTTP/1.1 on a
// loopback port as an object store across a network would: every answer
// waits a fixed latency before its status line, and its body leaves at a set
// bandwidth per connection. HTTP clients (turbozarr's HTTP store, fsspec,
// obstore) are benchmarked and tested against it under latency.
//
// Key "a/b" is at "/a/b" (percent-encoded as the client likes; a query
// string is ignored). GET and HEAD, with one byte range per request
// ("bytes=a-b", "bytes=a-", "bytes=-n": 206 with Content-Range); 404 for an
// absent key or one the store refuses, 416 for a range that selects nothing,
// 405 for other methods. Connections are kept alive (unless the throttle
// says close_connections), each served by a thread of its own
// (LoopbackHttpServer), so any number may be open at once.
//
// Pacing: the body goes out in slices of kSliceBytes, and a slice leaves no
// earlier than the moment its last byte would have arrived over the link:
// body start + (bytes through the slice's end) / bytes_per_second. The
// deadlines are absolute, so a sleep that overshoots delays one slice and is
// made up by the next rather than adding up. The body start is when the
// status line went out, and each answer starts its own schedule: requests on
// one HTTP/1.1 connection are served one after the other, so each connection
// gets the whole bandwidth, and two connections get twice as much.
//
// Values are read from the store in blocks of at most kReadBytes as the body
// goes out, so a large value costs no more memory than a small one. A server
// given the directory that its (local) store reads sends the files' bytes
// with sendfile(2) instead, as nginx does: the kernel hands the page cache's
// pages to the socket, and a benchmark's server then costs the cores it
// shares with the reader under test no copy of its own.
//
// Thread safety: stats() may be called from any thread while the server runs;
// the store must be safe to call from many threads (every Store is).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "testing/loopback_http_server.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

struct HttpThrottle {
  // Waited before each answer's status line (found or not): a round trip.
  std::chrono::microseconds latency{0};
  // Per connection, bytes of body per second; 0 means unlimited.
  double bytes_per_second = 0;
  // Every answer says "Connection: close" and its connection closes after
  // it, as an HTTP/1.0 server's does (`python -m http.server`).
  bool close_connections = false;
};

// What the server did so far; final once it stopped (a body is counted when
// its send returns, which may be after the client has it).
struct HttpServeStats {
  uint64_t requests = 0;          // requests answered or being answered
  uint64_t bytes_sent = 0;        // bytes of response bodies (heads not counted)
  uint64_t peak_connections = 0;  // the most connections open at once
  uint64_t connections = 0;       // connections accepted in all
};

class ThrottledHttpServer {
 public:
  static constexpr uint64_t kSliceBytes = 64 * 1024;
  static constexpr uint64_t kReadBytes = 1024 * 1024;

  // `files`: empty, or the directory `store` is a local store of, whose
  // files are then sent as they are (sendfile).
  ThrottledHttpServer(std::shared_ptr<Store> store, HttpThrottle throttle,
                      std::string files = {})
      : store_(std::move(store)), throttle_(throttle), files_(std::move(files)) {}
  ~ThrottledHttpServer() { http_.Stop(); }

  // Listens on 127.0.0.1:`port` (0: a free port) and starts serving.
  Status Start(int port = 0, int backlog = 1024) { return http_.Start(port, backlog); }
  // Closes every connection and joins the threads; stats() are final after.
  void Stop() { http_.Stop(); }

  int port() const { return http_.port(); }
  // "http://127.0.0.1:<port>"
  std::string url() const { return http_.url(); }

  HttpServeStats stats() const;

 private:
  bool Handle(int fd, const HttpServerRequest& req);
  // Sends bytes [begin, end) of `key`'s value at the throttle's pace; false
  // if the connection failed, the server stopped or the value changed size.
  bool SendBody(int fd, const std::string& key, uint64_t begin, uint64_t end);
  // SendBody of a file under files_, with sendfile(2).
  bool SendFileBody(int fd, const std::string& key, uint64_t begin, uint64_t end);
  // Waits until a slice that ends `through` bytes into a body started at
  // `start` may leave; false if the server stopped.
  bool Pace(std::chrono::steady_clock::time_point start, uint64_t through);

  const std::shared_ptr<Store> store_;
  const HttpThrottle throttle_;
  const std::string files_;
  std::atomic<uint64_t> bytes_sent_{0};
  // Last, so that its connection threads end before the members above go.
  LoopbackHttpServer http_{
      [this](int fd, const HttpServerRequest& req) { return Handle(fd, req); }};
};

}  // namespace turbozarr
