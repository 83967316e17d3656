// Whole values fetched in parts (http_parted_fetch.h): how many parts and
// where they land, how their answers join (or refuse to), and HttpStore
// reading values in parts from a server that answers ranges, one that
// ignores them, one that fails parts, and one whose value changes between
// the parts.
#include "store/http_parted_fetch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "store/http_read_plan.h"
#include "testing/fault_http_server.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using internal::JoinedParts;
using internal::kMinPartBytes;
using std::chrono::milliseconds;

std::string Value(size_t n, int seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 31 + seed + (i >> 9));
  return v;
}

TEST(PartedFetch, PartsAreAShareOfTheCapacityAndAtLeastTheMinimumSize) {
  EXPECT_EQ(internal::PartsFor({64 * kMinPartBytes, 1}, 32), 32u);
  EXPECT_EQ(internal::PartsFor({64 * kMinPartBytes, 4}, 32), 8u);
  EXPECT_EQ(internal::PartsFor({3 * kMinPartBytes, 1}, 32), 3u);
  EXPECT_EQ(internal::PartsFor({64 * kMinPartBytes, 16}, 32), 2u);
  EXPECT_EQ(internal::PartsFor({64 * kMinPartBytes, 32}, 32), 1u);  // no spare capacity
  EXPECT_EQ(internal::PartsFor({64 * kMinPartBytes, 40}, 32), 1u);
  EXPECT_EQ(internal::PartsFor({2 * kMinPartBytes - 1, 1}, 32), 1u);  // too small
  EXPECT_EQ(internal::PartsFor({0, 1}, 32), 1u);                      // size unknown
  EXPECT_EQ(internal::PartsFor({64 * kMinPartBytes, 0}, 32), 1u);     // company unknown
  EXPECT_EQ(internal::PartsFor({internal::kMaxPartedBytes, 1}, 32), 32u);
  EXPECT_EQ(internal::PartsFor({internal::kMaxPartedBytes + 1, 1}, 32), 1u);  // too large
}

TEST(PartedFetch, RangesCoverTheValueAndTheLastIsOpenEnded) {
  const std::vector<ByteRange> r = internal::PartRanges(10, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_EQ(r[0].length, 4u);
  EXPECT_EQ(r[1].offset, 4u);
  EXPECT_EQ(r[1].length, 4u);
  EXPECT_EQ(r[2].offset, 8u);
  EXPECT_EQ(r[2].length, ByteRange::kToEnd);
  Buffer joint(10);
  EXPECT_EQ(internal::PartTarget(r, 0, joint.mutable_view()).size(), 4u);
  EXPECT_EQ(internal::PartTarget(r, 1, joint.mutable_view()).data(), joint.data() + 4);
  EXPECT_EQ(internal::PartTarget(r, 2, joint.mutable_view()).size(), 2u);  // to the end
  const std::vector<ByteRange> one = internal::PartRanges(10, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].offset, 0u);
  EXPECT_EQ(one[0].length, ByteRange::kToEnd);
}

// Answers as the transport leaves them: a 206 for [first, first + size)
// placed in its part of `joint`, or in its own body when it outgrew it.
HttpResponse Partial(const std::string& value, const ByteRange& asked, MutableByteView into,
                     const std::string& etag = "\"e\"") {
  HttpResponse a;
  a.headers.emplace_back("etag", etag);
  if (asked.offset >= value.size()) {
    a.status = 416;
    return a;
  }
  const uint64_t n = std::min<uint64_t>(asked.length, value.size() - asked.offset);
  a.status = 206;
  a.content_range = ContentRange{asked.offset, asked.offset + n - 1, value.size()};
  if (n <= into.size()) {
    std::memcpy(into.data(), value.data() + asked.offset, n);
    a.placed = n;
  } else {
    a.body = Buffer(AsBytes(std::string_view(value).substr(asked.offset, n)));
  }
  return a;
}

// JoinParts into the parts' own buffer `joint`.
JoinedParts JoinOwn(std::span<const ByteRange> ranges, Buffer& joint,
                    std::span<HttpResponse> answers, internal::FetchedBytes& out) {
  return internal::JoinParts(ranges, joint.mutable_view(), &joint, answers, out);
}

// Joins the parts of `value` as cut for `expected` bytes in `parts` parts.
JoinedParts Join(const std::string& value, uint64_t expected, uint32_t parts,
                 internal::FetchedBytes& out) {
  const std::vector<ByteRange> ranges = internal::PartRanges(expected, parts);
  Buffer joint(expected);
  std::vector<HttpResponse> answers;
  for (size_t i = 0; i < ranges.size(); ++i) {
    answers.push_back(
        Partial(value, ranges[i], internal::PartTarget(ranges, i, joint.mutable_view())));
  }
  return JoinOwn(ranges, joint, answers, out);
}

TEST(PartedFetch, AnswersJoinIntoTheValueWhateverItsLengthAgainstTheExpected) {
  for (size_t n : {0, 1, 99, 100, 101, 250, 299, 300, 301, 1000}) {
    const std::string value = Value(n, 3);
    internal::FetchedBytes out;
    ASSERT_EQ(Join(value, 300, 3, out), JoinedParts::kValue) << n;
    EXPECT_TRUE(out.whole);
    EXPECT_EQ(out.first, 0u);
    EXPECT_EQ(out.version, internal::VersionOf(Partial("x", ByteRange::Of(0, 1), {})));
    EXPECT_EQ(out.body.chars(), value) << n;
  }
}

TEST(PartedFetch, AnswersThatDoNotMakeOneValueAreNotJoined) {
  const std::string value = Value(300, 5);
  const std::vector<ByteRange> ranges = internal::PartRanges(300, 3);
  auto answers_for = [&](Buffer& joint) {
    std::vector<HttpResponse> answers;
    for (size_t i = 0; i < 3; ++i) {
      answers.push_back(
          Partial(value, ranges[i], internal::PartTarget(ranges, i, joint.mutable_view())));
    }
    return answers;
  };
  internal::FetchedBytes out;
  {  // another ETag: the value changed between the parts
    Buffer joint(300);
    std::vector<HttpResponse> a = answers_for(joint);
    a[2].headers[0].second = "\"f\"";
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kDisagree);
  }
  {  // no ETag, and Last-Modified tells the versions apart
    auto dated = [](std::vector<HttpResponse>& answers, const char* when) {
      for (HttpResponse& r : answers) {
        r.headers.clear();
        r.headers.emplace_back("last-modified", when);
      }
    };
    Buffer joint(300);
    std::vector<HttpResponse> a = answers_for(joint);
    dated(a, "Mon, 07 Dec 2026 10:00:00 GMT");
    a[1].headers[0].second = "Mon, 07 Dec 2026 10:00:01 GMT";
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kDisagree);
    Buffer again(300);
    std::vector<HttpResponse> same = answers_for(again);
    dated(same, "Mon, 07 Dec 2026 10:00:00 GMT");
    ASSERT_EQ(JoinOwn(ranges, again, same, out), JoinedParts::kValue);
    EXPECT_TRUE(out.body.chars() == value);
    EXPECT_EQ(out.version, 0u);
  }
  {  // found and absent at once
    Buffer joint(300);
    std::vector<HttpResponse> a = answers_for(joint);
    a[1] = HttpResponse();
    a[1].status = 404;
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kDisagree);
  }
  {  // a short middle part, then more bytes: the value shrank, then grew
    Buffer joint(300);
    std::vector<HttpResponse> a = answers_for(joint);
    a[1].placed = 50;
    a[1].content_range->last = 149;
    a[1].content_range->total = 150;
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kDisagree);
  }
  {  // a whole part whose total says the value ends there, then more bytes
    Buffer joint(300);
    std::vector<HttpResponse> a = answers_for(joint);
    a[0].content_range->total = 100;
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kDisagree);
  }
  {  // nothing past the start, yet bytes after it
    Buffer joint(300);
    std::vector<HttpResponse> a = answers_for(joint);
    a[0] = HttpResponse();
    a[0].status = 416;
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kDisagree);
  }
  {  // every part absent
    Buffer joint(300);
    std::vector<HttpResponse> a(3);
    for (HttpResponse& r : a) r.status = 404;
    EXPECT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kAbsent);
  }
}

TEST(PartedFetch, AServerThatIgnoresTheRangeSendsTheWholeValueInOnePart) {
  const std::string value = Value(300, 7);
  const std::vector<ByteRange> ranges = internal::PartRanges(300, 3);
  Buffer joint(300);
  std::vector<HttpResponse> a;
  for (size_t i = 0; i < 3; ++i) {
    a.push_back(Partial(value, ranges[i], internal::PartTarget(ranges, i, joint.mutable_view())));
  }
  a[1] = HttpResponse();
  a[1].status = 200;
  a[1].headers.emplace_back("etag", "\"e\"");
  a[1].body = Buffer(AsBytes(std::string_view(value)));
  internal::FetchedBytes out;
  ASSERT_EQ(JoinOwn(ranges, joint, a, out), JoinedParts::kValue);
  EXPECT_TRUE(out.whole);
  EXPECT_EQ(out.body.chars(), value);
}

TEST(PartedFetch, PartsJoinedInTheCallersMemoryAreMeasuredNotCopied) {
  const std::vector<ByteRange> ranges = internal::PartRanges(300, 3);
  for (size_t n : {0, 1, 150, 299, 300, 301, 1000}) {
    const std::string value = Value(n, 9);
    std::string memory(300, '.');
    const MutableByteView into(reinterpret_cast<std::byte*>(memory.data()), memory.size());
    std::vector<HttpResponse> a;
    for (size_t i = 0; i < ranges.size(); ++i) {
      a.push_back(Partial(value, ranges[i], internal::PartTarget(ranges, i, into)));
    }
    internal::FetchedBytes out;
    ASSERT_EQ(internal::JoinParts(ranges, into, nullptr, a, out), JoinedParts::kValue) << n;
    ASSERT_TRUE(out.in_place.has_value());
    EXPECT_EQ(*out.in_place, n);  // a length other than 300 tells the reader it differs
    EXPECT_EQ(out.body.size(), 0u);
    if (n <= 300) {
      EXPECT_EQ(memory.substr(0, n), value) << n;
    }
  }
  // A server that ignored the Range: the whole value, placed in the middle
  // part's place, moves to the front of the memory.
  const std::string value = Value(80, 4);
  std::string memory(300, '.');
  const MutableByteView into(reinterpret_cast<std::byte*>(memory.data()), memory.size());
  std::vector<HttpResponse> a;
  for (size_t i = 0; i < ranges.size(); ++i) {
    a.push_back(Partial(value, ranges[i], internal::PartTarget(ranges, i, into)));
  }
  std::fill(memory.begin(), memory.end(), '.');
  a[1].status = 200;
  a[1].content_range.reset();
  const MutableByteView middle = internal::PartTarget(ranges, 1, into);
  std::memcpy(middle.data(), value.data(), value.size());
  a[1].placed = value.size();
  internal::FetchedBytes out;
  ASSERT_EQ(internal::JoinParts(ranges, into, nullptr, a, out), JoinedParts::kValue);
  EXPECT_EQ(out.in_place, std::optional<uint64_t>(80));
  EXPECT_EQ(memory.substr(0, 80), value);
}

// A stalled part waits 300 ms (AValueReplacedBetweenItsPartsIsReadAgainWhole).
HttpOptions FastOptions() {
  HttpOptions o = FastHttpOptions();
  o.idle_timeout = milliseconds(2000);
  return o;
}

// Reads `key` whole through `store` as a reader with `hint` does.
Result<std::optional<Buffer>> ReadWhole(Store& store, const std::string& key,
                                        ReadHint hint) {
  Buffer value;
  ReadRequest request = ReadRequest::NewBuffer(key, ByteRange::Full(), value);
  request.hint = hint;
  ReadAnswer answer;
  TZ_RETURN_NOT_OK(store.Read({&request, 1}, {&answer, 1}));
  if (!answer.found) return std::optional<Buffer>();
  return std::optional<Buffer>(std::move(value));
}

// Reads `key` whole with `hint` through `store`, expecting `value`;
// answers how many requests `server` got meanwhile.
uint64_t RequestsToRead(const FaultHttpServer& server, Store& store, const std::string& key,
                        ReadHint hint, const std::string& value) {
  const uint64_t before = server.requests();
  auto got = ReadWhole(store, key, hint);
  EXPECT_TRUE(got.ok() && got->has_value()) << key << ": " << got.status().ToString();
  if (got.ok() && got->has_value()) {
    EXPECT_TRUE((*got)->chars() == value) << key;
  }
  return server.requests() - before;
}

struct Served {
  FaultHttpServer server;
  std::shared_ptr<Store> store;
  // Starts the server with `values` and opens a store on it whose server
  // has shown that it answers ranges (one ranged read).
  void Start(const std::vector<std::pair<std::string, std::string>>& values,
             HttpOptions o = FastOptions()) {
    ASSERT_TRUE(server.Start().ok());
    for (const auto& [k, v] : values) server.Put(k, v);
    Result<std::shared_ptr<Store>> s = MakeHttpStore(server.url(), o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store = *s;
    ASSERT_TRUE(store->Get("probe", ByteRange::Of(0, 1)).ok());
  }
};

TEST(HttpStoreParts, ALargeValueReadAloneComesInPartsWithTheRightBytes) {
  const std::string value = Value(4 * kMinPartBytes + 12345, 1);
  Served s;
  s.Start({{"probe", "p"}, {"big", value}, {"small", "tiny"}});
  // The reader expects it a little smaller than it is: the last part
  // brings the rest.
  EXPECT_EQ(RequestsToRead(s.server, *s.store, "big", {4 * kMinPartBytes, 1}, value), 4u);
  // Expected much larger than it is: parts past its end answer 416.
  auto got = ReadWhole(*s.store, "small", {20 * kMinPartBytes, 1});
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  EXPECT_EQ((*got)->chars(), "tiny");
  // Absent: every part says so.
  got = ReadWhole(*s.store, "none", {20 * kMinPartBytes, 1});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(got->has_value());
  // Many reads in flight together: one request each.
  EXPECT_EQ(RequestsToRead(s.server, *s.store, "big", {4 * kMinPartBytes, 32}, value), 1u);
}

TEST(HttpStoreParts, AServerThatIgnoresRangesIsAskedWholeOnceItShowsIt) {
  FaultHttpServer server;
  ASSERT_TRUE(server.Start().ok());
  const std::string value = Value(4 * kMinPartBytes, 2);
  server.Put("big", value);
  server.Put("probe", "p");
  auto store = MakeHttpStore(server.url(), FastOptions());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Get("probe", ByteRange::Of(0, 1)).ok());  // a 206
  server.SetPolicy([](uint64_t, const std::string&, const std::string&) {
    return HttpFault::kIgnoreRange;
  });
  // The parts each bring the whole value (200): one is taken.
  EXPECT_EQ(RequestsToRead(server, **store, "big", {4 * kMinPartBytes, 1}, value), 4u);
  // From then on the value is asked for once.
  EXPECT_EQ(RequestsToRead(server, **store, "big", {4 * kMinPartBytes, 1}, value), 1u);
}

TEST(HttpStoreParts, NothingIsCutBeforeTheServerShowsThatItAnswersRanges) {
  FaultHttpServer server;
  ASSERT_TRUE(server.Start().ok());
  const std::string value = Value(4 * kMinPartBytes, 6);
  server.Put("big", value);
  auto store = MakeHttpStore(server.url(), FastOptions());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(RequestsToRead(server, **store, "big", {4 * kMinPartBytes, 1}, value), 1u);
  // Its answer said "Accept-Ranges: bytes": the next read comes in parts.
  EXPECT_EQ(RequestsToRead(server, **store, "big", {4 * kMinPartBytes, 1}, value), 4u);
}

TEST(HttpStoreParts, FailedPartsAreRetriedAndTheValueIsWhole) {
  const std::string value = Value(8 * kMinPartBytes + 7, 3);
  Served s;
  s.Start({{"probe", "p"}, {"big", value}});
  // Faults a client notices, one on each of the next parts.
  s.server.QueueFaults({HttpFault::kCloseMidBody, HttpFault::kStatus503,
                        HttpFault::kShortRange, HttpFault::kResetBeforeReply,
                        HttpFault::kLengthTooShort, HttpFault::kShiftedRange});
  auto got = ReadWhole(*s.store, "big", {8 * kMinPartBytes, 1});
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  EXPECT_TRUE((*got)->chars() == value);
}

TEST(HttpStoreParts, AValueReplacedBetweenItsPartsIsReadAgainWhole) {
  const std::string old_value = Value(4 * kMinPartBytes, 4);
  const std::string new_value = Value(3 * kMinPartBytes + 5, 5);
  Served s;
  s.Start({{"probe", "p"}, {"v", old_value}});
  s.server.set_stall(milliseconds(300));
  // The second part waits; meanwhile the value is replaced.
  s.server.QueueFaults({HttpFault::kNone, HttpFault::kStallBeforeReply});
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(100));
    s.server.Put("v", new_value);
  });
  auto got = ReadWhole(*s.store, "v", {4 * kMinPartBytes, 1});
  writer.join();
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  EXPECT_TRUE((*got)->chars() == new_value);
}

// The S3 store cuts the same way, signing each part as the whole object,
// without waiting for a sign that the server answers ranges.
TEST(HttpStoreParts, AnS3ObjectReadAloneComesInPartsToo) {
  FaultHttpServer server;
  ASSERT_TRUE(server.Start().ok());
  const std::string value = Value(4 * kMinPartBytes + 3, 8);
  server.Put("bucket/data/big", value);
  auto store = MakeS3Store("bucket", "data", S3OptionsFor(server, FastOptions()));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(RequestsToRead(server, **store, "big", {4 * kMinPartBytes, 1}, value), 4u);
  auto got = ReadWhole(**store, "none", {4 * kMinPartBytes, 1});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(got->has_value());
}

}  // namespace
}  // namespace turbozarr
