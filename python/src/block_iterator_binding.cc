// Streaming bindings: turbozarr._core.BlockIterator, the engine's
// BlockIterator (turbozarr/block_iterator.h) as a Python iterator of
// (ranges, block) pairs, where ranges are (start, stop, step) per dimension
// in array coordinates and block is a 1-D uint8 numpy array of the block's
// bytes that the package views as the array's dtype and shape.
//
// No copy: each block's Buffer moves into a capsule that owns it, and the
// numpy array views that memory, so the buffer lives exactly as long as numpy
// needs it. Waiting for a block and close() (which waits for the block reads
// in flight) run without the GIL.
//
// Thread safety: as any Python object, one thread at a time (the GIL).
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/block_iterator.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

class PyBlockIterator {
 public:
  PyBlockIterator(std::shared_ptr<Array> array, const RangeList& ranges,
                  uint64_t readahead_bytes, std::vector<int64_t> block_shape)
      : array_(std::move(array)) {
    IterateOptions options;
    options.readahead_bytes = readahead_bytes;
    options.block_shape = std::move(block_shape);
    // The engine's copy does not own the Python object: its release would
    // need the GIL, and close() drops the engine's iterator without it.
    // array_ keeps the Array alive for longer than the engine's iterator.
    std::shared_ptr<const Array> engine_view(std::shared_ptr<void>(), array_.get());
    Result<BlockIterator> made = [&] {
      nb::gil_scoped_release release;
      return BlockIterator::Make(std::move(engine_view), MakeSelection(ranges),
                                 std::move(options));
    }();
    it_.emplace(Unwrap(std::move(made)));
  }
  // A call in progress holds a reference to the object, so none runs here.
  // The lanes never take the GIL, so waiting for them with it cannot
  // deadlock.
  ~PyBlockIterator() { it_.reset(); }
  PyBlockIterator(const PyBlockIterator&) = delete;
  PyBlockIterator& operator=(const PyBlockIterator&) = delete;

  nb::tuple Next() {
    if (!it_) throw nb::stop_iteration();
    Result<std::optional<Block>> next = [&] {
      InUse use(*this);
      nb::gil_scoped_release release;
      return it_->Next();
    }();
    std::optional<Block> block = Unwrap(std::move(next));
    if (!block) {
      Close();
      throw nb::stop_iteration();
    }
    RangeList ranges;
    for (const DimRange& r : block->selection.dims()) {
      ranges.emplace_back(r.start, r.stop, r.step);
    }
    auto* owned = new Buffer(std::move(block->data));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<Buffer*>(p); });
    nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>> bytes(owned->data(), {owned->size()},
                                                       owner);
    return nb::make_tuple(ranges, bytes.cast());
  }

  // Stops the background reads and waits for those in flight; idempotent.
  void Close() {
    if (!it_) return;
    InUse use(*this);
    nb::gil_scoped_release release;
    it_.reset();
  }

  int64_t num_blocks() const { return it_ ? it_->num_blocks() : 0; }
  std::vector<int64_t> block_shape() const {
    return it_ ? it_->block_shape() : std::vector<int64_t>{};
  }

 private:
  // Marks the engine's iterator busy while a call runs without the GIL, so
  // that another Python thread cannot close it (or step it) meanwhile. The
  // flag is only touched with the GIL held.
  class InUse {
   public:
    explicit InUse(PyBlockIterator& owner) : owner_(owner) {
      if (owner_.busy_) {
        throw std::runtime_error("BlockIterator is in use by another thread");
      }
      owner_.busy_ = true;
    }
    ~InUse() { owner_.busy_ = false; }

   private:
    PyBlockIterator& owner_;
  };

  std::shared_ptr<Array> array_;
  std::optional<BlockIterator> it_;
  bool busy_ = false;
};

}  // namespace

void BindBlockIterator(nb::module_& m) {
  nb::class_<PyBlockIterator>(m, "BlockIterator")
      .def(nb::init<std::shared_ptr<Array>, const RangeList&, uint64_t,
                    std::vector<int64_t>>(),
           nb::arg("array"), nb::arg("ranges"), nb::arg("readahead_bytes"),
           nb::arg("block_shape"),
           "Starts reading blocks of the selection in the background.")
      .def("__iter__", [](nb::handle self) { return self; })
      .def("__next__", &PyBlockIterator::Next)
      .def("close", &PyBlockIterator::Close,
           "Stops reading ahead; later calls to __next__ raise StopIteration.")
      .def_prop_ro("num_blocks", &PyBlockIterator::num_blocks)
      .def_prop_ro("block_shape", &PyBlockIterator::block_shape);
}

}  // namespace turbozarr::python
