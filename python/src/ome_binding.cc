// turbozarr.ome's engine: NGFF metadata read and written by the C++ layer,
// a level's array created from level 0's, and a level downsampled from the
// one below with the GIL released.
#include <functional>
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
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "py_buffer.h"
#include "turbozarr/array.h"
#include "turbozarr/ome.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

// One multiscale as a JSON object in NGFF 0.5's spelling, its version beside
// (what turbozarr.ome reads and hands back).
std::string MultiscaleJson(const ome::Multiscale& ms) {
  ome::Multiscale layout = ms;
  layout.version = "0.5";
  nlohmann::json out = ome::WriteMultiscale(layout)["ome"]["multiscales"][0];
  out["version"] = ms.version;
  return out.dump();
}

// The pixels of a whole array, as a buffer the caller keeps alive.
const void* SourcePixels(const Array& source, nb::object pixels,
                         std::optional<PyBufferView>& view) {
  if (pixels.is_none()) return nullptr;
  view.emplace(pixels, /*writable=*/false);
  int64_t n = 1;
  for (int64_t s : source.shape()) n *= s;
  const size_t want = static_cast<size_t>(n) * source.dtype().size();
  if (view->size() != want) {
    Check(Status::InvalidArgument("the source pixels hold " + std::to_string(view->size()) +
                                  " bytes; " + source.Describe() + " needs " +
                                  std::to_string(want)));
  }
  return view->data();
}

// Progress reported to a Python callable, the GIL taken for the call.
std::function<void(int64_t, int64_t)> Progress(std::optional<nb::callable>& progress) {
  if (!progress) return {};
  return [&progress](int64_t done, int64_t total) {
    nb::gil_scoped_acquire acquire;
    (*progress)(done, total);
  };
}

}  // namespace

void BindOme(nb::module_& m) {
  m.def(
      "ome_parse_multiscale",
      [](const std::string& attributes, const std::string& where) {
        nlohmann::json parsed = ParseJsonArgument(attributes, "group attributes");
        return MultiscaleJson(Unwrap(ome::ParseMultiscale(parsed, where)));
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

  m.def("ome_factors_between", &ome::FactorsBetween, nb::arg("lower"), nb::arg("upper"),
        nb::arg("lower_scale") = std::vector<double>{},
        nb::arg("upper_scale") = std::vector<double>{},
        "The factors that make a level of shape `upper` from one of shape `lower` "
        "(the scales' ratio where the shapes agree with it).");

  m.def(
      "ome_check_downsample",
      [](const std::string& data_type, const std::string& method) {
        const DataType dtype =
            Unwrap(ParseV3DataType(ParseJsonArgument(data_type, "data type")));
        Check(ome::CheckDownsampleType(dtype, Unwrap(ome::ParseDownsampleMethod(method))));
      },
      nb::arg("data_type"), nb::arg("method"),
      "Raises unless `method` can downsample pixels of `data_type` (Zarr v3 JSON).");

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
        options.source_pixels = SourcePixels(source, source_pixels, pixels);
        options.progress = Progress(progress);
        nb::gil_scoped_release release;
        Check(ome::DownsampleInto(source, *target, factors, m, options));
      },
      nb::arg("source"), nb::arg("target"), nb::arg("factors"), nb::arg("method"),
      nb::arg("region") = nb::none(), nb::arg("source_pixels") = nb::none(),
      nb::arg("memory_budget_bytes") = int64_t{512} << 20, nb::arg("threads") = 0,
      nb::arg("progress") = nb::none());

  m.def(
      "ome_build_pyramid",
      [](const Array& level0, const std::string& image_path,
         const std::vector<std::vector<int64_t>>& factors, const std::string& method,
         const std::vector<std::tuple<std::string, std::string, std::string>>& axes,
         const std::vector<double>& scale, std::optional<std::vector<double>> translation,
         const std::string& version, const std::string& name, nb::object source_pixels,
         int64_t memory_budget_bytes, std::optional<nb::callable> progress, bool overwrite) {
        ome::PyramidOptions options;
        options.factors = factors;
        options.method = Unwrap(ome::ParseDownsampleMethod(method));
        for (const auto& [axis, type, unit] : axes) options.axes.push_back({axis, type, unit});
        options.scale = scale;
        options.translation = std::move(translation);
        options.version = version;
        options.name = name;
        options.downsample.memory_budget_bytes = memory_budget_bytes;
        options.downsample.progress = Progress(progress);
        options.overwrite = overwrite;
        std::optional<PyBufferView> pixels;
        const void* data = SourcePixels(level0, source_pixels, pixels);
        ome::Multiscale ms;
        {
          nb::gil_scoped_release release;
          ms = Unwrap(ome::BuildPyramid(level0, image_path, options, data));
        }
        return MultiscaleJson(ms);
      },
      nb::arg("level0"), nb::arg("image_path"), nb::arg("factors"), nb::arg("method"),
      nb::arg("axes"), nb::arg("scale"), nb::arg("translation").none(), nb::arg("version"),
      nb::arg("name"), nb::arg("source_pixels") = nb::none(),
      nb::arg("memory_budget_bytes") = int64_t{512} << 20, nb::arg("progress") = nb::none(),
      nb::arg("overwrite") = false);
}

}  // namespace turbozarr::python
