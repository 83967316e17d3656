#include "testing/loopback_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace turbozarr {

namespace {

// A request head larger than this, or a body larger than that, ends the
// connection: no client of a test server sends either.
constexpr size_t kMaxHeadBytes = size_t{1} << 16;
constexpr uint64_t kMaxBodyBytes = uint64_t{64} << 20;

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    int hi = i + 2 < s.size() ? Hex(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? Hex(s[i + 2]) : -1;
    if (s[i] == '%' && hi >= 0 && lo >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Fills `req` from a request's head (its request line and header lines,
// without the blank line that ends them); false if the head is malformed.
bool ParseHead(std::string_view head, HttpServerRequest& req, uint64_t& body_length) {
  size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 <= sp1) return false;
  req.method = std::string(line.substr(0, sp1));
  // The path is decoded, the query string kept as sent.
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const size_t q = std::min(target.find('?'), target.size());
  req.path = PercentDecode(target.substr(0, q));
  req.query = std::string(target.substr(q));
  body_length = 0;
  while (line_end != std::string_view::npos) {
    size_t next = head.find("\r\n", line_end + 2);
    std::string_view h =
        head.substr(line_end + 2, next == std::string_view::npos ? std::string_view::npos
                                                                 : next - line_end - 2);
    line_end = next;
    size_t colon = h.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = Lower(h.substr(0, colon));
    std::string value(h.substr(colon + 1));
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of(' ') + 1);
    if (name == "range") req.range = value;
    if (name == "connection" && Lower(value) == "close") req.close = true;
    if (name == "content-length") {
      auto [ptr, ec] =
          std::from_chars(value.data(), value.data() + value.size(), body_length);
      if (ec != std::errc() || ptr != value.data() + value.size()) return false;
    }
    req.headers.push_back(name + ": " + value);
  }
  return body_length <= kMaxBodyBytes;
}

}  // namespace

Status LoopbackHttpServer::Start(int port, int backlog) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::IOError(std::string("socket: ") + strerror(errno));
  // A fixed port is free again at once after an earlier server on it stopped.
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof(addr);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, std::max(1, backlog)) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Status::IOError("listening on 127.0.0.1:" + std::to_string(port) + ": " +
                           strerror(errno));
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::OK();
}

void LoopbackHttpServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  stopped_cv_.notify_all();
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  // No connection starts now: the acceptor saw `stopping_` and ended.
  std::map<uint64_t, std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
    finished_.clear();
  }
  for (auto& [id, t] : workers) t.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

std::string LoopbackHttpServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

bool LoopbackHttpServer::SleepUntil(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stopped_cv_.wait_until(lock, deadline, [&] { return stopping_; });
}

void LoopbackHttpServer::JoinFinished() {
  std::vector<std::thread> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t id : finished_) {
      auto it = workers_.find(id);
      done.push_back(std::move(it->second));
      workers_.erase(it);
    }
    finished_.clear();
  }
  for (std::thread& t : done) t.join();
}

void LoopbackHttpServer::AcceptLoop() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    const int accept_errno = errno;
    JoinFinished();
    if (fd < 0 && (accept_errno == EMFILE || accept_errno == ENFILE)) {
      // Out of descriptors: wait for connections to end rather than give up.
      if (!SleepUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(10))) {
        return;
      }
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      if (accept_errno == EINTR || accept_errno == ECONNABORTED) continue;
      return;
    }
    // Headers and body go out in separate sends; without this the second
    // waits for the client's delayed acknowledgement of the first.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ++connections_;
    open_fds_.push_back(fd);
    if (open_fds_.size() > peak_connections_) peak_connections_ = open_fds_.size();
    const uint64_t id = next_worker_++;
    workers_.emplace(id, std::thread([this, fd, id] {
                       Serve(fd);
                       std::lock_guard<std::mutex> lock(mu_);
                       open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
                       ::close(fd);
                       finished_.push_back(id);
                     }));
  }
}

void LoopbackHttpServer::Serve(int fd) {
  std::string in;
  char chunk[16384];
  for (;;) {
    size_t end;
    while ((end = in.find("\r\n\r\n")) == std::string::npos &&
           in.size() <= kMaxHeadBytes) {
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      in.append(chunk, static_cast<size_t>(n));
    }
    if (end == std::string::npos) return;
    HttpServerRequest req;
    uint64_t body_length = 0;
    if (!ParseHead(std::string_view(in.data(), end), req, body_length)) return;
    in.erase(0, end + 4);
    while (in.size() < body_length) {
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      in.append(chunk, static_cast<size_t>(n));
    }
    req.body = in.substr(0, body_length);
    in.erase(0, body_length);
    ++requests_;
    if (!handler_(fd, req) || req.close) return;
  }
}

}  // namespace turbozarr
