// SigV4 against the worked examples in Amazon's S3 documentation
// ("Signature Calculations for the Authorization Header: Transferring Payload
// in a Single Chunk") and the signing-key example of the general SigV4
// documentation: every intermediate string, not only the final signature.
#include "store/sigv4.h"
#include "store/url_encoding.h"

#include <gtest/gtest.h>

#include <chrono>

namespace turbozarr::sigv4 {
namespace {

const Credentials kExampleCredentials = {"AKIAIOSFODNN7EXAMPLE",
                                         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const char kEmptySha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// 2013-05-24T00:00:00Z, the examples' request time.
std::chrono::system_clock::time_point ExampleTime() {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1369353600));
}

TEST(SigV4Test, HashesAndEncodings) {
  EXPECT_EQ(Sha256Hex({}), kEmptySha256);
  EXPECT_EQ(Sha256Hex(AsBytes("Welcome to Amazon S3.")),
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  // RFC 1321's test suite: MD5("abc").
  EXPECT_EQ(Base64Md5(AsBytes("abc")), "kAFQmDzST7DWlj99KOF/cg==");
  EXPECT_EQ(Base64Md5({}), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(AmzDate(ExampleTime()), "20130524T000000Z");
  EXPECT_EQ(CanonicalQuery({{"prefix", "J"}, {"max-keys", "2"}}), "max-keys=2&prefix=J");
  EXPECT_EQ(CanonicalQuery({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(CanonicalQuery({{"b", "2"}, {"a", "x/y z"}, {"b", "1"}}),
            "a=x%2Fy%20z&b=1&b=2");
}

TEST(SigV4Test, SigningKeyDocumentationExample) {
  EXPECT_EQ(HexEncode(SigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215",
                                 "us-east-1", "iam")),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

TEST(SigV4Test, GetObjectExample) {
  SigV4Signer signer(kExampleCredentials, "us-east-1", "s3");
  CanonicalInput in;
  in.method = "GET";
  in.path = "/test.txt";
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"Range", "bytes=0-9"}};
  in.payload_hash = kEmptySha256;
  SignedRequest s = signer.Sign(in, ExampleTime());
  EXPECT_EQ(s.canonical_request,
            "GET\n"
            "/test.txt\n"
            "\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "range:bytes=0-9\n"
            "x-amz-content-sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n"
            "\n"
            "host;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.signature,
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.headers, (std::vector<std::string>{
                           "X-Amz-Date: 20130524T000000Z",
                           std::string("X-Amz-Content-Sha256: ") + kEmptySha256,
                           "Authorization: " + s.authorization}));
}

TEST(SigV4Test, PutObjectExample) {
  SigV4Signer signer(kExampleCredentials, "us-east-1", "s3");
  CanonicalInput in;
  in.method = "PUT";
  in.path = "/" + PercentEncode("test$file.text", Slash::kKeep);
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  in.payload_hash = Sha256Hex(AsBytes("Welcome to Amazon S3."));
  SignedRequest s = signer.Sign(in, ExampleTime());
  EXPECT_EQ(s.canonical_request,
            "PUT\n"
            "/test%24file.text\n"
            "\n"
            "date:Fri, 24 May 2013 00:00:00 GMT\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "x-amz-content-sha256:"
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
            "x-amz-date:20130524T000000Z\n"
            "x-amz-storage-class:REDUCED_REDUNDANCY\n"
            "\n"
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(s.signature,
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4Test, GetBucketLifecycleExample) {
  SigV4Signer signer(kExampleCredentials, "us-east-1", "s3");
  CanonicalInput in;
  in.method = "GET";
  in.path = "/";
  in.query = CanonicalQuery({{"lifecycle", ""}});
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"}};
  in.payload_hash = kEmptySha256;
  SignedRequest s = signer.Sign(in, ExampleTime());
  EXPECT_EQ(s.canonical_request,
            "GET\n/\nlifecycle=\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "x-amz-content-sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\n"
            "host;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.signature,
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4Test, ListObjectsExample) {
  SigV4Signer signer(kExampleCredentials, "us-east-1", "s3");
  CanonicalInput in;
  in.method = "GET";
  in.path = "/";
  in.query = CanonicalQuery({{"prefix", "J"}, {"max-keys", "2"}});
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"}};
  in.payload_hash = kEmptySha256;
  SignedRequest s = signer.Sign(in, ExampleTime());
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
  EXPECT_EQ(s.signature,
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

// Temporary credentials sign their session token. The expected signature was
// computed with botocore's S3SigV4Auth, an independent implementation.
TEST(SigV4Test, SessionTokenIsSigned) {
  SigV4Signer signer({"ASIAEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                      "session-token/with+chars=="},
                     "eu-west-2", "s3");
  CanonicalInput in;
  in.method = "GET";
  in.path = "/bucket/" + PercentEncode("a b/\xC3\xBC", Slash::kKeep);
  in.query = CanonicalQuery({{"list-type", "2"}, {"prefix", "x/y"}});
  in.headers = {{"host", "127.0.0.1:9000"}};
  in.payload_hash = std::string(kUnsignedPayload);
  // 2024-01-01T12:00:00Z
  SignedRequest s = signer.Sign(
      in, std::chrono::system_clock::time_point(std::chrono::seconds(1704110400)));
  EXPECT_EQ(s.canonical_request,
            "GET\n/bucket/a%20b/%C3%BC\nlist-type=2&prefix=x%2Fy\n"
            "host:127.0.0.1:9000\n"
            "x-amz-content-sha256:UNSIGNED-PAYLOAD\n"
            "x-amz-date:20240101T120000Z\n"
            "x-amz-security-token:session-token/with+chars==\n\n"
            "host;x-amz-content-sha256;x-amz-date;x-amz-security-token\n"
            "UNSIGNED-PAYLOAD");
  EXPECT_EQ(s.signature,
            "a5015b247c48ed7657072673ddaa90454bd68d44cf9dae14c00fb36e3d1903e6");
  EXPECT_NE(std::find(s.headers.begin(), s.headers.end(),
                      "X-Amz-Security-Token: session-token/with+chars=="),
            s.headers.end());
}

TEST(SigV4Test, HeaderValuesAreCanonicalised) {
  CanonicalInput in;
  in.method = "GET";
  in.path = "";
  in.headers = {{"X-Amz-Meta-B", "  two   words\t here "},
                {"host", "h"},
                {"x-amz-meta-a", "1"},
                {"X-AMZ-META-A", "2"}};
  in.payload_hash = "p";
  std::string names;
  EXPECT_EQ(CanonicalRequest(in, &names),
            "GET\n/\n\nhost:h\nx-amz-meta-a:1,2\nx-amz-meta-b:two words here\n\n"
            "host;x-amz-meta-a;x-amz-meta-b\np");
  EXPECT_EQ(names, "host;x-amz-meta-a;x-amz-meta-b");
}

}  // namespace
}  // namespace turbozarr::sigv4
