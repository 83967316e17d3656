#include "store/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <utility>

#include "store/http_host_policy.h"
#include "store/http_options.h"
#include "store/http_transfer.h"
#include "store/url_origin.h"
#include "store/store_internal.h"
#include "util/thread_annotations.h"

namespace turbozarr {

using internal::Clock;
using internal::HostQueue;
using internal::Transfer;
using std::chrono::milliseconds;

namespace {

// Under a fork-safe lock rather than a once_flag, which a fork in the
// middle of the first call would copy as "running" forever. Of rank kInner:
// a fork child renews a driver (and so makes one) under the renewal lock.
void InitCurlOnce() {
  static std::atomic<bool> done{false};
  if (done.load(std::memory_order_acquire)) return;
  static auto* mu = new internal::ForkSafeMutex(internal::ForkLockRank::kInner);
  std::lock_guard<internal::ForkSafeMutex> lock(*mu);
  if (done.load(std::memory_order_relaxed)) return;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  done.store(true, std::memory_order_release);
}

constexpr int kMaxRedirects = 8;

}  // namespace

class HttpTransport::Driver {
 public:
  // REQUIRES: `options` normalised (Normalised below).
  explicit Driver(HttpOptions options) : options_(std::move(options)) {
    InitCurlOnce();
    multi_ = curl_multi_init();
    // The host policies keep within these; curl's own caps are the backstop.
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS,
                      static_cast<long>(options_.max_connections));
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS,
                      static_cast<long>(options_.max_concurrency));
    rng_.seed(std::random_device{}());
  }

  ~Driver() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    curl_multi_wakeup(multi_);
    if (thread_.joinable()) thread_.join();
    for (CURL* easy : idle_easy_) curl_easy_cleanup(easy);
    curl_multi_cleanup(multi_);
  }

  void Enqueue(std::vector<std::unique_ptr<Transfer>> transfers) {
    StartThread();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& t : transfers) incoming_.push_back(std::move(t));
    }
    curl_multi_wakeup(multi_);
  }

  // Ends every request `owner` sent with Cancelled, and returns once their
  // callbacks ran: the driver outlives the transport (others share it), but
  // nothing of a transport runs after its destructor.
  void CancelOwner(const void* owner) {
    StartThread();
    if (std::this_thread::get_id() == thread_.get_id()) {  // from a callback
      TakeIncoming();
      CancelNow(owner);
      return;
    }
    std::unique_lock<std::mutex> lock(mu_);
    cancel_owners_.push_back(owner);
    const uint64_t ticket = ++cancels_asked_;
    curl_multi_wakeup(multi_);
    cancelled_cv_.wait(lock, [&] { return cancels_done_ >= ticket || stopped_; });
  }

 private:
  void Run();
  // Starts what the host policies allow; true if more could start now.
  bool Dispatch();
  // Queues `t` at the back (or, for a retry or redirect, the front) of its
  // host's requests.
  void Queue(std::unique_ptr<Transfer> t, bool front);
  HostQueue& HostOf(const std::string& url);
  void Start(std::unique_ptr<Transfer> t);
  // Tells `t`'s host how its attempt ended.
  void NoteFinished(Transfer& t, internal::HostPolicy::Outcome outcome, Clock::time_point now);
  void Complete(CURL* easy, CURLcode code);
  void AbortIdle(Clock::time_point now);
  int WaitMs(Clock::time_point now);
  milliseconds Backoff(int retry, std::optional<milliseconds> retry_after);
  // Ends `t` with an IOError naming its method and URL, `why`, and the
  // attempts made.
  void Fail(Transfer& t, const std::string& why);
  // Ends `t`, whose deadline has passed or would before its next attempt.
  void FailAtDeadline(Transfer& t, const std::string& last);
  void CancelAll();
  // Ends with Cancelled every request of `owner` that the driver holds.
  void CancelNow(const void* owner);
  // Moves the requests handed in by other threads to their hosts' queues.
  void TakeIncoming();
  void StartThread() {
    std::call_once(started_, [this] { thread_ = std::thread([this] { Run(); }); });
  }

  CURL* AcquireEasy() {
    if (idle_easy_.empty()) return curl_easy_init();
    CURL* easy = idle_easy_.back();
    idle_easy_.pop_back();
    return easy;
  }
  void ReleaseEasy(CURL* easy) {
    curl_easy_reset(easy);
    idle_easy_.push_back(easy);
  }

  HttpOptions options_;
  CURLM* multi_ = nullptr;
  std::once_flag started_;
  std::thread thread_;

  std::mutex mu_;
  std::vector<std::unique_ptr<Transfer>> incoming_ TZ_GUARDED_BY(mu_);
  bool stop_ TZ_GUARDED_BY(mu_) = false;
  bool stopped_ TZ_GUARDED_BY(mu_) = false;  // the driver thread ended
  // Transports whose requests are to be cancelled, and the count of such
  // asks made and carried out.
  std::vector<const void*> cancel_owners_ TZ_GUARDED_BY(mu_);
  uint64_t cancels_asked_ TZ_GUARDED_BY(mu_) = 0;
  uint64_t cancels_done_ TZ_GUARDED_BY(mu_) = 0;
  std::condition_variable cancelled_cv_;

  // Driver thread only. Hosts live as long as the multi handle: a cached
  // connection's close callback points at its host.
  std::unordered_map<std::string, std::unique_ptr<HostQueue>> hosts_;
  std::multimap<Clock::time_point, std::unique_ptr<Transfer>> waiting_;  // retries
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> active_;
  std::vector<CURL*> idle_easy_;
  std::minstd_rand rng_;
};

void HttpTransport::Driver::TakeIncoming() {
  std::vector<std::unique_ptr<Transfer>> incoming;
  {
    std::lock_guard<std::mutex> lock(mu_);
    incoming.swap(incoming_);
  }
  for (auto& t : incoming) Queue(std::move(t), /*front=*/false);
}

void HttpTransport::Driver::Run() {
  for (;;) {
    std::vector<const void*> cancel;
    uint64_t cancels = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) break;
      cancel.swap(cancel_owners_);
      cancels = cancels_asked_;
    }
    TakeIncoming();
    if (!cancel.empty()) {
      for (const void* owner : cancel) CancelNow(owner);
      {
        std::lock_guard<std::mutex> lock(mu_);
        cancels_done_ = cancels;
      }
      cancelled_cv_.notify_all();
    }
    Clock::time_point now = Clock::now();
    // Retries that are due go ahead of requests not yet started.
    while (!waiting_.empty() && waiting_.begin()->first <= now) {
      Queue(std::move(waiting_.begin()->second), /*front=*/true);
      waiting_.erase(waiting_.begin());
    }
    Dispatch();
    int running = 0;
    curl_multi_perform(multi_, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      // `msg` dies when its handle is removed, so take what is needed first.
      CURL* easy = msg->easy_handle;
      CURLcode code = msg->data.result;
      Complete(easy, code);
    }
    now = Clock::now();
    AbortIdle(now);
    // Answers that came in may have freed or proven connections.
    if (Dispatch()) continue;
    curl_multi_poll(multi_, nullptr, 0, WaitMs(now), nullptr);
  }
  CancelAll();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }
  cancelled_cv_.notify_all();
}

HostQueue& HttpTransport::Driver::HostOf(const std::string& url) {
  std::unique_ptr<HostQueue>& host = hosts_[internal::HostKey(url)];
  if (!host) {
    host = std::make_unique<HostQueue>(internal::HostPolicy::Limits{
        .max_connections = options_.max_connections,
        .max_streams = options_.max_concurrency,
    });
  }
  return *host;
}

void HttpTransport::Driver::Queue(std::unique_ptr<Transfer> t, bool front) {
  if (t->host == nullptr) t->host = &HostOf(t->url);
  HostQueue& host = *t->host;
  if (front) {
    host.ready.push_front(std::move(t));
  } else {
    host.ready.push_back(std::move(t));
  }
}

bool HttpTransport::Driver::Dispatch() {
  const size_t max_active = static_cast<size_t>(options_.max_concurrency);
  const Clock::time_point now = Clock::now();
  bool more = false;
  for (auto& [key, host] : hosts_) {
    bool new_connection = false;
    while (!host->ready.empty() && active_.size() < max_active &&
           host->policy.MayStart(now, &new_connection)) {
      std::unique_ptr<Transfer> t = std::move(host->ready.front());
      host->ready.pop_front();
      t->new_connection = new_connection;
      Start(std::move(t));
    }
    more |= !host->ready.empty() && active_.size() < max_active &&
            host->policy.MayStart(Clock::now(), &new_connection);
  }
  return more;
}

void HttpTransport::Driver::NoteFinished(Transfer& t, internal::HostPolicy::Outcome outcome,
                                         Clock::time_point now) {
  t.host->policy.Finished(t.new_connection, t.answered, outcome, now);
}

void HttpTransport::Driver::Start(std::unique_ptr<Transfer> t) {
  if (Clock::now() >= t->deadline) {  // it waited its turn too long
    FailAtDeadline(*t, t->attempts == 0
                           ? "none yet, waiting for a free connection"
                           : t->last_failure + ", its retry waiting for a free connection");
    return;
  }
  CURL* easy = AcquireEasy();
  if (easy == nullptr) {
    t->done(Status::IOError(t->request.method + " " + t->request.url +
                            ": cannot create a curl handle"));
    return;
  }
  t->BeginAttempt(t->new_connection);
  const HttpRequest& r = t->request;
  curl_easy_setopt(easy, CURLOPT_URL, t->url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  // Redirects are followed here (Complete), where their target is checked
  // before anything is sent to it.
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  int64_t timeout_ms = options_.request_timeout.count();
  if (t->deadline != Clock::time_point::max()) {
    // At least 1: curl reads 0 as no limit.
    const int64_t left = std::max<int64_t>(
        1, std::chrono::ceil<milliseconds>(t->deadline - Clock::now()).count());
    timeout_ms = timeout_ms > 0 ? std::min(timeout_ms, left) : left;
  }
  if (timeout_ms > 0) {
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  }
  curl_easy_setopt(easy, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
  if (!options_.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (options_.http2) {
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    // While a host's first TLS connection is being made, wait to learn
    // whether it multiplexes rather than open more.
    if (!t->host->policy.multiplexed() && t->url.starts_with("https:")) {
      curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    }
  } else {
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  }
  // Fewer, larger deliveries from curl's receive buffer.
  curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t->error);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &internal::OnHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &internal::OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &internal::OnOpenSocket);
  curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, t->host);
  curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &internal::OnCloseSocket);
  curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, t->host);

  if (t->header_list == nullptr) {  // built once, kept across attempts
    curl_slist* list = nullptr;
    bool has_content_type = false;
    auto add = [&](const std::string& h) {
      list = curl_slist_append(list, h.c_str());
      has_content_type |= internal::AsciiLower(h).starts_with("content-type:");
    };
    for (const std::string& h : options_.headers) add(h);
    for (const std::string& h : r.headers) add(h);
    if (r.range) {
      if (std::optional<std::string> v = RangeHeaderValue(*r.range)) add("Range: " + *v);
    }
    if (!r.body.empty() || r.method == "PUT" || r.method == "POST") {
      // No form encoding, and the body at once rather than after a 100 Continue.
      if (!has_content_type) list = curl_slist_append(list, "Content-Type:");
      list = curl_slist_append(list, "Expect:");
    }
    t->header_list = list;
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t->header_list);

  if (r.method == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (r.method == "GET" && r.body.empty()) {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    if (!r.body.empty() || r.method == "PUT" || r.method == "POST") {
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(r.body.size()));
      curl_easy_setopt(
          easy, CURLOPT_POSTFIELDS,
          r.body.empty() ? "" : reinterpret_cast<const char*>(r.body.data()));
    }
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  if (curl_multi_add_handle(multi_, easy) != CURLM_OK) {
    ReleaseEasy(easy);
    t->done(Status::IOError(r.method + " " + r.url + ": cannot start the transfer"));
    return;
  }
  t->host->policy.Started(t->new_connection, Clock::now());
  active_.emplace(easy, std::move(t));
}

void HttpTransport::Driver::Complete(CURL* easy, CURLcode code) {
  auto it = active_.find(easy);
  if (it == active_.end()) return;
  std::unique_ptr<Transfer> t = std::move(it->second);
  active_.erase(it);
  curl_multi_remove_handle(multi_, easy);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  long http_version = 0;
  curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &http_version);
  if (http_version >= CURL_HTTP_VERSION_2_0) t->host->policy.SetMultiplexed();
  std::string location;
  if (internal::IsRedirect(status)) {
    char* where = nullptr;  // resolved against the URL asked for
    curl_easy_getinfo(easy, CURLINFO_REDIRECT_URL, &where);
    if (where != nullptr) location = where;
  }

  HttpResponse& response = t->response;
  response.status = status;
  response.attempts = t->attempts;
  std::string failure;
  bool retryable = true;
  if (!t->abort_reason.empty()) {
    failure = t->abort_reason;
  } else if (code != CURLE_OK) {
    failure = curl_easy_strerror(code);
    if (t->error[0] != '\0') failure += std::string(" (") + t->error + ")";
    // Garbage where a reply should start, on a connection used before, is
    // most likely the surplus of a previous reply that overran its length.
    long new_connections = 0;
    curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &new_connections);
    retryable = internal::IsRetryableCurlCode(code) ||
                (code == CURLE_UNSUPPORTED_PROTOCOL && new_connections == 0);
  } else {
    failure = CheckResponse(t->request, response, t->content_length);
  }
  ReleaseEasy(easy);
  const Clock::time_point now = Clock::now();
  {
    using Outcome = internal::HostPolicy::Outcome;
    Outcome outcome = Outcome::kAnswered;
    if (code != CURLE_OK && t->abort_reason.empty()) {
      outcome = internal::IsConnectionFailure(code) ? Outcome::kConnectionFailed : Outcome::kAbandoned;
    } else if (t->abort_reason.starts_with(internal::kNoDataReceived)) {
      outcome = Outcome::kConnectionFailed;  // a stalled server
    } else if (failure.empty() && (status == 429 || status == 503)) {
      outcome = Outcome::kOverloaded;
      // The server's own word on when to come back holds for every request.
      if (std::optional<milliseconds> after = internal::RetryAfter(response)) {
        t->host->policy.PauseUntil(now + std::min(*after, options_.backoff_max));
      }
    }
    NoteFinished(*t, outcome, now);
  }
  if (failure.empty() && !location.empty()) {
    std::string refusal =
        internal::RedirectRefusal(t->url, location, options_.redirects_to_other_hosts);
    if (refusal.empty() && t->redirects == kMaxRedirects) {
      refusal = "more than " + std::to_string(kMaxRedirects) + " redirects in a row";
    }
    if (!refusal.empty()) {
      Fail(*t, std::to_string(status) + " " + refusal);
      return;
    }
    if (now >= t->deadline) {
      FailAtDeadline(*t, "redirected to " + location);
      return;
    }
    ++t->redirects;
    t->url = std::move(location);
    t->host = &HostOf(t->url);
    if (status == 303 && t->request.method != "HEAD") {  // "see other": GET it
      t->request.method = "GET";
      t->request.body = ByteView();
      curl_slist_free_all(t->header_list);
      t->header_list = nullptr;
    }
    Queue(std::move(t), /*front=*/true);
    return;
  }
  const bool status_failure = failure.empty() && IsRetryableHttpStatus(status);
  if ((status_failure || (!failure.empty() && retryable)) &&
      t->attempts - t->redirects <= options_.max_retries) {
    const std::optional<milliseconds> after =
        status_failure ? internal::RetryAfter(response) : std::nullopt;
    const Clock::time_point when = now + Backoff(t->attempts - t->redirects, after);
    if (when >= t->deadline) {
      FailAtDeadline(*t, status_failure ? "HTTP " + std::to_string(status) : failure);
      return;
    }
    t->last_failure = status_failure ? "HTTP " + std::to_string(status) : failure;
    waiting_.emplace(when, std::move(t));
    return;
  }
  if (!failure.empty()) {
    // curl's own timeout, set to what the deadline left, ended the attempt.
    if (now >= t->deadline) {
      FailAtDeadline(*t, failure);
    } else {
      Fail(*t, failure);
    }
    return;
  }
  t->done(std::move(response));
}

void HttpTransport::Driver::Fail(Transfer& t, const std::string& why) {
  t.done(Status::IOError(t.request.method + " " + t.request.url + ": " + why +
                         " (after " + std::to_string(t.attempts) +
                         (t.attempts == 1 ? " attempt)" : " attempts)")));
}

void HttpTransport::Driver::FailAtDeadline(Transfer& t, const std::string& last) {
  Fail(t, "no answer within the deadline of " +
              std::to_string(options_.deadline.count()) + " ms (the last attempt: " +
              last + ")");
}

void HttpTransport::Driver::AbortIdle(Clock::time_point now) {
  if (options_.idle_timeout.count() <= 0) return;
  std::vector<CURL*> stalled;
  for (const auto& [easy, t] : active_) {
    if (now - t->last_activity > options_.idle_timeout) stalled.push_back(easy);
  }
  for (CURL* easy : stalled) {
    active_[easy]->abort_reason = std::string(internal::kNoDataReceived) + " for " +
                                  std::to_string(options_.idle_timeout.count()) + " ms";
    Complete(easy, CURLE_OPERATION_TIMEDOUT);
  }
}

int HttpTransport::Driver::WaitMs(Clock::time_point now) {
  long curl_ms = -1;
  curl_multi_timeout(multi_, &curl_ms);
  milliseconds wait(curl_ms < 0 ? 1000 : std::min(curl_ms, 1000L));
  auto until = [&](Clock::time_point when) {
    auto d = std::chrono::ceil<milliseconds>(when - now);
    wait = std::min(wait, std::max(d, milliseconds(0)));
  };
  if (!waiting_.empty()) until(waiting_.begin()->first);
  for (const auto& [key, host] : hosts_) {
    if (!host->ready.empty() && host->policy.paused_until() > now) {
      until(host->policy.paused_until());
    }
    // (Only while the transport may start more: when its own cap binds, a
    // transfer's end wakes the driver anyway.)
    if (!host->ready.empty() && host->policy.next_paced_connection() > now &&
        active_.size() < static_cast<size_t>(options_.max_concurrency)) {
      until(host->policy.next_paced_connection());
    }
  }
  if (options_.idle_timeout.count() > 0) {
    for (const auto& [easy, t] : active_) until(t->last_activity + options_.idle_timeout);
  }
  // Wake just after a deadline, not just before it.
  return static_cast<int>(wait.count()) + (wait.count() > 0 ? 1 : 0);
}

milliseconds HttpTransport::Driver::Backoff(int retry,
                                            std::optional<milliseconds> retry_after) {
  const int64_t base = std::max<int64_t>(options_.backoff_base.count(), 0);
  const int64_t cap = std::max<int64_t>(options_.backoff_max.count(), 0);
  int64_t d = base;
  for (int i = 1; i < retry && d < cap; ++i) d *= 2;
  d = std::min(d, cap);
  std::uniform_int_distribution<int64_t> jitter(d / 2, d);
  milliseconds delay(jitter(rng_));
  if (retry_after) delay = std::max(delay, std::min(*retry_after, options_.backoff_max));
  return delay;
}

namespace {

void Cancel(Transfer& t) {
  t.done(Status::Cancelled(t.request.method + " " + t.request.url +
                           ": the HTTP transport shut down"));
}

}  // namespace

void HttpTransport::Driver::CancelNow(const void* owner) {
  std::vector<CURL*> mine;
  for (const auto& [easy, t] : active_) {
    if (t->owner == owner) mine.push_back(easy);
  }
  const Clock::time_point now = Clock::now();
  for (CURL* easy : mine) {
    std::unique_ptr<Transfer> t = std::move(active_[easy]);
    active_.erase(easy);
    curl_multi_remove_handle(multi_, easy);  // its connection is closed, half used
    ReleaseEasy(easy);
    NoteFinished(*t, internal::HostPolicy::Outcome::kAbandoned, now);
    Cancel(*t);
  }
  for (auto& [key, host] : hosts_) {
    for (auto& t : host->ready) {
      if (t->owner == owner) Cancel(*t);
    }
    std::erase_if(host->ready, [&](const auto& t) { return t->owner == owner; });
  }
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->second->owner == owner) {
      Cancel(*it->second);
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void HttpTransport::Driver::CancelAll() {
  auto cancel = [](Transfer& t) { Cancel(t); };
  for (auto& [easy, t] : active_) {
    curl_multi_remove_handle(multi_, easy);
    curl_easy_cleanup(easy);
    cancel(*t);
  }
  active_.clear();
  for (auto& [key, host] : hosts_) {
    for (auto& t : host->ready) cancel(*t);
    host->ready.clear();
  }
  for (auto& [when, t] : waiting_) cancel(*t);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& t : incoming_) cancel(*t);
}

namespace {


// A driver no transport holds is kept this long after it was last handed
// out, so that a store opened again soon (each run of a script's loop, each
// array opened by URL) finds its connections open and its hosts' windows
// grown.
constexpr std::chrono::seconds kDriverLinger{60};

}  // namespace

// The drivers of this process by options. Entries of an earlier fork
// generation are the parent's: never handed out, never destroyed here.
class HttpTransport::DriverRegistry {
 public:
  static DriverRegistry& Get() {
    static auto* registry = [] {
      // curl (and through it OpenSSL) registers its own exit handlers when
      // first initialised; the registry's, registered after them, runs
      // before them (exit handlers run last first). Otherwise OpenSSL is
      // torn down first, and what the kept drivers' TLS connections and
      // threads hold is never freed.
      InitCurlOnce();
      auto* r = new DriverRegistry();
      // Idle driver threads are stopped and joined before the process's
      // static objects (curl's and OpenSSL's among them) go away.
      std::atexit([] { Get().ReleaseAll(); });
      return r;
    }();
    return *registry;
  }

  std::shared_ptr<Driver> Find(const HttpOptions& options) {
    const auto key = std::make_pair(internal::ForkGeneration(), internal::OptionsKey(options));
    std::vector<std::shared_ptr<Driver>> released;  // destroyed after the lock
    if (std::shared_ptr<Driver> d = Lookup(key, nullptr, released)) return d;
    // Made outside the lock: a driver's first one initialises curl, which
    // makes a fork-safe mutex, and none may be made under a held one.
    auto made = std::make_shared<Driver>(options);
    return Lookup(key, made, released);
  }

 private:
  struct Entry {
    std::weak_ptr<Driver> weak;
    std::shared_ptr<Driver> kept;  // until kDriverLinger after handed_out
    Clock::time_point handed_out;
  };

  // The driver under `key`, or `made` if there is none (nullptr: none
  // made yet); drops the registry's hold on drivers handed out longer than
  // kDriverLinger ago into `released`.
  std::shared_ptr<Driver> Lookup(const std::pair<uint64_t, std::string>& key,
                                 const std::shared_ptr<Driver>& made,
                                 std::vector<std::shared_ptr<Driver>>& released) {
    const Clock::time_point now = Clock::now();
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      Entry& e = it->second;
      const bool ours = it->first.first == key.first;
      if (ours && e.kept && now - e.handed_out > kDriverLinger) {
        released.push_back(std::move(e.kept));
      }
      if (ours && !e.kept && e.weak.expired()) {
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
    Entry& e = entries_[key];
    std::shared_ptr<Driver> driver = e.weak.lock();
    if (!driver) {
      if (!made) return nullptr;
      driver = made;
      e.weak = driver;
    }
    e.kept = driver;
    e.handed_out = now;
    return driver;
  }

  void ReleaseAll() {
    const uint64_t generation = internal::ForkGeneration();
    std::vector<std::shared_ptr<Driver>> released;
    {
      std::lock_guard<internal::ForkSafeMutex> lock(mu_);
      for (auto& [key, e] : entries_) {
        if (key.first == generation) released.push_back(std::move(e.kept));
      }
    }
  }

  internal::ForkSafeMutex mu_{internal::ForkLockRank::kOuter};
  std::map<std::pair<uint64_t, std::string>, Entry> entries_;
};

HttpTransport::HttpTransport(HttpOptions options)
    : options_(internal::Normalised(std::move(options))),
      driver_(DriverRegistry::Get().Find(options_)) {}

// In a fork child the parent's driver thread cannot be stopped, and its
// connections must not be closed from here: the child's reference to it is
// leaked, so that the driver is never destroyed in this process.
void HttpTransport::AbandonDriver() {
  static_cast<void>(new std::shared_ptr<Driver>(std::move(driver_)));
}

HttpTransport::~HttpTransport() {
  if (epoch_.Forked()) {
    AbandonDriver();
  } else {
    driver_->CancelOwner(this);
  }
}

HttpTransport::Driver& HttpTransport::driver() {
  epoch_.RenewIfForked([this] {
    AbandonDriver();
    driver_ = DriverRegistry::Get().Find(options_);
  });
  return *driver_;
}

void HttpTransport::Submit(HttpRequest request, Callback done) {
  std::unique_ptr<Transfer> t = internal::NewTransfer(options_, this, std::move(request), std::move(done));
  std::vector<std::unique_ptr<Transfer>> one;
  one.push_back(std::move(t));
  driver().Enqueue(std::move(one));
}

Result<HttpResponse> HttpTransport::Fetch(HttpRequest request) {
  std::vector<HttpRequest> one;
  one.push_back(std::move(request));
  return std::move(FetchMany(std::move(one)).front());
}

std::vector<Result<HttpResponse>> HttpTransport::FetchMany(
    std::vector<HttpRequest> requests) {
  struct Batch {
    std::mutex mu;
    std::condition_variable cv;
    size_t left = 0;
    std::vector<std::optional<Result<HttpResponse>>> out;
  };
  auto batch = std::make_shared<Batch>();
  batch->left = requests.size();
  batch->out.resize(requests.size());
  std::vector<std::unique_ptr<Transfer>> transfers;
  transfers.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    transfers.push_back(
        internal::NewTransfer(options_, this, std::move(requests[i]), [batch, i](Result<HttpResponse> r) {
          std::lock_guard<std::mutex> lock(batch->mu);
          batch->out[i].emplace(std::move(r));
          if (--batch->left == 0) batch->cv.notify_all();
        }));
  }
  if (!transfers.empty()) driver().Enqueue(std::move(transfers));
  std::unique_lock<std::mutex> lock(batch->mu);
  batch->cv.wait(lock, [&] { return batch->left == 0; });
  std::vector<Result<HttpResponse>> out;
  out.reserve(batch->out.size());
  for (auto& r : batch->out) out.push_back(std::move(*r));
  return out;
}

}  // namespace turbozarr
