// What both directions of the tile codec share: a tile's rows split into
// parts of about equal nonzeros, one thread each (a part's nonzeros sit at
// the same offsets in the stored arrays and in the decoded ones, so the
// threads never share an output byte), and the visits of the stored types.
#pragma once

#include <algorithm>
#include <cstdint>
#include <system_error>
#include <thread>
#include <vector>

#include "turbozarr/config.h"
#include "turbozarr/dtype.h"
#include "turbozarr/status.h"

namespace turbozarr::sparse::internal {

// Calls f(T{}) for the gene deltas' type of `bytes` (1, 2 or 4).
template <typename F>
void VisitDeltaType(int64_t bytes, F&& f) {
  if (bytes == 1) {
    f(uint8_t{});
  } else if (bytes == 2) {
    f(uint16_t{});
  } else {
    f(uint32_t{});
  }
}

// Runs fn(part) for every part in [0, parts), the calling thread one of the
// workers; a thread the system refuses runs its part inline.
template <typename F>
void RunParts(int parts, F&& fn) {
  std::vector<std::thread> workers;
  for (int p = 1; p < parts; ++p) {
    try {
      workers.emplace_back([&fn, p] { fn(p); });
    } catch (const std::system_error&) {
      fn(p);
    }
  }
  fn(0);
  for (std::thread& w : workers) w.join();
}

// Row boundaries that cut [0, rows) into `parts` runs of about equal
// nonzeros (ptr: rows + 1 offsets).
template <typename P>
std::vector<int64_t> SplitRows(const P* ptr, int64_t rows, int parts) {
  std::vector<int64_t> cut(static_cast<size_t>(parts) + 1, rows);
  cut[0] = 0;
  const int64_t total = static_cast<int64_t>(ptr[rows]);
  for (int p = 1; p < parts; ++p) {
    const int64_t want = total * p / parts;
    cut[static_cast<size_t>(p)] = std::max<int64_t>(
        cut[static_cast<size_t>(p) - 1],
        std::lower_bound(ptr, ptr + rows + 1, static_cast<P>(want)) - ptr);
    cut[static_cast<size_t>(p)] = std::min(cut[static_cast<size_t>(p)], rows);
  }
  return cut;
}

inline int PartsFor(int threads, int64_t nonzeros) {
  const int wanted = threads > 0 ? threads : Threads();
  const int64_t by_size = std::max<int64_t>(1, nonzeros / (int64_t{1} << 16));
  return static_cast<int>(std::clamp<int64_t>(by_size, 1, wanted));
}

// The first failure of several parts, by part.
struct PartErrors {
  explicit PartErrors(int parts) : status(static_cast<size_t>(parts)) {}
  Status First() const {
    for (const Status& s : status) {
      if (!s.ok()) return s;
    }
    return Status::OK();
  }
  std::vector<Status> status;
};

template <typename F>
void VisitStoredType(DataTypeId id, F&& f) {
  switch (id) {
    case DataTypeId::kUInt8: f(uint8_t{}); break;
    case DataTypeId::kUInt16: f(uint16_t{}); break;
    case DataTypeId::kUInt32: f(uint32_t{}); break;
    case DataTypeId::kFloat32: f(float{}); break;
    default: f(double{}); break;
  }
}


}  // namespace turbozarr::sparse::internal
