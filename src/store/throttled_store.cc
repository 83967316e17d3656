// The throttled wrapper (see turbozarr/store_wrappers.h): every request
// takes a connection, waits the latency and the time its payload needs at
// the per-connection bandwidth, then runs on the inner store.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "store/forwarding_store.h"
#include "turbozarr/store_wrappers.h"
#include "turbozarr/fork_safety.h"
#include "util/thread_annotations.h"

namespace turbozarr {
namespace {

// A batch's connections when the options leave them unlimited.
constexpr int kUnlimitedGetManyConnections = 64;

class ThrottledStore final : public internal::ForwardingStore {
 public:
  ThrottledStore(std::shared_ptr<Store> inner, ThrottleOptions options)
      : ForwardingStore(std::move(inner)), options_(options) {}
  ~ThrottledStore() override {
    // cv_'s destructor would wait for its waiters, which in a fork child may
    // be the parent's threads.
    if (epoch_.Forked()) internal::ReplaceWithoutDestroying(cv_);
  }

  // One request alone takes a connection on the calling thread. A batch
  // runs up to `connections` requests at once, each on a thread of its own,
  // as a remote store's parallel connections would serve them.
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    if (requests.size() == 1) return ReadOne(requests[0], answers[0]);
    const int limit =
        options_.connections > 0 ? options_.connections : kUnlimitedGetManyConnections;
    const size_t workers = std::min<size_t>(static_cast<size_t>(limit), requests.size());
    std::atomic<size_t> next{0};
    std::mutex mu;
    Status first_error;
    size_t first_error_index = requests.size();
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < requests.size();) {
        Status s = ReadOne(requests[i], answers[i]);
        if (s.ok()) continue;
        std::lock_guard<std::mutex> lock(mu);
        if (i < first_error_index) {
          first_error_index = i;
          first_error = std::move(s);
        }
      }
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    return first_error;
  }

  Result<std::optional<uint64_t>> Size(std::string_view key) override {
    Connection c(*this);
    Transfer(0);
    return ForwardingStore::Size(key);
  }
  Status Set(std::string_view key, ByteView value) override {
    Connection c(*this);
    Transfer(value.size());
    return ForwardingStore::Set(key, value);
  }
  Status Erase(std::string_view key) override {
    Connection c(*this);
    Transfer(0);
    return ForwardingStore::Erase(key);
  }
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    Connection c(*this);
    Transfer(0);
    return ForwardingStore::List(prefix);
  }
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override {
    Connection c(*this);
    Transfer(0);
    return ForwardingStore::ListDirectory(prefix);
  }
  std::string Describe() const override {
    return "throttled(" + ForwardingStore::Describe() + ")";
  }
  StoreCapabilities Capabilities() const override {
    StoreCapabilities c = ForwardingStore::Capabilities();
    c.requests_in_flight =
        options_.connections > 0 ? options_.connections : kUnlimitedGetManyConnections;
    return c;
  }

 private:
  Status ReadOne(const ReadRequest& request, ReadAnswer& answer) {
    Connection c(*this);
    Status s = ForwardingStore::Read({&request, 1}, {&answer, 1});
    Transfer(s.ok() && answer.found ? answer.length : 0);
    return s;
  }

  // Holds one of the connections for its lifetime.
  class Connection {
   public:
    explicit Connection(ThrottledStore& s) : s_(s) {
      if (s_.options_.connections <= 0) return;
      s_.epoch_.RenewIfForked([&] { s_.AbandonParentConnections(); });
      std::unique_lock<std::mutex> lock(s_.mu_);
      s_.cv_.wait(lock, [&] { return s_.in_flight_ < s_.options_.connections; });
      ++s_.in_flight_;
    }
    ~Connection() {
      if (s_.options_.connections <= 0) return;
      {
        std::lock_guard<std::mutex> lock(s_.mu_);
        --s_.in_flight_;
      }
      s_.cv_.notify_one();
    }

   private:
    ThrottledStore& s_;
  };

  // Sleeps the round trip plus the payload's time on the wire.
  void Transfer(uint64_t bytes) const {
    std::chrono::duration<double> wait = options_.latency;
    if (options_.bytes_per_second > 0) {
      wait += std::chrono::duration<double>(static_cast<double>(bytes) /
                                            options_.bytes_per_second);
    }
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
  }

  // In a fork child: the connections the parent's threads held are never
  // given back there, and those threads may have been holding mu_ or
  // waiting on cv_.
  void AbandonParentConnections() {
    internal::ReplaceWithoutDestroying(mu_);
    internal::ReplaceWithoutDestroying(cv_);
    in_flight_ = 0;
  }

  const ThrottleOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_ TZ_GUARDED_BY(mu_) = 0;
  internal::ForkEpoch epoch_;
};

}  // namespace

std::shared_ptr<Store> MakeThrottledStore(std::shared_ptr<Store> inner,
                                          ThrottleOptions options) {
  return std::make_shared<ThrottledStore>(std::move(inner), options);
}

}  // namespace turbozarr
