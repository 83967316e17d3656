// The test servers' Range arithmetic and answer heads, value by value.
#include "testing/http_range_answer.h"

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

// "status begin end", for one-line comparisons.
std::string Answer(std::string_view header, uint64_t size) {
  const RangeAnswer a = AnswerRange(header, size);
  return std::to_string(a.status) + " " + std::to_string(a.begin) + " " +
         std::to_string(a.end);
}

TEST(AnswerRangeTest, SatisfiableRanges) {
  EXPECT_EQ(Answer("", 10), "200 0 10");
  EXPECT_EQ(Answer("", 0), "200 0 0");
  EXPECT_EQ(Answer("bytes=2-4", 10), "206 2 5");
  EXPECT_EQ(Answer("bytes=0-0", 10), "206 0 1");
  EXPECT_EQ(Answer("bytes=9-9", 10), "206 9 10");
  EXPECT_EQ(Answer("bytes=7-", 10), "206 7 10");
  EXPECT_EQ(Answer("bytes=7-100", 10), "206 7 10");  // cut at the end
  EXPECT_EQ(Answer("bytes=0-18446744073709551615", 10), "206 0 10");
  EXPECT_EQ(Answer("bytes=-3", 10), "206 7 10");
  EXPECT_EQ(Answer("bytes=-10", 10), "206 0 10");
  EXPECT_EQ(Answer("bytes=-100", 10), "206 0 10");  // all of a shorter value
}

TEST(AnswerRangeTest, UnsatisfiableAndMalformedRanges) {
  for (const char* header :
       {"bytes=10-", "bytes=10-12", "bytes=5-2", "bytes=-0", "bytes=-",
        "bytes=", "bytes=a-b", "bytes=1-2x", "bytes= 1-2", "bytes=0-1,4-5", "items=0-1",
        "0-1", "bytes=18446744073709551616-", "bytes=-18446744073709551616"}) {
    EXPECT_EQ(Answer(header, 10), "416 0 0") << header;
  }
  EXPECT_EQ(Answer("bytes=0-", 0), "416 0 0");  // nothing in an empty value
  EXPECT_EQ(Answer("bytes=-4", 0), "416 0 0");
}

TEST(AnswerHeadTest, WholeAndPartAnswers) {
  EXPECT_EQ(AnswerHead({200, 0, 10}, 10),
            "HTTP/1.1 200 OK\r\nAccept-Ranges: bytes\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(AnswerHead({206, 2, 5}, 10),
            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 2-4/10\r\n"
            "Accept-Ranges: bytes\r\nContent-Length: 3\r\n\r\n");
  // A lie on purpose: the announced length is the caller's.
  EXPECT_EQ(AnswerHead({206, 2, 5}, 10, 9),
            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 2-4/10\r\n"
            "Accept-Ranges: bytes\r\nContent-Length: 9\r\n\r\n");
}

TEST(StatusAnswerTest, HeadAnswersCarryNoBody) {
  EXPECT_EQ(StatusAnswer("GET", "404 Not Found"),
            "HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\n404 Not Found");
  EXPECT_EQ(StatusAnswer("HEAD", "404 Not Found"),
            "HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\n");
  EXPECT_EQ(UnsatisfiableAnswer("GET", 10),
            "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */10\r\n"
            "Content-Length: 25\r\n\r\n416 Range Not Satisfiable");
}

}  // namespace
}  // namespace turbozarr
