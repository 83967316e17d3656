// The pieces of the turbozarr._core extension module, one Bind* per file,
// and the helpers they share.
//
// Thread safety: every binding releases the GIL around store and codec work.
// set_threads may run meanwhile: each read or write keeps the thread pool it
// started with (turbozarr/config.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nanobind/nanobind.h>

#include "turbozarr/metadata.h"
#include "turbozarr/selection.h"

namespace turbozarr::python {

void BindStore(nanobind::module_& m);
void BindArray(nanobind::module_& m);
void BindGroup(nanobind::module_& m);
void BindConfig(nanobind::module_& m);
void BindBlockIterator(nanobind::module_& m);
void BindCodecs(nanobind::module_& m);
void BindVcz(nanobind::module_& m);
void BindOme(nanobind::module_& m);
void BindSparse(nanobind::module_& m);
void BindResultMemory(nanobind::module_& m);
void BindBatchBox(nanobind::module_& m);
void BindVerify(nanobind::module_& m);

// The Python package's names for element types ("int16", "string"; see
// _dtypes.py).
const char* DataTypeIdName(DataTypeId id);

// (start, stop, step) per dimension, already normalised by the Python side.
using RangeList = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
Selection MakeSelection(const RangeList& ranges);

// Array metadata from the documents Python built: zarr.json (v3), or .zarray
// plus .zattrs (v2; `zattrs` may be "null").
ArrayMetadata ParseArrayMetadataArgs(int zarr_format, const std::string& metadata_json,
                                     const std::string& zattrs_json,
                                     std::string_view where);

}  // namespace turbozarr::python
