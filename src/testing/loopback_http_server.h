// LoopbackHttpServer: the connection half of the HTTP/1.1 test servers. It
// listens on 127.0.0.1, gives every accepted connection a thread of its own,
// reads and parses the requests that arrive on it one after the other
// (keep-alive; a request body is read and kept) and hands each to a handler,
// which sends the answer. What to answer is the owner's business: the
// fault-injecting server misbehaves on cue, the throttled server delays and
// paces.
//
// Threads of connections that ended are joined as new ones arrive, so that a
// long-running server holds threads only for open connections.
//
// Thread safety: the handler runs on many connection threads at once. Every
// method may be called from any thread, except Start and Stop: call those
// from one thread. An owner whose handler uses its other members declares
// the server after them (or calls Stop first in its destructor), so that the
// connection threads end before those members go away.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr {

// One request as the server read it.
struct HttpServerRequest {
  std::string method;
  std::string path;                  // percent-decoded, with its leading '/'
  std::string query;                 // "" or "?...", as sent
  std::string range;                 // the Range header's value; "" if none
  std::vector<std::string> headers;  // "name: value", names in lower case
  std::string body;
  bool close = false;  // "Connection: close": the client closes after the answer
};

class LoopbackHttpServer {
 public:
  // Answers `request` on connection `fd` (through SendAll in
  // testing/http_range_answer.h, or by closing the connection). Returns false
  // when the connection must close, true to read its next request.
  using Handler = std::function<bool(int fd, const HttpServerRequest& request)>;

  explicit LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {}
  ~LoopbackHttpServer() { Stop(); }
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  // Listens on 127.0.0.1:`port` (0: a free port the system picks) and starts
  // accepting connections. `backlog` is listen(2)'s: connections the kernel
  // holds before they are accepted; a small one (5, as Python's http.server
  // has) makes the modest web server that a client opening many connections
  // at once overruns.
  // REQUIRES: not started before.
  Status Start(int port = 0, int backlog = 1024);
  // Stops accepting, closes every connection (handlers sleeping in SleepUntil
  // wake at once) and joins the threads. Calling it again does nothing.
  void Stop();

  int port() const { return port_; }
  // "http://127.0.0.1:<port>"
  std::string url() const;

  // Waits until `deadline` or until Stop, whichever is first; false if
  // stopped. Handlers sleep through this so that Stop need not wait for them.
  bool SleepUntil(std::chrono::steady_clock::time_point deadline);

  // Requests read and handed to the handler so far.
  uint64_t requests() const { return requests_; }
  // Connections accepted so far, and the most that were open at once.
  uint64_t connections() const { return connections_; }
  uint64_t peak_connections() const { return peak_connections_; }

 private:
  void AcceptLoop();
  void Serve(int fd);
  // Joins the threads of connections that ended.
  void JoinFinished();

  const Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> peak_connections_{0};

  std::mutex mu_;
  std::condition_variable stopped_cv_;
  bool stopping_ = false;
  std::vector<int> open_fds_;
  uint64_t next_worker_ = 0;
  std::map<uint64_t, std::thread> workers_;
  std::vector<uint64_t> finished_;  // workers whose connection ended
};

}  // namespace turbozarr
