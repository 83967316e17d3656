// tz_tcp_throttle: a TCP proxy on 127.0.0.1 that puts a network's latency
// and bandwidth in front of a loopback server that has neither. The benchmark
// harness puts it in front of moto's S3 server, so that S3 readers are timed
// under the same link as the HTTP ones behind tz_http_serve.
//
//   tz_tcp_throttle --upstream HOST:PORT [--latency-ms 0]
//                   [--megabytes-per-second 0] [--port 0]
//
// Every connection accepted is forwarded to its own connection to the
// upstream. Bytes towards the upstream (requests) arrive there `latency`
// after they reached the proxy, as over a link with that one-way delay; an
// HTTP request is one write, so each answer starts `latency` later, as
// tz_http_serve's do. Bytes back (answers) leave each connection at the set
// bandwidth, in slices of 64 KiB, the pace starting afresh once a connection
// has been idle (so that an answer never inherits credit from a pause).
//
// Once listening it prints "http://127.0.0.1:PORT" on one line of stdout. It
// runs until SIGTERM or SIGINT, or until stdin reaches end of file, then
// prints {"connections":N,"peak_connections":N,"bytes_up":N,"bytes_down":N}
// on one line of stderr. Exit status: 0, 1 if it cannot listen, 2 for usage
// errors.
//
// Threads rather than an event loop: three per connection (read requests,
// deliver them when due, pace answers), blocking calls only, so that each
// direction's timing is a sleep and nothing else. A benchmark opens tens of
// connections, not thousands.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve_lifecycle.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadBytes = 256 * 1024;
constexpr size_t kSliceBytes = 64 * 1024;

struct Link {
  Clock::duration latency{0};
  double bytes_per_second = 0;  // 0: unlimited
  sockaddr_in upstream{};
};

std::atomic<uint64_t> g_connections{0};
std::atomic<uint64_t> g_open{0};
std::atomic<uint64_t> g_peak{0};
std::atomic<uint64_t> g_bytes_up{0};
std::atomic<uint64_t> g_bytes_down{0};

bool SendAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    data += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

void NoDelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// One client connection and its upstream connection. The last of its three
// threads to finish closes both sockets.
class Connection {
 public:
  Connection(const Link& link, int client, int upstream)
      : link_(link), client_(client), upstream_(upstream) {}

  static void Run(const std::shared_ptr<Connection>& c) {
    std::thread([c] { c->ReadRequests(); c->Done(); }).detach();
    std::thread([c] { c->DeliverRequests(); c->Done(); }).detach();
    std::thread([c] { c->PaceAnswers(); c->Done(); }).detach();
  }

 private:
  struct Pending {
    Clock::time_point due;
    std::string bytes;  // empty: the client has finished sending
  };

  void Done() {
    if (finished_.fetch_add(1) + 1 < 3) return;
    ::close(client_);
    ::close(upstream_);
    g_open.fetch_sub(1);
  }

  // Ends both directions: a broken side leaves nothing worth forwarding.
  void Abort() {
    ::shutdown(client_, SHUT_RDWR);
    ::shutdown(upstream_, SHUT_RDWR);
    Push({Clock::now(), std::string()});
  }

  void Push(Pending p) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(p));
    }
    ready_.notify_one();
  }

  void ReadRequests() {
    std::string buffer(kReadBytes, '\0');
    for (;;) {
      const ssize_t n = ::recv(client_, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      g_bytes_up.fetch_add(static_cast<uint64_t>(n));
      Push({Clock::now() + link_.latency, buffer.substr(0, static_cast<size_t>(n))});
    }
    Push({Clock::now() + link_.latency, std::string()});
  }

  void DeliverRequests() {
    for (;;) {
      Pending p;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty(); });
        p = std::move(queue_.front());
        queue_.pop_front();
      }
      std::this_thread::sleep_until(p.due);
      if (p.bytes.empty()) {
        ::shutdown(upstream_, SHUT_WR);
        return;
      }
      if (!SendAll(upstream_, p.bytes.data(), p.bytes.size())) {
        Abort();
        return;
      }
    }
  }

  void PaceAnswers() {
    std::vector<char> buffer(kReadBytes);
    const bool paced = link_.bytes_per_second > 0;
    Clock::time_point start{};
    double sent = 0;  // bytes sent since `start`
    for (;;) {
      const ssize_t n = ::recv(upstream_, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      const Clock::time_point now = Clock::now();
      if (paced) {
        const auto schedule = start + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(
                                              sent / link_.bytes_per_second));
        if (now > schedule) {  // idle since the last slice: a fresh pace
          start = now;
          sent = 0;
        }
      }
      for (size_t at = 0; at < static_cast<size_t>(n);) {
        const size_t k =
            paced ? std::min(kSliceBytes, static_cast<size_t>(n) - at) : n - at;
        if (paced) {
          std::this_thread::sleep_until(
              start + std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>((sent + static_cast<double>(k)) /
                                                        link_.bytes_per_second)));
        }
        if (!SendAll(client_, buffer.data() + at, k)) {
          Abort();
          return;
        }
        sent += static_cast<double>(k);
        g_bytes_down.fetch_add(k);
        at += k;
      }
    }
    ::shutdown(client_, SHUT_WR);
  }

  const Link link_;
  const int client_;
  const int upstream_;
  std::atomic<int> finished_{0};
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Pending> queue_;
};

void Accept(int listener, Link link) {
  for (;;) {
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE) continue;
      return;
    }
    const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (upstream < 0 ||
        ::connect(upstream, reinterpret_cast<const sockaddr*>(&link.upstream),
                  sizeof(link.upstream)) != 0) {
      std::perror("tz_tcp_throttle: connect to upstream");
      if (upstream >= 0) ::close(upstream);
      ::close(client);  // the client sees a closed connection, as from a dead server
      continue;
    }
    NoDelay(client);
    NoDelay(upstream);
    g_connections.fetch_add(1);
    const uint64_t open = g_open.fetch_add(1) + 1;
    uint64_t peak = g_peak.load();
    while (open > peak && !g_peak.compare_exchange_weak(peak, open)) {
    }
    Connection::Run(std::make_shared<Connection>(link, client, upstream));
  }
}


bool ParseUpstream(const std::string& text, sockaddr_in* out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = text.substr(0, colon);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), text.c_str() + colon + 1, &hints, &found) != 0) {
    return false;
  }
  std::memcpy(out, found->ai_addr, sizeof(*out));
  ::freeaddrinfo(found);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Forwards TCP connections on 127.0.0.1 to a server, with a latency per request "
      "and a bandwidth per connection.",
      "tz_tcp_throttle");
  std::string upstream;
  double latency_ms = 0;
  double megabytes_per_second = 0;
  int port = 0;
  app.add_option("--upstream", upstream, "the server to forward to, HOST:PORT")
      ->required();
  app.add_option("--latency-ms", latency_ms,
                 "added to every request on its way to the server; 0: none")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--megabytes-per-second", megabytes_per_second,
                 "answer bandwidth of each connection, MB = 10^6 bytes; 0: unlimited")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--port", port, "the port to listen on; 0: a free one")
      ->check(CLI::Range(0, 65535));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "tz_tcp_throttle: %s\nRun 'tz_tcp_throttle --help' for usage.\n",
                 e.what());
    return 2;
  }
  Link link;
  link.latency = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::milli>(latency_ms));
  link.bytes_per_second = megabytes_per_second * 1e6;
  if (!ParseUpstream(upstream, &link.upstream)) {
    std::fprintf(stderr, "tz_tcp_throttle: --upstream %s is not HOST:PORT\n",
                 upstream.c_str());
    return 2;
  }

  const int signal_fd = turbozarr::serve::TerminationSignals("tz_tcp_throttle");
  if (signal_fd < 0) return 1;

  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t length = sizeof(address);
  if (listener < 0 ||
      ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listener, 1024) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    std::perror("tz_tcp_throttle: listen");
    return 1;
  }
  std::printf("http://127.0.0.1:%u\n", ntohs(address.sin_port));
  std::fflush(stdout);

  std::thread(Accept, listener, link).detach();
  turbozarr::serve::WaitForEnd(signal_fd);
  std::fprintf(stderr,
               "{\"connections\":%" PRIu64 ",\"peak_connections\":%" PRIu64
               ",\"bytes_up\":%" PRIu64 ",\"bytes_down\":%" PRIu64 "}\n",
               g_connections.load(), g_peak.load(), g_bytes_up.load(),
               g_bytes_down.load());
  std::fflush(stderr);
  // Connection threads may still be blocked in a call: end without unwinding.
  std::_Exit(0);
}
