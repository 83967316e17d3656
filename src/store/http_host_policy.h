// HostPolicy: how many requests the HTTP transport sends one server at once,
// and when it may open another connection to it.
//
// A client that opens all its connections at once overruns the listen
// backlog of a modest server (Python's http.server, a small institutional
// web server: a backlog of 5). The kernel then drops the handshakes that do
// not fit, and each dropped one costs a SYN retransmit of 1 s, 3 s, 7 s ...
// while the requests behind it wait: a read of 64 chunks took 15-30 s where
// a paced client takes 0.2 s. So the policy:
//
// - Opens connections a few at a time: at most `max_connecting` requests
//   may be waiting for the first byte of an answer on a connection they
//   opened. A first byte proves the server accepted the connection; until
//   then, further requests wait for a connection to come free or to be
//   proven. With 4, a backlog of 5 is never overrun by this client.
// - Reuses connections: a request starts at once when a connection to the
//   host is open and idle (keep-alive), which costs no handshake.
// - Caps connections per host (`max_connections`), and the requests in
//   flight by a window that adapts as TCP's congestion window does: it
//   starts small, grows by one per answer (doubling per round trip) up to
//   a threshold, then by one per window of answers; a sign of an overloaded
//   server (a connection refused, reset or timed out; HTTP 429 or 503)
//   halves it, and a Retry-After pauses the host. It stops growing while
//   the time to the first byte rises well above the fastest seen (more
//   requests in flight then only queue at the server).
// - Over HTTP/2 (once an answer shows the host multiplexes), requests share
//   connections, so only the window and `max_streams` limit them.
// - A distant server (its fastest answer on a new connection takes 10 ms
//   or more; a nearer one is kept busy by a few requests) would get only
//   `max_connecting` more connections per round trip: a read that needs
//   20 connections at once spends its first round trips opening them, and
//   a server that closes every connection after its answer (HTTP/1.0, as
//   `python -m http.server` answers) makes every request a new one. So for
//   such a host the number of requests that may wait on unproven
//   connections grows as the window does, by one per connection the server
//   answered on, and shrinks by one per answer well behind the fastest (a
//   server that answers one request at a time only queues more). Beyond
//   the first `max_connecting`, those connections start at most one per
//   `connect_spacing`: answers arrive in clumps, and a clump of handshakes
//   overruns a small backlog however fast the server accepts. A handshake
//   the server took late (an answer on a new connection 0.9 s or more
//   behind the fastest: the kernel dropped it and TCP sent it again a
//   second later) or a failed connection halves the allowance, never below
//   `max_connecting`, and it grows slowly after.
//
// Thread safety: none; the transport's driver thread owns every HostPolicy.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

namespace turbozarr::internal {

class HostPolicy {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    int max_connections = 32;  // HTTP/1.1: connections = requests in flight
    int max_streams = 64;      // HTTP/2: requests in flight on shared connections
    int max_connecting = 4;    // requests waiting on a connection not yet proven
    int initial_window = 8;
    std::chrono::microseconds connect_spacing{1000};
  };

  // How a request ended, as far as the host's load goes.
  enum class Outcome {
    kAnswered,    // any answer but 429/503 (a 404 or a 500 is the server's word)
    kOverloaded,  // 429 or 503: the server asks for less
    kConnectionFailed,  // refused, reset, timed out, nothing received
    kAbandoned,         // cut by this side (deadline, cancel): says nothing of the host
  };

  explicit HostPolicy(Limits limits);

  // Whether a request may start now. `*new_connection` says whether it will
  // most likely open a connection (none is idle).
  bool MayStart(Clock::time_point now, bool* new_connection) const;
  // A request started at `now` (as MayStart said).
  void Started(bool new_connection, Clock::time_point now);
  // The first byte of an answer arrived, `first_byte` after the request
  // started (nullopt: not a sample of the server's latency, as when a body
  // was sent first); `new_connection` as given to Started.
  void Answered(bool new_connection, std::optional<std::chrono::microseconds> first_byte);
  // A request ended at `now`. `answered`: Answered was called for it.
  void Finished(bool new_connection, bool answered, Outcome outcome,
                Clock::time_point now);
  // The server asked to wait (Retry-After): nothing starts before `until`.
  void PauseUntil(Clock::time_point until);
  // The host's answers come over HTTP/2 or later: connections are shared.
  void SetMultiplexed();

  // Connections opened and closed (the transport counts sockets).
  void SocketOpened();
  void SocketClosed();

  int in_flight() const { return in_flight_; }
  int open_connections() const { return open_sockets_; }
  int connecting() const { return connecting_; }
  // How many requests may wait on connections not yet proven (grows only
  // for distant hosts).
  int connecting_allowance() const { return static_cast<int>(connecting_allowance_); }
  bool keeps_connections_alive() const;
  double window() const { return window_; }
  bool multiplexed() const { return multiplexed_; }
  uint64_t connections_opened() const { return connections_opened_; }
  Clock::time_point paused_until() const { return paused_until_; }
  // When a request that waits only for the pacing of new connections may
  // start (the epoch when none waits for it).
  Clock::time_point next_paced_connection() const;

 private:
  int Cap() const { return multiplexed_ ? limits_.max_streams : limits_.max_connections; }
  // Requests that may be in flight now: the window, within the cap.
  int Allowed() const { return std::max(1, std::min(Cap(), static_cast<int>(window_))); }
  void NewConnectionAnswered(std::optional<std::chrono::microseconds> first_byte);
  void HalveConnectingAllowance();

  const Limits limits_;
  int in_flight_ = 0;
  int connecting_ = 0;
  int open_sockets_ = 0;
  uint64_t connections_opened_ = 0;
  bool multiplexed_ = false;
  double window_;
  double threshold_;
  Clock::time_point paused_until_{};
  Clock::time_point last_decrease_{};
  // Times to the first byte: the fastest seen and a moving average.
  struct FirstBytes {
    std::chrono::microseconds fastest = std::chrono::microseconds::max();
    double mean_us = 0;
    void Add(std::chrono::microseconds t);
    // Well above the fastest (twice it and 5 ms more): requests queue at
    // the server. For the mean, and for one time `t`.
    bool Rising() const;
    bool IsLate(std::chrono::microseconds t) const;
  };
  FirstBytes reused_;  // on reused connections: the server's latency
  // Answers on new and on reused connections (is the host keeping them?),
  // the fastest first byte on a new connection, and how many requests may
  // wait on unproven connections (with the threshold of its slow start).
  uint64_t answered_new_ = 0;
  uint64_t answered_reused_ = 0;
  FirstBytes fresh_;  // on new connections: latency and handshake
  double connecting_allowance_;
  double connecting_threshold_;
  Clock::time_point last_connection_started_{};
};

}  // namespace turbozarr::internal
