// tz_http_serve: serves a directory over HTTP/1.1 on 127.0.0.1 as an object
// store across a network would (ThrottledHttpServer): every answer waits a
// fixed latency, and every connection's bodies leave at a set bandwidth. The
// benchmark harness starts it to time HTTP readers under latency.
//
//   tz_http_serve --root DIR [--latency-ms 0] [--megabytes-per-second 0] [--port 0]
//                 [--backlog 1024]
//
// Keys are paths relative to DIR. MB is 10^6 bytes; a bandwidth or latency
// of 0 means none. Once listening it prints "http://127.0.0.1:PORT" on one
// line of stdout. It serves until SIGTERM or SIGINT, or until stdin reaches
// end of file (so that it ends with the process that holds the other end of
// a pipe; started with stdin at /dev/null it ends at once), then prints
// {"requests":N,"bytes_sent":N,"peak_connections":N} on one line of stderr
// (bytes_sent counts bodies only). Exit status: 0, 1 if it cannot serve,
// 2 for usage errors.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "serve_lifecycle.h"
#include "testing/throttled_http_server.h"
#include "turbozarr/store.h"

int main(int argc, char** argv) {
  CLI::App app(
      "Serves a directory over HTTP on 127.0.0.1 with a latency per answer and a "
      "bandwidth per connection.",
      "tz_http_serve");
  std::string root;
  double latency_ms = 0;
  double megabytes_per_second = 0;
  int port = 0;
  int backlog = 1024;
  app.add_option("--root", root, "the directory to serve; keys are paths below it")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--latency-ms", latency_ms,
                 "waited before every answer's status line; 0: none")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--megabytes-per-second", megabytes_per_second,
                 "body bandwidth of each connection, MB = 10^6 bytes; 0: unlimited")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--port", port, "the port to listen on; 0: a free one")
      ->check(CLI::Range(0, 65535));
  app.add_option("--backlog", backlog,
                 "connections the kernel holds before they are accepted (listen's "
                 "backlog); 5 makes a modest server, as Python's http.server")
      ->check(CLI::Range(1, 65535));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "tz_http_serve: %s\nRun 'tz_http_serve --help' for usage.\n",
                 e.what());
    return 2;
  }

  const int signal_fd = turbozarr::serve::TerminationSignals("tz_http_serve");
  if (signal_fd < 0) return 1;

  turbozarr::Result<std::shared_ptr<turbozarr::Store>> store =
      turbozarr::MakeLocalStore(root);
  if (!store.ok()) {
    std::fprintf(stderr, "tz_http_serve: %s\n", store.status().ToString().c_str());
    return 1;
  }
  turbozarr::HttpThrottle throttle;
  throttle.latency = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::duration<double, std::milli>(latency_ms));
  throttle.bytes_per_second = megabytes_per_second * 1e6;
  // The files go out with sendfile, as a web server sends them.
  turbozarr::ThrottledHttpServer server(*store, throttle, root);
  if (turbozarr::Status s = server.Start(port, backlog); !s.ok()) {
    std::fprintf(stderr, "tz_http_serve: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("%s\n", server.url().c_str());
  std::fflush(stdout);

  turbozarr::serve::WaitForEnd(signal_fd);
  server.Stop();
  const turbozarr::HttpServeStats stats = server.stats();
  std::fprintf(stderr,
               "{\"requests\":%" PRIu64 ",\"bytes_sent\":%" PRIu64
               ",\"peak_connections\":%" PRIu64 "}\n",
               stats.requests, stats.bytes_sent, stats.peak_connections);
  return 0;
}
