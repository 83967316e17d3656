#include "testing/throttled_http_server.h"

#include <algorithm>
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

bool ThrottledHttpServer::SendBody(int fd, const std::string& key, uint64_t begin,
                                   uint64_t end) {
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
      if (paced) {
        const std::chrono::duration<double> due(static_cast<double>(sent + n) /
                                                throttle_.bytes_per_second);
        if (!http_.SleepUntil(start + std::chrono::duration_cast<Clock::duration>(due))) {
          return false;
        }
      }
      if (!SendAll(fd, bytes.substr(0, n))) return false;
      sent += n;
      bytes_sent_ += n;
      bytes.remove_prefix(n);
    }
  }
  return true;
}

}  // namespace turbozarr
