// S3Client without a server: where requests go under each addressing style,
// what is signed, anonymous requests, option checks and the environment.
#include "store/s3_client.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "testing/aws_test_environment.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

std::unique_ptr<S3Client> MustMake(const std::string& bucket, S3Options o) {
  Result<std::unique_ptr<S3Client>> c = S3Client::Make(bucket, std::move(o));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(*c) : nullptr;
}

S3Options Signed(std::string endpoint = "") {
  S3Options o;
  o.endpoint = std::move(endpoint);
  o.access_key_id = "AKIDEXAMPLE";
  o.secret_access_key = "secret";
  return o;
}

// The value of header `name` ("Name: value" lines), or "<none>".
std::string HeaderOf(const HttpRequest& r, std::string_view name) {
  for (const std::string& h : r.headers) {
    if (h.size() > name.size() && h.compare(0, name.size(), name) == 0 &&
        h[name.size()] == ':') {
      return h.substr(name.size() + 2);
    }
  }
  return "<none>";
}

TEST(S3ClientTest, PathStyleWithAnEndpoint) {
  auto c = MustMake("bkt", Signed("http://127.0.0.1:9000/"));
  ASSERT_NE(c, nullptr);
  HttpRequest r = c->Request("GET", "a b/\xC3\xBC+=");
  EXPECT_EQ(r.url, "http://127.0.0.1:9000/bkt/a%20b/%C3%BC%2B%3D");
  EXPECT_EQ(HeaderOf(r, "Host"), "127.0.0.1:9000");
  r = c->Request("GET", "", {{"prefix", "a b/c"}, {"list-type", "2"}});
  EXPECT_EQ(r.url, "http://127.0.0.1:9000/bkt?list-type=2&prefix=a%20b%2Fc");
  EXPECT_EQ(c->Describe("k/x"), "s3://bkt/k/x");
  EXPECT_EQ(c->Describe(""), "s3://bkt");
}

TEST(S3ClientTest, VirtualHostedOnAwsByDefault) {
  S3Options o = Signed();
  o.region = "eu-west-1";
  auto c = MustMake("bkt", o);
  ASSERT_NE(c, nullptr);
  HttpRequest r = c->Request("HEAD", "k");
  EXPECT_EQ(r.url, "https://bkt.s3.eu-west-1.amazonaws.com/k");
  EXPECT_EQ(HeaderOf(r, "Host"), "bkt.s3.eu-west-1.amazonaws.com");
  EXPECT_NE(HeaderOf(r, "Authorization").find("/eu-west-1/s3/aws4_request"),
            std::string::npos);
  r = c->Request("GET", "", {{"list-type", "2"}});
  EXPECT_EQ(r.url, "https://bkt.s3.eu-west-1.amazonaws.com/?list-type=2");

  // A dotted bucket name would not match AWS's wildcard certificate.
  c = MustMake("my.bkt", Signed());
  EXPECT_EQ(c->Request("GET", "k").url, "https://s3.us-east-1.amazonaws.com/my.bkt/k");

  // Chosen explicitly, either style with any endpoint.
  o = Signed("https://minio.example:9000/base/");
  o.addressing = S3Addressing::kVirtualHosted;
  c = MustMake("bkt", o);
  EXPECT_EQ(c->Request("GET", "k").url, "https://bkt.minio.example:9000/base/k");
  o.addressing = S3Addressing::kPath;
  c = MustMake("bkt", o);
  EXPECT_EQ(c->Request("GET", "k").url, "https://minio.example:9000/base/bkt/k");
}

TEST(S3ClientTest, WhatIsSigned) {
  auto c = MustMake("bkt", Signed("http://h:1"));
  ASSERT_NE(c, nullptr);
  const std::string body = "hello";
  HttpRequest r = c->Request("PUT", "k", {}, AsBytes(body), {"Content-MD5: abc=="});
  EXPECT_EQ(HeaderOf(r, "X-Amz-Content-Sha256"), sigv4::Sha256Hex(AsBytes(body)));
  EXPECT_EQ(HeaderOf(r, "Content-MD5"), "abc==");
  const std::string auth = HeaderOf(r, "Authorization");
  EXPECT_TRUE(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")) << auth;
  EXPECT_NE(auth.find("SignedHeaders=content-md5;host;x-amz-content-sha256;x-amz-date,"),
            std::string::npos)
      << auth;
  EXPECT_EQ(r.body.data(), reinterpret_cast<const std::byte*>(body.data()));
  EXPECT_EQ(HeaderOf(r, "X-Amz-Security-Token"), "<none>");

  S3Options o = Signed("http://h:1");
  o.sign_payload = false;
  o.session_token = "tok";
  c = MustMake("bkt", o);
  r = c->Request("PUT", "k", {}, AsBytes(body));
  EXPECT_EQ(HeaderOf(r, "X-Amz-Content-Sha256"), "UNSIGNED-PAYLOAD");
  EXPECT_EQ(HeaderOf(r, "X-Amz-Security-Token"), "tok");
  EXPECT_NE(HeaderOf(r, "Authorization").find("x-amz-security-token"), std::string::npos);
  // Bodiless requests always carry the empty body's hash.
  r = c->Request("GET", "k");
  EXPECT_EQ(HeaderOf(r, "X-Amz-Content-Sha256"), sigv4::Sha256Hex({}));
}

TEST(S3ClientTest, AnonymousRequestsAreNotSigned) {
  S3Options o;
  o.endpoint = "http://h:1";
  auto c = MustMake("public", o);
  ASSERT_NE(c, nullptr);
  HttpRequest r = c->Request("GET", "k");
  EXPECT_EQ(r.headers, std::vector<std::string>{"Host: h:1"});
}

TEST(S3ClientTest, BadOptionsAreRefused) {
  auto refused = [](const std::string& bucket, const S3Options& o) {
    Result<std::unique_ptr<S3Client>> c = S3Client::Make(bucket, o);
    return !c.ok() && c.status().code() == StatusCode::kInvalidArgument;
  };
  EXPECT_TRUE(refused("", Signed()));
  EXPECT_TRUE(refused("a/b", Signed()));
  EXPECT_TRUE(refused("a b", Signed()));
  EXPECT_TRUE(refused("b", Signed("ftp://h")));
  EXPECT_TRUE(refused("b", Signed("h:9000")));
  EXPECT_TRUE(refused("b", Signed("http://user:pw@h")));
  EXPECT_TRUE(refused("b", Signed("http://")));
  S3Options o = Signed();
  o.secret_access_key.clear();
  EXPECT_TRUE(refused("b", o));
  o = Signed();
  o.multipart_part_size = 1 << 20;
  EXPECT_TRUE(refused("b", o));
  o = Signed();
  o.list_page_size = 0;
  EXPECT_TRUE(refused("b", o));
  o = Signed();
  o.list_page_size = 1001;
  EXPECT_TRUE(refused("b", o));
  o = Signed();
  o.region = "us-east-1/x";
  EXPECT_TRUE(refused("b", o));
  auto bad_prefix = MakeS3Store("b", "a/../c", Signed());
  EXPECT_EQ(bad_prefix.status().code(), StatusCode::kInvalidArgument);
}

TEST(S3ClientTest, OptionsFromTheEnvironment) {
  AwsTestEnvironment env;
  env.Set("AWS_ACCESS_KEY_ID", "AK");
  env.Set("AWS_SECRET_ACCESS_KEY", "SK");
  env.Set("AWS_SESSION_TOKEN", "TOK");
  env.Set("AWS_DEFAULT_REGION", "eu-central-1");
  env.Set("AWS_ENDPOINT_URL", "http://generic:1");
  S3Options o = S3Options::FromEnvironment();
  EXPECT_EQ(o.access_key_id, "AK");
  EXPECT_EQ(o.secret_access_key, "SK");
  EXPECT_EQ(o.session_token, "TOK");
  EXPECT_EQ(o.region, "eu-central-1");
  EXPECT_EQ(o.endpoint, "http://generic:1");
  // The specific variables win over the general ones.
  env.Set("AWS_REGION", "ap-south-1");
  env.Set("AWS_ENDPOINT_URL_S3", "http://s3only:2");
  o = S3Options::FromEnvironment();
  EXPECT_EQ(o.region, "ap-south-1");
  EXPECT_EQ(o.endpoint, "http://s3only:2");
}

}  // namespace
}  // namespace turbozarr
