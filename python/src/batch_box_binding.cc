// batch_one_box: the zarr-python codec pipeline's question "is this batch one
// box of the array?" answered in C++ for the common case, a regular chunk
// grid and selections of slices and integers. zarr-python hands the pipeline
// one item per chunk (20,000 for a whole read of a 1 GB array in 100 KB
// chunks); parsing each item's key and comparing its selections in Python
// took as long as a fifth of the engine's read. The rules are those of
// _one_box in turbozarr/zarr_pipeline.py, which still answers every batch
// this function declines (None): keys it cannot parse, integer arrays, numpy
// integers, chunks with ArraySpecs of their own, rectilinear grids, dropped
// axes.
//
// Thread safety: runs with the GIL held (it reads Python objects).
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bindings.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

// A borrowed reference that Python's == compares (the batch keeps it alive).
struct Entry {
  PyObject* selection;  // in the chunk: a slice or an int
  PyObject* output;     // in the output: a slice, or null for a dropped dimension
};

bool SameEntry(const Entry& a, const Entry& b) {
  auto same = [](PyObject* x, PyObject* y) {
    if (x == y) return true;
    if (x == nullptr || y == nullptr) return false;
    const int r = PyObject_RichCompareBool(x, y, Py_EQ);
    if (r < 0) PyErr_Clear();
    return r == 1;
  };
  return same(a.selection, b.selection) && same(a.output, b.output);
}

// The chunk coordinates of `key` when it is `prefix` followed by `ndim`
// integers joined by `separator`.
bool ParseKey(std::string_view key, std::string_view prefix, char separator, size_t ndim,
              std::vector<int64_t>& coords) {
  if (key.substr(0, prefix.size()) != prefix) return false;
  const char* p = key.data() + prefix.size();
  const char* end = key.data() + key.size();
  coords.clear();
  for (size_t d = 0; d < ndim; ++d) {
    if (d > 0) {
      if (p == end || *p != separator) return false;
      ++p;
    }
    int64_t value = 0;
    auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc() || next == p || value < 0) return false;
    coords.push_back(value);
    p = next;
  }
  return p == end;
}

// (start, stop, step) of slice.indices(extent), stop raised to start; none
// for a step below 1.
std::optional<std::tuple<int64_t, int64_t, int64_t>> SliceRange(PyObject* slice,
                                                                 int64_t extent) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(slice, &start, &stop, &step) < 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  PySlice_AdjustIndices(extent, &start, &stop, step);
  if (step < 1) return std::nullopt;
  return std::make_tuple(int64_t{start}, int64_t{std::max(start, stop)}, int64_t{step});
}

// An item's chunk or output selection as a tuple (a lone selection is one).
std::pair<PyObject* const*, Py_ssize_t> Parts(PyObject*& selection) {
  if (PyTuple_CheckExact(selection)) {
    return {&PyTuple_GET_ITEM(selection, 0), PyTuple_GET_SIZE(selection)};
  }
  return {&selection, 1};
}

struct CoordsHash {
  size_t operator()(const std::vector<int64_t>& v) const {
    size_t h = 1469598103934665603ull;
    for (int64_t x : v) h = (h ^ static_cast<size_t>(x)) * 1099511628211ull;
    return h;
  }
};

nb::object BatchOneBox(nb::list batch, const std::string& prefix, const std::string& separator,
                       const std::vector<int64_t>& chunk_shape,
                       const std::vector<int64_t>& array_shape,
                       const std::vector<int64_t>& out_shape) {
  const size_t ndim = array_shape.size();
  const size_t n_items = batch.size();
  if (n_items == 0 || ndim == 0 || chunk_shape.size() != ndim || separator.size() != 1) {
    return nb::none();
  }
  std::vector<std::unordered_map<int64_t, Entry>> rows(ndim);
  std::unordered_set<std::vector<int64_t>, CoordsHash> seen;
  seen.reserve(n_items);
  std::vector<int64_t> top(ndim, -1);
  std::vector<char> kept(ndim, 0);
  size_t n_kept = 0;
  std::vector<int64_t> coords;
  for (size_t i = 0; i < n_items; ++i) {
    PyObject* item = PyList_GET_ITEM(batch.ptr(), static_cast<Py_ssize_t>(i));
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 4) return nb::none();
    // One ArraySpec for all, as zarr-python gives a regular grid's chunks
    // (the pipeline reads its config once).
    if (PyTuple_GET_ITEM(item, 1) != PyTuple_GET_ITEM(PyList_GET_ITEM(batch.ptr(), 0), 1)) {
      return nb::none();
    }
    PyObject* path = PyObject_GetAttrString(PyTuple_GET_ITEM(item, 0), "path");
    if (path == nullptr) {
      PyErr_Clear();
      return nb::none();
    }
    Py_ssize_t size = 0;
    const char* chars = PyUnicode_Check(path) ? PyUnicode_AsUTF8AndSize(path, &size) : nullptr;
    const bool parsed = chars != nullptr && ParseKey(std::string_view(chars, size), prefix,
                                                     separator[0], ndim, coords);
    Py_DECREF(path);  // the StorePath keeps the string
    if (!parsed) {
      PyErr_Clear();
      return nb::none();
    }
    PyObject* chunk_selection = PyTuple_GET_ITEM(item, 2);
    PyObject* out_selection = PyTuple_GET_ITEM(item, 3);
    auto [cs, n_cs] = Parts(chunk_selection);
    auto [out, n_out] = Parts(out_selection);
    if (static_cast<size_t>(n_cs) != ndim) return nb::none();
    if (i == 0) {
      for (size_t d = 0; d < ndim; ++d) {
        kept[d] = !PyLong_Check(cs[d]);
        n_kept += kept[d];
      }
      if (n_kept != out_shape.size()) return nb::none();
    }
    if (static_cast<size_t>(n_out) != n_kept) return nb::none();
    size_t k = 0;
    for (size_t d = 0; d < ndim; ++d) {
      PyObject* sel = cs[d];
      if (!PySlice_Check(sel) && !PyLong_Check(sel)) return nb::none();
      Entry entry{sel, kept[d] ? out[k++] : nullptr};
      auto [it, inserted] = rows[d].try_emplace(coords[d], entry);
      if (!inserted && !SameEntry(it->second, entry)) return nb::none();
      top[d] = std::max(top[d], coords[d]);
    }
    if (!seen.insert(coords).second) return nb::none();
  }
  size_t product = 1;
  for (const auto& r : rows) product *= r.size();
  if (product != n_items) return nb::none();

  // The array's shape as far as this call can tell: grown to hold every
  // chunk it touches (the pipeline's _call_shape).
  std::vector<int64_t> shape(ndim);
  for (size_t d = 0; d < ndim; ++d) {
    shape[d] = std::max(array_shape[d], (top[d] + 1) * chunk_shape[d]);
  }
  RangeList box;
  size_t axis = 0;
  for (size_t d = 0; d < ndim; ++d) {
    const bool is_kept = kept[d];
    const int64_t n = is_kept ? out_shape[axis++] : 1;
    std::optional<int64_t> step;
    int64_t filled = 0;
    std::vector<std::pair<int64_t, int64_t>> firsts;  // (first element, its output place)
    firsts.reserve(rows[d].size());
    for (const auto& [index, entry] : rows[d]) {
      const bool is_int = PyLong_Check(entry.selection);
      if (is_int == is_kept) return nb::none();
      int64_t start, stop, s;
      if (is_int) {
        int overflow = 0;
        start = PyLong_AsLongLongAndOverflow(entry.selection, &overflow);
        if (overflow || (start == -1 && PyErr_Occurred())) {
          PyErr_Clear();
          return nb::none();
        }
        stop = start + 1;
        s = 1;
      } else {
        auto r = SliceRange(entry.selection, chunk_shape[d]);
        if (!r) return nb::none();
        std::tie(start, stop, s) = *r;
      }
      const int64_t count = (stop - start + s - 1) / s;
      int64_t out_start = 0;
      if (is_kept) {
        if (!PySlice_Check(entry.output)) return nb::none();
        auto o = SliceRange(entry.output, n);
        if (!o) return nb::none();
        const auto [o_start, o_stop, o_step] = *o;
        if (o_step != 1 || o_stop - o_start != count) return nb::none();
        out_start = o_start;
      }
      if (count > 1) {
        if (!step) {
          step = s;
        } else if (*step != s) {
          return nb::none();
        }
      }
      filled += count;
      firsts.emplace_back(index * chunk_shape[d] + start, out_start);
    }
    const int64_t st = step.value_or(1);
    // Every run lands where the box's start and step put its first element.
    std::optional<int64_t> common;
    for (const auto& [first, out_start] : firsts) {
      const int64_t o = first - out_start * st;
      if (common && *common != o) return nb::none();
      common = o;
    }
    if (filled != n || !common) return nb::none();
    const int64_t stop = *common + (n - 1) * st + 1;
    if (*common < 0 || stop > shape[d]) return nb::none();
    box.emplace_back(*common, stop, st);
  }
  return nb::make_tuple(box, shape);
}

}  // namespace

void BindBatchBox(nb::module_& m) {
  m.def("batch_one_box", &BatchOneBox, nb::arg("batch"), nb::arg("prefix"),
        nb::arg("separator"), nb::arg("chunk_shape"), nb::arg("array_shape"),
        nb::arg("out_shape"),
        "(box, call shape) when a zarr-python batch over a regular grid is one "
        "strided box of the array, else None (see zarr_pipeline._one_box).");
}

}  // namespace turbozarr::python
