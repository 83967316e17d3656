#include "store/s3_store.h"

#include <algorithm>
#include <charconv>
#include <future>

#include "store/http_parted_fetch.h"
#include "store/http_read_plan.h"
#include "store/s3_multipart.h"
#include "store/store_internal.h"

namespace turbozarr {

namespace {

constexpr size_t kDeleteBatch = 1000;  // DeleteObjects' limit

// How many requests of a batch are signed and queued at once, per unit of
// transport concurrency.
constexpr size_t kWindowPerConnection = 8;

bool Is2xx(long status) { return status >= 200 && status <= 299; }

}  // namespace

S3Store::S3Store(std::unique_ptr<S3Client> client, std::string prefix)
    : client_(std::move(client)), prefix_(std::move(prefix)) {}

std::string S3Store::ObjectKey(std::string_view key) const {
  return JoinKey(prefix_, key);
}

std::string S3Store::ListPrefix(std::string_view prefix) const {
  std::string p = JoinKey(prefix_, prefix);
  if (!p.empty()) p += '/';
  return p;
}

StoreCapabilities S3Store::Capabilities() const {
  return {.writable = true,
          .requests_in_flight = std::max(1, client_->options().http.max_concurrency)};
}

namespace {

// Whether a GET or HEAD of an object was answered as a read can use: a
// 2xx, 416, or 404 for a missing key (a missing bucket is a broken store).
Status Usable(const S3Client& client, std::string_view object_key, const HttpRequest& req,
              const Result<HttpResponse>& result) {
  if (!result.ok()) return result.status();
  const HttpResponse& r = *result;
  if (r.status == 404) {
    if (S3Client::ErrorCode(r) == "NoSuchBucket")
      return client.Error(req.method, object_key, r);
    return Status::OK();
  }
  if (r.status != 416 && !Is2xx(r.status)) return client.Error(req.method, object_key, r);
  return Status::OK();
}

}  // namespace

Status S3Store::Read(std::span<const ReadRequest> requests,
                     std::span<ReadAnswer> answers) {
  for (const ReadRequest& r : requests) TZ_RETURN_NOT_OK(ValidateKey(r.key));
  const HttpOptions& opt = client_->options().http;
  auto fetch = [&](std::span<const internal::PlannedRead> plan,
                   std::span<std::optional<internal::FetchedBytes>> out) -> Status {
    std::vector<std::string> objects;
    std::vector<HttpRequest> made;
    objects.reserve(plan.size());
    made.reserve(plan.size());
    for (const internal::PlannedRead& p : plan) {
      objects.push_back(ObjectKey(p.key));
      made.push_back(client_->Request(internal::PlannedMethod(p), objects.back()));
      made.back().range = internal::PlannedRange(p);
    }
    // Object stores answer ranges: a whole object read with few others in
    // flight comes in parts (http_parted_fetch.h), each signed as the whole.
    internal::PartedWindow w = internal::CutIntoParts(
        plan, std::move(made), /*split=*/true, client_->transport().options().max_connections);
    std::vector<Result<HttpResponse>> responses =
        internal::SendWindow(client_->transport(), w);
    return internal::CollectWindow(
        client_->transport(), w, responses,
        [&](size_t p, const HttpRequest& req, const Result<HttpResponse>& answer) {
          return Usable(*client_, objects[p], req, answer);
        },
        [&](size_t p) { return client_->Request("GET", objects[p]); }, out);
  };
  // Requests are signed a window at a time, so that a huge batch never holds
  // more signed requests or bodies than keep the connections busy.
  const size_t window =
      kWindowPerConnection * static_cast<size_t>(std::max(1, opt.max_concurrency));
  return internal::ReadPlanned(requests, answers, {opt.coalesce_gap, opt.coalesce_max},
                               window, fetch);
}

Result<std::optional<uint64_t>> S3Store::Size(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  const std::string object = ObjectKey(key);
  TZ_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->transport().Fetch(client_->Request("HEAD", object)));
  if (r.status == 404) return std::optional<uint64_t>();
  if (!Is2xx(r.status)) return client_->Error("HEAD", object, r);
  std::optional<std::string_view> v = r.Header("content-length");
  uint64_t n = 0;
  if (v) {
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec == std::errc() && end == v->data() + v->size())
      return std::optional<uint64_t>(n);
  }
  return Status::IOError(client_->Describe(object) +
                         ": HEAD answered no valid Content-Length");
}

Status S3Store::Set(std::string_view key, ByteView value) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  const std::string object = ObjectKey(key);
  const S3Options& o = client_->options();
  if (value.size() > o.multipart_threshold) {
    return UploadMultipart(*client_, object, value, o.multipart_part_size).status();
  }
  TZ_ASSIGN_OR_RETURN(HttpResponse r, client_->transport().Fetch(
                                          client_->Request("PUT", object, {}, value)));
  if (!Is2xx(r.status)) return client_->Error("PUT", object, r);
  return Status::OK();
}

Status S3Store::Erase(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  const std::string object = ObjectKey(key);
  TZ_ASSIGN_OR_RETURN(HttpResponse r,
                      client_->transport().Fetch(client_->Request("DELETE", object)));
  if (Is2xx(r.status)) return Status::OK();
  if (r.status == 404 && S3Client::ErrorCode(r) != "NoSuchBucket") return Status::OK();
  return client_->Error("DELETE", object, r);
}

Status S3Store::ListObjects(const std::string& object_prefix, bool delimiter,
                            std::vector<std::string>* keys,
                            std::vector<std::string>* common_prefixes) const {
  std::string token;
  for (;;) {
    sigv4::QueryParams query = {
        {"list-type", "2"},
        {"encoding-type", "url"},
        {"max-keys", std::to_string(client_->options().list_page_size)}};
    if (!object_prefix.empty()) query.emplace_back("prefix", object_prefix);
    if (delimiter) query.emplace_back("delimiter", "/");
    if (!token.empty()) query.emplace_back("continuation-token", token);
    TZ_ASSIGN_OR_RETURN(HttpResponse r,
                        client_->transport().Fetch(client_->Request("GET", "", query)));
    if (r.status != 200) return client_->Error("ListObjectsV2", object_prefix, r);
    Result<s3xml::ListPage> page = s3xml::ParseListPage(r.body.chars(), true);
    if (!page.ok()) {
      return Status(page.status().code(),
                    client_->Describe(object_prefix) +
                        ": ListObjectsV2: " + page.status().message());
    }
    for (std::string& k : page->keys) keys->push_back(std::move(k));
    if (common_prefixes != nullptr) {
      for (std::string& p : page->common_prefixes)
        common_prefixes->push_back(std::move(p));
    }
    if (!page->truncated) return Status::OK();
    if (page->next_continuation_token == token) {
      return Status::IOError(
          client_->Describe(object_prefix) +
          ": ListObjectsV2 answered the same continuation token twice");
    }
    token = std::move(page->next_continuation_token);
  }
}

Result<std::vector<std::string>> S3Store::List(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  // The prefix itself may be a key: ask while the listing runs.
  std::future<Result<HttpResponse>> exact;
  std::string exact_object;
  if (!prefix.empty()) {
    exact_object = ObjectKey(prefix);
    auto promise = std::make_shared<std::promise<Result<HttpResponse>>>();
    exact = promise->get_future();
    client_->transport().Submit(
        client_->Request("HEAD", exact_object),
        [promise](Result<HttpResponse> r) { promise->set_value(std::move(r)); });
  }
  const std::string list_prefix = ListPrefix(prefix);
  std::vector<std::string> objects;
  Status listed = ListObjects(list_prefix, false, &objects, nullptr);
  std::vector<std::string> out;
  if (exact.valid()) {
    Result<HttpResponse> r = exact.get();  // waited for even when the listing failed
    TZ_RETURN_NOT_OK(listed);
    if (!r.ok()) return r.status();
    if (Is2xx(r->status)) {
      out.emplace_back(prefix);
    } else if (r->status != 404) {
      return client_->Error("HEAD", exact_object, *r);
    }
  }
  TZ_RETURN_NOT_OK(listed);
  const size_t strip = prefix_.empty() ? 0 : prefix_.size() + 1;
  for (std::string& object : objects) {
    std::string key = object.substr(strip);
    if (ValidateKey(key).ok()) out.push_back(std::move(key));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<DirectoryListing> S3Store::ListDirectory(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  const std::string list_prefix = ListPrefix(prefix);
  std::vector<std::string> objects, prefixes;
  TZ_RETURN_NOT_OK(ListObjects(list_prefix, true, &objects, &prefixes));
  DirectoryListing out;
  for (const std::string& object : objects) {
    std::string name = object.substr(list_prefix.size());
    if (ValidateKey(name).ok()) out.keys.push_back(std::move(name));
  }
  for (const std::string& p : prefixes) {
    if (p.size() <= list_prefix.size() + 1 || p.back() != '/') continue;
    std::string name = p.substr(list_prefix.size(), p.size() - list_prefix.size() - 1);
    if (ValidateKey(name).ok()) out.prefixes.push_back(std::move(name));
  }
  std::sort(out.keys.begin(), out.keys.end());
  std::sort(out.prefixes.begin(), out.prefixes.end());
  return out;
}

class S3Update final : public KeyUpdate {
 public:
  S3Update(S3Store& store, std::string key)
      : store_(store), key_(std::move(key)), object_(store.ObjectKey(key_)) {}

  Result<std::optional<Buffer>> Read() override {
    const S3Client& client = *store_.client_;
    TZ_ASSIGN_OR_RETURN(HttpResponse r,
                        client.transport().Fetch(client.Request("GET", object_)));
    read_ = true;
    if (r.status == 404 && S3Client::ErrorCode(r) != "NoSuchBucket") {
      etag_.reset();
      return std::optional<Buffer>();
    }
    if (!Is2xx(r.status)) return client.Error("GET", object_, r);
    std::optional<std::string_view> etag = r.Header("etag");
    if (!etag || etag->empty()) {
      return Status::IOError(client.Describe(object_) +
                             ": GET answered no ETag, so a write cannot be made "
                             "conditional on it");
    }
    etag_ = std::string(*etag);
    return std::optional<Buffer>(std::move(r.body));
  }

  Result<bool> Commit(std::optional<ByteView> value) override {
    if (!read_) {
      TZ_RETURN_NOT_OK(value ? store_.Set(key_, *value) : store_.Erase(key_));
      return true;
    }
    const S3Client& client = *store_.client_;
    if (!value) {
      // Absent when read and absent wanted: nothing to change, and the
      // update takes effect as of its read.
      if (!etag_) return true;
      TZ_ASSIGN_OR_RETURN(HttpResponse r,
                          client.transport().Fetch(client.Request(
                              "DELETE", object_, {}, {}, {"If-Match: " + *etag_})));
      if (Is2xx(r.status)) return true;
      if (Conflict(r)) return false;
      return client.Error("DELETE", object_, r);
    }
    std::vector<std::string> condition = {etag_ ? "If-Match: " + *etag_
                                                : std::string("If-None-Match: *")};
    const S3Options& o = client.options();
    if (value->size() > o.multipart_threshold) {
      bool condition_failed = false;
      Result<int> parts = UploadMultipart(client, object_, *value, o.multipart_part_size,
                                          std::move(condition), &condition_failed);
      if (condition_failed) return false;
      TZ_RETURN_NOT_OK(parts.status());
      return true;
    }
    TZ_ASSIGN_OR_RETURN(HttpResponse r, client.transport().Fetch(client.Request(
                                            "PUT", object_, {}, *value, condition)));
    if (Is2xx(r.status)) return true;
    if (Conflict(r)) return false;
    return client.Error("PUT", object_, r);
  }

 private:
  // A refusal for the condition: 412; 409 when S3 saw another conditional
  // write race this one; 404 when the object read was deleted since (S3
  // answers If-Match on an absent object so).
  static bool Conflict(const HttpResponse& r) {
    return r.status == 412 || r.status == 409 ||
           (r.status == 404 && S3Client::ErrorCode(r) != "NoSuchBucket");
  }

  S3Store& store_;
  const std::string key_;
  const std::string object_;
  bool read_ = false;
  std::optional<std::string> etag_;  // nullopt: absent when read
};

Result<std::vector<std::unique_ptr<KeyUpdate>>> S3Store::BeginUpdates(
    std::span<const std::string> keys) {
  std::vector<std::unique_ptr<KeyUpdate>> updates;
  updates.reserve(keys.size());
  for (const std::string& key : keys) {
    TZ_RETURN_NOT_OK(ValidateKey(key));
    updates.push_back(std::make_unique<S3Update>(*this, key));
  }
  return updates;
}

Status S3Store::ErasePrefix(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, List(prefix));
  std::vector<std::string> objects;
  objects.reserve(keys.size());
  for (const std::string& k : keys) objects.push_back(ObjectKey(k));
  return DeleteObjects(std::move(objects));
}

Status S3Store::DeleteObjects(std::vector<std::string> object_keys) const {
  // Keys that XML cannot carry go one DELETE each.
  std::vector<std::string> batched, single;
  for (std::string& k : object_keys) {
    (s3xml::CanHold(k) ? batched : single).push_back(std::move(k));
  }
  std::vector<std::string> bodies;
  for (size_t i = 0; i < batched.size(); i += kDeleteBatch) {
    const size_t n = std::min(kDeleteBatch, batched.size() - i);
    bodies.push_back(s3xml::DeleteObjectsXml(std::span(batched).subspan(i, n)));
  }
  std::vector<HttpRequest> requests;
  for (const std::string& body : bodies) {
    requests.push_back(
        client_->Request("POST", "", {{"delete", ""}}, AsBytes(body),
                         {"Content-MD5: " + sigv4::Base64Md5(AsBytes(body)),
                          "Content-Type: application/xml"}));
  }
  for (const std::string& k : single) requests.push_back(client_->Request("DELETE", k));
  std::vector<Result<HttpResponse>> responses = client_->transport().FetchMany(requests);
  for (size_t i = 0; i < responses.size(); ++i) {
    if (!responses[i].ok()) return responses[i].status();
    const HttpResponse& r = *responses[i];
    if (i >= bodies.size()) {
      const std::string& k = single[i - bodies.size()];
      if (!Is2xx(r.status) && r.status != 404) return client_->Error("DELETE", k, r);
      continue;
    }
    if (r.status != 200) return client_->Error("DeleteObjects", "", r);
    Result<std::vector<s3xml::S3Error>> errors = s3xml::ParseDeleteErrors(r.body.chars());
    if (!errors.ok()) {
      return Status::IOError(Describe() +
                             ": DeleteObjects: " + errors.status().message());
    }
    for (const s3xml::S3Error& e : *errors) {
      if (e.code == "NoSuchKey") continue;
      return Status::IOError(client_->Describe(e.key) + ": DeleteObjects failed: " +
                             e.code + (e.message.empty() ? "" : ": " + e.message));
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<Store>> MakeS3Store(std::string bucket, std::string prefix,
                                           S3Options options) {
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(prefix.begin());
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (Status s = internal::ValidatePrefix(prefix); !s.ok()) {
    return Status::InvalidArgument("S3 store s3://" + bucket + "/" + prefix +
                                   ": bad prefix: " + s.message());
  }
  TZ_ASSIGN_OR_RETURN(std::unique_ptr<S3Client> client,
                      S3Client::Make(std::move(bucket), std::move(options)));
  return std::shared_ptr<Store>(
      std::make_shared<S3Store>(std::move(client), std::move(prefix)));
}

}  // namespace turbozarr
