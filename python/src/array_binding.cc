// Array bindings: open/create, and reads and writes straight between numpy's
// memory and the engine.
//
// A read of a fixed-size type decodes into the numpy array that Python
// allocated (no intermediate copy); the GIL is released for the whole read or
// write so that other Python threads run meanwhile. Variable-length strings
// and bytes travel as Python lists, which the package turns into numpy
// StringDType or object arrays.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "py_buffer.h"
#include "turbozarr/array.h"
#include "turbozarr/array_copy.h"
#include "turbozarr/array_read_many.h"
#include "turbozarr/checksum.h"

namespace nb = nanobind;

namespace turbozarr::python {

// The Python package's names for element types; see _dtypes.py.
const char* DataTypeIdName(DataTypeId id) {
  switch (id) {
    case DataTypeId::kBool:
      return "bool";
    case DataTypeId::kInt8:
      return "int8";
    case DataTypeId::kInt16:
      return "int16";
    case DataTypeId::kInt32:
      return "int32";
    case DataTypeId::kInt64:
      return "int64";
    case DataTypeId::kUInt8:
      return "uint8";
    case DataTypeId::kUInt16:
      return "uint16";
    case DataTypeId::kUInt32:
      return "uint32";
    case DataTypeId::kUInt64:
      return "uint64";
    case DataTypeId::kFloat16:
      return "float16";
    case DataTypeId::kFloat32:
      return "float32";
    case DataTypeId::kFloat64:
      return "float64";
    case DataTypeId::kComplex64:
      return "complex64";
    case DataTypeId::kComplex128:
      return "complex128";
    case DataTypeId::kRawBits:
      return "raw_bits";
    case DataTypeId::kFixedBytes:
      return "fixed_bytes";
    case DataTypeId::kFixedUnicode:
      return "fixed_unicode";
    case DataTypeId::kString:
      return "string";
    case DataTypeId::kBytes:
      return "bytes";
    case DataTypeId::kDateTime64:
      return "datetime64";
    case DataTypeId::kTimeDelta64:
      return "timedelta64";
    case DataTypeId::kStruct:
      return "struct";
    // The low-precision types: their v3 names, also ml_dtypes' names.
    case DataTypeId::kBFloat16:
      return "bfloat16";
    case DataTypeId::kFloat8E4M3FN:
      return "float8_e4m3fn";
    case DataTypeId::kFloat8E5M2:
      return "float8_e5m2";
    case DataTypeId::kFloat8E4M3FNUZ:
      return "float8_e4m3fnuz";
    case DataTypeId::kFloat8E5M2FNUZ:
      return "float8_e5m2fnuz";
    case DataTypeId::kFloat8E4M3B11FNUZ:
      return "float8_e4m3b11fnuz";
    case DataTypeId::kFloat8E3M4:
      return "float8_e3m4";
    case DataTypeId::kFloat8E4M3:
      return "float8_e4m3";
    case DataTypeId::kFloat8E8M0FNU:
      return "float8_e8m0fnu";
    case DataTypeId::kFloat4E2M1FN:
      return "float4_e2m1fn";
    case DataTypeId::kFloat6E2M3FN:
      return "float6_e2m3fn";
    case DataTypeId::kFloat6E3M2FN:
      return "float6_e3m2fn";
    case DataTypeId::kInt2:
      return "int2";
    case DataTypeId::kInt4:
      return "int4";
    case DataTypeId::kUInt2:
      return "uint2";
    case DataTypeId::kUInt4:
      return "uint4";
  }
  return "unknown";
}

namespace {

// The values of a string or bytes array as Python str or bytes objects.
nb::list ToPyList(const Array& a, const std::vector<std::string>& values) {
  bool text = a.dtype().id() == DataTypeId::kString;
  nb::list result;
  for (const std::string& v : values) {
    PyObject* item =
        text ? PyUnicode_DecodeUTF8(v.data(), static_cast<Py_ssize_t>(v.size()), "strict")
             : PyBytes_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
    if (item == nullptr) throw nb::python_error();
    result.append(nb::steal(item));
  }
  return result;
}

// The read options of a call: missing chunks filled (zarr-python's
// read_missing_chunks) or errors.
ReadOptions Options(bool fill_missing_chunks) {
  ReadOptions options;
  options.fill_missing_chunks = fill_missing_chunks;
  return options;
}

Selection CheckedSelection(const Array& a, const RangeList& ranges) {
  Selection selection = MakeSelection(ranges);
  Check(selection.Validate(a.shape()).WithContext(a.Describe()));
  return selection;
}

void ReadInto(const Array& a, const RangeList& ranges, nb::handle out, bool fill_missing) {
  if (a.dtype().is_variable_length()) {
    throw nb::type_error("read_into needs a fixed-size data type; use read_objects");
  }
  Selection selection = CheckedSelection(a, ranges);
  PyBufferView buffer(out, /*writable=*/true);
  size_t expected = static_cast<size_t>(selection.num_elements()) * a.dtype().size();
  if (buffer.size() != expected) {
    Check(Status::InvalidArgument("output buffer holds " + std::to_string(buffer.size()) +
                                  " bytes; selection " + selection.ToString() +
                                  " needs " + std::to_string(expected)));
  }
  Status status;
  {
    nb::gil_scoped_release release;
    status = a.Read(selection, ElementSpan(buffer.data(), a.dtype(), selection.num_elements()),
                    Options(fill_missing));
  }
  Check(status);
}

nb::list ReadObjects(const Array& a, const RangeList& ranges, bool fill_missing) {
  if (!a.dtype().is_variable_length()) {
    throw nb::type_error("read_objects needs a variable-length data type");
  }
  Selection selection = CheckedSelection(a, ranges);
  std::vector<std::string> values(static_cast<size_t>(selection.num_elements()));
  Status status;
  {
    nb::gil_scoped_release release;
    status = a.Read(selection, values, Options(fill_missing));
  }
  Check(status);
  return ToPyList(a, values);
}

// Reads each box of `boxes` into the buffer of `outs` at the same place
// (ReadMany, turbozarr/array_read_many.h): the boxes' chunks decode in
// parallel with the GIL released.
void ReadBoxes(const Array& a, const std::vector<RangeList>& boxes, nb::list outs,
               bool fill_missing) {
  if (a.dtype().is_variable_length()) {
    throw nb::type_error("read_boxes needs a fixed-size data type; use read_boxes_objects");
  }
  if (nb::len(outs) != boxes.size()) {
    Check(Status::InvalidArgument(a.Describe() + ": " + std::to_string(boxes.size()) +
                                  " boxes but " + std::to_string(nb::len(outs)) +
                                  " output buffers"));
  }
  std::vector<Selection> selections;
  std::vector<std::unique_ptr<PyBufferView>> buffers;
  std::vector<ElementSpan> spans;
  for (size_t i = 0; i < boxes.size(); ++i) {
    selections.push_back(MakeSelection(boxes[i]));
    buffers.push_back(std::make_unique<PyBufferView>(outs[i], /*writable=*/true));
    const size_t size = buffers.back()->size();
    if (size % a.dtype().size() != 0) {
      Check(Status::InvalidArgument(a.Describe() + ": output buffer " + std::to_string(i) +
                                    " holds " + std::to_string(size) +
                                    " bytes, not whole elements"));
    }
    spans.emplace_back(buffers.back()->data(), a.dtype(),
                       static_cast<int64_t>(size / a.dtype().size()));
  }
  Status status;
  {
    nb::gil_scoped_release release;
    status = ReadMany(a, selections, spans, Options(fill_missing));
  }
  Check(status);
}

// ReadBoxes for strings and bytes: one flat list (C order) per box.
nb::list ReadBoxesObjects(const Array& a, const std::vector<RangeList>& boxes,
                          bool fill_missing) {
  if (!a.dtype().is_variable_length()) {
    throw nb::type_error("read_boxes_objects needs a variable-length data type");
  }
  std::vector<Selection> selections;
  std::vector<std::vector<std::string>> values;
  for (const RangeList& box : boxes) {
    selections.push_back(MakeSelection(box));
    int64_t n = selections.back().Validate(a.shape()).ok()
                    ? selections.back().num_elements() : 0;
    values.emplace_back(static_cast<size_t>(n));
  }
  std::vector<ElementSpan> spans(values.begin(), values.end());
  Status status;
  {
    nb::gil_scoped_release release;
    status = ReadMany(a, selections, spans, Options(fill_missing));
  }
  Check(status);
  nb::list result;
  for (const std::vector<std::string>& v : values) result.append(ToPyList(a, v));
  return result;
}

// The mask of a masked write into `view`: one byte per element of
// `selection` (a numpy bool or uint8 array, C-contiguous); left empty for
// None.
void ViewMask(nb::handle mask, const Selection& selection,
              std::optional<PyBufferView>& view) {
  if (mask.is_none()) return;
  view.emplace(mask, /*writable=*/false);
  if (view->size() != static_cast<size_t>(selection.num_elements())) {
    Check(Status::InvalidArgument("the mask holds " + std::to_string(view->size()) +
                                  " bytes; selection " + selection.ToString() + " has " +
                                  std::to_string(selection.num_elements()) + " elements"));
  }
}

void WriteFrom(Array& a, const RangeList& ranges, nb::handle src,
               bool write_empty_chunks, nb::handle mask) {
  if (a.dtype().is_variable_length()) {
    throw nb::type_error("write_from needs a fixed-size data type; use write_objects");
  }
  Selection selection = CheckedSelection(a, ranges);
  PyBufferView buffer(src, /*writable=*/false);
  size_t expected = static_cast<size_t>(selection.num_elements()) * a.dtype().size();
  if (buffer.size() != expected) {
    Check(Status::InvalidArgument("source buffer holds " + std::to_string(buffer.size()) +
                                  " bytes; selection " + selection.ToString() +
                                  " needs " + std::to_string(expected)));
  }
  std::optional<PyBufferView> mask_view;
  ViewMask(mask, selection, mask_view);
  WriteOptions options;
  options.write_empty_chunks = write_empty_chunks;
  if (mask_view) options.mask = static_cast<const uint8_t*>(mask_view->data());
  Status status;
  {
    nb::gil_scoped_release release;
    status = a.Write(selection, buffer.data(), options);
  }
  Check(status);
}

// dest[...] = source for two arrays of one shape and type
// (turbozarr/array_copy.h); answers the route taken, "units" or "blocks".
std::string CopyFrom(Array& dest, const Array& source, bool write_empty_chunks) {
  CopyOptions options;
  options.write.write_empty_chunks = write_empty_chunks;
  Result<CopyReport> report = Status::OK();
  {
    nb::gil_scoped_release release;
    report = CopyArray(source, dest, options);
  }
  return Unwrap(std::move(report)).route == CopyReport::Route::kUnits ? "units" : "blocks";
}

void WriteObjects(Array& a, const RangeList& ranges, nb::list values_in,
                  bool write_empty_chunks, nb::handle mask) {
  if (!a.dtype().is_variable_length()) {
    throw nb::type_error("write_objects needs a variable-length data type");
  }
  Selection selection = CheckedSelection(a, ranges);
  size_t n = static_cast<size_t>(selection.num_elements());
  if (nb::len(values_in) != n) {
    Check(Status::InvalidArgument("got " + std::to_string(nb::len(values_in)) +
                                  " values for selection " + selection.ToString() +
                                  " of " + std::to_string(n) + " elements"));
  }
  bool text = a.dtype().id() == DataTypeId::kString;
  std::vector<std::string> values(n);
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GET_ITEM(values_in.ptr(), static_cast<Py_ssize_t>(i));
    if (text && PyUnicode_Check(item)) {
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
      if (utf8 == nullptr) throw nb::python_error();
      values[i].assign(utf8, static_cast<size_t>(size));
    } else if (!text && PyBytes_Check(item)) {
      values[i].assign(PyBytes_AS_STRING(item),
                       static_cast<size_t>(PyBytes_GET_SIZE(item)));
    } else {
      throw nb::type_error(text ? "string arrays take str elements"
                                : "bytes arrays take bytes elements");
    }
  }
  std::optional<PyBufferView> mask_view;
  ViewMask(mask, selection, mask_view);
  WriteOptions options;
  options.write_empty_chunks = write_empty_chunks;
  if (mask_view) options.mask = static_cast<const uint8_t*>(mask_view->data());
  Status status;
  {
    nb::gil_scoped_release release;
    status = a.Write(selection, values.data(), options);
  }
  Check(status);
}

std::string MetadataJson(const Array& a) {
  const ArrayMetadata& m = a.metadata();
  return m.zarr_format == 2 ? ToV2ZarrayJson(m).dump() : ToV3Json(m).dump();
}

}  // namespace

Selection MakeSelection(const RangeList& ranges) {
  std::vector<DimRange> dims;
  dims.reserve(ranges.size());
  for (const auto& [start, stop, step] : ranges)
    dims.push_back(DimRange{start, stop, step});
  return Selection(std::move(dims));
}

ArrayMetadata ParseArrayMetadataArgs(int zarr_format, const std::string& metadata_json,
                                     const std::string& zattrs_json,
                                     std::string_view where) {
  JsonDocument doc = ParseJsonArgument(metadata_json, "array metadata");
  if (zarr_format == 3) return Unwrap(ParseV3ArrayMetadata(doc, where));
  if (zarr_format == 2) {
    JsonDocument zattrs = ParseJsonArgument(zattrs_json, "array attributes");
    return Unwrap(ParseV2ArrayMetadata(doc, zattrs, where));
  }
  Check(Status::InvalidArgument("zarr_format must be 2 or 3, got " +
                                std::to_string(zarr_format)));
  return {};
}

void BindArray(nb::module_& m) {
  nb::class_<Array>(m, "Array")
      .def_prop_ro("shape", &Array::shape)
      .def_prop_ro("path", &Array::path)
      .def_prop_ro("store", &Array::store)
      .def_prop_ro("zarr_format", [](const Array& a) { return a.metadata().zarr_format; })
      .def_prop_ro("chunk_shape", [](const Array& a) { return a.metadata().chunk_shape; })
      .def_prop_ro("inner_chunk_shape",
                   [](const Array& a) { return a.metadata().InnerChunkShape(); })
      .def_prop_ro("regular_grid", &Array::regular_grid)
      .def_prop_ro("grid_shape",
                   [](const Array& a) { return a.chunk_grid().GridShape(a.shape()); })
      // Per dimension, the number of elements of the array in each chunk
      // (shard) of the grid, the last clipped at the array's edge.
      .def_prop_ro("chunk_sizes",
                   [](const Array& a) {
                     const ChunkGrid& grid = a.chunk_grid();
                     std::vector<std::vector<int64_t>> sizes(a.shape().size());
                     for (size_t d = 0; d < sizes.size(); ++d) {
                       const int64_t extent = a.shape()[d];
                       const int64_t n = grid.NumChunks(d, extent);
                       sizes[d].reserve(static_cast<size_t>(n));
                       for (int64_t k = 0; k < n; ++k) {
                         sizes[d].push_back(std::min(grid.ChunkLength(d, k),
                                                     extent - grid.ChunkBegin(d, k)));
                       }
                     }
                     return sizes;
                   })
      .def_prop_ro("dtype_name",
                   [](const Array& a) { return DataTypeIdName(a.dtype().id()); })
      .def_prop_ro("dtype_size", [](const Array& a) { return a.dtype().size(); })
      .def_prop_ro("dtype_string", [](const Array& a) { return a.dtype().ToString(); })
      .def_prop_ro("dtype_json",
                   [](const Array& a) {
                     const ArrayMetadata& m = a.metadata();
                     return (m.zarr_format == 2 ? m.dtype.ToV2Json(m.v2_byte_order)
                                                : m.dtype.ToV3Json())
                         .dump();
                   },
                   "The data type as the metadata spells it (v2 with its byte order).")
      .def_prop_ro(
          "v2_byte_order",
          [](const Array& a) { return std::string(1, a.metadata().v2_byte_order); })
      .def_prop_ro("v2_order",
                   [](const Array& a) { return std::string(1, a.metadata().v2_order); })
      .def_prop_ro("fill_value_bytes",
                   [](const Array& a) {
                     const Buffer& b = a.metadata().fill_value.bytes;
                     return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size());
                   })
      .def_prop_ro("fill_value_is_null",
                   [](const Array& a) {
                     return a.metadata().zarr_format == 2 &&
                            a.metadata().v2_fill_value_null;
                   })
      .def_prop_ro("attributes_json",
                   [](const Array& a) { return a.metadata().attributes.dump(); })
      .def_prop_ro("codecs_json",
                   [](const Array& a) { return a.metadata().codecs.dump(); })
      .def_prop_ro("dimension_names",
                   [](const Array& a) { return a.metadata().dimension_names; })
      .def("metadata_json", &MetadataJson,
           "zarr.json (v3) or .zarray (v2) as the array would store it.")
      .def("describe", &Array::Describe)
      .def("chunk_key", &Array::ChunkKey, nb::arg("chunk_coords"))
      .def(
          "set_attributes",
          [](Array& a, const std::string& json) {
            JsonDocument attributes = ParseJsonArgument(json, "attributes");
            nb::gil_scoped_release release;
            Check(a.SetAttributes(attributes));
          },
          nb::arg("attributes_json"))
      .def(
          "resize",
          [](Array& a, const std::vector<int64_t>& shape) {
            Status status;
            {
              nb::gil_scoped_release release;
              status = a.Resize(shape);
            }
            Check(status);
          },
          nb::arg("shape"))
      .def("read_into", &ReadInto, nb::arg("ranges"), nb::arg("out"),
           nb::arg("fill_missing_chunks") = true,
           "Reads the selection into `out`, a C-contiguous writable buffer of its size.")
      .def("read_objects", &ReadObjects, nb::arg("ranges"),
           nb::arg("fill_missing_chunks") = true,
           "Reads the selection of a string/bytes array as a flat list in C order.")
      .def("read_boxes", &ReadBoxes, nb::arg("boxes"), nb::arg("outs"),
           nb::arg("fill_missing_chunks") = true,
           "Reads each box (a list of (start, stop, step)) into the C-contiguous "
           "writable buffer of `outs` at the same place, in parallel.")
      .def("read_boxes_objects", &ReadBoxesObjects, nb::arg("boxes"),
           nb::arg("fill_missing_chunks") = true,
           "read_boxes for a string/bytes array: one flat list per box, in C order.")
      .def("write_from", &WriteFrom, nb::arg("ranges"), nb::arg("src"),
           nb::arg("write_empty_chunks") = false, nb::arg("mask").none() = nb::none())
      .def("write_objects", &WriteObjects, nb::arg("ranges"), nb::arg("values"),
           nb::arg("write_empty_chunks") = false, nb::arg("mask").none() = nb::none())
      .def("can_copy_by_units",
           [](const Array& dest, const Array& source) { return CanCopyByUnits(source, dest); },
           nb::arg("source"))
      .def("copy_array", &CopyFrom, nb::arg("source"),
           nb::arg("write_empty_chunks") = false)
      .def(
          "copy_block_shape",
          [](const Array& dest, const Array& source, uint64_t memory_budget) {
            CopyOptions options;
            options.memory_budget = memory_budget;
            return CopyBlockShape(source, dest, options);
          },
          nb::arg("source"), nb::arg("memory_budget") = CopyOptions().memory_budget);

  m.def(
      "open_array",
      [](std::shared_ptr<Store> store, const std::string& path) {
        nb::gil_scoped_release release;
        return Unwrap(Array::Open(std::move(store), path));
      },
      nb::arg("store"), nb::arg("path"));
  // For a caller that holds the metadata already (zarr-python's codec
  // pipeline): nothing is read from or written to the store.
  m.def(
      "array_from_metadata",
      [](std::shared_ptr<Store> store, const std::string& path, int zarr_format,
         const std::string& metadata_json, const std::string& zattrs_json) {
        ArrayMetadata metadata =
            ParseArrayMetadataArgs(zarr_format, metadata_json, zattrs_json, path);
        return Unwrap(Array::FromMetadata(std::move(store), path, std::move(metadata)));
      },
      nb::arg("store"), nb::arg("path"), nb::arg("zarr_format"), nb::arg("metadata_json"),
      nb::arg("zattrs_json") = "null");
  m.def(
      "create_array",
      [](std::shared_ptr<Store> store, const std::string& path, int zarr_format,
         const std::string& metadata_json, const std::string& zattrs_json,
         bool overwrite, bool checksum) {
        ArrayMetadata metadata =
            ParseArrayMetadataArgs(zarr_format, metadata_json, zattrs_json, path);
        if (checksum) AddChecksum(metadata);
        CreateOptions options;
        options.overwrite = overwrite;
        nb::gil_scoped_release release;
        return Unwrap(
            Array::Create(std::move(store), path, std::move(metadata), options));
      },
      nb::arg("store"), nb::arg("path"), nb::arg("zarr_format"), nb::arg("metadata_json"),
      nb::arg("zattrs_json") = "null", nb::arg("overwrite") = false,
      nb::arg("checksum") = false);
}

}  // namespace turbozarr::python
