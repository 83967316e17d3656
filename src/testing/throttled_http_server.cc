#include "testing/throttled_http_server.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string_view>

#include "testing/http_range_answer.h"

namespace turbozarr {

using Clock = std::chrono::steady_clock;

HttpServeStats ThrottledHttpServer::stats() const {
  return {http_.requests(), bytes_sent_, http_.peak_connections(), http_.connections()};
}

bool ThrottledHttpServer::Handle(int fd, const HttpServerRequest& req) {
  // The store is asked during the latency, which hides its own time.
  const Clock::time_point answer_at = Clock::now() + throttle_.latency;
  const bool close = throttle_.close_connections;
  auto answer = [&](std::string text) {
    if (throttle_.latency.count() > 0 && !http_.SleepUntil(answer_at)) return false;
    if (close) text.insert(text.find("\r\n") + 2, "Connection: close\r\n");
    return SendAll(fd, text);
  };
  // Whether to read the connection's next request.
  auto keep = [&](bool sent) { return sent && !close; };
  if (req.method != "GET" && req.method != "HEAD") {
    return keep(answer(
        StatusAnswer(req.method, "405 Method Not Allowed", "Allow: GET, HEAD\r\n")));
  }
  const std::string key = req.path.empty() ? req.path : req.path.substr(1);
  Result<std::optional<uint64_t>> size = store_->Size(key);
  // A key the store refuses ("", "a//b", "../x") names no value, as an object
  // store's would.
  if (!size.ok() && size.status().code() != StatusCode::kInvalidArgument) {
    return keep(answer(StatusAnswer(req.method, "500 Internal Server Error")));
  }
  if (!size.ok() || !size->has_value()) {
    return keep(answer(StatusAnswer(req.method, "404 Not Found")));
  }
  const RangeAnswer range = AnswerRange(req.range, **size);
  if (range.status == 416) return keep(answer(UnsatisfiableAnswer(req.method, **size)));
  if (!answer(AnswerHead(range, **size))) return false;
  if (req.method == "HEAD") return keep(true);
  return keep(SendBody(fd, key, range.begin, range.end));
}

bool ThrottledHttpServer::Pace(Clock::time_point start, uint64_t through) {
  if (throttle_.bytes_per_second <= 0) return true;
  const std::chrono::duration<double> due(static_cast<double>(through) /
                                          throttle_.bytes_per_second);
  return http_.SleepUntil(start + std::chrono::duration_cast<Clock::duration>(due));
}

bool ThrottledHttpServer::SendFileBody(int fd, const std::string& key, uint64_t begin,
                                       uint64_t end) {
  const int file = ::open((files_ + "/" + key).c_str(), O_RDONLY | O_CLOEXEC);
  if (file < 0) return false;
  const bool paced = throttle_.bytes_per_second > 0;
  const Clock::time_point start = Clock::now();
  off_t at = static_cast<off_t>(begin);
  bool ok = true;
  while (ok && static_cast<uint64_t>(at) < end) {
    const uint64_t left = end - static_cast<uint64_t>(at);
    const size_t n = static_cast<size_t>(paced ? std::min(kSliceBytes, left) : left);
    if (!Pace(start, static_cast<uint64_t>(at) - begin + n)) {
      ok = false;
      break;
    }
    const ssize_t k = ::sendfile(fd, file, &at, n);  // moves `at` on
    if (k < 0 && errno == EINTR) continue;
    ok = k > 0;  // 0: the file is shorter than it was
    if (ok) bytes_sent_ += static_cast<uint64_t>(k);
  }
  ::close(file);
  return ok;
}

bool ThrottledHttpServer::SendBody(int fd, const std::string& key, uint64_t begin,
                                   uint64_t end) {
  if (!files_.empty()) return SendFileBody(fd, key, begin, end);
  const bool paced = throttle_.bytes_per_second > 0;
  const Clock::time_point start = Clock::now();
  uint64_t sent = 0;
  for (uint64_t at = begin; at < end;) {
    Result<std::optional<Buffer>> block =
        store_->Get(key, ByteRange::Of(at, std::min(kReadBytes, end - at)));
    if (!block.ok() || !block->has_value() || (*block)->empty()) return false;
    std::string_view bytes = (*block)->chars();
    at += bytes.size();
    while (!bytes.empty()) {
      const size_t n = paced ? std::min<size_t>(kSliceBytes, bytes.size()) : bytes.size();
      if (!Pace(start, sent + n)) return false;
      if (!SendAll(fd, bytes.substr(0, n))) return false;
      sent += n;
      bytes_sent_ += n;
      bytes.remove_prefix(n);
    }
  }
  return true;
}

}  // namespace turbozarr
