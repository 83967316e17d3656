#include "testing/fault_http_server.h"

#include <sys/socket.h>

#include <string_view>

#include "testing/http_range_answer.h"

namespace turbozarr {

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

bool FaultHttpServer::Stall() {
  return http_.SleepUntil(std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(stall_ms_.load()));
}

bool FaultHttpServer::Handle(int fd, const HttpServerRequest& req) {
  HttpFault fault = HttpFault::kNone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t number = numbered_++;
    last_ = {req.method, req.path + req.query, req.headers, req.body};
    if (next_queued_ < queued_.size()) {
      fault = queued_[next_queued_++];
    } else if (policy_) {
      fault = policy_(number, req.path + req.query, req.range);
    }
  }
  return Answer(fd, req, fault);
}

bool FaultHttpServer::Answer(int fd, const HttpServerRequest& req, HttpFault fault) {
  switch (fault) {
    case HttpFault::kStatus500:
      return SendAll(fd, StatusAnswer(req.method, "500 Internal Server Error"));
    case HttpFault::kStatus503:
      return SendAll(
          fd, StatusAnswer(req.method, "503 Service Unavailable", "Retry-After: 0\r\n"));
    case HttpFault::kStatus429:
      return SendAll(fd, StatusAnswer(req.method, "429 Too Many Requests"));
    case HttpFault::kCloseBeforeReply:
      return false;
    case HttpFault::kResetBeforeReply: {
      linger l{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      return false;
    }
    case HttpFault::kStallBeforeReply:
      if (!Stall()) return false;
      break;
    default:
      break;
  }
  std::shared_ptr<const std::string> stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(req.path.empty() ? req.path : req.path.substr(1));
    if (it == values_.end()) {
      return SendAll(fd, StatusAnswer(req.method, "404 Not Found"));
    }
    stored = it->second;
  }
  const std::string& value = *stored;
  const uint64_t size = value.size();
  RangeAnswer r = AnswerRange(fault == HttpFault::kIgnoreRange ? "" : req.range, size);
  if (r.status == 416) return SendAll(fd, UnsatisfiableAnswer(req.method, size));
  if (fault == HttpFault::kShortRange && r.status == 206 && r.end - r.begin >= 2) --r.end;
  if (fault == HttpFault::kShiftedRange && r.status == 206) {
    // A neighbouring range, truly labelled.
    if (r.end < size) {
      ++r.begin, ++r.end;
    } else if (r.begin > 0) {
      --r.begin, --r.end;
    }
  }
  const std::string_view body = std::string_view(value).substr(r.begin, r.end - r.begin);
  uint64_t announced = body.size();
  if (req.method != "HEAD") {  // a HEAD's length describes no body sent
    if (fault == HttpFault::kLengthTooLong) announced += 7;
    if (fault == HttpFault::kLengthTooShort && announced >= 7) announced -= 7;
  }
  if (!SendAll(fd, AnswerHead(r, size, announced))) return false;
  if (req.method == "HEAD") return true;
  const size_t half = body.size() / 2;
  switch (fault) {
    case HttpFault::kCloseMidBody:
      SendAll(fd, body.substr(0, half));
      return false;
    case HttpFault::kStallMidBody:
      if (!SendAll(fd, body.substr(0, half)) || !Stall()) return false;
      return SendAll(fd, body.substr(half));
    case HttpFault::kLengthTooLong:
    case HttpFault::kLengthTooShort:
      SendAll(fd, body);
      return false;
    default:
      return SendAll(fd, body);
  }
}

}  // namespace turbozarr
