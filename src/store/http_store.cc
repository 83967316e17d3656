#include "store/http_store.h"

#include <algorithm>
#include <charconv>

#include "store/http_parted_fetch.h"
#include "store/http_read_plan.h"
#include "store/store_internal.h"
#include "store/url_encoding.h"
#include "store/url_origin.h"

namespace turbozarr {

namespace {

std::string Attempts(const HttpResponse& r) {
  return r.attempts > 1 ? " (after " + std::to_string(r.attempts) + " attempts)" : "";
}

}  // namespace

HttpStore::HttpStore(std::string base, std::string query, HttpOptions options)
    : base_(std::move(base)),
      query_(std::move(query)),
      transport_(std::make_unique<HttpTransport>(std::move(options))) {}

std::string HttpStore::Url(std::string_view key) const {
  return base_ + "/" + PercentEncode(key, Slash::kKeep) + query_;
}

Status HttpStore::ReadOnly(std::string_view what) const {
  return Status::InvalidArgument(base_ + ": the store is read-only (" +
                                 std::string(what) + ")");
}

namespace {

// Whether `key` names a Zarr metadata document (v2 or v3, consolidated
// metadata included), the only keys whose absence the store remembers.
bool IsMetadataKey(std::string_view key) {
  const size_t slash = key.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  return name == "zarr.json" || name == ".zarray" || name == ".zgroup" ||
         name == ".zattrs" || name == ".zmetadata";
}

}  // namespace

bool HttpStore::KnownAbsent(std::string_view key) const {
  if (!IsMetadataKey(key)) return false;
  std::lock_guard<std::mutex> lock(absent_mutex_);
  return absent_.find(key) != absent_.end();
}

void HttpStore::NoteAbsent(std::string_view key) {
  if (!IsMetadataKey(key)) return;
  std::lock_guard<std::mutex> lock(absent_mutex_);
  absent_.emplace(key);
}

Status HttpStore::NoListing() const {
  return Status::Unsupported(base_ +
                             ": HTTP servers cannot list keys; open groups through "
                             "consolidated metadata and arrays by path");
}

namespace {

// Whether `result` is an answer a read of `key` can use: a 2xx, 404, 410
// or 416. The error names the key's URL.
Status Usable(const std::string& base, std::string_view key, const HttpRequest& req,
              const Result<HttpResponse>& result) {
  if (!result.ok()) return result.status();
  const HttpResponse& r = *result;
  if (r.status == 404 || r.status == 410 || r.status == 416) return Status::OK();
  if (r.status < 200 || r.status > 299) {
    return Status::IOError(req.method + " " + base + "/" + std::string(key) + ": HTTP " +
                           std::to_string(r.status) + Attempts(r));
  }
  return Status::OK();
}

// Whether `r` shows that its server answers ranges: a 206, or
// "Accept-Ranges: bytes" (RFC 9110 14.3), which servers that serve ranges
// send with their answers and servers that ignore them (Python's
// http.server) do not.
bool AnswersRanges(const HttpResponse& r) {
  if (r.status == 206) return true;
  const std::optional<std::string_view> v = r.Header("accept-ranges");
  return v && v->find("bytes") != std::string_view::npos;
}

}  // namespace

Status HttpStore::Read(std::span<const ReadRequest> requests,
                       std::span<ReadAnswer> answers) {
  for (const ReadRequest& r : requests) TZ_RETURN_NOT_OK(ValidateKey(r.key));
  // Documents known to be absent are answered here; the rest go out.
  std::vector<size_t> asked;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (KnownAbsent(requests[i].key)) {
      answers[i] = ReadAnswer{};
    } else {
      asked.push_back(i);
    }
  }
  if (asked.size() < requests.size()) {
    std::vector<ReadRequest> some;
    std::vector<ReadAnswer> some_answers(asked.size());
    for (size_t i : asked) some.push_back(requests[i]);
    TZ_RETURN_NOT_OK(Fetch(some, some_answers));
    for (size_t k = 0; k < asked.size(); ++k) answers[asked[k]] = some_answers[k];
    return Status::OK();
  }
  return Fetch(requests, answers);
}

Status HttpStore::Fetch(std::span<const ReadRequest> requests,
                        std::span<ReadAnswer> answers) {
  const HttpOptions& opt = transport_->options();
  auto fetch = [&](std::span<const internal::PlannedRead> plan,
                   std::span<std::optional<internal::FetchedBytes>> out) -> Status {
    // Whole values are cut into parts (http_parted_fetch.h) once the server
    // has shown that it answers ranges.
    const bool split = ranges_.load(std::memory_order_relaxed) == kRangesAnswered;
    std::vector<HttpRequest> made(plan.size());
    for (size_t p = 0; p < plan.size(); ++p) {
      made[p].method = internal::PlannedMethod(plan[p]);
      made[p].url = Url(plan[p].key);
      made[p].range = internal::PlannedRange(plan[p]);
    }
    internal::PartedWindow w =
        internal::CutIntoParts(plan, std::move(made), split, opt.max_connections);
    std::vector<Result<HttpResponse>> responses = internal::SendWindow(*transport_, w);
    for (size_t r = 0; r < responses.size() && !split; ++r) {
      if (responses[r].ok() && AnswersRanges(*responses[r])) {
        int unknown = kRangesUnknown;
        ranges_.compare_exchange_strong(unknown, kRangesAnswered, std::memory_order_relaxed);
      }
    }
    TZ_RETURN_NOT_OK(internal::CollectWindow(
        *transport_, w, responses,
        [&](size_t p, const HttpRequest& req, const Result<HttpResponse>& answer) {
          return Usable(base_, plan[p].key, req, answer);
        },
        [&](size_t p) {
          HttpRequest whole;
          whole.url = Url(plan[p].key);
          return whole;
        },
        out));
    if (w.whole_answer_seen) ranges_.store(kRangesIgnored, std::memory_order_relaxed);
    return Status::OK();
  };
  // One window: the transport keeps at most max_concurrency in flight and
  // queues the rest without signing or buffering them.
  TZ_RETURN_NOT_OK(internal::ReadPlanned(
      requests, answers, {opt.coalesce_gap, opt.coalesce_max}, requests.size(), fetch));
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!answers[i].found) NoteAbsent(requests[i].key);
  }
  return Status::OK();
}

Result<std::optional<uint64_t>> HttpStore::Size(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  if (KnownAbsent(key)) return std::optional<uint64_t>();
  const std::string where = base_ + "/" + std::string(key);
  HttpRequest head;
  head.method = "HEAD";
  head.url = Url(key);
  TZ_ASSIGN_OR_RETURN(HttpResponse r, transport_->Fetch(head));
  if (r.status == 404 || r.status == 410) {
    NoteAbsent(key);
    return std::optional<uint64_t>();
  }
  if (r.status < 200 || r.status > 299) {
    return Status::IOError("HEAD " + where + ": HTTP " + std::to_string(r.status) +
                           Attempts(r));
  }
  if (std::optional<std::string_view> v = r.Header("content-length")) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec == std::errc() && end == v->data() + v->size())
      return std::optional<uint64_t>(n);
  }
  // No length in the HEAD answer: the first byte's Content-Range tells it.
  HttpRequest get;
  get.url = head.url;
  get.range = ByteRange::Of(0, 1);
  TZ_ASSIGN_OR_RETURN(HttpResponse g, transport_->Fetch(get));
  if (g.status == 404 || g.status == 410) return std::optional<uint64_t>();
  if (g.status == 416) return std::optional<uint64_t>(0);
  if (g.status == 206 && g.content_range->total) {
    return std::optional<uint64_t>(*g.content_range->total);
  }
  if (g.status >= 200 && g.status <= 299 && g.status != 206) {
    return std::optional<uint64_t>(g.body.size());
  }
  return Status::IOError("GET " + where + ": cannot tell the size (HTTP " +
                         std::to_string(g.status) + ", no length given)");
}

Status HttpStore::Set(std::string_view key, ByteView) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  return ReadOnly("cannot set '" + std::string(key) + "'");
}

Status HttpStore::Erase(std::string_view key) {
  TZ_RETURN_NOT_OK(ValidateKey(key));
  return ReadOnly("cannot erase '" + std::string(key) + "'");
}

Status HttpStore::ErasePrefix(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  return ReadOnly("cannot erase '" + std::string(prefix) + "'");
}

Result<std::vector<std::string>> HttpStore::List(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  return NoListing();
}

Result<DirectoryListing> HttpStore::ListDirectory(std::string_view prefix) {
  TZ_RETURN_NOT_OK(internal::ValidatePrefix(prefix));
  return NoListing();
}


StoreCapabilities HttpStore::Capabilities() const {
  return {.writable = false,
          .requests_in_flight = std::max(1, transport_->options().max_concurrency)};
}

Result<std::shared_ptr<Store>> MakeHttpStore(std::string base_url, HttpOptions options) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("HTTP store URL '" + base_url +
                                   "': " + std::string(why));
  };
  const size_t scheme_end = internal::HttpSchemeLength(base_url);
  if (scheme_end == 0) return bad("must start with http:// or https://");
  std::string url = base_url;
  if (size_t hash = url.find('#'); hash != std::string::npos) url.resize(hash);
  std::string query;
  if (size_t q = url.find('?'); q != std::string::npos) {
    query = url.substr(q);
    url.resize(q);
  }
  while (url.size() > scheme_end && url.back() == '/') url.pop_back();
  const std::string_view authority =
      std::string_view(url).substr(scheme_end, url.find('/', scheme_end) - scheme_end);
  if (authority.empty()) return bad("has no host");
  if (options.max_concurrency < 1) return bad("max_concurrency must be at least 1");
  if (options.max_connections < 0) {
    return bad("max_connections must be at least 1 (or 0 for the default)");
  }
  if (options.max_retries < 0) return bad("max_retries must not be negative");
  if (options.connect_timeout.count() < 0 || options.idle_timeout.count() < 0 ||
      options.request_timeout.count() < 0 || options.backoff_base.count() < 0 ||
      options.backoff_max.count() < 0) {
    return bad("timeouts must not be negative");
  }
  return std::shared_ptr<Store>(
      std::make_shared<HttpStore>(std::move(url), std::move(query), std::move(options)));
}

}  // namespace turbozarr
