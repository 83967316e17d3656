// Store: a flat map from string keys ("a/b/zarr.json", "a/b/c/0/1") to bytes,
// the bottom layer every array and group reads and writes through.
//
// A missing key is not an error: Get answers std::nullopt. Keys use "/" as the
// separator, never start or end with "/", and may not contain "." or ".."
// segments or backslashes; a store refuses such keys with InvalidArgument, so
// that no key can reach outside the store's root.
//
// Thread safety: every Store implementation is safe to call from many threads
// at once (each Read call with its own requests, answers and targets). A Set
// of one key is atomic: a concurrent read sees the old value or the new one,
// never a mixture.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr {

// Which bytes of a value to read.
struct ByteRange {
  // Whole value.
  static ByteRange Full() { return {}; }
  // `length` bytes from `offset`. A range that runs past the end is cut short.
  static ByteRange Of(uint64_t offset, uint64_t length) {
    return {offset, length, false};
  }
  // The last `length` bytes (all of them if the value is shorter).
  static ByteRange Suffix(uint64_t length) { return {0, length, true}; }

  bool IsFull() const { return !suffix && offset == 0 && length == kToEnd; }

  static constexpr uint64_t kToEnd = ~uint64_t{0};
  uint64_t offset = 0;
  uint64_t length = kToEnd;
  bool suffix = false;
};

struct KeyRange {
  std::string key;
  ByteRange range;
};

// The direct children of a prefix: keys stored right under it and the
// "directories" (prefixes) that have keys further down.
struct DirectoryListing {
  std::vector<std::string> keys;      // names relative to the prefix
  std::vector<std::string> prefixes;  // names relative to the prefix, no trailing '/'
};

// Where a read's bytes land (ReadRequest::target).
enum class ReadTarget : uint8_t {
  // *buffer becomes a buffer of its own holding the selected part; what it
  // held is released first. Get's target.
  kNewBuffer,
  // The part lands in *buffer, whose memory is reused when it is large
  // enough; what it held is lost. A reader that fetches chunk after chunk
  // into one buffer page-faults it in once rather than a fresh allocation
  // per chunk (which for chunks of many MiB costs as much as the read). A
  // store that receives its bytes in a buffer of its own (a remote one) may
  // hand that buffer over instead, which costs less than a copy.
  kReuseBuffer,
  // The part is written straight into `memory` when it is exactly
  // memory.size() bytes long, so a value that is a decoded chunk byte for
  // byte lands in the caller's array with no copy in between. Otherwise
  // `memory` holds nothing useful afterwards (the answer's length tells
  // the caller to read again into a buffer).
  kCallerMemory,
};

// One read: the part of `key`'s value that `range` selects, and where it
// lands. The request points at the caller's key and target, which must stay
// valid until Read returns.
struct ReadRequest {
  std::string_view key;
  ByteRange range;
  ReadTarget target = ReadTarget::kNewBuffer;
  Buffer* buffer = nullptr;  // kNewBuffer, kReuseBuffer
  MutableByteView memory;    // kCallerMemory

  static ReadRequest NewBuffer(std::string_view key, ByteRange range, Buffer& out) {
    return {key, range, ReadTarget::kNewBuffer, &out, {}};
  }
  static ReadRequest Reusing(std::string_view key, ByteRange range, Buffer& into) {
    return {key, range, ReadTarget::kReuseBuffer, &into, {}};
  }
  static ReadRequest Into(std::string_view key, ByteRange range, MutableByteView out) {
    return {key, range, ReadTarget::kCallerMemory, nullptr, out};
  }
};

// What one read found.
struct ReadAnswer {
  bool found = false;  // the key is present (a missing key is not an error)
  // The length of the selected part (cut short at the value's end). For a
  // kCallerMemory target the bytes were written only if this equals
  // memory.size(); buffer targets hold exactly this many bytes.
  uint64_t length = 0;
};

// What a store can do, as it is opened. A snapshot: none of it changes over
// a store's life, so readers may ask once and keep the answer.
struct StoreCapabilities {
  // Set, Erase and ErasePrefix may succeed. False for stores that refuse
  // every write (HTTP, an existing zip archive, a read-only view, a shard).
  bool writable = true;
  // How many requests this store serves best at once. 0 (local stores): one
  // per reading thread is right. Remote stores answer with the concurrency
  // that hides their latency, and readers then batch their reads into Read
  // calls of about that many requests.
  int requests_in_flight = 0;
};

// Store: the interface every store implements.
//
// Reads have one primitive, Read: a batch of requests, each with a byte
// range and a target (a fresh buffer, a reused buffer, or the caller's
// memory). Stores implement only Read, and do with a batch what suits them:
// remote stores keep its requests in flight together and merge neighbouring
// ranges of one key; a local store preads each straight into its target.
// Get, GetInto, GetReusing and GetMany are conveniences over it for callers
// and cost nothing beyond the one virtual call.
class Store {
 public:
  virtual ~Store() = default;

  // Serves `requests`, answering each in answers[i] (REQUIRES:
  // answers.size() == requests.size()). A missing key is found=false, its
  // target left empty (buffers) or untouched (memory). An error (a bad key,
  // an I/O failure) fails the whole batch; the answers and targets are then
  // unspecified. Requests may name the same key more than once.
  virtual Status Read(std::span<const ReadRequest> requests,
                      std::span<ReadAnswer> answers) = 0;

  // The value of `key` (or the part that `range` selects); nullopt if absent.
  Result<std::optional<Buffer>> Get(std::string_view key,
                                    ByteRange range = ByteRange::Full());

  // Reads straight into `out` (ReadTarget::kCallerMemory). Answers the
  // length of the selected part (when it differs from out.size(), `out`
  // holds nothing useful), or nullopt if `key` is absent.
  Result<std::optional<uint64_t>> GetInto(std::string_view key, ByteRange range,
                                          MutableByteView out);

  // Reads into `into`, reusing its memory (ReadTarget::kReuseBuffer). False
  // if `key` is absent (`into` is then empty).
  Result<bool> GetReusing(std::string_view key, ByteRange range, Buffer& into);

  // Many reads into fresh buffers at once, answers in the order asked.
  Result<std::vector<std::optional<Buffer>>> GetMany(std::span<const KeyRange> reads);

  // Size of the value in bytes, or nullopt if absent. The default reads the
  // value.
  virtual Result<std::optional<uint64_t>> Size(std::string_view key);

  // Stores `value` atomically under `key`, replacing what was there.
  virtual Status Set(std::string_view key, ByteView value) = 0;

  // As Set, handing `value` over: a store that keeps values in memory keeps
  // this buffer instead of copying it. The default calls Set with its bytes,
  // so wrappers that watch their Sets see this one too.
  virtual Status SetBuffer(std::string_view key, Buffer value) {
    return Set(key, value.view());
  }

  // Removes `key`; erasing an absent key is OK.
  virtual Status Erase(std::string_view key) = 0;

  // Removes every key that starts with `prefix` + "/" and `prefix` itself.
  // An empty prefix erases the whole store.
  virtual Status ErasePrefix(std::string_view prefix);

  // Every key under `prefix` (recursively), as full keys, sorted.
  virtual Result<std::vector<std::string>> List(std::string_view prefix) = 0;

  // The direct children of `prefix` ("" for the root).
  virtual Result<DirectoryListing> ListDirectory(std::string_view prefix);

  // What this store can do; see StoreCapabilities. The default: writable,
  // requests_in_flight 0.
  virtual StoreCapabilities Capabilities() const { return {}; }

  // Whether Prefetch is worth calling now. Not in StoreCapabilities, whose
  // answers hold for the store's life: this one changes from moment to
  // moment, and readers ask it before each chunk, so it stays a call of its
  // own that costs one relaxed load, beside the Prefetch it gates. Readers
  // prepare hints only while it is true: reads of data the store has at
  // hand then pay nothing for them. False by default; a local store
  // answers true while its reads have lately had to wait for the disk.
  virtual bool WantsPrefetch() const { return false; }

  // Hints that `keys` will be read soon, so that a store whose reads wait on
  // a device starts fetching their values now and the reads that follow
  // find them at hand. A hint reports nothing: a problem with a key is the
  // read's to report. The default does nothing.
  virtual void Prefetch(std::span<const std::string> /*keys*/) {}

  // Makes what was written so far complete in the store's own format. Most
  // stores finish each Set before it returns and answer OK at once; a store
  // that keeps an index of its own (a zip archive's central directory) writes
  // it here, and again from its destructor if anything changed since. Writing
  // may continue after a Flush.
  virtual Status Flush() { return Status::OK(); }

  // A human description such as "file:///data/x.zarr" used in error messages.
  virtual std::string Describe() const = 0;
};

// Checks a key against the rules above; the error names the key.
Status ValidateKey(std::string_view key);

// "a" + "b" -> "a/b"; an empty side is dropped.
std::string JoinKey(std::string_view a, std::string_view b);

// A store held entirely in memory.
std::shared_ptr<Store> MakeMemoryStore();

// A store over a local directory (created on first write if absent).
Result<std::shared_ptr<Store>> MakeLocalStore(std::string root);

// How an HTTP(S) store talks to its server. The defaults suit object stores
// and web servers across the internet; tests shrink the timeouts.
struct HttpOptions {
  // Time allowed to open a connection (TCP and TLS), per attempt.
  std::chrono::milliseconds connect_timeout{10'000};
  // An attempt that receives no byte for this long is abandoned and retried.
  std::chrono::milliseconds idle_timeout{30'000};
  // Longest time one attempt may take from start to last byte; 0: no limit.
  std::chrono::milliseconds request_timeout{0};
  // Requests in flight at once (HTTP/1.1: one connection each, kept open for
  // reuse). Further requests wait their turn.
  int max_concurrency = 64;
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
  // Headers sent with every request, as "Name: value".
  std::vector<std::string> headers;
  // Check TLS certificates and host names.
  bool verify_tls = true;
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

// How OpenStore opens a store; a field that does not apply to a store is
// ignored by it.
struct StoreOptions {
  // Refuse every write (Set, Erase, ErasePrefix answer InvalidArgument). A zip
  // archive opened read-only must exist.
  bool read_only = false;
  // Single-file stores (zip): start a new, empty archive even if the file
  // exists; it is replaced when first written (or flushed). Without this an
  // existing archive opens read-only and an absent one is created.
  bool truncate = false;
  // S3 stores: settings that win over the environment and the AWS shared
  // files (what they leave unset is filled in by S3Options::FromAwsConfig).
  S3Options s3;
  // S3 stores: the AWS profile to read; "" means $AWS_PROFILE, else "default".
  std::string s3_profile;
};

// Opens a store from a URL or a path:
//   "memory://"                  a new, empty in-memory store
//   "file:///p", "/p", "rel/p"   a local directory (created on first write)
//   "zip:///p.zip", "p.zip",     a zip archive: an existing one is read, a new
//   "file:///p.zip"              one is written (see StoreOptions::truncate);
//                                a path ending in ".zip" that is a directory
//                                stays a local directory store
//   "http(s)://host/p"          a read-only HTTP store (MakeHttpStore)
//   "s3://bucket/prefix"         an S3 store (MakeS3Store) with
//                                StoreOptions::s3, completed from the AWS
//                                environment and shared files
//                                (S3Options::FromAwsConfig)
// Schemes are case-insensitive. Unknown schemes are Unsupported; the message
// names the URL.
Result<std::shared_ptr<Store>> OpenStore(std::string_view url);
Result<std::shared_ptr<Store>> OpenStore(std::string_view url,
                                         const StoreOptions& options);

}  // namespace turbozarr
