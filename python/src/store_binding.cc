// Store bindings: opening stores by URL or path, flushing them, and raw key
// access (used by tests and tools to inspect stored chunks or damage them on
// purpose).
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
      .def(
          "flush",
          [](Store& s) {
            nb::gil_scoped_release release;
            Check(s.Flush());
          },
          "Completes what was written in the store's own format (a zip archive's "
          "central directory); a no-op for directory and memory stores. Writing may "
          "continue afterwards.")
      .def(
          "close",
          [](Store& s) {
            nb::gil_scoped_release release;
            Check(s.Flush());
          },
          "Same as flush(): the store stays usable, and is released with the last "
          "reference to it.")
      .def("__enter__", [](nb::object self) { return self; })
      .def(
          "__exit__",
          [](Store& s, nb::handle, nb::handle, nb::handle) {
            nb::gil_scoped_release release;
            Check(s.Flush());
          },
          nb::arg("exc_type").none(), nb::arg("exc").none(), nb::arg("tb").none())
      .def_prop_ro("writable", &Store::IsWritable)
      .def("describe", &Store::Describe)
      .def("__repr__",
           [](const Store& s) { return "<turbozarr.Store " + s.Describe() + ">"; });

  m.def(
      "open_store",
      [](const std::string& url, bool read_only, bool truncate) {
        StoreOptions options;
        options.read_only = read_only;
        options.truncate = truncate;
        nb::gil_scoped_release release;  // opening an archive reads its directory
        return Unwrap(OpenStore(url, options));
      },
      nb::arg("url"), nb::arg("read_only") = false, nb::arg("truncate") = false,
      "A store from a path or URL: a directory, 'file://', 'memory://', a '.zip' "
      "path or 'zip://' URL. read_only refuses writes; truncate starts a new zip "
      "archive in place of an existing one.");
  m.def(
      "memory_store", [] { return MakeMemoryStore(); }, "A new, empty in-memory store.");
  m.def(
      "local_store", [](const std::string& root) { return Unwrap(MakeLocalStore(root)); },
      nb::arg("root"));
}

}  // namespace turbozarr::python
