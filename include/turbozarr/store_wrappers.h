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
//
// Thread safety: every wrapper is as thread-safe as any Store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

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

}  // namespace turbozarr
