#include "testing/fault_http_server.h"

#include <sys/socket.h>

#include <cstdio>
#include <iterator>
#include <random>
#include <string_view>

#include "testing/http_range_answer.h"
#include "util/stable_hash.h"

namespace turbozarr {

const char* HttpFaultName(HttpFault fault) {
  switch (fault) {
    case HttpFault::kNone:
      return "none";
    case HttpFault::kStatus500:
      return "500";
    case HttpFault::kStatus503:
      return "503";
    case HttpFault::kStatus503RetryAfter1s:
      return "503, retry after 1 s";
    case HttpFault::kStatus429:
      return "429";
    case HttpFault::kStatus403:
      return "403";
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
    case HttpFault::kRedirectSameHost:
      return "redirect, same host";
    case HttpFault::kRedirectOtherHost:
      return "redirect, other host";
    case HttpFault::kApplyThenReset:
      return "apply, then reset";
  }
  return "?";
}

HttpFault RandomHttpFault(uint64_t seed, uint64_t n, const std::string& range, int one_in,
                          bool with_redirects) {
  static const HttpFault kFaults[] = {
      HttpFault::kStatus500,         HttpFault::kStatus503,
      HttpFault::kStatus429,         HttpFault::kCloseBeforeReply,
      HttpFault::kResetBeforeReply,  HttpFault::kCloseMidBody,
      HttpFault::kStallBeforeReply,  HttpFault::kStallMidBody,
      HttpFault::kLengthTooLong,     HttpFault::kLengthTooShort,
      HttpFault::kIgnoreRange,       HttpFault::kShiftedRange,
      HttpFault::kShortRange,        HttpFault::kApplyThenReset,
      HttpFault::kRedirectSameHost};  // last, so that it can be left out
  std::mt19937_64 rng(seed ^ (n * 0x9E3779B97F4A7C15ull));
  if (one_in <= 0 || rng() % static_cast<uint64_t>(one_in) != 0) return HttpFault::kNone;
  const size_t kinds = std::size(kFaults) - (with_redirects ? 0 : 1);
  const HttpFault f = kFaults[rng() % kinds];
  if (f == HttpFault::kLengthTooShort && range.empty()) return HttpFault::kNone;
  return f;
}

HttpOptions FastHttpOptions() {
  HttpOptions o;
  o.connect_timeout = std::chrono::milliseconds(1000);
  o.idle_timeout = std::chrono::milliseconds(200);
  o.max_retries = 4;
  o.backoff_base = std::chrono::milliseconds(2);
  o.backoff_max = std::chrono::milliseconds(20);
  return o;
}

S3Options S3OptionsFor(const FaultHttpServer& server, HttpOptions http) {
  S3Options o;
  o.endpoint = server.url();
  o.region = "us-east-1";
  o.access_key_id = "test";
  o.secret_access_key = "test";
  o.addressing = S3Addressing::kPath;
  o.http = std::move(http);
  return o;
}

void FaultHttpServer::Put(const std::string& path, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[path] = std::make_shared<const std::string>(std::move(value));
}

std::optional<std::string> FaultHttpServer::Value(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find(path);
  if (it == values_.end()) return std::nullopt;
  return *it->second;
}

std::vector<std::string> FaultHttpServer::Paths() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [path, value] : values_) out.push_back(path);
  return out;
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

namespace {

// A quoted ETag made from the value's bytes (FNV-1a), as S3 makes one from
// their MD5: equal values, equal tags.
std::string ETagOf(std::string_view value) {
  const uint64_t h = internal::Fnv1a(internal::kFnvOffset, value);
  char text[24];
  std::snprintf(text, sizeof(text), "\"%016llx\"", static_cast<unsigned long long>(h));
  return text;
}

std::optional<std::string_view> HeaderOf(const HttpServerRequest& req,
                                         std::string_view name) {
  for (const std::string& h : req.headers) {
    std::string_view line(h);
    if (line.size() > name.size() + 1 && line.starts_with(name) &&
        line[name.size()] == ':') {
      std::string_view v = line.substr(name.size() + 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      return v;
    }
  }
  return std::nullopt;
}

// Whether the request's If-Match / If-None-Match allow it, given the value
// now stored (nullptr if none).
bool ConditionHolds(const HttpServerRequest& req, const std::string* current) {
  if (std::optional<std::string_view> want = HeaderOf(req, "if-match")) {
    return current != nullptr && (*want == "*" || *want == ETagOf(*current));
  }
  if (std::optional<std::string_view> not_want = HeaderOf(req, "if-none-match")) {
    return current == nullptr ||
           (*not_want != "*" && *not_want != ETagOf(*current));
  }
  return true;
}

// The S3 DeleteObjects body's keys (no XML escapes other than &amp;).
std::vector<std::string> KeysToDelete(std::string_view xml) {
  std::vector<std::string> keys;
  size_t at = 0;
  while ((at = xml.find("<Key>", at)) != std::string_view::npos) {
    const size_t begin = at + 5;
    const size_t end = xml.find("</Key>", begin);
    if (end == std::string_view::npos) break;
    std::string key(xml.substr(begin, end - begin));
    for (size_t amp; (amp = key.find("&amp;")) != std::string::npos;) {
      key.replace(amp, 5, "&");
    }
    keys.push_back(std::move(key));
    at = end;
  }
  return keys;
}

bool Reset(int fd) {
  linger l{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  return false;
}

}  // namespace

bool FaultHttpServer::AnswerWrite(int fd, const HttpServerRequest& req, HttpFault fault) {
  const std::string path = req.path.empty() ? req.path : req.path.substr(1);
  std::string answer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (req.method == "POST") {
      if (req.query.find("delete") == std::string::npos) {
        answer = StatusAnswer(req.method, "501 Not Implemented");
      } else {
        const std::string bucket = path.substr(0, path.find('/'));
        for (const std::string& key : KeysToDelete(req.body)) {
          values_.erase(bucket + "/" + key);
        }
        const std::string body = "<DeleteResult></DeleteResult>";
        answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body;
      }
    } else {
      auto it = values_.find(path);
      const std::string* current = it == values_.end() ? nullptr : it->second.get();
      if (!ConditionHolds(req, current)) {
        answer = current == nullptr && req.method == "DELETE"
                     ? StatusAnswer(req.method, "404 Not Found")
                     : StatusAnswer(req.method, "412 Precondition Failed");
      } else if (req.method == "PUT") {
        values_[path] = std::make_shared<const std::string>(req.body);
        answer = "HTTP/1.1 200 OK\r\nETag: " + ETagOf(req.body) +
                 "\r\nContent-Length: 0\r\n\r\n";
      } else {  // DELETE
        if (it != values_.end()) values_.erase(it);
        answer = "HTTP/1.1 204 No Content\r\n\r\n";
      }
    }
  }
  if (fault == HttpFault::kApplyThenReset) return Reset(fd);
  return SendAll(fd, answer);
}

bool FaultHttpServer::Answer(int fd, const HttpServerRequest& req, HttpFault fault) {
  switch (fault) {
    case HttpFault::kStatus500:
      return SendAll(fd, StatusAnswer(req.method, "500 Internal Server Error"));
    case HttpFault::kStatus503:
      return SendAll(
          fd, StatusAnswer(req.method, "503 Service Unavailable", "Retry-After: 0\r\n"));
    case HttpFault::kStatus503RetryAfter1s:
      return SendAll(
          fd, StatusAnswer(req.method, "503 Service Unavailable", "Retry-After: 1\r\n"));
    case HttpFault::kStatus429:
      return SendAll(fd, StatusAnswer(req.method, "429 Too Many Requests"));
    case HttpFault::kStatus403:
      return SendAll(fd, StatusAnswer(req.method, "403 Forbidden"));
    case HttpFault::kCloseBeforeReply:
      return false;
    case HttpFault::kResetBeforeReply:
      return Reset(fd);
    case HttpFault::kRedirectSameHost:
    case HttpFault::kRedirectOtherHost: {
      const std::string to =
          (fault == HttpFault::kRedirectSameHost
               ? http_.url()
               : "http://localhost:" + std::to_string(http_.port())) +
          req.path + (req.query.empty() ? "?redirected" : req.query + "&redirected");
      return SendAll(fd, StatusAnswer(req.method, "307 Temporary Redirect",
                                      "Location: " + to + "\r\n"));
    }
    case HttpFault::kStallBeforeReply:
      if (!Stall()) return false;
      break;
    default:
      break;
  }
  if (req.method == "PUT" || req.method == "DELETE" || req.method == "POST") {
    return AnswerWrite(fd, req, fault);
  }
  if (fault == HttpFault::kApplyThenReset) return Reset(fd);
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
  std::string head = AnswerHead(r, size, announced);
  head.insert(head.find("\r\n") + 2, "ETag: " + ETagOf(value) + "\r\n");
  if (!SendAll(fd, head)) return false;
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
