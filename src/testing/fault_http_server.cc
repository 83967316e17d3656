#include "testing/fault_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <tuple>

namespace turbozarr {

namespace {

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

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

// The half-open interval a "bytes=..." header selects from a value of `size`
// bytes; nullopt when unsatisfiable.
std::optional<std::pair<uint64_t, uint64_t>> ParseRange(const std::string& header,
                                                        uint64_t size) {
  if (!header.starts_with("bytes=")) return std::nullopt;
  std::string spec = header.substr(6);
  size_t dash = spec.find('-');
  if (dash == std::string::npos) return std::nullopt;
  std::string a = spec.substr(0, dash), b = spec.substr(dash + 1);
  if (a.empty()) {  // suffix
    uint64_t n = std::stoull(b);
    if (n == 0 || size == 0) return std::nullopt;
    n = std::min(n, size);
    return std::make_pair(size - n, size);
  }
  uint64_t first = std::stoull(a);
  if (first >= size) return std::nullopt;
  uint64_t last = b.empty() ? size - 1 : std::min<uint64_t>(std::stoull(b), size - 1);
  if (last < first) return std::nullopt;
  return std::make_pair(first, last + 1);
}

}  // namespace

const char* HttpFaultName(HttpFault fault) {
  switch (fault) {
    case HttpFault::kNone:
      return "none";
    case HttpFault::kStatus500:
      return "500";
    case HttpFault::kStatus503:
      return "503";
    case HttpFault::kStatus429:
      return "429";
    case HttpFault::kCloseBeforeReply:
      return "close before reply";
    case HttpFault::kResetBeforeReply:
      return "reset before reply";
    case HttpFault::kCloseMidBody:
      return "close mid-body";
    case HttpFault::kStallBeforeReply:
      return "stall before reply";
    case HttpFault::kStallMidBody:
      return "stall mid-body";
    case HttpFault::kLengthTooLong:
      return "Content-Length too long";
    case HttpFault::kLengthTooShort:
      return "Content-Length too short";
    case HttpFault::kIgnoreRange:
      return "ignore Range";
    case HttpFault::kShiftedRange:
      return "shifted range";
    case HttpFault::kShortRange:
      return "short range";
  }
  return "?";
}

FaultHttpServer::~FaultHttpServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  stopped_cv_.notify_all();
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  for (std::thread& t : workers_) t.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

Status FaultHttpServer::Start() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::IOError(std::string("socket: ") + strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 256) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Status::IOError(std::string("fault server bind/listen: ") + strerror(errno));
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::OK();
}

std::string FaultHttpServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void FaultHttpServer::Put(const std::string& path, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[path] = std::make_shared<const std::string>(std::move(value));
}

void FaultHttpServer::QueueFaults(std::vector<HttpFault> faults) {
  std::lock_guard<std::mutex> lock(mu_);
  queued_.erase(queued_.begin(), queued_.begin() + static_cast<ptrdiff_t>(next_queued_));
  next_queued_ = 0;
  queued_.insert(queued_.end(), faults.begin(), faults.end());
}

FaultHttpServer::Received FaultHttpServer::last_request() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

void FaultHttpServer::SetPolicy(Policy policy) {
  std::lock_guard<std::mutex> lock(mu_);
  policy_ = std::move(policy);
}

bool FaultHttpServer::Sleep(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stopped_cv_.wait_for(lock, std::chrono::milliseconds(ms),
                               [&] { return stopping_; });
}

void FaultHttpServer::AcceptLoop() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    // Headers and body go out in separate sends; without this the second
    // waits for the client's delayed acknowledgement of the first.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ++connections_;
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

void FaultHttpServer::Serve(int fd) {
  std::string in;
  char chunk[16384];
  for (;;) {
    size_t end;
    while ((end = in.find("\r\n\r\n")) == std::string::npos) {
      if (in.size() > (1 << 16)) break;
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      in.append(chunk, static_cast<size_t>(n));
    }
    if (end == std::string::npos) break;
    Request req;
    Received received;
    uint64_t body_length = 0;
    std::string_view head(in.data(), end);
    size_t line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 <= sp1) break;
    req.method = std::string(line.substr(0, sp1));
    // The path is decoded, the query string kept as sent.
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const size_t q = std::min(target.find('?'), target.size());
    req.path = PercentDecode(target.substr(0, q));
    req.query = std::string(target.substr(q));
    while (line_end != std::string_view::npos) {
      size_t next = head.find("\r\n", line_end + 2);
      std::string_view h = head.substr(line_end + 2, next == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : next - line_end - 2);
      size_t colon = h.find(':');
      if (colon != std::string_view::npos) {
        std::string name = Lower(h.substr(0, colon));
        std::string value(h.substr(colon + 1));
        value.erase(0, value.find_first_not_of(' '));
        if (name == "range") req.range = value;
        received.headers.push_back(name + ": " + value);
        if (name == "content-length") body_length = std::stoull(value);
      }
      line_end = next;
    }
    in.erase(0, end + 4);
    while (in.size() < body_length) {  // a request body: read and ignore
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      in.append(chunk, static_cast<size_t>(n));
    }
    received.method = req.method;
    received.path = req.path + req.query;
    received.body = in.substr(0, std::min<size_t>(in.size(), body_length));
    in.erase(0, std::min<size_t>(in.size(), body_length));

    HttpFault fault = HttpFault::kNone;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const uint64_t number = requests_++;
      last_ = std::move(received);
      if (next_queued_ < queued_.size()) {
        fault = queued_[next_queued_++];
      } else if (policy_) {
        fault = policy_(number, req.path + req.query, req.range);
      }
    }
    if (!Answer(fd, req, fault)) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
  ::close(fd);
}

bool FaultHttpServer::Answer(int fd, const Request& req, HttpFault fault) {
  auto simple = [&](const std::string& status, const std::string& extra) {
    const std::string body = status;
    return SendAll(fd, "HTTP/1.1 " + status + "\r\n" + extra + "Content-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body);
  };
  switch (fault) {
    case HttpFault::kStatus500:
      return simple("500 Internal Server Error", "");
    case HttpFault::kStatus503:
      return simple("503 Service Unavailable", "Retry-After: 0\r\n");
    case HttpFault::kStatus429:
      return simple("429 Too Many Requests", "");
    case HttpFault::kCloseBeforeReply:
      return false;
    case HttpFault::kResetBeforeReply: {
      linger l{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      return false;
    }
    case HttpFault::kStallBeforeReply:
      if (!Sleep(stall_ms_)) return false;
      break;
    default:
      break;
  }
  std::shared_ptr<const std::string> stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(req.path.empty() ? req.path : req.path.substr(1));
    if (it == values_.end()) return simple("404 Not Found", "");
    stored = it->second;
  }
  const std::string& value = *stored;
  const uint64_t size = value.size();
  std::string status = "200 OK";
  std::string headers;
  uint64_t begin = 0, end = size;
  if (!req.range.empty() && fault != HttpFault::kIgnoreRange) {
    auto r = ParseRange(req.range, size);
    if (!r)
      return simple("416 Range Not Satisfiable",
                    "Content-Range: bytes */" + std::to_string(size) + "\r\n");
    std::tie(begin, end) = *r;
    if (fault == HttpFault::kShortRange && end - begin >= 2) --end;
    if (fault == HttpFault::kShiftedRange) {  // a neighbouring range, truly labelled
      if (end < size) {
        ++begin, ++end;
      } else if (begin > 0) {
        --begin, --end;
      }
    }
    status = "206 Partial Content";
    headers = "Content-Range: bytes " + std::to_string(begin) + "-" +
              std::to_string(end - 1) + "/" + std::to_string(size) + "\r\n";
  }
  const std::string body = value.substr(begin, end - begin);
  uint64_t announced = body.size();
  if (req.method != "HEAD") {  // a HEAD's length describes no body sent
    if (fault == HttpFault::kLengthTooLong) announced += 7;
    if (fault == HttpFault::kLengthTooShort && announced >= 7) announced -= 7;
  }
  headers += "Content-Length: " + std::to_string(announced) + "\r\n";
  if (!SendAll(fd, "HTTP/1.1 " + status + "\r\n" + headers + "\r\n")) return false;
  if (req.method == "HEAD") return true;
  const size_t half = body.size() / 2;
  switch (fault) {
    case HttpFault::kCloseMidBody:
      SendAll(fd, std::string_view(body).substr(0, half));
      return false;
    case HttpFault::kStallMidBody:
      if (!SendAll(fd, std::string_view(body).substr(0, half)) || !Sleep(stall_ms_)) {
        return false;
      }
      return SendAll(fd, std::string_view(body).substr(half));
    case HttpFault::kLengthTooLong:
    case HttpFault::kLengthTooShort:
      SendAll(fd, body);
      return false;
    default:
      return SendAll(fd, body);
  }
}

}  // namespace turbozarr
