// HttpTransport against the in-process fault-injecting server: every fault is
// retried into a correct answer, or ends in a clear error once the retries
// run out; requests run concurrently over reused connections.
#include "store/http_transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include "testing/fault_http_server.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using std::chrono::milliseconds;

std::string Value(size_t n, int seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 31 + seed + (i >> 8));
  return v;
}

class HttpTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    server_.Put("v", value_);
    server_.set_stall(milliseconds(1500));
  }

  HttpRequest Get(std::optional<ByteRange> range = std::nullopt) {
    HttpRequest r;
    r.url = server_.url() + "/v";
    r.range = range;
    return r;
  }

  const std::string value_ = Value(100'000, 3);
  FaultHttpServer server_;
};

const HttpFault kEveryFault[] = {
    HttpFault::kStatus500,        HttpFault::kStatus503,        HttpFault::kStatus429,
    HttpFault::kCloseBeforeReply, HttpFault::kResetBeforeReply, HttpFault::kCloseMidBody,
    HttpFault::kStallBeforeReply, HttpFault::kStallMidBody,     HttpFault::kLengthTooLong,
    HttpFault::kLengthTooShort,   HttpFault::kShiftedRange,     HttpFault::kShortRange};

TEST_F(HttpTransportTest, GetsWholeAndRangedValues) {
  HttpTransport t(FastHttpOptions());
  Result<HttpResponse> r = t.Fetch(Get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->body.chars(), value_);
  r = t.Fetch(Get(ByteRange::Of(1000, 5000)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->body.chars(), value_.substr(1000, 5000));
  ASSERT_TRUE(r->content_range.has_value());
  EXPECT_EQ(r->content_range->total, std::optional<uint64_t>(value_.size()));
  r = t.Fetch(Get(ByteRange::Suffix(10)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->body.chars(), value_.substr(value_.size() - 10));
}

// Each fault once, on a ranged and on a whole read: the retry gets it right.
TEST_F(HttpTransportTest, EveryFaultIsRetriedIntoTheRightBytes) {
  HttpTransport t(FastHttpOptions());
  for (HttpFault fault : kEveryFault) {
    for (bool ranged : {true, false}) {
      // A wrong length on a whole read is undetectable when the server lies
      // consistently (see the Content-Length test below); ranges are not.
      if (!ranged &&
          (fault == HttpFault::kShiftedRange || fault == HttpFault::kShortRange ||
           fault == HttpFault::kLengthTooShort)) {
        continue;
      }
      SCOPED_TRACE(std::string(HttpFaultName(fault)) + (ranged ? ", ranged" : ", whole"));
      server_.QueueFaults({fault});
      const uint64_t before = server_.requests();
      Result<HttpResponse> r = t.Fetch(ranged ? Get(ByteRange::Of(777, 60'000)) : Get());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->body.chars(), ranged ? value_.substr(777, 60'000) : value_);
      // curl itself tries again once when a reused connection turns out
      // closed; every other fault costs one attempt more.
      EXPECT_EQ(server_.requests() - before, 2u);
      EXPECT_GE(r->attempts, 1);
      EXPECT_LE(r->attempts, 2);
    }
  }
}

TEST_F(HttpTransportTest, ContentLengthShorterThanTheBodyOnAWholeRead) {
  // The client sees a complete, shorter value: no HTTP client can tell.
  // What matters is that the next request on the connection is not
  // confused by the surplus bytes.
  HttpTransport t(FastHttpOptions());
  server_.QueueFaults({HttpFault::kLengthTooShort});
  Result<HttpResponse> r = t.Fetch(Get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body.chars(), value_.substr(0, value_.size() - 7));
  r = t.Fetch(Get(ByteRange::Of(5, 10)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body.chars(), value_.substr(5, 10));
}

TEST_F(HttpTransportTest, PersistentFaultsEndInAClearError) {
  HttpOptions o = FastHttpOptions();
  o.max_retries = 2;
  HttpTransport t(o);
  for (HttpFault fault :
       {HttpFault::kCloseMidBody, HttpFault::kStallBeforeReply, HttpFault::kShiftedRange,
        HttpFault::kResetBeforeReply, HttpFault::kLengthTooLong}) {
    SCOPED_TRACE(HttpFaultName(fault));
    server_.SetPolicy(
        [fault](uint64_t, const std::string&, const std::string&) { return fault; });
    const uint64_t before = server_.requests();
    Result<HttpResponse> r = t.Fetch(Get(ByteRange::Of(10, 50'000)));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kIOError);
    const std::string& m = r.status().message();
    EXPECT_NE(m.find("GET " + server_.url() + "/v: "), std::string::npos) << m;
    EXPECT_NE(m.find("(after 3 attempts)"), std::string::npos) << m;
    // curl itself tries a request again once when a reused connection turns
    // out closed, so a drop can cost one request more.
    EXPECT_GE(server_.requests() - before, 3u);
    EXPECT_LE(server_.requests() - before, 4u);
  }
  // A status that stays bad is returned as the response, for the caller to name.
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStatus503;
  });
  Result<HttpResponse> r = t.Fetch(Get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->attempts, 3);
}

TEST_F(HttpTransportTest, StallsAreCutAtTheIdleTimeout) {
  HttpOptions o = FastHttpOptions();
  o.max_retries = 0;
  HttpTransport t(o);
  server_.QueueFaults({HttpFault::kStallMidBody});
  const auto start = std::chrono::steady_clock::now();
  Result<HttpResponse> r = t.Fetch(Get());
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no data received for 200 ms"), std::string::npos)
      << r.status().ToString();
  EXPECT_GE(took, milliseconds(200));
  EXPECT_LT(took, milliseconds(1200)) << "the stall lasts 1500 ms";
}

TEST_F(HttpTransportTest, RedirectsToTheSameHostAreFollowed) {
  HttpTransport t(FastHttpOptions());
  server_.QueueFaults({HttpFault::kRedirectSameHost, HttpFault::kRedirectSameHost});
  const uint64_t before = server_.requests();
  Result<HttpResponse> r = t.Fetch(Get(ByteRange::Of(100, 5'000)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->body.chars(), value_.substr(100, 5'000));
  EXPECT_EQ(server_.requests() - before, 3u);
  EXPECT_EQ(server_.last_request().path, "/v?redirected&redirected");
  // The Range went along with the redirect.
  bool ranged = false;
  for (const std::string& h : server_.last_request().headers) {
    ranged |= h == "range: bytes=100-5099";
  }
  EXPECT_TRUE(ranged);
}

TEST_F(HttpTransportTest, RedirectsToAnotherHostAreRefusedBeforeAnythingIsSent) {
  HttpTransport t(FastHttpOptions());
  server_.SetPolicy([](uint64_t, const std::string& path, const std::string&) {
    return path.find("redirected") == std::string::npos ? HttpFault::kRedirectOtherHost
                                                        : HttpFault::kNone;
  });
  HttpRequest get = Get();
  get.headers = {"Authorization: secret"};
  const uint64_t before = server_.requests();
  Result<HttpResponse> r = t.Fetch(get);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("GET " + server_.url() + "/v: 307 redirected from 127.0.0.1:" +
                   std::to_string(server_.port()) + " to another host, localhost:" +
                   std::to_string(server_.port()) + ", which is refused"),
            std::string::npos)
      << m;
  // Only the first request reached the server (under either name).
  EXPECT_EQ(server_.requests() - before, 1u);

  // Allowed, it is followed: "localhost" is this same server.
  HttpOptions o = FastHttpOptions();
  o.redirects_to_other_hosts = true;
  HttpTransport anywhere(o);
  r = anywhere.Fetch(Get(ByteRange::Of(3, 4)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body.chars(), value_.substr(3, 4));
}

TEST_F(HttpTransportTest, EndlessRedirectsEndInAnError) {
  HttpTransport t(FastHttpOptions());
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kRedirectSameHost;
  });
  const uint64_t before = server_.requests();
  Result<HttpResponse> r = t.Fetch(Get());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 8 redirects in a row (after 9 attempts)"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(server_.requests() - before, 9u);
}

TEST_F(HttpTransportTest, TheDeadlineBoundsAttemptsAndWaitsTogether) {
  // A stall longer than the deadline: cut at the deadline, well before the
  // idle timeout would.
  HttpOptions o = FastHttpOptions();
  o.idle_timeout = milliseconds(5'000);
  o.deadline = milliseconds(300);
  HttpTransport t(o);
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStallBeforeReply;
  });
  auto start = std::chrono::steady_clock::now();
  Result<HttpResponse> r = t.Fetch(Get());
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_NE(r.status().message().find("GET " + server_.url() +
                                      "/v: no answer within the deadline of 300 ms"),
            std::string::npos)
      << r.status().message();
  EXPECT_GE(took, milliseconds(290));
  EXPECT_LT(took, milliseconds(1'000)) << "the stall lasts 1500 ms";

  // Faults retried with long backoff: the deadline stops the retries
  // rather than waiting out a backoff that ends after it. (The backoff is
  // drawn from [base/2, base]: every draw ends after the deadline.)
  o.backoff_base = milliseconds(800);
  o.backoff_max = milliseconds(800);
  o.max_retries = 10;
  HttpTransport patient(o);
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStatus500;
  });
  start = std::chrono::steady_clock::now();
  r = patient.Fetch(Get());
  took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the last attempt: HTTP 500"), std::string::npos)
      << r.status().message();
  EXPECT_LT(took, milliseconds(300));

  // Quick answers are unaffected.
  server_.SetPolicy(nullptr);
  r = patient.Fetch(Get(ByteRange::Of(0, 10)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body.chars(), value_.substr(0, 10));
}

TEST_F(HttpTransportTest, NotFoundAndOtherStatusesAreNotRetried) {
  HttpTransport t(FastHttpOptions());
  HttpRequest r = Get();
  r.url = server_.url() + "/missing";
  const uint64_t before = server_.requests();
  Result<HttpResponse> resp = t.Fetch(r);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->status, 404);
  EXPECT_EQ(server_.requests() - before, 1u);
}

TEST_F(HttpTransportTest, NothingListeningIsAnError) {
  HttpOptions o = FastHttpOptions();
  o.max_retries = 1;
  HttpTransport t(o);
  auto closed = std::make_unique<FaultHttpServer>();
  ASSERT_TRUE(closed->Start().ok());
  const std::string url = closed->url() + "/v";
  closed.reset();  // nothing listens on the port now
  HttpRequest r;
  r.url = url;
  Result<HttpResponse> resp = t.Fetch(r);
  ASSERT_FALSE(resp.ok());
  EXPECT_NE(resp.status().message().find(url), std::string::npos);
  EXPECT_NE(resp.status().message().find("after 2 attempts"), std::string::npos)
      << resp.status().message();
}

TEST_F(HttpTransportTest, ManyRequestsRunTogetherOnReusedConnections) {
  HttpOptions o = FastHttpOptions();
  o.max_concurrency = 8;
  HttpTransport t(o);
  // Every request stalls 50 ms before its answer: 64 of them one after the
  // other would take 3.2 s, 8 at a time 0.4 s.
  server_.set_stall(milliseconds(50));
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStallBeforeReply;
  });
  std::vector<HttpRequest> requests;
  for (int i = 0; i < 64; ++i) requests.push_back(Get(ByteRange::Of(i * 1000, 1000)));
  const auto start = std::chrono::steady_clock::now();
  std::vector<Result<HttpResponse>> out = t.FetchMany(requests);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(out.size(), 64u);
  for (int i = 0; i < 64; ++i) {
    ASSERT_TRUE(out[i].ok()) << out[i].status().ToString();
    EXPECT_EQ(out[i]->body.chars(), value_.substr(i * 1000, 1000));
  }
  EXPECT_LT(took, milliseconds(1600));
  EXPECT_LE(server_.connections(), 8u);
  // The connections stay open for the next batch.
  server_.SetPolicy(nullptr);
  const uint64_t connections = server_.connections();
  out = t.FetchMany(requests);
  for (auto& r : out) ASSERT_TRUE(r.ok());
  EXPECT_EQ(server_.connections(), connections);
}

// A Retry-After holds every request to the host, not only the one answered
// with it: a request sent while the host is paused waits for the pause.
TEST_F(HttpTransportTest, RetryAfterPausesTheWholeHost) {
  HttpOptions o = FastHttpOptions();
  o.backoff_max = milliseconds(5000);  // the longest Retry-After honoured
  HttpTransport t(o);
  server_.QueueFaults({HttpFault::kStatus503RetryAfter1s});
  const auto start = std::chrono::steady_clock::now();
  std::optional<Result<HttpResponse>> first;
  std::thread caller([&] { first.emplace(t.Fetch(Get(ByteRange::Of(0, 10)))); });
  // The 503 is in by now (the server answers at once); then a second request.
  std::this_thread::sleep_for(milliseconds(200));
  Result<HttpResponse> second = t.Fetch(Get(ByteRange::Of(10, 10)));
  const auto second_took = std::chrono::steady_clock::now() - start;
  caller.join();
  const auto first_took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(first->ok()) << first->status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ((*first)->body.chars(), value_.substr(0, 10));
  EXPECT_EQ(second->body.chars(), value_.substr(10, 10));
  EXPECT_EQ((*first)->attempts, 2);
  EXPECT_EQ(second->attempts, 1);
  EXPECT_GE(first_took, milliseconds(1000));
  EXPECT_GE(second_took, milliseconds(950));
  EXPECT_EQ(server_.requests(), 3u);
}

// HTTP/1.1 connections are opened a few at a time and reused: 64 requests
// at once to a server that answers after 30 ms open at most the cap, and far
// fewer connections than requests, and the cap holds over a second batch.
TEST_F(HttpTransportTest, ConnectionsAreCappedPerHostAndOpenedAFewAtATime) {
  for (int cap : {3, 32}) {
    SCOPED_TRACE(cap);
    FaultHttpServer server;
    ASSERT_TRUE(server.Start().ok());
    server.Put("v", value_);
    server.set_stall(milliseconds(30));
    server.SetPolicy([](uint64_t, const std::string&, const std::string&) {
      return HttpFault::kStallBeforeReply;
    });
    HttpOptions o = FastHttpOptions();
    o.idle_timeout = milliseconds(5000);
    o.max_connections = cap;
    HttpTransport t(o);
    std::vector<HttpRequest> requests;
    for (int i = 0; i < 64; ++i) {
      HttpRequest r;
      r.url = server.url() + "/v";
      r.range = ByteRange::Of(i * 100, 100);
      requests.push_back(r);
    }
    std::vector<Result<HttpResponse>> out = t.FetchMany(requests);
    for (int i = 0; i < 64; ++i) {
      ASSERT_TRUE(out[i].ok()) << out[i].status().ToString();
      EXPECT_EQ(out[i]->body.chars(), value_.substr(i * 100, 100));
    }
    EXPECT_LE(server.connections(), static_cast<uint64_t>(cap));
    EXPECT_LE(server.connections(), 64u / 2);
    out = t.FetchMany(requests);
    for (auto& r : out) ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_LE(server.connections(), static_cast<uint64_t>(cap));
  }
}

// Transports with equal options share connections, also one after the
// other: a store opened again (a script's loop, each array opened by URL)
// finds them open. Requests of a transport that goes are cancelled, while
// the other transport's carry on.
TEST_F(HttpTransportTest, TransportsWithEqualOptionsShareConnections) {
  HttpOptions o = FastHttpOptions();
  o.user_agent = "shared-connections-test";  // a driver of this test's own
  {
    HttpTransport first(o);
    for (auto& r : first.FetchMany(std::vector<HttpRequest>(4, Get()))) ASSERT_TRUE(r.ok());
  }
  const uint64_t opened = server_.connections();
  EXPECT_GE(opened, 1u);
  HttpTransport second(o);
  for (auto& r : second.FetchMany(std::vector<HttpRequest>(4, Get()))) ASSERT_TRUE(r.ok());
  EXPECT_EQ(server_.connections(), opened);

  server_.set_stall(milliseconds(300));
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStallBeforeReply;
  });
  std::atomic<int> cancelled{0};
  {
    HttpTransport third(o);
    third.Submit(Get(), [&](Result<HttpResponse> r) {
      if (r.status().code() == StatusCode::kCancelled) ++cancelled;
    });
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_EQ(cancelled.load(), 1);  // by the time the destructor returned
  server_.SetPolicy(nullptr);
  Result<HttpResponse> still = second.Fetch(Get(ByteRange::Of(5, 5)));
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_EQ(still->body.chars(), value_.substr(5, 5));
}

// The cap comes from the environment when the options leave it at 0.
TEST_F(HttpTransportTest, TheConnectionCapCanComeFromTheEnvironment) {
  ::setenv("TURBOZARR_HTTP_MAX_CONNECTIONS", "2", 1);
  HttpTransport from_env(FastHttpOptions());
  ::unsetenv("TURBOZARR_HTTP_MAX_CONNECTIONS");
  EXPECT_EQ(from_env.options().max_connections, 2);
  HttpOptions o = FastHttpOptions();
  o.max_connections = 5;
  ::setenv("TURBOZARR_HTTP_MAX_CONNECTIONS", "2", 1);
  HttpTransport explicit_cap(o);
  ::unsetenv("TURBOZARR_HTTP_MAX_CONNECTIONS");
  EXPECT_EQ(explicit_cap.options().max_connections, 5);
  ::setenv("TURBOZARR_HTTP_MAX_CONNECTIONS", "many", 1);
  HttpTransport nonsense(FastHttpOptions());
  ::unsetenv("TURBOZARR_HTTP_MAX_CONNECTIONS");
  EXPECT_EQ(nonsense.options().max_connections, 32);

  server_.set_stall(milliseconds(20));
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStallBeforeReply;
  });
  std::vector<HttpRequest> requests(16, Get(ByteRange::Of(0, 10)));
  for (auto& r : from_env.FetchMany(requests)) ASSERT_TRUE(r.ok());
  EXPECT_LE(server_.connections(), 2u);
}

TEST_F(HttpTransportTest, ConcurrentCallersShareTheTransport) {
  // Requests interleave, so one may meet several faults in a row.
  HttpOptions o = FastHttpOptions();
  o.max_retries = 10;
  HttpTransport t(o);
  // One request in seven fails once somewhere along the way.
  server_.SetPolicy([](uint64_t n, const std::string&, const std::string&) {
    return n % 7 == 3 ? HttpFault::kCloseMidBody : HttpFault::kNone;
  });
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 8; ++th) {
    threads.emplace_back([&, th] {
      for (int i = 0; i < 25; ++i) {
        const uint64_t off = (th * 997 + i * 131) % 90'000;
        Result<HttpResponse> r = t.Fetch(Get(ByteRange::Of(off, 4096)));
        if (!r.ok() || r->body.chars() != value_.substr(off, 4096)) {
          ++wrong;
          ADD_FAILURE() << (r.ok() ? "wrong bytes" : r.status().ToString());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(HttpTransportTest, SendsMethodsHeadersAndBodies) {
  HttpOptions o = FastHttpOptions();
  o.headers = {"Authorization: Bearer abc"};
  HttpTransport t(o);
  const std::string payload = Value(3'000'000, 9);
  HttpRequest put;
  put.method = "PUT";
  put.url = server_.url() + "/v";
  put.headers = {"X-Extra: 1"};
  put.body = AsBytes(payload);
  Result<HttpResponse> r = t.Fetch(put);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  FaultHttpServer::Received got = server_.last_request();
  EXPECT_EQ(got.method, "PUT");
  EXPECT_EQ(got.body.size(), payload.size());
  EXPECT_TRUE(got.body == payload);
  auto has = [&](const std::string& h) {
    return std::find(got.headers.begin(), got.headers.end(), h) != got.headers.end();
  };
  EXPECT_TRUE(has("authorization: Bearer abc"));
  EXPECT_TRUE(has("x-extra: 1"));
  EXPECT_FALSE(has("expect: 100-continue"));
  for (const std::string& h : got.headers) {
    EXPECT_FALSE(h.starts_with("content-type:")) << h;
  }
  HttpRequest del;
  del.method = "DELETE";
  del.url = server_.url() + "/v";
  ASSERT_TRUE(t.Fetch(del).ok());
  EXPECT_EQ(server_.last_request().method, "DELETE");
  HttpRequest post;
  post.method = "POST";
  post.url = server_.url() + "/v?uploads";
  post.headers = {"Content-Type: application/xml"};
  post.body = AsBytes("<x/>");
  ASSERT_TRUE(t.Fetch(post).ok());
  got = server_.last_request();
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.body, "<x/>");
  EXPECT_TRUE(has("content-type: application/xml"));
  server_.Put("v", value_);  // the PUT and DELETE above replaced, then removed it
  HttpRequest head;
  head.method = "HEAD";
  head.url = server_.url() + "/v";
  r = t.Fetch(head);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Header("content-length"), std::to_string(value_.size()));
  EXPECT_TRUE(r->body.empty());
}

TEST_F(HttpTransportTest, ShutdownCancelsWhatIsStillWaiting) {
  server_.set_stall(milliseconds(5000));
  server_.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kStallBeforeReply;
  });
  std::atomic<int> cancelled{0};
  {
    HttpOptions o = FastHttpOptions();
    o.idle_timeout = milliseconds(0);  // no idle limit: only shutdown ends them
    HttpTransport t(o);
    for (int i = 0; i < 4; ++i) {
      t.Submit(Get(), [&](Result<HttpResponse> r) {
        if (r.status().code() == StatusCode::kCancelled) ++cancelled;
      });
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(cancelled.load(), 4);
}

}  // namespace
}  // namespace turbozarr
