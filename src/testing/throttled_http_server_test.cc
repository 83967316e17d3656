// ThrottledHttpServer: HttpStore reads the right bytes through it (the
// read-only conformance suite, unthrottled), its latency and per-connection
// bandwidth hold as measured by a client, it answers 404, 405 and 416 and
// keeps connections alive (a raw socket client), it counts what it did, and
// Stop ends it at once even mid-wait.
#include "testing/throttled_http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>

#include "testing/read_only_store_conformance.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string Value(size_t n, int seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 31 + seed + (i >> 9));
  return v;
}

// The suite's values in a local directory, as tz_http_serve serves one,
// behind an unthrottled server that sends its files (sendfile) when `files`
// or reads them through the store, read through an HttpStore that keeps the
// server alive. (The tests below serve a memory store: any Store will do.)
Result<std::shared_ptr<Store>> MakeServedStore(const std::string& dir,
                                               const StoreContents& contents, bool files) {
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Store> local, MakeLocalStore(dir + "/root"));
  for (const auto& [key, value] : contents) {
    TZ_RETURN_NOT_OK(local->Set(key, AsBytes(value)));
  }
  struct Holder {
    std::unique_ptr<ThrottledHttpServer> server;
    std::shared_ptr<Store> store;
  };
  auto h = std::make_shared<Holder>();
  h->server = std::make_unique<ThrottledHttpServer>(local, HttpThrottle{},
                                                    files ? dir + "/root" : "");
  TZ_RETURN_NOT_OK(h->server->Start());
  TZ_ASSIGN_OR_RETURN(h->store, MakeHttpStore(h->server->url()));
  return std::shared_ptr<Store>(h, h->store.get());
}

INSTANTIATE_TEST_SUITE_P(Throttled, ReadOnlyStoreConformanceTest,
                         ::testing::Values(
                             ReadOnlyStoreFactory{
                                 "served_local",
                                 [](const std::string& dir, const StoreContents& contents) {
                                   return MakeServedStore(dir, contents, false);
                                 }},
                             ReadOnlyStoreFactory{
                                 "served_files",
                                 [](const std::string& dir, const StoreContents& contents) {
                                   return MakeServedStore(dir, contents, true);
                                 }}),
                         ReadOnlyStoreFactoryName);

// One HTTP/1.1 connection driven by hand, to see exactly what the server
// sends: statuses, headers, bodies, and that a connection stays usable.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawConnection() { ::close(fd_); }

  struct Answer {
    int status = 0;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;
  };

  // Sends `method` `target` (with a Range header if `range` is not empty)
  // and reads the answer: the body by its Content-Length, none for a HEAD.
  std::optional<Answer> Exchange(const std::string& method, const std::string& target,
                                 const std::string& range = "") {
    if (!connected_) return std::nullopt;
    std::string request = method + " " + target + " HTTP/1.1\r\nHost: x\r\n";
    if (!range.empty()) request += "Range: " + range + "\r\n";
    request += "\r\n";
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      return std::nullopt;
    }
    size_t end;
    while ((end = in_.find("\r\n\r\n")) == std::string::npos) {
      if (!Receive()) return std::nullopt;
    }
    Answer a;
    std::string head = in_.substr(0, end + 2);
    in_.erase(0, end + 4);
    if (!head.starts_with("HTTP/1.1 ")) return std::nullopt;
    a.status = std::stoi(head.substr(9, 3));
    for (size_t at = head.find("\r\n") + 2; at < head.size();) {
      const size_t next = head.find("\r\n", at);
      const std::string line = head.substr(at, next - at);
      const size_t colon = line.find(": ");
      std::string name = line.substr(0, colon);
      for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      a.headers[name] = line.substr(colon + 2);
      at = next + 2;
    }
    const size_t length = method == "HEAD" ? 0 : std::stoull(a.headers["content-length"]);
    while (in_.size() < length) {
      if (!Receive()) return std::nullopt;
    }
    a.body = in_.substr(0, length);
    in_.erase(0, length);
    return a;
  }

 private:
  bool Receive() {
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    in_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  bool connected_ = false;
  std::string in_;
};

class ThrottledHttpServerTest : public ::testing::Test {
 protected:
  // A server of a memory store holding "k" (10 bytes), "d/x" and the values
  // given.
  void Serve(HttpThrottle throttle, const StoreContents& more = {}) {
    store_ = MakeMemoryStore();
    ASSERT_TRUE(store_->Set("k", AsBytes("0123456789")).ok());
    ASSERT_TRUE(store_->Set("d/x", AsBytes("x")).ok());
    for (const auto& [key, value] : more) {
      ASSERT_TRUE(store_->Set(key, AsBytes(value)).ok());
    }
    server_ = std::make_unique<ThrottledHttpServer>(store_, throttle);
    ASSERT_TRUE(server_->Start().ok());
    auto http = MakeHttpStore(server_->url());
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = *http;
  }

  std::shared_ptr<Store> store_;
  std::unique_ptr<ThrottledHttpServer> server_;
  std::shared_ptr<Store> http_;
};

TEST_F(ThrottledHttpServerTest, AnswersStatusesHeadersAndBodies) {
  Serve({});
  RawConnection c(server_->port());
  // Every exchange on one connection: each answer leaves it usable.
  auto a = c.Exchange("GET", "/k");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 200);
  EXPECT_EQ(a->body, "0123456789");
  a = c.Exchange("GET", "/k", "bytes=2-4");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 206);
  EXPECT_EQ(a->headers["content-range"], "bytes 2-4/10");
  EXPECT_EQ(a->body, "234");
  a = c.Exchange("GET", "/k", "bytes=-3");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 206);
  EXPECT_EQ(a->body, "789");
  a = c.Exchange("GET", "/k", "bytes=8-");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->body, "89");
  a = c.Exchange("HEAD", "/k");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 200);
  EXPECT_EQ(a->headers["content-length"], "10");
  a = c.Exchange("GET", "/%64/x?ignored=1");  // percent-encoded key, a query
  ASSERT_TRUE(a);
  EXPECT_EQ(a->body, "x");
  for (const char* range : {"bytes=10-", "bytes=5-2", "bytes=-0", "bytes=0-1,3-4"}) {
    a = c.Exchange("GET", "/k", range);
    ASSERT_TRUE(a) << range;
    EXPECT_EQ(a->status, 416) << range;
    EXPECT_EQ(a->headers["content-range"], "bytes */10") << range;
  }
  for (const char* target : {"/nope", "/d", "/", "/d//x", "/d/../k", "/k/"}) {
    a = c.Exchange("GET", target);
    ASSERT_TRUE(a) << target;
    EXPECT_EQ(a->status, 404) << target;
    a = c.Exchange("HEAD", target);  // no body follows, or the next read breaks
    ASSERT_TRUE(a) << target;
    EXPECT_EQ(a->status, 404) << target;
  }
  a = c.Exchange("DELETE", "/k");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, 405);
  a = c.Exchange("GET", "/k", "bytes=9-9");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->body, "9");
  // A body is counted once sent, which may be after the client has it: the
  // counts are final once the server stops.
  server_->Stop();
  const HttpServeStats stats = server_->stats();
  EXPECT_EQ(stats.requests, 6u + 4u + 12u + 2u);
  EXPECT_EQ(stats.bytes_sent, 10u + 3u + 3u + 2u + 1u + 1u);  // bodies of 200s and 206s
  EXPECT_EQ(stats.peak_connections, 1u);
}

TEST_F(ThrottledHttpServerTest, ConnectionCloseIsHonoured) {
  Serve({});
  RawConnection c(server_->port());
  ASSERT_TRUE(c.Exchange("GET", "/k"));
  // A request that asks to close: the answer, then the end of the connection.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string req = "GET /k HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(req.size()));
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) {
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200 OK\r\n")) << got;
  EXPECT_TRUE(got.ends_with("\r\n\r\n0123456789")) << got;
  EXPECT_EQ(server_->stats().peak_connections, 2u);
}

TEST_F(ThrottledHttpServerTest, EveryAnswerWaitsTheLatency) {
  Serve({std::chrono::milliseconds(50), 0});
  // The first Get opens the connection; the second is timed on it.
  ASSERT_TRUE(http_->Get("k").ok());
  auto start = Clock::now();
  auto got = http_->Get("k", ByteRange::Of(1, 2));
  const double ms = MillisecondsSince(start);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->chars(), "12");
  EXPECT_GE(ms, 50.0);
  EXPECT_LT(ms, 100.0);  // one latency, not two
  // An absent key waits too, as a round trip to a real store would.
  start = Clock::now();
  auto absent = http_->Get("nope");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  EXPECT_GE(MillisecondsSince(start), 50.0);
}

TEST_F(ThrottledHttpServerTest, BodyLeavesAtTheBandwidth) {
  const std::string value = Value(3'000'000, 1);
  Serve({std::chrono::microseconds(0), 30e6}, {{"v", value}});
  // 3 MB at 30 MB/s: 100 ms, however the slices fall.
  const auto start = Clock::now();
  auto got = http_->Get("v");
  const double ms = MillisecondsSince(start);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_TRUE((*got)->chars() == value);
  EXPECT_GE(ms, 100.0);
  EXPECT_LT(ms, 250.0);
  // A range of it takes its own length's time: 600 kB, 20 ms.
  const auto range_start = Clock::now();
  got = http_->Get("v", ByteRange::Of(1'000'001, 600'000));
  const double range_ms = MillisecondsSince(range_start);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_TRUE((*got)->chars() == value.substr(1'000'001, 600'000));
  EXPECT_GE(range_ms, 20.0);
  EXPECT_LT(range_ms, 80.0);
  server_->Stop();
  EXPECT_EQ(server_->stats().bytes_sent, 3'600'000u);
}

// Files sent with sendfile keep the same pace, and the same bytes.
TEST_F(ThrottledHttpServerTest, FilesLeaveAtTheBandwidthToo) {
  std::string dir = ::testing::TempDir() + "tz-files-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  auto local = MakeLocalStore(dir);
  ASSERT_TRUE(local.ok());
  const std::string value = Value(3'000'000, 4);
  ASSERT_TRUE((*local)->Set("d/v", AsBytes(value)).ok());
  ThrottledHttpServer server(*local, {std::chrono::microseconds(0), 30e6}, dir);
  ASSERT_TRUE(server.Start().ok());
  auto http = MakeHttpStore(server.url());
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  auto start = Clock::now();
  auto got = (*http)->Get("d/v");
  const double ms = MillisecondsSince(start);
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  EXPECT_TRUE((*got)->chars() == value);
  EXPECT_GE(ms, 100.0);
  EXPECT_LT(ms, 250.0);
  start = Clock::now();
  got = (*http)->Get("d/v", ByteRange::Of(2'500'000, 600'000));  // to the end: 500 kB
  const double range_ms = MillisecondsSince(start);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_TRUE((*got)->chars() == value.substr(2'500'000));
  EXPECT_GE(range_ms, 16.0);
  EXPECT_LT(range_ms, 80.0);
  server.Stop();
  EXPECT_EQ(server.stats().bytes_sent, 3'500'000u);
  std::filesystem::remove_all(dir);
}

TEST_F(ThrottledHttpServerTest, EachConnectionHasItsOwnBandwidth) {
  const std::string a = Value(3'000'000, 2), b = Value(3'000'000, 3);
  Serve({std::chrono::microseconds(0), 30e6}, {{"a", a}, {"b", b}});
  // Two reads in flight at once, on two connections: 100 ms for both
  // together, where one shared link would take 200 ms.
  const std::vector<KeyRange> reads = {{"a", ByteRange::Full()},
                                       {"b", ByteRange::Full()}};
  const auto start = Clock::now();
  auto got = http_->GetMany(reads);
  const double ms = MillisecondsSince(start);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE((*got)[0] && (*got)[1]);
  EXPECT_TRUE((*got)[0]->chars() == a);
  EXPECT_TRUE((*got)[1]->chars() == b);
  EXPECT_GE(ms, 100.0);
  EXPECT_LT(ms, 190.0);
  server_->Stop();
  const HttpServeStats stats = server_->stats();
  EXPECT_EQ(stats.requests, 2u);
  EXPECT_EQ(stats.bytes_sent, 6'000'000u);
  EXPECT_EQ(stats.peak_connections, 2u);
}

TEST_F(ThrottledHttpServerTest, StopEndsWaitsAtOnce) {
  Serve({std::chrono::seconds(30), 0});
  std::thread client([&] {
    RawConnection c(server_->port());
    EXPECT_FALSE(c.Exchange("GET", "/k"));  // the connection closes unanswered
  });
  while (server_->stats().requests == 0) std::this_thread::sleep_for(milliseconds(1));
  const auto start = Clock::now();
  server_->Stop();
  EXPECT_LT(MillisecondsSince(start), 1000.0);
  client.join();
}

}  // namespace
}  // namespace turbozarr
