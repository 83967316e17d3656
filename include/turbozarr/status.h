// Status and Result<T>: how every fallible turbozarr call reports failure.
//
// No exception crosses a public turbozarr API. A call returns Status (or
// Result<T>, which holds either a T or a non-OK Status); the message of a
// failure names what failed (the array, the key) and why.
//
// Thread safety: Status and Result are values; distinct objects may be used
// from different threads freely.
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace turbozarr {

enum class StatusCode {
  kOk = 0,
  kNotFound,         // a required key, array or group does not exist
  kCorruption,       // stored bytes are malformed: bad checksum, wrong size, bad JSON
  kInvalidArgument,  // the caller asked for something that makes no sense
  kIOError,          // the operating system or the network failed
  kUnsupported,      // well-formed, but a feature turbozarr does not implement
  kCancelled,
  kAlreadyExists,    // create without overwrite found something there
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status Corruption(std::string msg) {
    return {StatusCode::kCorruption, std::move(msg)};
  }
  static Status InvalidArgument(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status Unsupported(std::string msg) {
    return {StatusCode::kUnsupported, std::move(msg)};
  }
  static Status Cancelled(std::string msg) {
    return {StatusCode::kCancelled, std::move(msg)};
  }
  static Status AlreadyExists(std::string msg) {
    return {StatusCode::kAlreadyExists, std::move(msg)};
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return ok() ? StatusCode::kOk : state_->code; }
  const std::string& message() const;
  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  // Null when OK, so that the success path costs one pointer and no allocation.
  std::shared_ptr<const State> state_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Result built from an OK Status");
  }

  bool ok() const { return v_.index() == 1; }
  Status status() const { return ok() ? Status::OK() : std::get<0>(v_); }

  // REQUIRES: ok()
  T& value() & { return std::get<1>(v_); }
  const T& value() const& { return std::get<1>(v_); }
  T&& value() && { return std::get<1>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // `*std::move(result)` and `*Make()` move the value out instead of copying.
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T ValueOr(T fallback) const& { return ok() ? value() : fallback; }

 private:
  std::variant<Status, T> v_;
};

}  // namespace turbozarr

#define TZ_CONCAT_INNER(a, b) a##b
#define TZ_CONCAT(a, b) TZ_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define TZ_RETURN_NOT_OK(expr)                       \
  do {                                               \
    ::turbozarr::Status _tz_status = (expr);         \
    if (!_tz_status.ok()) return _tz_status;         \
  } while (false)

#define TZ_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                             \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

// `lhs = value of rexpr`, or return its Status from the enclosing function.
#define TZ_ASSIGN_OR_RETURN(lhs, rexpr) \
  TZ_ASSIGN_OR_RETURN_IMPL(TZ_CONCAT(_tz_result_, __LINE__), lhs, rexpr)
