// Whole small arrays of a VCZ dataset read into plain C++ values: the sample
// and contig tables, contig lengths, the region index. They are read once
// per query, so these favour accepting every type a writer may have used
// over speed.
//
// Thread safety: free functions over thread-safe Arrays.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/element_block.h"
#include "turbozarr/status.h"

namespace turbozarr::vcz::internal {

// Every element of `array` (any integer or boolean type), widened to int64,
// in C order.
Result<std::vector<int64_t>> ReadIntegers(const Array& array);

// Every element of a 1-D `array` of strings: variable-length strings or
// bytes, or fixed-size bytes or unicode (trailing NULs dropped, UTF-32
// written as UTF-8). Corruption naming the array for other types or shapes.
Result<std::vector<std::string>> ReadStrings(const Array& array);
// What ReadStrings checks before it reads: OK for a 1-D array of one of
// those types, else the Corruption it would return.
Status CheckStrings(const Array& array);

// The elements of a block of fixed-size bytes (NUL padding dropped) or
// unicode (UTF-32, written as UTF-8, NUL padding dropped) as text.
std::vector<std::string> FixedStringsAsText(const ElementBlock& block);

// Runs `tasks` and returns the first failure in their order. With
// `at_once` (reads from a remote store, a round trip each) they run
// together, the first on the calling thread and each other on a thread of
// its own, so that the round trips overlap; otherwise (a local store, where
// a thread start costs more than the read) one after another. For a few
// tasks only.
Status RunAll(const std::vector<std::function<Status()>>& tasks, bool at_once);
// Whether reads from `array`'s store are worth overlapping (a remote store).
bool ReadsOverlap(const Array& array);

// "(3, 4)": a shape as numpy prints it.
std::string ShapeString(const std::vector<int64_t>& shape);

// Whether field `name` (a variant_ or call_ array) of a dataset of
// `variants` variants and `samples` samples has a row per variant and, for a
// call field, a column per sample; Corruption naming the array and the shape
// when it has not.
Status CheckFieldShape(const std::string& name, const Array& array, int64_t variants,
                       int64_t samples);

}  // namespace turbozarr::vcz::internal
