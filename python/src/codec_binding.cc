// The codec table (turbozarr/codec.h) for the Python package, which
// builds new array metadata with the same defaults as the engine and CLI:
// codec_table() lists the rows, complete_codec() fills in a codec's JSON the
// way zarr-python writes it. Values cross as JSON through Python's json
// module, so that key order survives.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/codec.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

using nlohmann::ordered_json;

nb::object Loads(const ordered_json& j) {
  return nb::module_::import_("json").attr("loads")(j.dump());
}

}  // namespace

void BindCodecs(nb::module_& m) {
  m.def(
      "codec_table", [] { return Loads(CodecTableJson()); },
      "The codecs the engine knows, one dict per codec.");
  m.def(
      "complete_codec",
      [](nb::handle codec, size_t itemsize, int zarr_format) {
        const std::string text =
            nb::cast<std::string>(nb::module_::import_("json").attr("dumps")(codec));
        ordered_json parsed;
        try {
          parsed = ordered_json::parse(text);
        } catch (const ordered_json::exception& e) {
          Check(
              Status::InvalidArgument(std::string("malformed codec JSON: ") + e.what()));
        }
        return Loads(Unwrap(CompleteCodecJson(parsed, itemsize, zarr_format)));
      },
      nb::arg("codec"), nb::arg("itemsize"), nb::arg("zarr_format"),
      "The codec's JSON (a v3 or numcodecs dict) with the fields zarr-python "
      "writes filled in.");
}

}  // namespace turbozarr::python
