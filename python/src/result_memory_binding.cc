// Result memory: where the arrays that reads hand to numpy live, when they
// are large.
//
// A fresh result costs the kernel a page fault and a zeroed page for every
// 4 KiB (or 2 MiB) of it the first time the read writes there. For a read of
// 1 GB in 20,000 small chunks that was twice the decoding, and it varied
// from run to run by a factor of two or more (huge pages, whose first touch
// on a virtual machine can wait for the host). Loaders, tile servers and
// benchmarks read results of the same size again and again, and drop the
// previous one first. So a result's memory, once numpy lets go of it, is
// kept for the next result of about the same size: that read writes into
// pages the process already has, as a read with `out=` does.
//
// The memory comes from mmap, page-aligned. A dropped block is kept while
// the kept blocks total at most 1/8 of the machine's memory (the oldest go
// first), and for at most kKeptFor: a block not taken again by then is
// unmapped at the next result made or dropped, so a process that stops
// reading holds at most that share. (Marking kept blocks MADV_FREE, so that
// the kernel could take them back, cost their reuse 60 ms per GB: every
// page's dirty bit set again on the next write.) A read writes every byte of
// its result (the fill value where a chunk is missing), so stale contents
// are never seen.
//
// Thread safety: every function here runs with the GIL held (the capsule
// that owns a block is destroyed by Python with it), which is also what
// makes the cache safe across fork(): no other thread is inside it then.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <deque>
#include <new>
#include <optional>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include "bindings.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

// Results smaller than this come from numpy's own allocator (see _array.py).
constexpr size_t kPooledResultBytes = size_t{1} << 20;

size_t PageRounded(size_t n) {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

// A block's size: page-rounded, then up to one of 16 steps per power of
// two, so that results a few percent apart (tiles of a sparse matrix) come
// in the same size and each can take the other's dropped block.
size_t BlockSize(size_t n) {
  const size_t size = PageRounded(n);
  const size_t step = std::max(PageRounded(1), std::bit_floor(size) / 16);
  return (size + step - 1) / step * step;
}

// At most 1/8 of the machine's memory is kept for later results.
size_t CacheLimit() {
  static const size_t limit = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return size_t{1} << 30;
    return static_cast<size_t>(pages) * static_cast<size_t>(page) / 8;
  }();
  return limit;
}

// A kept block not taken again within this long is given back.
constexpr std::chrono::seconds kKeptFor{10};

class ResultCache {
 public:
  using Clock = std::chrono::steady_clock;

  struct Kept {
    void* data;
    size_t size;
    Clock::time_point since;
  };

  // A block of at least `size` bytes (a BlockSize): the smallest kept one
  // no more than a quarter larger (results read again and again are of
  // about the same size: a tile of a sparse matrix holds a few percent
  // more or fewer values than the last), else a new mapping of `size`;
  // `*size` becomes the block's. nullptr when the system has no memory to
  // give.
  void* Take(size_t* size) {
    DropStale();
    const size_t wanted = *size;
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->size >= wanted && it->size - wanted <= wanted / 4 &&
          (best == kept_.end() || it->size < best->size)) {
        best = it;
      }
    }
    if (best != kept_.end()) {
      void* p = best->data;
      *size = best->size;
      kept_bytes_ -= best->size;
      kept_.erase(best);
      return p;
    }
    void* p = ::mmap(nullptr, wanted, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (p == MAP_FAILED) return nullptr;
    // A result too large to keep is always fresh: it asks for huge pages
    // where the kernel offers them, as numpy does for its large arrays, so
    // that its first touch faults once per 2 MiB (that halved a fresh 2 GB
    // read). Blocks that will be kept do not: their first touch is paid once,
    // and huge-page faults made some reads of small chunks wait 2-4x longer.
    if (wanted > Limit()) ::madvise(p, wanted, MADV_HUGEPAGE);
    return p;
  }

  // Keeps a dropped block for a later result, or unmaps it.
  void Give(void* p, size_t size) {
    DropStale();
    const size_t limit = Limit();
    if (size > limit) {
      ::munmap(p, size);
      return;
    }
    while (kept_bytes_ + size > limit) DropOldest();
    kept_.push_back({p, size, Clock::now()});
    kept_bytes_ += size;
  }

  void Clear() {
    while (!kept_.empty()) DropOldest();
  }

  size_t kept_bytes() const { return kept_bytes_; }
  void set_limit(std::optional<size_t> limit) { limit_override_ = limit; }
  size_t Limit() const { return limit_override_ ? *limit_override_ : CacheLimit(); }
  void set_kept_for(std::optional<double> seconds) {
    kept_for_ = seconds ? std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(*seconds))
                        : Clock::duration(kKeptFor);
  }

 private:
  void DropOldest() {
    ::munmap(kept_.front().data, kept_.front().size);
    kept_bytes_ -= kept_.front().size;
    kept_.pop_front();
  }
  void DropStale() {
    const Clock::time_point now = Clock::now();
    while (!kept_.empty() && now - kept_.front().since > kept_for_) DropOldest();
  }

  std::deque<Kept> kept_;  // oldest first
  size_t kept_bytes_ = 0;
  std::optional<size_t> limit_override_;
  Clock::duration kept_for_ = kKeptFor;
};

ResultCache& Cache() {
  static ResultCache* cache = new ResultCache;  // never destroyed: blocks outlive statics
  return *cache;
}

struct Block {
  void* data;
  size_t size;
};

// `itemsize` (1, 2, 4 or 8) makes it an array of that many unsigned bytes
// per element, which the caller views as its dtype: the view's base then
// counts as many elements as the view (scipy copies a view of an array
// more than twice its size).
nb::object ResultBytes(size_t nbytes, size_t itemsize) {
  if ((itemsize != 2 && itemsize != 4 && itemsize != 8) || nbytes % itemsize != 0) itemsize = 1;
  size_t size = BlockSize(std::max<size_t>(nbytes, 1));
  void* data = Cache().Take(&size);
  if (data == nullptr) throw std::bad_alloc();
  auto* block = new Block{data, size};
  nb::capsule owner(block, [](void* p) noexcept {
    auto* b = static_cast<Block*>(p);
    Cache().Give(b->data, b->size);
    delete b;
  });
  const size_t count = nbytes / itemsize;
  const nb::dlpack::dtype items{static_cast<uint8_t>(nb::dlpack::dtype_code::UInt),
                                static_cast<uint8_t>(8 * itemsize), 1};
  return nb::ndarray<nb::numpy, nb::ndim<1>>(data, {count}, owner, {}, items).cast();
}

}  // namespace

void BindResultMemory(nb::module_& m) {
  m.attr("POOLED_RESULT_BYTES") = kPooledResultBytes;
  m.def("result_bytes", &ResultBytes, nb::arg("nbytes"), nb::arg("itemsize") = 1,
        "A new array of `nbytes` for a read's result, page-aligned, of unsigned "
        "integers of `itemsize` bytes (1, 2, 4 or 8; else 1); its memory is kept for a "
        "later result of about the same size once it is dropped.");
  m.def(
      "result_cache_bytes", [] { return Cache().kept_bytes(); },
      "Bytes of dropped results kept for later ones.");
  m.def(
      "set_result_cache_limit",
      [](std::optional<size_t> limit, std::optional<double> kept_for) {
        Cache().set_limit(limit);
        Cache().set_kept_for(kept_for);
        if (limit && Cache().kept_bytes() > *limit) Cache().Clear();
      },
      nb::arg("limit").none(), nb::arg("kept_for").none() = nb::none(),
      "Caps the bytes kept (None: 1/8 of the machine's memory) and how long, in "
      "seconds (None: 10); for tests.");
  m.def(
      "clear_result_cache", [] { Cache().Clear(); },
      "Unmaps every kept result block.");
}

}  // namespace turbozarr::python
