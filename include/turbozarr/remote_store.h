// Remote stores: the options and factories of the stores that reach their
// values over the network, an HTTP(S) server (read-only) and an S3 bucket.
// Both are Stores like any other (store.h); this header is what a caller
// includes to choose timeouts, retries, concurrency, range merging and
// credentials. OpenStore (open_store.h) opens them by URL.
//
// Thread safety: the options are plain values; the stores made are safe to
// call from many threads at once, as every Store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

// How an HTTP(S) store talks to its server. The defaults suit object stores
// and web servers across the internet; tests shrink the timeouts.
// How a remote store reaches its server. Stores opened with equal options
// in one process share one pool of open connections and one pacing policy
// per host.
struct HttpOptions {
  // Time allowed to open a connection (TCP and TLS), per attempt: long
  // enough for two lost SYNs (retransmitted after 1 s and 3 s) and a TLS
  // handshake across the world, short enough that an attempt stuck in a
  // full backlog is given up and retried (after a backoff) on a new one.
  std::chrono::milliseconds connect_timeout{5'000};
  // An attempt that receives no byte for this long is abandoned and retried.
  std::chrono::milliseconds idle_timeout{30'000};
  // Longest time one attempt may take from start to last byte; 0: no limit.
  std::chrono::milliseconds request_timeout{0};
  // Longest time one request may take in all, from the call to its answer:
  // every attempt, redirect and backoff wait included. A request still
  // unanswered then fails with an IOError that names its URL and says how
  // many attempts were made; 0: no limit (the retries and timeouts above
  // bound it).
  std::chrono::milliseconds deadline{0};
  // Requests in flight at once, to all hosts together (over HTTP/2 they
  // share connections). Further requests wait their turn.
  int max_concurrency = 64;
  // Connections open at once to one host (scheme, name and port), kept open
  // and reused across requests; over HTTP/1.1 a connection carries one
  // request at a time, so this also caps the requests in flight to a host.
  // Within it the transport adapts: it opens new connections a few at a
  // time (at most 4 waiting for their first answer, so that a server with a
  // small listen backlog is never flooded), grows the requests in flight
  // while the server keeps up, and halves them on connection failures,
  // 429 and 503 (a Retry-After pauses the host). 0: the environment
  // variable TURBOZARR_HTTP_MAX_CONNECTIONS if set, else 32.
  int max_connections = 0;
  // Further attempts after a failed one: HTTP 5xx, 429 or 408, a connection
  // refused, reset or timed out, or a body whose length is not the one
  // announced. The n-th retry waits a random time in [d/2, d], where
  // d = min(backoff_max, backoff_base * 2^(n-1)), or longer if the server
  // asks so with Retry-After.
  int max_retries = 5;
  std::chrono::milliseconds backoff_base{100};
  std::chrono::milliseconds backoff_max{10'000};
  // A batched Read fetches byte ranges of one key that lie at most `coalesce_gap`
  // bytes apart as one request of at most `coalesce_max` bytes.
  uint64_t coalesce_gap = 64 * 1024;
  uint64_t coalesce_max = 16 * 1024 * 1024;
  // Redirects (301, 302, 303, 307, 308; at most 8 in a row) are followed to
  // the same host name only, and never from https to http: a redirect to
  // another host would send it the request's headers, credentials or signed
  // URL included, so it fails with an IOError naming both hosts. true
  // follows redirects to any host (public data behind a CDN).
  bool redirects_to_other_hosts = false;
  // Headers sent with every request, as "Name: value".
  std::vector<std::string> headers;
  // Check TLS certificates and host names.
  bool verify_tls = true;
  // A PEM file of the certificate authorities to trust instead of the
  // system's (a private or institutional CA); "" for the system's.
  std::string ca_file;
  // Use HTTP/2 where an https server offers it: one connection carries many
  // requests at once, so reads need no more handshakes than one. false keeps
  // to HTTP/1.1.
  bool http2 = true;
  std::string user_agent = "turbozarr";
};

// A read-only store over an HTTP(S) server: key "a/b" is <base_url>/a/b
// (percent-encoded; a query string in `base_url` is kept after the key).
// Missing keys are HTTP 404. Byte ranges become Range requests, a batched Read
// keeps them in flight together, and listing is not supported (open groups through
// consolidated metadata, arrays by path).
Result<std::shared_ptr<Store>> MakeHttpStore(std::string base_url,
                                             HttpOptions options = {});

// Where the bucket goes in an S3 request's URL: in the path
// (http://host/bucket/key) or in the host name (https://bucket.host/key).
enum class S3Addressing {
  kAuto,  // path-style with an endpoint (or a bucket name with '.'), else virtual
  kPath,
  kVirtualHosted,
};

// How an S3 store reaches its bucket.
struct S3Options {
  // "http(s)://host[:port]" of an S3-compatible server; "" for AWS itself
  // (https://s3.<region>.amazonaws.com).
  std::string endpoint;
  // The region requests are signed for; "" means us-east-1.
  std::string region;
  // Credentials. An empty access key sends unsigned (anonymous) requests,
  // which public buckets accept.
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials only
  S3Addressing addressing = S3Addressing::kAuto;
  // Values larger than this are uploaded in parts of `multipart_part_size`
  // bytes (5 MiB to 5 GiB, grown when a value would need more than 10,000
  // parts), several at once; the object appears only when every part is in.
  uint64_t multipart_threshold = uint64_t{64} << 20;
  uint64_t multipart_part_size = uint64_t{16} << 20;
  // Hash request bodies into the signature, so that the server checks every
  // byte it stores. false sends UNSIGNED-PAYLOAD and saves the hashing.
  bool sign_payload = true;
  // Keys asked for per listing request (ListObjectsV2 max-keys), 1 to 1000.
  int list_page_size = 1000;
  // The HTTP transport: concurrency, timeouts, retries, range merging.
  HttpOptions http;

  // Options from the usual AWS environment variables: AWS_ACCESS_KEY_ID,
  // AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (else
  // AWS_DEFAULT_REGION), AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL); the
  // rest at their defaults. Unset variables leave fields empty. The shared
  // files are not read (see FromAwsConfig).
  static S3Options FromEnvironment();

  // `options` with what it leaves unset (empty strings, kAuto addressing)
  // filled in as the AWS CLI and SDKs do: from the environment variables
  // above, else from an AWS profile in the shared files,
  // $AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials) and
  // $AWS_CONFIG_FILE (default ~/.aws/config):
  // aws_access_key_id, aws_secret_access_key, aws_session_token, region,
  // endpoint_url and, in an "s3 =" block, endpoint_url and addressing_style.
  // The three credentials are taken together from one place. The profile is
  // `profile`, else $AWS_PROFILE, else "default"; a profile named by
  // `profile` takes its credentials from the files even when the environment
  // has keys (as the CLI's --profile does). A missing file is no error, nor
  // is a missing "default" profile; no credentials anywhere means anonymous
  // requests. Errors: a malformed file (naming the file and line), a profile
  // other than "default" that neither file has, half a key pair, and a
  // profile whose credentials come from a provider this store cannot use.
  // Instance metadata (IMDS), container, SSO, assumed-role, web-identity and
  // credential_process credentials are not supported.
  static Result<S3Options> FromAwsConfig(S3Options options, std::string profile = "");
};

// A store over the objects of an S3 bucket (AWS or an S3-compatible server)
// whose keys start with `prefix` + "/" ("" for the whole bucket): store key
// "a/b" is object "<prefix>/a/b". Requests are signed with AWS Signature
// Version 4. Reads are ranged GETs, a batch is kept in flight together
// (neighbouring ranges merged, as for HTTP), Set is one PUT or a multipart
// upload, Erase a DELETE, ErasePrefix lists then deletes in batches, and
// List/ListDirectory page through ListObjectsV2. Objects whose names are not
// valid store keys (such as "dir/" folder markers) are left out of listings.
Result<std::shared_ptr<Store>> MakeS3Store(std::string bucket, std::string prefix,
                                           S3Options options = {});

}  // namespace turbozarr
