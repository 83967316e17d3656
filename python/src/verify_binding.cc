// verify: Verify (turbozarr/verify.h) with the domain layers' checks, its
// report handed back as JSON text (python/turbozarr/_verify.py parses it).
// The walk runs without the GIL; a progress callback takes it for each call.
#include <memory>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/layout_checks.h"
#include "turbozarr/verify.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

// Calls `callback(chunks_done, chunks_total, bytes_done)` from the walk's
// threads; an explicit False stops the walk, and so does an exception (or
// Ctrl-C), which is kept to be raised once the walk has ended.
struct PythonProgress {
  nb::object callback;
  std::optional<nb::python_error> raised;

  bool operator()(const VerifyProgress& p) {
    nb::gil_scoped_acquire gil;
    if (raised) return false;
    try {
      nb::object answer = callback(p.chunks_done, p.chunks_total, p.bytes_done);
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      return !(answer.is(nb::bool_(false)));
    } catch (nb::python_error& e) {
      raised.emplace(std::move(e));
      return false;
    }
  }
};

std::string RunVerify(const std::shared_ptr<Store>& store, const std::string& path, int jobs,
                      nb::object progress) {
  VerifyOptions options;
  options.jobs = jobs;
  options.layout_checks = DomainLayoutChecks();
  auto watcher = std::make_shared<PythonProgress>();
  if (!progress.is_none()) {
    watcher->callback = std::move(progress);
    options.progress = [watcher](const VerifyProgress& p) { return (*watcher)(p); };
  }
  Result<VerifyReport> report = [&] {
    nb::gil_scoped_release release;
    return Verify(store, path, options);
  }();
  if (watcher->raised) throw std::move(*watcher->raised);
  return Unwrap(std::move(report)).ToJson().dump();
}

}  // namespace

void BindVerify(nb::module_& m) {
  m.def("verify", &RunVerify, nb::arg("store"), nb::arg("path"), nb::arg("jobs"),
        nb::arg("progress").none(),
        "Reads every stored chunk below `path` and checks it; the report as JSON.");
}

}  // namespace turbozarr::python
