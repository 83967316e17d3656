// The S3 XML scanner on answers shaped like S3's (ListObjectsV2 with and
// without url encoding, errors, multipart, DeleteObjects) and on malformed
// documents, which must give a clean error.
#include "store/s3_xml.h"

#include <gtest/gtest.h>

namespace turbozarr::s3xml {
namespace {

using Strings = std::vector<std::string>;

TEST(S3XmlTest, ElementsAndText) {
  const std::string doc =
      "<?xml version=\"1.0\"?><R><KeyCount>2</KeyCount><Key>a</Key>"
      "<Key xmlns=\"x\">b&amp;c</Key><Key/><Keys>no</Keys></R>";
  auto e = Elements(doc, "Key");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(*e, (std::vector<std::string_view>{"a", "b&amp;c", ""}));
  auto first = FirstText(doc, "KeyCount");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, std::optional<std::string>("2"));
  auto none = FirstText(doc, "Missing");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, std::nullopt);
}

TEST(S3XmlTest, DecodesEntitiesAndReferences) {
  auto t = DecodeText(
      "&lt;a&gt; &amp; &quot;q&quot; &apos;s&apos; &#65;&#x42;&#xfc;&#x1F600;");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, "<a> & \"q\" 's' AB\xC3\xBC\xF0\x9F\x98\x80");
  for (const char* bad :
       {"&bogus;", "&amp", "&#;", "&#x110000;", "&#0;", "&#xD800;", "&#12a;", "&#xZZ;"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(DecodeText(bad).status().code(), StatusCode::kCorruption);
  }
}

TEST(S3XmlTest, EscapeRoundTrips) {
  const std::string text = "a<b>&\"c'\td\ne\rf \xC3\xBC";
  EXPECT_EQ(EscapeText(text), "a&lt;b&gt;&amp;&quot;c&apos;&#9;d&#10;e&#13;f \xC3\xBC");
  auto back = DecodeText(EscapeText(text));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, text);
  EXPECT_TRUE(CanHold(text));
  EXPECT_FALSE(
      CanHold(std::string("a\x01"
                          "b")));
}

TEST(S3XmlTest, UrlDecoding) {
  auto d = DecodeUrlEncoded("a%20b+c%2Bd%2F%C3%BC");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, "a b c+d/\xC3\xBC");
  EXPECT_EQ(DecodeUrlEncoded("a%2").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodeUrlEncoded("a%").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodeUrlEncoded("a%zz").status().code(), StatusCode::kCorruption);
}

TEST(S3XmlTest, ParsesListPages) {
  const std::string page1 =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Prefix>p%2F</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys>"
      "<Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>"
      "<Contents><Key>p/a+b</Key><Size>3</Size><ETag>&quot;x&quot;</ETag></Contents>"
      "<Contents><Key>p/%C3%BC%26</Key><Size>0</Size></Contents>"
      "<CommonPrefixes><Prefix>p/d%20ir/</Prefix></CommonPrefixes>"
      "<NextContinuationToken>tok/en+=</NextContinuationToken>"
      "<EncodingType>url</EncodingType></ListBucketResult>";
  auto p = ParseListPage(page1, true);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->keys, (Strings{"p/a b", "p/\xC3\xBC&"}));
  EXPECT_EQ(p->common_prefixes, (Strings{"p/d ir/"}));
  EXPECT_TRUE(p->truncated);
  EXPECT_EQ(p->next_continuation_token, "tok/en+=");

  const std::string plain =
      "<ListBucketResult><IsTruncated>false</IsTruncated>"
      "<Contents><Key>a&amp;b+c</Key></Contents></ListBucketResult>";
  p = ParseListPage(plain, false);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->keys, (Strings{"a&b+c"}));
  EXPECT_FALSE(p->truncated);

  p = ParseListPage("<ListBucketResult></ListBucketResult>", true);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->keys.empty() && p->common_prefixes.empty() && !p->truncated);
}

TEST(S3XmlTest, MalformedListPagesAreErrors) {
  for (const char* bad : {
           "",
           "<Error><Code>x</Code></Error>",
           "<ListBucketResult><Contents><Key>a</Key>",
           "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
           "<ListBucketResult><Contents><Key>a",
           "<ListBucketResult><Contents><Key>a&zz;</Key></Contents></ListBucketResult>",
           "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
           "<ListBucketResult><CommonPrefixes></CommonPrefixes></ListBucketResult>",
           "<ListBucketResult><Contents",
       }) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(ParseListPage(bad, true).status().code(), StatusCode::kCorruption);
  }
}

TEST(S3XmlTest, ErrorsUploadsAndDeletes) {
  auto e = ParseError(
      "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code>"
      "<Message>The specified bucket does not exist</Message>"
      "<BucketName>b</BucketName></Error>");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "NoSuchBucket");
  EXPECT_EQ(e->message, "The specified bucket does not exist");
  EXPECT_FALSE(ParseError("").has_value());
  EXPECT_FALSE(ParseError("<CompleteMultipartUploadResult/>").has_value());

  auto id = ParseUploadId(
      "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
      "<UploadId>VXBsb2FkIElE&amp;x</UploadId></InitiateMultipartUploadResult>");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "VXBsb2FkIElE&x");
  EXPECT_FALSE(ParseUploadId("<InitiateMultipartUploadResult/>").ok());

  const Strings etags = {"\"a\"", "\"b\""};
  EXPECT_EQ(CompleteMultipartXml(etags),
            "<CompleteMultipartUpload>"
            "<Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag></Part>"
            "<Part><PartNumber>2</PartNumber><ETag>&quot;b&quot;</ETag></Part>"
            "</CompleteMultipartUpload>");
  const Strings keys = {"a/b", "c&d"};
  EXPECT_EQ(DeleteObjectsXml(keys),
            "<Delete><Quiet>true</Quiet><Object><Key>a/b</Key></Object>"
            "<Object><Key>c&amp;d</Key></Object></Delete>");

  auto errors = ParseDeleteErrors(
      "<DeleteResult><Deleted><Key>x</Key></Deleted>"
      "<Error><Key>c&amp;d</Key><Code>AccessDenied</Code><Message>no</Message></Error>"
      "</DeleteResult>");
  ASSERT_TRUE(errors.ok());
  ASSERT_EQ(errors->size(), 1u);
  EXPECT_EQ((*errors)[0].key, "c&d");
  EXPECT_EQ((*errors)[0].code, "AccessDenied");
  EXPECT_EQ((*errors)[0].message, "no");
  EXPECT_FALSE(ParseDeleteErrors("<Error><Code>x</Code></Error>").ok());
}

}  // namespace
}  // namespace turbozarr::s3xml
