// Process-wide settings: the thread count of turbozarr/config.h.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/config.h"

namespace nb = nanobind;

namespace turbozarr::python {

void BindConfig(nb::module_& m) {
  m.def(
      "set_threads",
      [](int threads) {
        Status status;
        {
          // Replacing the pool may join the old one's idle threads.
          nb::gil_scoped_release release;
          status = SetThreads(threads);
        }
        Check(status);
      },
      nb::arg("threads"),
      "Sets how many threads (the caller included) work on each read or write "
      "started from now on.");
  m.def("get_threads", &Threads,
        "How many threads (the caller included) work on one read or write.");
}

}  // namespace turbozarr::python
