#include "store/http_host_policy.h"

#include <gtest/gtest.h>

namespace turbozarr::internal {
namespace {

using Clock = HostPolicy::Clock;
using Outcome = HostPolicy::Outcome;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// Starts requests while the policy allows; returns how many started and how
// many of them open a connection.
struct Burst {
  int started = 0;
  int opening = 0;
};
Burst StartAll(HostPolicy& p, Clock::time_point now, int at_most = 1000) {
  Burst b;
  bool new_connection = false;
  while (b.started < at_most && p.MayStart(now, &new_connection)) {
    p.Started(new_connection, now);
    ++b.started;
    b.opening += new_connection ? 1 : 0;
  }
  return b;
}

TEST(HostPolicyTest, OpensConnectionsAFewAtATimeUntilTheServerAnswersOnThem) {
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 32});
  const Clock::time_point now = Clock::now();
  Burst first = StartAll(p, now);
  EXPECT_EQ(first.started, 4);
  EXPECT_EQ(first.opening, 4);
  for (int i = 0; i < 4; ++i) p.SocketOpened();
  // Connected but not answered: the server may not have accepted them yet.
  EXPECT_EQ(StartAll(p, now).started, 0);
  p.Answered(true, microseconds(30'000));
  Burst second = StartAll(p, now);
  EXPECT_EQ(second.started, 1);
  EXPECT_EQ(second.opening, 1);
  EXPECT_EQ(p.connecting(), 4);
  EXPECT_EQ(p.in_flight(), 5);
}

TEST(HostPolicyTest, ReusesAnIdleConnectionWithoutCountingItAsANewOne) {
  HostPolicy p({.max_connections = 8, .max_connecting = 1, .initial_window = 8});
  const Clock::time_point now = Clock::now();
  bool new_connection = false;
  ASSERT_TRUE(p.MayStart(now, &new_connection));
  EXPECT_TRUE(new_connection);
  p.Started(true, now);
  p.SocketOpened();
  p.Answered(true, microseconds(1000));
  p.Finished(true, true, Outcome::kAnswered, now);
  EXPECT_EQ(p.open_connections(), 1);
  ASSERT_TRUE(p.MayStart(now, &new_connection));
  EXPECT_FALSE(new_connection);
  p.Started(false, now);
  // The one connection is busy: the next opens one.
  ASSERT_TRUE(p.MayStart(now, &new_connection));
  EXPECT_TRUE(new_connection);
  EXPECT_EQ(p.connections_opened(), 1u);
}

// How the server of RunRounds answers.
struct Server {
  microseconds first_byte{30'000};
  bool closes = false;      // every connection after its answer (HTTP/1.0)
  bool one_at_a_time = false;  // the k-th request of a round waits for k - 1
};

// Drives `rounds` round trips where every request is answered on the
// connection it started on (which closes after it if the server closes
// connections); requests start a millisecond apart, `now` advancing.
// Returns the peak in flight.
int RunRounds(HostPolicy& p, int rounds, Clock::time_point& now, Server server = {}) {
  int peak = 0;
  for (int r = 0; r < rounds; ++r) {
    std::vector<bool> opened;
    bool new_connection = false;
    while (p.MayStart(now, &new_connection)) {
      p.Started(new_connection, now);
      opened.push_back(new_connection);
      if (new_connection) p.SocketOpened();
      now += milliseconds(1);
    }
    peak = std::max(peak, p.in_flight());
    for (size_t k = 0; k < opened.size(); ++k) {
      p.Answered(opened[k], server.one_at_a_time
                                ? server.first_byte * static_cast<int64_t>(k + 1)
                                : server.first_byte);
    }
    for (bool nc : opened) {
      p.Finished(nc, true, Outcome::kAnswered, now);
      if (nc && server.closes) p.SocketClosed();
    }
  }
  return peak;
}

TEST(HostPolicyTest, GrowsToTheConnectionCapAndNeverPastIt) {
  HostPolicy p({.max_connections = 20, .max_connecting = 4, .initial_window = 2});
  Clock::time_point now = Clock::now();
  EXPECT_EQ(RunRounds(p, 1, now), 2);
  EXPECT_EQ(RunRounds(p, 30, now), 20);
  EXPECT_EQ(p.open_connections(), 20);
  EXPECT_EQ(p.connections_opened(), 20u);
  EXPECT_LE(p.window(), 20.0);
}

TEST(HostPolicyTest, OverloadHalvesTheWindowOncePerBurst) {
  HostPolicy p({.max_connections = 64, .max_connecting = 64, .initial_window = 32});
  Clock::time_point now = Clock::now();
  Burst b = StartAll(p, now);
  ASSERT_EQ(b.started, 32);
  for (int i = 0; i < 32; ++i) p.SocketOpened();
  for (int i = 0; i < 10; ++i) p.Finished(true, false, Outcome::kOverloaded, now);
  EXPECT_EQ(p.window(), 16.0);  // ten failures of one burst: one halving
  now += milliseconds(150);
  p.Finished(true, false, Outcome::kConnectionFailed, now);
  EXPECT_EQ(p.window(), 8.0);
  // Past the threshold the window grows by about one per window of answers.
  for (int i = 0; i < 8; ++i) p.Finished(true, false, Outcome::kAnswered, now);
  EXPECT_GT(p.window(), 8.9);
  EXPECT_LT(p.window(), 9.1);
}

TEST(HostPolicyTest, AbandonedRequestsSayNothingOfTheHost) {
  HostPolicy p({.max_connections = 8, .initial_window = 4});
  const Clock::time_point now = Clock::now();
  StartAll(p, now);
  p.Finished(true, false, Outcome::kAbandoned, now);
  EXPECT_EQ(p.window(), 4.0);
  EXPECT_EQ(p.in_flight(), 3);
  EXPECT_EQ(p.connecting(), 3);
}

TEST(HostPolicyTest, RetryAfterPausesEveryRequestToTheHost) {
  HostPolicy p({.max_connections = 8});
  const Clock::time_point now = Clock::now();
  p.PauseUntil(now + milliseconds(500));
  bool new_connection = false;
  EXPECT_FALSE(p.MayStart(now, &new_connection));
  EXPECT_FALSE(p.MayStart(now + milliseconds(499), &new_connection));
  EXPECT_TRUE(p.MayStart(now + milliseconds(500), &new_connection));
  // A shorter pause does not shorten a longer one.
  p.PauseUntil(now + milliseconds(100));
  EXPECT_FALSE(p.MayStart(now + milliseconds(200), &new_connection));
}

TEST(HostPolicyTest, StopsGrowingWhileTheTimeToTheFirstByteRises) {
  HostPolicy p({.max_connections = 64, .max_connecting = 64, .initial_window = 4});
  const Clock::time_point now = Clock::now();
  StartAll(p, now);
  for (int i = 0; i < 4; ++i) p.SocketOpened();
  // A server that answers one request at a time: the latency grows with
  // the requests in flight.
  p.Answered(false, microseconds(10'000));
  p.Finished(false, true, Outcome::kAnswered, now);
  const double grown = p.window();
  EXPECT_EQ(grown, 5.0);
  for (int i = 0; i < 20; ++i) {
    p.Started(false, now);
    p.Answered(false, microseconds(80'000));
    p.Finished(false, true, Outcome::kAnswered, now);
  }
  EXPECT_LT(p.window(), grown + 2);
}

// Uploads wait for their body to go out before any answer: their time to
// the first byte says nothing of the server's latency, and does not stop
// the window growing.
TEST(HostPolicyTest, UploadsAreNotLatencySamples) {
  HostPolicy p({.max_connections = 64, .max_connecting = 64, .initial_window = 4});
  const Clock::time_point now = Clock::now();
  StartAll(p, now);
  for (int i = 0; i < 4; ++i) p.SocketOpened();
  p.Answered(false, microseconds(10'000));
  p.Finished(false, true, Outcome::kAnswered, now);
  for (int i = 0; i < 20; ++i) {
    p.Started(false, now);
    p.Answered(false, std::nullopt);
    p.Finished(false, true, Outcome::kAnswered, now);
  }
  EXPECT_EQ(p.window(), 25.0);
}

TEST(HostPolicyTest, AMultiplexedHostNeedsNoNewConnections) {
  HostPolicy p({.max_connections = 2, .max_streams = 50, .initial_window = 50});
  p.SetMultiplexed();
  p.SocketOpened();
  const Burst b = StartAll(p, Clock::now());
  EXPECT_EQ(b.started, 50);
  EXPECT_EQ(b.opening, 0);
}

// 30 ms away, closing every connection after its answer.
constexpr Server kDistantClosing{.first_byte = microseconds(30'000), .closes = true};

TEST(HostPolicyTest, ADistantServerThatClosesEveryConnectionGetsMoreAtOnce) {
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 8});
  Clock::time_point now = Clock::now();
  EXPECT_EQ(RunRounds(p, 1, now, kDistantClosing), 4);
  EXPECT_EQ(RunRounds(p, 1, now, kDistantClosing), 8);
  EXPECT_FALSE(p.keeps_connections_alive());
  EXPECT_EQ(RunRounds(p, 20, now, kDistantClosing), 32);
  EXPECT_EQ(p.connecting_allowance(), 32);
}

TEST(HostPolicyTest, ANearServerThatClosesEveryConnectionKeepsAFewAtOnce) {
  // It answers in 2 ms: four requests at once keep it busy, and more
  // handshakes at once would only queue at its backlog.
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 8});
  Clock::time_point now = Clock::now();
  EXPECT_EQ(RunRounds(p, 20, now, {.first_byte = microseconds(2'000), .closes = true}), 4);
  EXPECT_FALSE(p.keeps_connections_alive());
  EXPECT_EQ(p.connecting_allowance(), 4);
}

TEST(HostPolicyTest, ADistantKeepAliveServerRampsUpAsFastAsTheWindow) {
  // 30 ms away: while the reads ramp up, the connections they need are
  // opened as fast as the window grows, not four per round trip; once open
  // they are reused, and no more are opened.
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 8});
  Clock::time_point now = Clock::now();
  EXPECT_EQ(RunRounds(p, 1, now), 4);
  EXPECT_EQ(RunRounds(p, 1, now), 12);
  EXPECT_EQ(RunRounds(p, 2, now), 32);
  EXPECT_EQ(p.connections_opened(), 32u);
  EXPECT_EQ(RunRounds(p, 20, now), 32);
  EXPECT_EQ(p.connections_opened(), 32u);
  EXPECT_TRUE(p.keeps_connections_alive());
}

TEST(HostPolicyTest, ANearKeepAliveServerOpensAFewConnectionsAtATime) {
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 8});
  Clock::time_point now = Clock::now();
  const Server near{.first_byte = microseconds(2'000)};
  EXPECT_EQ(RunRounds(p, 1, now, near), 4);
  EXPECT_EQ(RunRounds(p, 1, now, near), 8);
  EXPECT_EQ(p.connecting_allowance(), 4);
  EXPECT_EQ(RunRounds(p, 20, now, near), 32);
  EXPECT_TRUE(p.keeps_connections_alive());
  EXPECT_EQ(p.connecting_allowance(), 4);
}

TEST(HostPolicyTest, AServerThatAnswersOneAtATimeIsNotSentMoreAtOnce) {
  // It closes every connection and answers one request at a time, 30 ms
  // each: more requests at once only queue there (and overrun its backlog).
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 8});
  Clock::time_point now = Clock::now();
  EXPECT_EQ(RunRounds(p, 20, now, {.closes = true, .one_at_a_time = true}), 4);
  EXPECT_FALSE(p.keeps_connections_alive());
  EXPECT_EQ(p.connecting_allowance(), 4);
}

TEST(HostPolicyTest, HandshakesBeyondTheFirstFewArePaced) {
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 32});
  Clock::time_point now = Clock::now();
  RunRounds(p, 10, now, kDistantClosing);
  ASSERT_GT(p.connecting_allowance(), 8);
  // At one instant: the first four; then one a millisecond.
  const Burst b = StartAll(p, now);
  EXPECT_EQ(b.started, 4);
  EXPECT_EQ(b.opening, 4);
  EXPECT_EQ(p.next_paced_connection(), now + milliseconds(1));
  EXPECT_EQ(StartAll(p, now + microseconds(999)).started, 0);
  // Nothing waits for the pacing once the allowance is used up.
  while (p.connecting() < p.connecting_allowance()) {
    now += milliseconds(1);
    ASSERT_EQ(StartAll(p, now).started, 1);
  }
  EXPECT_EQ(p.next_paced_connection(), Clock::time_point{});
}

TEST(HostPolicyTest, AHandshakeTheServerTookLateHalvesTheAllowance) {
  HostPolicy p({.max_connections = 32, .max_connecting = 4, .initial_window = 8});
  Clock::time_point now = Clock::now();
  RunRounds(p, 20, now, kDistantClosing);
  ASSERT_EQ(p.connecting_allowance(), 32);
  // One answer a retransmitted SYN (1 s) later than the fastest.
  bool new_connection = false;
  ASSERT_TRUE(p.MayStart(now, &new_connection));
  ASSERT_TRUE(new_connection);
  p.Started(true, now);
  p.Answered(true, microseconds(1'031'000));
  p.Finished(true, true, Outcome::kAnswered, now);
  EXPECT_EQ(p.connecting_allowance(), 16);
  // Then slowly: by one per window of answers, not one per answer.
  RunRounds(p, 1, now, kDistantClosing);
  EXPECT_EQ(p.connecting_allowance(), 16);
  // Failed connections halve it down to max_connecting, never below.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(p.MayStart(now, &new_connection));
    p.Started(new_connection, now);
    p.Finished(new_connection, false, Outcome::kConnectionFailed, now);
    now += milliseconds(1);
  }
  EXPECT_EQ(p.connecting_allowance(), 4);
}

TEST(HostPolicyTest, NonsenseLimitsStillLetOneRequestThrough) {
  HostPolicy p({.max_connections = 0, .max_streams = -3, .max_connecting = 0,
                .initial_window = -1});
  const Burst b = StartAll(p, Clock::now());
  EXPECT_EQ(b.started, 1);
}

}  // namespace
}  // namespace turbozarr::internal
