// Store bindings: opening stores by URL or path, and raw key access (used by
// tests and tools to inspect stored chunks or damage them on purpose).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/store.h"

namespace nb = nanobind;

namespace turbozarr::python {

void BindStore(nb::module_& m) {
  nb::class_<Store>(m, "Store")
      .def(
          "get",
          [](Store& s, const std::string& key) -> nb::object {
            Result<std::optional<Buffer>> r = [&] {
              nb::gil_scoped_release release;
              return s.Get(key);
            }();
            std::optional<Buffer> value = Unwrap(std::move(r));
            if (!value) return nb::none();
            return nb::bytes(reinterpret_cast<const char*>(value->data()), value->size());
          },
          nb::arg("key"), "The value of `key` as bytes, or None if absent.")
      .def(
          "set",
          [](Store& s, const std::string& key, nb::bytes value) {
            // The bytes object is immutable and held by the caller's frame, so
            // its buffer stays valid without the GIL.
            std::string_view bytes(value.c_str(), value.size());
            nb::gil_scoped_release release;
            Check(s.Set(key, AsBytes(bytes)));
          },
          nb::arg("key"), nb::arg("value"))
      .def(
          "erase",
          [](Store& s, const std::string& key) {
            nb::gil_scoped_release release;
            Check(s.Erase(key));
          },
          nb::arg("key"))
      .def(
          "list",
          [](Store& s, const std::string& prefix) {
            nb::gil_scoped_release release;
            return Unwrap(s.List(prefix));
          },
          nb::arg("prefix") = "", "Every key under `prefix`, sorted.")
      .def_prop_ro("writable", &Store::IsWritable)
      .def("describe", &Store::Describe)
      .def("__repr__",
           [](const Store& s) { return "<turbozarr.Store " + s.Describe() + ">"; });

  m.def(
      "open_store", [](const std::string& url) { return Unwrap(OpenStore(url)); },
      nb::arg("url"), "A store from a path, 'file://' URL or 'memory://'.");
  m.def(
      "memory_store", [] { return MakeMemoryStore(); }, "A new, empty in-memory store.");
  m.def(
      "local_store", [](const std::string& root) { return Unwrap(MakeLocalStore(root)); },
      nb::arg("root"));
}

}  // namespace turbozarr::python
