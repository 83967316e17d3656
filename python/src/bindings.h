// The pieces of the turbozarr._core extension module, one Bind* per file,
// and the helpers they share.
//
// Thread safety: every binding releases the GIL around store and codec work;
// PoolMutex() keeps the thread pool from being replaced while such work runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <shared_mutex>
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

// Held shared by every read, write and resize, and exclusively while the
// default thread pool is replaced (which requires that no work is in flight).
std::shared_mutex& PoolMutex();
// Open BlockIterators, which read in the background between calls: changed
// with PoolMutex held (shared on opening), and set_threads refuses unless it
// is zero.
std::atomic<int>& LiveIterators();

// (start, stop, step) per dimension, already normalised by the Python side.
using RangeList = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
Selection MakeSelection(const RangeList& ranges);

// Array metadata from the documents Python built: zarr.json (v3), or .zarray
// plus .zattrs (v2; `zattrs` may be "null").
ArrayMetadata ParseArrayMetadataArgs(int zarr_format, const std::string& metadata_json,
                                     const std::string& zattrs_json,
                                     std::string_view where);

}  // namespace turbozarr::python
