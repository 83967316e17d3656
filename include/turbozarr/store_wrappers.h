// Store wrappers: stores that sit on top of another store and change how it
// is reached rather than what it holds.
//
//  - Throttled: adds a fixed latency and a per-connection bandwidth to every
//    request and caps the requests in flight, so that a local directory or a
//    memory store behaves like an object store across a network. A batched
//    Read runs its requests on up to `connections` connections at once, as
//    a remote store does, so code that keeps many requests in flight is rewarded.
//  - Metrics: counts requests, bytes and time spent in the inner store.
//  - Caching: keeps recently read values (whole or ranged) in an LRU bounded
//    in bytes; a Set or Erase through the wrapper drops what it cached of
//    that key. Writes made to the inner store behind its back are not seen.
//  - Fault: makes some calls fail or misbehave the ways storage does (I/O
//    errors, a full disk, short reads, partial writes, latency spikes,
//    dropped connections), at a chosen rate or on chosen keys, so that a
//    program (and turbozarr's own tests) can check it fails cleanly.
//
// Thread safety: every wrapper is as thread-safe as any Store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "turbozarr/store.h"

namespace turbozarr {

struct ThrottleOptions {
  // Added once to every request (a round trip).
  std::chrono::microseconds latency{0};
  // Per connection, bytes per second of payload (read or written); 0 means
  // unlimited.
  double bytes_per_second = 0;
  // Requests in flight at once; more wait for a free connection. 0 means
  // unlimited (a batch then uses 64).
  int connections = 0;
};

std::shared_ptr<Store> MakeThrottledStore(std::shared_ptr<Store> inner,
                                          ThrottleOptions options);

struct StoreMetrics {
  uint64_t gets = 0;            // requests read (each of a batch counts)
  uint64_t get_misses = 0;      // of those, absent keys
  uint64_t bytes_read = 0;      // bytes delivered to the readers' targets
  // Batched reads: Read calls (GetMany) of any number of requests but one,
  // which counts as a single read like Get.
  uint64_t get_many_calls = 0;
  uint64_t sets = 0;
  uint64_t bytes_written = 0;
  uint64_t erases = 0;  // Erase and ErasePrefix calls
  uint64_t lists = 0;   // List and ListDirectory calls
  double seconds = 0;   // wall time inside the inner store, summed over calls
};

class MetricsStore : public virtual Store {
 public:
  virtual StoreMetrics metrics() const = 0;
  virtual void ResetMetrics() = 0;
};

std::shared_ptr<MetricsStore> MakeMetricsStore(std::shared_ptr<Store> inner);

std::shared_ptr<Store> MakeCachingStore(std::shared_ptr<Store> inner,
                                        uint64_t capacity_bytes);

// What the fault wrapper does to a call it picks.
enum class Fault : uint8_t {
  kReadError,     // a read fails: IOError "injected I/O error (EIO)" naming the key
  kReset,         // a read fails as a dropped connection does: IOError "injected
                  // connection reset"
  kShortRead,     // a read answers the value found, but only its first half: a
                  // store that loses bytes without saying so
  kWriteError,    // a Set or Erase fails, changing nothing: IOError "injected full
                  // disk (ENOSPC)"
  kPartialWrite,  // a Set stores the first half of the value, then fails
  kLatencySpike,  // the call waits FaultOptions::spike, then runs normally
};

struct FaultOptions {
  // The faults to inject; each faulted call gets one of those that apply to
  // it (read faults to reads, write faults to Set and Erase), at random.
  std::vector<Fault> faults;
  // The chance that a call (each request of a batched read) is faulted.
  double rate = 0;
  // Only keys containing this are faulted ("" for every key).
  std::string key_contains;
  // Seeds the choices, so that a single-threaded run is repeatable.
  uint64_t seed = 1;
  std::chrono::milliseconds spike{20};
};

class FaultStore : public virtual Store {
 public:
  // How many faults have been injected so far.
  virtual uint64_t injected() const = 0;
  // Changes the rate (0 stops injecting).
  virtual void set_rate(double rate) = 0;
};

std::shared_ptr<FaultStore> MakeFaultStore(std::shared_ptr<Store> inner,
                                           FaultOptions options);

}  // namespace turbozarr
