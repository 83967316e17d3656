// Process-wide settings: the size of the thread pool that reads and writes
// share.
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>

#include <nanobind/nanobind.h>

#include "bindings.h"
#include "util/thread_pool.h"

namespace nb = nanobind;

namespace turbozarr::python {

std::shared_mutex& PoolMutex() {
  static std::shared_mutex mu;
  return mu;
}

std::atomic<int>& LiveIterators() {
  static std::atomic<int> count{0};
  return count;
}

void BindConfig(nb::module_& m) {
  m.def(
      "set_threads",
      [](int threads) {
        if (threads < 1) throw nb::value_error("the thread count must be at least 1");
        // Without the GIL: a reader still running holds PoolMutex shared and
        // must be able to finish without waiting on us.
        bool iterating = false;
        {
          nb::gil_scoped_release release;
          std::unique_lock lock(PoolMutex());
          iterating = LiveIterators() > 0;
          if (!iterating) ThreadPool::SetDefaultConcurrency(threads);
        }
        if (iterating) {
          throw std::runtime_error(
              "cannot change the thread count while an iter_blocks iteration is open; "
              "finish it or close() it first");
        }
      },
      nb::arg("threads"),
      "Sets how many threads (the caller included) work on one read or write.");
  m.def(
      "get_threads", [] { return ThreadPool::DefaultConcurrency(); },
      "How many threads (the caller included) work on one read or write.");
}

}  // namespace turbozarr::python
