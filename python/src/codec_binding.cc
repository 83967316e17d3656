// The codec table (src/codec/codec_table.h) for the Python package, which
// builds new array metadata with the same defaults as the engine and CLI:
// codec_table() lists the rows, complete_codec() fills in a codec's JSON the
// way zarr-python writes it. Values cross as JSON through Python's json
// module, so that key order survives.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "codec/codec_table.h"
#include "errors.h"
#include "turbozarr/codec.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

using nlohmann::ordered_json;

const char* KindName(CodecKind kind) {
  switch (kind) {
    case CodecKind::kArrayToArray:
      return "array->array";
    case CodecKind::kArrayToBytes:
      return "array->bytes";
    case CodecKind::kBytesToBytes:
      return "bytes->bytes";
  }
  return "";
}

ordered_json OrNull(std::string_view s) {
  return s.empty() ? ordered_json() : ordered_json(s);
}

ordered_json ObjectOrEmpty(std::string_view text) {
  return text.empty() ? ordered_json::object() : ordered_json::parse(text);
}

nb::object Loads(const ordered_json& j) {
  return nb::module_::import_("json").attr("loads")(j.dump());
}

}  // namespace

void BindCodecs(nb::module_& m) {
  m.def(
      "codec_table",
      [] {
        ordered_json rows = ordered_json::array();
        for (const internal::CodecRow& row : internal::CodecTable()) {
          rows.push_back({{"name", OrNull(row.name)},
                          {"numcodecs_id", OrNull(row.numcodecs_id)},
                          {"numcodecs_in_v3", row.numcodecs_in_v3},
                          {"kind", KindName(row.kind)},
                          {"v3_defaults", ObjectOrEmpty(row.v3_defaults)},
                          {"numcodecs_defaults", ObjectOrEmpty(row.numcodecs_defaults)},
                          {"shorthand", row.shorthand != nullptr}});
        }
        return Loads(rows);
      },
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
          Check(Status::InvalidArgument(std::string("malformed codec JSON: ") +
                                        e.what()));
        }
        return Loads(Unwrap(CompleteCodecJson(parsed, itemsize, zarr_format)));
      },
      nb::arg("codec"), nb::arg("itemsize"), nb::arg("zarr_format"),
      "The codec's JSON (a v3 or numcodecs dict) with the fields zarr-python "
      "writes filled in.");
}

}  // namespace turbozarr::python
