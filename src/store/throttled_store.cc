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
#include "util/thread_annotations.h"

namespace turbozarr {
namespace {

// GetMany's connections when the options leave them unlimited.
constexpr int kUnlimitedGetManyConnections = 64;

class ThrottledStore final : public internal::ForwardingStore {
 public:
  ThrottledStore(std::shared_ptr<Store> inner, ThrottleOptions options)
      : ForwardingStore(std::move(inner)), options_(options) {}

  Result<std::optional<Buffer>> Get(std::string_view key, ByteRange range) override {
    Connection c(*this);
    Result<std::optional<Buffer>> r = ForwardingStore::Get(key, range);
    Transfer(r.ok() && r->has_value() ? (*r)->size() : 0);
    return r;
  }

  Result<std::optional<uint64_t>> GetInto(std::string_view key, ByteRange range,
                                          MutableByteView out) override {
    Connection c(*this);
    Result<std::optional<uint64_t>> r = ForwardingStore::GetInto(key, range, out);
    Transfer(r.ok() && r->has_value() ? **r : 0);
    return r;
  }

  Result<bool> GetReusing(std::string_view key, ByteRange range, Buffer& into) override {
    Connection c(*this);
    Result<bool> r = inner().GetReusing(key, range, into);
    Transfer(r.ok() && *r ? into.size() : 0);
    return r;
  }

  // Up to `connections` requests at once, each on a thread of its own, as a
  // remote store's parallel connections would serve them.
  Result<std::vector<std::optional<Buffer>>> GetMany(
      std::span<const KeyRange> reads) override {
    std::vector<std::optional<Buffer>> out(reads.size());
    const int limit =
        options_.connections > 0 ? options_.connections : kUnlimitedGetManyConnections;
    const size_t workers = std::min<size_t>(static_cast<size_t>(limit), reads.size());
    std::atomic<size_t> next{0};
    std::mutex mu;
    Status first_error;
    size_t first_error_index = reads.size();
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < reads.size();) {
        Result<std::optional<Buffer>> r = Get(reads[i].key, reads[i].range);
        if (r.ok()) {
          out[i] = std::move(*r);
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        if (i < first_error_index) {
          first_error_index = i;
          first_error = r.status();
        }
      }
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    if (!first_error.ok()) return first_error;
    return out;
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
  int PreferredRequestsInFlight() const override {
    return options_.connections > 0 ? options_.connections
                                    : kUnlimitedGetManyConnections;
  }

 private:
  // Holds one of the connections for its lifetime.
  class Connection {
   public:
    explicit Connection(ThrottledStore& s) : s_(s) {
      if (s_.options_.connections <= 0) return;
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

  const ThrottleOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_ TZ_GUARDED_BY(mu_) = 0;
};

}  // namespace

std::shared_ptr<Store> MakeThrottledStore(std::shared_ptr<Store> inner,
                                          ThrottleOptions options) {
  return std::make_shared<ThrottledStore>(std::move(inner), options);
}

}  // namespace turbozarr
