// PyBufferView: the bytes of a Python object that exports the buffer protocol
// (a numpy array), held for the lifetime of the view.
//
// Array reads and writes go through this rather than nanobind's ndarray so
// that every fixed-size numpy dtype works, including the ones DLPack cannot
// describe (fixed bytes "S", UTF-32 "U", raw "V"). Only C-contiguous buffers
// are accepted: the engine fills or consumes them as one packed block.
//
// Thread safety: acquire and release with the GIL held; the bytes themselves
// may be used without the GIL while the view lives.
#pragma once

#include <cstddef>

#include <nanobind/nanobind.h>

namespace turbozarr::python {

class PyBufferView {
 public:
  // Raises BufferError (via nanobind) when `obj` has no C-contiguous buffer,
  // or no writable one when `writable`.
  PyBufferView(nanobind::handle obj, bool writable) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) throw nanobind::python_error();
  }
  ~PyBufferView() { PyBuffer_Release(&view_); }
  PyBufferView(const PyBufferView&) = delete;
  PyBufferView& operator=(const PyBufferView&) = delete;

  void* data() const { return view_.buf; }
  size_t size() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_;
};

}  // namespace turbozarr::python
