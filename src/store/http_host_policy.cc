#include "store/http_host_policy.h"

#include <algorithm>

namespace turbozarr::internal {

namespace {

// A window is halved at most once in this long (or two mean first-byte
// times, if longer): the failures of one burst are one signal, not many.
constexpr std::chrono::milliseconds kMinDecreaseInterval{100};

// A handshake the kernel dropped is sent again after TCP's initial
// retransmission timeout of one second: an answer on a new connection this
// much later than the fastest one was most likely such a handshake.
constexpr std::chrono::milliseconds kRetransmittedHandshake{900};

// A server this far (its fastest answer on a new connection) needs more
// requests in flight than `max_connecting` to be kept busy.
constexpr std::chrono::milliseconds kDistantServer{10};

// Answers on new connections before a host is judged by them.
constexpr uint64_t kAnswersToJudgeKeepAlive = 8;

// Counts that make sense, whatever the options said.
HostPolicy::Limits Normalised(HostPolicy::Limits l) {
  l.max_connections = std::max(1, l.max_connections);
  l.max_streams = std::max(1, l.max_streams);
  l.max_connecting = std::max(1, l.max_connecting);
  l.initial_window = std::max(1, l.initial_window);
  return l;
}

}  // namespace

HostPolicy::HostPolicy(Limits limits)
    : limits_(Normalised(limits)),
      window_(std::min(limits_.initial_window, limits_.max_connections)),
      threshold_(std::max(limits_.max_connections, limits_.max_streams)),
      connecting_allowance_(limits_.max_connecting),
      connecting_threshold_(std::max(limits_.max_connections, limits_.max_connecting)) {}

bool HostPolicy::MayStart(Clock::time_point now, bool* new_connection) const {
  *new_connection = false;
  if (now < paused_until_) return false;
  if (in_flight_ >= Allowed()) return false;
  if (multiplexed_) return true;
  if (open_sockets_ > in_flight_) return true;  // an idle keep-alive connection
  *new_connection = true;
  if (connecting_ < limits_.max_connecting) return true;
  if (connecting_ >= static_cast<int>(connecting_allowance_)) return false;
  return now >= last_connection_started_ + limits_.connect_spacing;
}

HostPolicy::Clock::time_point HostPolicy::next_paced_connection() const {
  const bool paced = !multiplexed_ && in_flight_ < Allowed() && open_sockets_ <= in_flight_ &&
                     connecting_ >= limits_.max_connecting &&
                     connecting_ < static_cast<int>(connecting_allowance_);
  return paced ? last_connection_started_ + limits_.connect_spacing : Clock::time_point{};
}

bool HostPolicy::keeps_connections_alive() const {
  // A keep-alive host answers most requests on connections it answered on
  // before; one that closes them answers (almost) all on new ones.
  return answered_new_ < kAnswersToJudgeKeepAlive || answered_reused_ * 4 >= answered_new_;
}

void HostPolicy::Started(bool new_connection, Clock::time_point now) {
  ++in_flight_;
  if (new_connection) {
    ++connecting_;
    last_connection_started_ = now;
  }
}

void HostPolicy::Answered(bool new_connection,
                          std::optional<std::chrono::microseconds> first_byte) {
  if (new_connection) {
    --connecting_;
    NewConnectionAnswered(first_byte);
    return;  // a handshake's time is not the server's latency
  }
  ++answered_reused_;
  if (first_byte) reused_.Add(*first_byte);
}

void HostPolicy::FirstBytes::Add(std::chrono::microseconds t) {
  fastest = std::min(fastest, t);
  const double us = static_cast<double>(t.count());
  mean_us = mean_us == 0 ? us : mean_us + (us - mean_us) / 8;
}

bool HostPolicy::FirstBytes::IsLate(std::chrono::microseconds t) const {
  return static_cast<double>(t.count()) > 2 * static_cast<double>(fastest.count()) + 5'000;
}

bool HostPolicy::FirstBytes::Rising() const {
  return fastest != std::chrono::microseconds::max() &&
         IsLate(std::chrono::microseconds(static_cast<int64_t>(mean_us)));
}

void HostPolicy::NewConnectionAnswered(std::optional<std::chrono::microseconds> first_byte) {
  ++answered_new_;
  if (first_byte) {
    if (*first_byte > std::min(fresh_.fastest, *first_byte) + kRetransmittedHandshake) {
      HalveConnectingAllowance();
      return;
    }
    fresh_.Add(*first_byte);
  }
  // A near server is kept busy by `max_connecting` requests. A distant one
  // needs more at once, whether it keeps its connections (they are opened
  // while the reads ramp up, and reused after) or closes them.
  if (!first_byte || fresh_.fastest < kDistantServer) return;
  // An answer well behind the fastest waited at the server (one that
  // answers a request at a time, say): more at once would only queue there.
  if (fresh_.IsLate(*first_byte)) {
    connecting_allowance_ =
        std::max<double>(limits_.max_connecting, connecting_allowance_ - 1);
    return;
  }
  connecting_allowance_ +=
      connecting_allowance_ < connecting_threshold_ ? 1.0 : 1.0 / connecting_allowance_;
  connecting_allowance_ = std::min(connecting_allowance_, static_cast<double>(Cap()));
}

void HostPolicy::HalveConnectingAllowance() {
  connecting_threshold_ =
      std::max<double>(limits_.max_connecting, connecting_allowance_ / 2);
  connecting_allowance_ = connecting_threshold_;
}

void HostPolicy::Finished(bool new_connection, bool answered, Outcome outcome,
                          Clock::time_point now) {
  --in_flight_;
  if (new_connection && !answered) --connecting_;
  switch (outcome) {
    case Outcome::kAnswered:
      if (reused_.Rising()) break;
      window_ += window_ < threshold_ ? 1.0 : 1.0 / window_;
      window_ = std::min(window_, static_cast<double>(Cap()));
      break;
    case Outcome::kConnectionFailed:
      if (new_connection) HalveConnectingAllowance();
      [[fallthrough]];
    case Outcome::kOverloaded: {
      const auto mean = std::chrono::microseconds(static_cast<int64_t>(reused_.mean_us));
      const auto interval = std::max<std::chrono::microseconds>(kMinDecreaseInterval, 2 * mean);
      if (last_decrease_ != Clock::time_point{} && now - last_decrease_ < interval) break;
      last_decrease_ = now;
      threshold_ = std::max(1.0, window_ / 2);
      window_ = threshold_;
      break;
    }
    case Outcome::kAbandoned:
      break;
  }
}

void HostPolicy::PauseUntil(Clock::time_point until) {
  paused_until_ = std::max(paused_until_, until);
}

void HostPolicy::SetMultiplexed() {
  if (multiplexed_) return;
  multiplexed_ = true;
  // Streams cost the server no handshake: let the window open to them.
  threshold_ = std::max<double>(threshold_, limits_.max_streams);
  window_ = std::max<double>(window_, std::min(limits_.initial_window, limits_.max_streams));
}

void HostPolicy::SocketOpened() {
  ++open_sockets_;
  ++connections_opened_;
}

void HostPolicy::SocketClosed() { open_sockets_ = std::max(0, open_sockets_ - 1); }

}  // namespace turbozarr::internal
