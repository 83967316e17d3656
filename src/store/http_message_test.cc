#include "store/http_message.h"

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

TEST(ParseContentRangeTest, ReadsWellFormedValues) {
  auto cr = ParseContentRange("bytes 0-99/1000");
  ASSERT_TRUE(cr.has_value());
  EXPECT_EQ(cr->first, 0u);
  EXPECT_EQ(cr->last, 99u);
  EXPECT_EQ(cr->total, std::optional<uint64_t>(1000));
  EXPECT_EQ(cr->length(), 100u);
  cr = ParseContentRange("  bytes 5-5/*");
  ASSERT_TRUE(cr.has_value());
  EXPECT_EQ(cr->length(), 1u);
  EXPECT_EQ(cr->total, std::nullopt);
}

TEST(ParseContentRangeTest, RefusesMalformedValues) {
  for (const char* v : {"", "bytes", "bytes */1000", "bytes 9-5/10", "bytes 1-2",
                        "items 0-1/2", "bytes -1-2/3", "bytes 0-1/x", "bytes 0-1/2 junk",
                        "bytes 0-99999999999999999999999/1"}) {
    EXPECT_FALSE(ParseContentRange(v).has_value()) << v;
  }
}

TEST(RangeHeaderValueTest, SpellsEachKindOfRange) {
  EXPECT_EQ(RangeHeaderValue(ByteRange::Of(5, 5)), "bytes=5-9");
  EXPECT_EQ(RangeHeaderValue(ByteRange::Of(0, 1)), "bytes=0-0");
  EXPECT_EQ(RangeHeaderValue(ByteRange::Of(5, ByteRange::kToEnd)), "bytes=5-");
  EXPECT_EQ(RangeHeaderValue(ByteRange::Of(5, ByteRange::kToEnd - 2)), "bytes=5-");
  EXPECT_EQ(RangeHeaderValue(ByteRange::Suffix(4)), "bytes=-4");
  EXPECT_EQ(RangeHeaderValue(ByteRange::Full()), std::nullopt);
  EXPECT_EQ(RangeHeaderValue(ByteRange::Of(3, 0)), std::nullopt);
  EXPECT_EQ(RangeHeaderValue(ByteRange::Suffix(0)), std::nullopt);
}

TEST(IsRetryableHttpStatusTest, RetriesTransientStatusesOnly) {
  for (long s : {408, 429, 500, 502, 503, 504, 599})
    EXPECT_TRUE(IsRetryableHttpStatus(s));
  for (long s : {200, 206, 301, 400, 403, 404, 416, 501, 505}) {
    EXPECT_FALSE(IsRetryableHttpStatus(s)) << s;
  }
}

HttpResponse Response(long status, std::string body, std::string content_range = "") {
  HttpResponse r;
  r.status = status;
  r.body = Buffer::FromString(body);
  if (!content_range.empty()) r.headers.emplace_back("content-range", content_range);
  return r;
}

HttpRequest Ranged(ByteRange range) {
  HttpRequest req;
  req.url = "http://h/k";
  req.range = range;
  return req;
}

TEST(CheckResponseTest, AcceptsWholeResponses) {
  HttpRequest plain;
  HttpResponse r = Response(200, "hello");
  EXPECT_EQ(CheckResponse(plain, r, 5), "");
  EXPECT_EQ(CheckResponse(plain, r, std::nullopt), "");  // chunked: no length
  r = Response(206, "234", "bytes 2-4/10");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Of(2, 3)), r, 3), "");
  ASSERT_TRUE(r.content_range.has_value());
  EXPECT_EQ(r.content_range->first, 2u);
  // A range past the end, cut short at the end of the value.
  r = Response(206, "89", "bytes 8-9/10");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Of(8, 10)), r, 2), "");
  r = Response(206, "789", "bytes 7-9/10");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Of(7, ByteRange::kToEnd)), r, 3), "");
  r = Response(206, "789", "bytes 7-9/10");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Suffix(3)), r, 3), "");
  r = Response(206, "0123456789", "bytes 0-9/10");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Suffix(50)), r, 10), "");
  r = Response(206, "78", "bytes 7-8/*");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Of(7, 2)), r, 2), "");
  // A server that ignores Range answers 200 with everything: whole, to be sliced.
  r = Response(200, "0123456789");
  EXPECT_EQ(CheckResponse(Ranged(ByteRange::Of(2, 3)), r, 10), "");
  // HEAD has a Content-Length but no body.
  HttpRequest head;
  head.method = "HEAD";
  r = Response(200, "");
  EXPECT_EQ(CheckResponse(head, r, 1234), "");
}

TEST(CheckResponseTest, RefusesBodiesThatAreNotWhole) {
  struct Case {
    HttpRequest req;
    HttpResponse resp;
    std::optional<uint64_t> content_length;
    std::string why;
  };
  std::vector<Case> cases;
  cases.push_back({HttpRequest(), Response(200, "hel"), 5, "Content-Length announced 5"});
  cases.push_back(
      {Ranged(ByteRange::Of(2, 3)), Response(206, "234"), 3, "without a Content-Range"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "234", "bytes x"), 3,
                   "malformed Content-Range"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "34", "bytes 2-4/10"),
                   std::nullopt, "body of 2 bytes"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "234", "bytes 2-4/10"), 2,
                   "Content-Length 2 under"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "345", "bytes 3-5/10"), 3,
                   "does not start at the 2"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "2345", "bytes 2-5/10"), 4,
                   "runs past the end asked"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "23", "bytes 2-3/10"), 2,
                   "stops short"});
  cases.push_back({Ranged(ByteRange::Of(2, 3)), Response(206, "234", "bytes 2-4/3"), 3,
                   "runs past its total"});
  cases.push_back({Ranged(ByteRange::Suffix(3)), Response(206, "678", "bytes 6-8/10"), 3,
                   "not the last 3 bytes"});
  cases.push_back({Ranged(ByteRange::Suffix(3)), Response(206, "6789", "bytes 6-9/10"), 4,
                   "longer than the last 3"});
  cases.push_back({Ranged(ByteRange::Of(5, ByteRange::kToEnd)),
                   Response(206, "5678", "bytes 5-8/10"), 4, "stops short"});
  cases.push_back(
      {HttpRequest(), Response(206, "234", "bytes 2-4/10"), 3, "without a Range"});
  for (Case& c : cases) {
    std::string why = CheckResponse(c.req, c.resp, c.content_length);
    EXPECT_NE(why.find(c.why), std::string::npos)
        << "got '" << why << "', want " << c.why;
  }
}

TEST(CheckHeadersTest, CatchesWhatTheHeadersAloneGiveAway) {
  HttpResponse r = Response(206, "", "bytes 2-4/10");
  EXPECT_EQ(CheckHeaders(Ranged(ByteRange::Of(2, 3)), r, 3), "");
  EXPECT_TRUE(r.content_range.has_value());
  // The body has not arrived yet: its length is not judged.
  EXPECT_EQ(CheckHeaders(Ranged(ByteRange::Of(2, 3)), r, std::nullopt), "");
  EXPECT_NE(CheckHeaders(Ranged(ByteRange::Of(2, 3)), r, 10), "");
  EXPECT_NE(CheckHeaders(Ranged(ByteRange::Of(3, 3)), r, 3), "");
  r = Response(200, "");
  EXPECT_EQ(CheckHeaders(Ranged(ByteRange::Of(2, 3)), r, 10), "");
  EXPECT_FALSE(r.content_range.has_value());
}

TEST(HttpResponseTest, HeaderFindsTheFirstOfAName) {
  HttpResponse r;
  r.headers = {{"etag", "\"1\""}, {"x", "a"}, {"x", "b"}};
  EXPECT_EQ(r.Header("x"), std::optional<std::string_view>("a"));
  EXPECT_EQ(r.Header("etag"), std::optional<std::string_view>("\"1\""));
  EXPECT_EQ(r.Header("missing"), std::nullopt);
}

}  // namespace
}  // namespace turbozarr
