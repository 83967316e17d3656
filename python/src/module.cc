// turbozarr._core: the compiled half of the turbozarr Python package. The
// Python modules in python/turbozarr give it its user-facing shape.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/version.h"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "turbozarr engine bindings; use the turbozarr package instead.";
  const std::string_view version = turbozarr::Version();
  m.attr("__version__") = nb::str(version.data(), version.size());
  turbozarr::python::RegisterErrorTranslator();
  turbozarr::python::BindErrorHelpers(m);
  turbozarr::python::BindConfig(m);
  turbozarr::python::BindStore(m);
  turbozarr::python::BindArray(m);
  turbozarr::python::BindBlockIterator(m);
  turbozarr::python::BindGroup(m);
  turbozarr::python::BindCodecs(m);
  turbozarr::python::BindVcz(m);
  turbozarr::python::BindOme(m);
  turbozarr::python::BindSparse(m);
  turbozarr::python::BindResultMemory(m);
  turbozarr::python::BindBatchBox(m);
  turbozarr::python::BindVerify(m);
}
