// The metrics wrapper (see turbozarr/store_wrappers.h): relaxed atomic
// counters around every call, so that counting costs no lock.
#include <atomic>
#include <chrono>

#include "store/forwarding_store.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

class MetricsStoreImpl final : public MetricsStore, public internal::ForwardingStore {
 public:
  explicit MetricsStoreImpl(std::shared_ptr<Store> inner)
      : ForwardingStore(std::move(inner)) {}

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    Timer t(*this);
    if (requests.size() != 1) Add(get_many_calls_, 1);
    Status s = ForwardingStore::Read(requests, answers);
    if (!s.ok()) {
      Add(gets_, requests.size());
      return s;
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      const ReadAnswer& a = answers[i];
      // Caller memory holds the bytes only when the part fits it exactly.
      const bool delivered =
          a.found && (requests[i].target != ReadTarget::kCallerMemory ||
                      a.length == requests[i].memory.size());
      CountRead(!a.found, delivered ? a.length : 0);
    }
    return s;
  }
  Status Set(std::string_view key, ByteView value) override {
    Timer t(*this);
    Add(sets_, 1);
    Add(bytes_written_, value.size());
    return ForwardingStore::Set(key, value);
  }
  Status Erase(std::string_view key) override {
    Timer t(*this);
    Add(erases_, 1);
    return ForwardingStore::Erase(key);
  }
  Status ErasePrefix(std::string_view prefix) override {
    Timer t(*this);
    Add(erases_, 1);
    return ForwardingStore::ErasePrefix(prefix);
  }
  // An update's read and commit count as the Get and the Set or Erase
  // they are.
  void AfterUpdateRead(std::string_view, std::optional<uint64_t> size) override {
    CountRead(!size, size.value_or(0));
  }
  void BeforeCommit(std::string_view, std::optional<uint64_t> size) override {
    if (size) {
      Add(sets_, 1);
      Add(bytes_written_, *size);
    } else {
      Add(erases_, 1);
    }
  }
  Result<std::vector<std::string>> List(std::string_view prefix) override {
    Timer t(*this);
    Add(lists_, 1);
    return ForwardingStore::List(prefix);
  }
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override {
    Timer t(*this);
    Add(lists_, 1);
    return ForwardingStore::ListDirectory(prefix);
  }

  StoreMetrics metrics() const override {
    StoreMetrics m;
    m.gets = gets_.load();
    m.get_misses = get_misses_.load();
    m.bytes_read = bytes_read_.load();
    m.get_many_calls = get_many_calls_.load();
    m.sets = sets_.load();
    m.bytes_written = bytes_written_.load();
    m.erases = erases_.load();
    m.lists = lists_.load();
    m.seconds = static_cast<double>(nanos_.load()) * 1e-9;
    return m;
  }
  void ResetMetrics() override {
    for (auto* c : {&gets_, &get_misses_, &bytes_read_, &get_many_calls_, &sets_,
                    &bytes_written_, &erases_, &lists_, &nanos_}) {
      c->store(0);
    }
  }

 private:
  // Adds the wall time of its scope to the total.
  class Timer {
   public:
    explicit Timer(MetricsStoreImpl& s)
        : s_(s), start_(std::chrono::steady_clock::now()) {}
    ~Timer() {
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - start_)
                    .count();
      Add(s_.nanos_, static_cast<uint64_t>(ns));
    }

   private:
    MetricsStoreImpl& s_;
    std::chrono::steady_clock::time_point start_;
  };

  static void Add(std::atomic<uint64_t>& c, uint64_t n) {
    c.fetch_add(n, std::memory_order_relaxed);
  }
  void CountRead(bool missing, uint64_t bytes) {
    Add(gets_, 1);
    if (missing) Add(get_misses_, 1);
    Add(bytes_read_, bytes);
  }

  std::atomic<uint64_t> gets_{0}, get_misses_{0}, bytes_read_{0}, get_many_calls_{0},
      sets_{0}, bytes_written_{0}, erases_{0}, lists_{0}, nanos_{0};
};

}  // namespace

std::shared_ptr<MetricsStore> MakeMetricsStore(std::shared_ptr<Store> inner) {
  return std::make_shared<MetricsStoreImpl>(std::move(inner));
}

}  // namespace turbozarr
