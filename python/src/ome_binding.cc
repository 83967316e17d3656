// turbozarr.ome's engine: NGFF metadata read and written by the C++ layer,
// a level's array created from level 0's, and a level downsampled from the
// one below with the GIL released.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "py_buffer.h"
#include "turbozarr/array.h"
#include "turbozarr/ome.h"

namespace nb = nanobind;

namespace turbozarr::python {

void BindOme(nb::module_& m) {
  m.def(
      "ome_parse_multiscale",
      [](const std::string& attributes, const std::string& where) {
        nlohmann::json parsed = ParseJsonArgument(attributes, "group attributes");
        ome::Multiscale ms = Unwrap(ome::ParseMultiscale(parsed, where));
        // Back as NGFF 0.5's layout of the one multiscale, the version beside.
        ome::Multiscale layout = ms;
        layout.version = "0.5";
        nlohmann::json out = ome::WriteMultiscale(layout)["ome"]["multiscales"][0];
        out["version"] = ms.version;
        return out.dump();
      },
      nb::arg("attributes"), nb::arg("where"));

  m.def(
      "ome_write_multiscale",
      [](const std::string& multiscale, const std::string& attributes) {
        // The inverse of ome_parse_multiscale: checked by parsing it first.
        nlohmann::json j = ParseJsonArgument(multiscale, "multiscale");
        const std::string version = j.value("version", "0.5");
        nlohmann::json wrapped;
        if (version == "0.4") {
          wrapped = {{"multiscales", nlohmann::json::array({j})}};
        } else {
          j.erase("version");
          wrapped = {{"ome", {{"version", version}, {"multiscales", nlohmann::json::array({j})}}}};
        }
        ome::Multiscale ms = Unwrap(ome::ParseMultiscale(wrapped, "the new image"));
        return ome::WriteMultiscale(ms, ParseJsonArgument(attributes, "group attributes")).dump();
      },
      nb::arg("multiscale"), nb::arg("attributes"));

  m.def(
      "ome_create_level",
      [](const Array& base, const std::string& path, const std::vector<int64_t>& shape,
         bool overwrite) {
        nb::gil_scoped_release release;
        CreateOptions options;
        options.overwrite = overwrite;
        return Unwrap(
            Array::Create(base.store(), path, ome::LevelMetadata(base.metadata(), shape), options));
      },
      nb::arg("base"), nb::arg("path"), nb::arg("shape"), nb::arg("overwrite") = false);

  m.def(
      "ome_downsample_into",
      [](const Array& source, std::shared_ptr<Array> target, const std::vector<int64_t>& factors,
         const std::string& method,
         std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> region,
         nb::object source_pixels, int64_t memory_budget_bytes, int threads,
         std::optional<nb::callable> progress) {
        const ome::DownsampleMethod m = Unwrap(ome::ParseDownsampleMethod(method));
        ome::DownsampleOptions options;
        options.region = std::move(region);
        options.memory_budget_bytes = memory_budget_bytes;
        options.threads = threads;
        std::optional<PyBufferView> pixels;
        if (!source_pixels.is_none()) {
          pixels.emplace(source_pixels, /*writable=*/false);
          int64_t n = 1;
          for (int64_t s : source.shape()) n *= s;
          if (pixels->size() != static_cast<size_t>(n) * source.dtype().size()) {
            Check(Status::InvalidArgument(
                "the source pixels hold " + std::to_string(pixels->size()) + " bytes; " +
                source.Describe() + " needs " +
                std::to_string(static_cast<size_t>(n) * source.dtype().size())));
          }
          options.source_pixels = pixels->data();
        }
        if (progress) {
          options.progress = [&progress](int64_t done, int64_t total) {
            nb::gil_scoped_acquire acquire;
            (*progress)(done, total);
          };
        }
        nb::gil_scoped_release release;
        Check(ome::DownsampleInto(source, *target, factors, m, options));
      },
      nb::arg("source"), nb::arg("target"), nb::arg("factors"), nb::arg("method"),
      nb::arg("region") = nb::none(), nb::arg("source_pixels") = nb::none(),
      nb::arg("memory_budget_bytes") = int64_t{512} << 20, nb::arg("threads") = 0,
      nb::arg("progress") = nb::none());
}

}  // namespace turbozarr::python
