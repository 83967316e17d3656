// The fault wrapper (see turbozarr/store_wrappers.h): picks calls at random,
// at the configured rate among the keys chosen, and makes each fail or
// misbehave in one of the configured ways. Errors name the key and say the
// fault was injected, so that a test can tell them from real ones.
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/forwarding_store.h"
#include "turbozarr/store_wrappers.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr {
namespace {

bool IsReadFault(Fault f) {
  return f == Fault::kReadError || f == Fault::kReset || f == Fault::kShortRead ||
         f == Fault::kLatencySpike;
}
bool IsWriteFault(Fault f) {
  return f == Fault::kWriteError || f == Fault::kPartialWrite || f == Fault::kLatencySpike;
}
// The read of a read-modify-write takes no range, so no short read.
bool IsUpdateReadFault(Fault f) { return IsReadFault(f) && f != Fault::kShortRead; }

std::vector<Fault> Applying(const std::vector<Fault>& faults, bool (*applies)(Fault)) {
  std::vector<Fault> out;
  for (Fault f : faults) {
    if (applies(f)) out.push_back(f);
  }
  return out;
}

class FaultStoreImpl final : public FaultStore, public internal::ForwardingStore {
 public:
  FaultStoreImpl(std::shared_ptr<Store> inner, FaultOptions options)
      : ForwardingStore(std::move(inner)),
        options_(std::move(options)),
        read_faults_(Applying(options_.faults, IsReadFault)),
        write_faults_(Applying(options_.faults, IsWriteFault)),
        update_read_faults_(Applying(options_.faults, IsUpdateReadFault)),
        rate_(options_.rate),
        rng_(options_.seed) {}

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    std::vector<std::optional<Fault>> picked(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      picked[i] = Pick(requests[i].key, read_faults_);
      if (!picked[i]) continue;
      if (*picked[i] == Fault::kLatencySpike) std::this_thread::sleep_for(options_.spike);
      if (*picked[i] == Fault::kReadError || *picked[i] == Fault::kReset) {
        return Injected(*picked[i], requests[i].key);
      }
    }
    TZ_RETURN_NOT_OK(ForwardingStore::Read(requests, answers));
    for (size_t i = 0; i < requests.size(); ++i) {
      if (picked[i] == Fault::kShortRead && answers[i].found) Shorten(requests[i], answers[i]);
    }
    return Status::OK();
  }

  Status Set(std::string_view key, ByteView value) override {
    const std::optional<Fault> f = Pick(key, write_faults_);
    if (f == Fault::kLatencySpike) std::this_thread::sleep_for(options_.spike);
    if (f == Fault::kWriteError) return Injected(*f, key);
    if (f == Fault::kPartialWrite) {
      TZ_RETURN_NOT_OK(ForwardingStore::Set(key, value.subspan(0, value.size() / 2)));
      return Injected(*f, key);
    }
    return ForwardingStore::Set(key, value);
  }

  Status Erase(std::string_view key) override {
    const std::optional<Fault> f = Pick(key, write_faults_);
    if (f == Fault::kLatencySpike) std::this_thread::sleep_for(options_.spike);
    if (f == Fault::kWriteError || f == Fault::kPartialWrite) {
      return Injected(Fault::kWriteError, key);
    }
    return ForwardingStore::Erase(key);
  }

  std::string Describe() const override {
    return "faulty(" + ForwardingStore::Describe() + ")";
  }

  uint64_t injected() const override {
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    return injected_;
  }
  void set_rate(double rate) override {
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    rate_ = rate;
  }

 protected:
  // The read of a read-modify-write is faulted like any read (but for short
  // reads: see IsUpdateReadFault).
  Status BeforeUpdateRead(std::string_view key) override {
    const std::optional<Fault> f = Pick(key, update_read_faults_);
    if (f == Fault::kLatencySpike) std::this_thread::sleep_for(options_.spike);
    if (f == Fault::kReadError || f == Fault::kReset) return Injected(*f, key);
    return Status::OK();
  }

 private:
  // One of `candidates` for this call, or none (at the rate; keys chosen).
  std::optional<Fault> Pick(std::string_view key, const std::vector<Fault>& candidates) {
    if (candidates.empty()) return std::nullopt;
    if (!options_.key_contains.empty() &&
        key.find(options_.key_contains) == std::string_view::npos) {
      return std::nullopt;
    }
    std::lock_guard<internal::ForkSafeMutex> lock(mu_);
    if (std::uniform_real_distribution<double>(0, 1)(rng_) >= rate_) return std::nullopt;
    ++injected_;
    return candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng_)];
  }

  Status Injected(Fault f, std::string_view key) const {
    const std::string where = Describe() + ", key '" + std::string(key) + "': ";
    switch (f) {
      case Fault::kReset:
        return Status::IOError(where + "injected connection reset");
      case Fault::kWriteError:
        return Status::IOError(where + "injected full disk (ENOSPC)");
      case Fault::kPartialWrite:
        return Status::IOError(where + "injected partial write: half the value stored");
      default:
        return Status::IOError(where + "injected I/O error (EIO)");
    }
  }

  // Half the bytes the read found, answered as if they were all of them.
  static void Shorten(const ReadRequest& request, ReadAnswer& answer) {
    answer.length /= 2;
    if (request.target != ReadTarget::kCallerMemory && request.buffer != nullptr) {
      request.buffer->Resize(static_cast<size_t>(answer.length));
    }
  }

  const FaultOptions options_;
  // The faults of options_ that apply to reads, to writes, and to the reads
  // of read-modify-writes.
  const std::vector<Fault> read_faults_, write_faults_, update_read_faults_;
  mutable internal::ForkSafeMutex mu_;
  double rate_;
  std::mt19937_64 rng_;
  uint64_t injected_ = 0;
};

}  // namespace

std::shared_ptr<FaultStore> MakeFaultStore(std::shared_ptr<Store> inner,
                                           FaultOptions options) {
  return std::make_shared<FaultStoreImpl>(std::move(inner), std::move(options));
}

}  // namespace turbozarr
