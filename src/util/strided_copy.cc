#include "util/strided_copy.h"

#include <algorithm>
#include <cstring>

namespace turbozarr {
namespace {

// One dimension of a block after normalisation; strides in the caller's units
// (bytes, or elements for strings). `index` is the odometer position.
struct Dim {
  int64_t count;
  int64_t src;
  int64_t dst;
  int64_t index;
};

// Dimension storage that stays on the stack for every realistic rank, so a
// per-chunk copy costs no allocation.
class DimList {
 public:
  explicit DimList(int capacity) {
    if (capacity > kInline) {
      heap_.resize(capacity);
      data_ = heap_.data();
    }
  }
  Dim* data() { return data_; }
  Dim& operator[](int i) { return data_[i]; }
  Dim& back() { return data_[size_ - 1]; }
  int size() const { return size_; }
  void push_back(const Dim& d) { data_[size_++] = d; }
  void pop_back() { --size_; }

 private:
  static constexpr int kInline = 16;
  Dim inline_[kInline];
  std::vector<Dim> heap_;
  Dim* data_ = inline_;
  int size_ = 0;
};

// Drops dimensions of count 1 (their stride never matters), and merges each
// dimension into the one outside it when the two are contiguous with each other
// in both layouts. Null stride arrays read as 0. With `drop_zero_dst` set,
// dimensions whose destination stride is 0 are dropped too: a fill writes the
// same value there every time. Returns false if the block is empty.
bool Normalize(const int64_t* count, const int64_t* src_strides,
               const int64_t* dst_strides, int rank, bool drop_zero_dst, DimList& dims) {
  for (int d = 0; d < rank; ++d) {
    if (count[d] <= 0) return false;
  }
  for (int d = 0; d < rank; ++d) {
    int64_t s = src_strides ? src_strides[d] : 0;
    int64_t t = dst_strides ? dst_strides[d] : 0;
    if (count[d] == 1 || (drop_zero_dst && t == 0)) continue;
    Dim cur{count[d], s, t, 0};
    if (dims.size() > 0) {
      Dim& outer = dims.back();
      if (outer.src == cur.src * cur.count && outer.dst == cur.dst * cur.count) {
        outer = {outer.count * cur.count, cur.src, cur.dst, 0};
        continue;
      }
    }
    dims.push_back(cur);
  }
  return true;
}

// Calls kernel(src_offset, dst_offset) once for every position of the first
// `n` dimensions, in C order. Offsets are kept as integers so that no pointer
// is ever formed outside the block.
template <typename Kernel>
void ForEachOuter(Dim* dims, int n, Kernel&& kernel) {
  int64_t so = 0, dof = 0;
  for (int d = 0; d < n; ++d) dims[d].index = 0;
  while (true) {
    kernel(so, dof);
    int d = n - 1;
    for (; d >= 0; --d) {
      Dim& dim = dims[d];
      so += dim.src;
      dof += dim.dst;
      if (++dim.index < dim.count) break;
      so -= dim.src * dim.count;
      dof -= dim.dst * dim.count;
      dim.index = 0;
    }
    if (d < 0) return;
  }
}

// Calls row(src_offset, dst_offset) for every row of the block, where the
// innermost remaining dimension (if any) is looped over here so that rank-2
// blocks need no odometer.
template <typename Row>
void ForEachRow(DimList& dims, Row&& row) {
  int n = dims.size();
  if (n == 0) {
    row(0, 0);
    return;
  }
  const Dim last = dims[n - 1];
  ForEachOuter(dims.data(), n - 1, [&](int64_t so, int64_t dof) {
    for (int64_t i = 0; i < last.count; ++i) row(so + i * last.src, dof + i * last.dst);
  });
}

struct Bytes16 {
  unsigned char b[16];
};

template <typename T>
void CopyInner(const std::byte* src, int64_t ss, std::byte* dst, int64_t ds, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * ss, sizeof(T));
    std::memcpy(dst + i * ds, &v, sizeof(T));
  }
}

template <typename T>
void CopyStridedInner(const std::byte* src, std::byte* dst, DimList& dims) {
  Dim inner = dims.back();
  dims.pop_back();
  ForEachRow(dims, [&](int64_t so, int64_t dof) {
    CopyInner<T>(src + so, inner.src, dst + dof, inner.dst, inner.count);
  });
}

template <typename T>
void FillInner(std::byte* dst, int64_t ds, int64_t n, const std::byte* value) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, &v, sizeof(T));
}

template <typename T>
void FillStridedInner(std::byte* dst, DimList& dims, const std::byte* value) {
  Dim inner = dims.back();
  dims.pop_back();
  ForEachRow(dims, [&](int64_t, int64_t dof) {
    FillInner<T>(dst + dof, inner.dst, inner.count, value);
  });
}

// Fills `bytes` contiguous bytes with copies of the elem_size bytes at value,
// from a pattern of whole elements prepared once per call.
class PatternFill {
 public:
  PatternFill(const std::byte* value, size_t elem_size) {
    size_t reps = std::max<size_t>(1, sizeof(pattern_) / elem_size);
    if (elem_size > sizeof(pattern_)) {
      heap_.resize(elem_size);
      data_ = heap_.data();
      reps = 1;
    }
    for (size_t r = 0; r < reps; ++r) {
      std::memcpy(data_ + r * elem_size, value, elem_size);
    }
    size_ = reps * elem_size;
  }
  void Fill(std::byte* dst, size_t bytes) const {
    while (bytes > 0) {
      size_t n = std::min(bytes, size_);
      std::memcpy(dst, data_, n);
      dst += n;
      bytes -= n;
    }
  }

 private:
  std::byte pattern_[4096];
  std::vector<std::byte> heap_;
  std::byte* data_ = pattern_;
  size_t size_ = 0;
};

bool AllBytesEqual(const std::byte* value, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (value[i] != value[0]) return false;
  }
  return true;
}

}  // namespace

void CopyStrided(const std::byte* src, const int64_t* src_strides, std::byte* dst,
                 const int64_t* dst_strides, const int64_t* count, int rank,
                 size_t elem_size) {
  if (elem_size == 0) return;
  DimList dims(rank);
  if (!Normalize(count, src_strides, dst_strides, rank, false, dims)) return;
  const int64_t unit = static_cast<int64_t>(elem_size);

  if (dims.size() == 0 || (dims.back().src == unit && dims.back().dst == unit)) {
    // Contiguous innermost run: one memcpy per run.
    size_t run = elem_size;
    if (dims.size() > 0) {
      run = static_cast<size_t>(dims.back().count) * elem_size;
      dims.pop_back();
    }
    ForEachRow(dims,
               [&](int64_t so, int64_t dof) { std::memcpy(dst + dof, src + so, run); });
    return;
  }
  switch (elem_size) {
    case 1: return CopyStridedInner<uint8_t>(src, dst, dims);
    case 2: return CopyStridedInner<uint16_t>(src, dst, dims);
    case 4: return CopyStridedInner<uint32_t>(src, dst, dims);
    case 8: return CopyStridedInner<uint64_t>(src, dst, dims);
    case 16: return CopyStridedInner<Bytes16>(src, dst, dims);
    default: break;
  }
  Dim inner = dims.back();
  dims.pop_back();
  ForEachRow(dims, [&](int64_t so, int64_t dof) {
    for (int64_t i = 0; i < inner.count; ++i) {
      std::memcpy(dst + dof + i * inner.dst, src + so + i * inner.src, elem_size);
    }
  });
}

void CopyStridedStrings(const std::string* src, const int64_t* src_strides,
                        std::string* dst, const int64_t* dst_strides,
                        const int64_t* count, int rank) {
  DimList dims(rank);
  if (!Normalize(count, src_strides, dst_strides, rank, false, dims)) return;
  if (dims.size() == 0) {
    *dst = *src;
    return;
  }
  Dim inner = dims.back();
  dims.pop_back();
  ForEachRow(dims, [&](int64_t so, int64_t dof) {
    const std::string* s = src + so;
    std::string* d = dst + dof;
    if (inner.src == 1 && inner.dst == 1) {
      std::copy(s, s + inner.count, d);
    } else {
      for (int64_t i = 0; i < inner.count; ++i) d[i * inner.dst] = s[i * inner.src];
    }
  });
}

void FillStrided(std::byte* dst, const int64_t* dst_strides, const int64_t* count,
                 int rank, const std::byte* value, size_t elem_size) {
  if (elem_size == 0) return;
  DimList dims(rank);
  if (!Normalize(count, nullptr, dst_strides, rank, true, dims)) return;
  const int64_t unit = static_cast<int64_t>(elem_size);

  if (dims.size() == 0 || dims.back().dst == unit) {
    size_t run = elem_size;
    if (dims.size() > 0) {
      run = static_cast<size_t>(dims.back().count) * elem_size;
      dims.pop_back();
    }
    if (AllBytesEqual(value, elem_size)) {
      // Zero and other byte-uniform fill values, the common case.
      int byte = std::to_integer<int>(value[0]);
      ForEachRow(dims, [&](int64_t, int64_t dof) { std::memset(dst + dof, byte, run); });
      return;
    }
    int64_t n = static_cast<int64_t>(run / elem_size);
    switch (elem_size) {
      case 2:
        return ForEachRow(dims, [&](int64_t, int64_t dof) {
          FillInner<uint16_t>(dst + dof, 2, n, value);
        });
      case 4:
        return ForEachRow(dims, [&](int64_t, int64_t dof) {
          FillInner<uint32_t>(dst + dof, 4, n, value);
        });
      case 8:
        return ForEachRow(dims, [&](int64_t, int64_t dof) {
          FillInner<uint64_t>(dst + dof, 8, n, value);
        });
      default: {
        PatternFill pattern(value, elem_size);
        return ForEachRow(dims,
                          [&](int64_t, int64_t dof) { pattern.Fill(dst + dof, run); });
      }
    }
  }
  switch (elem_size) {
    case 1: return FillStridedInner<uint8_t>(dst, dims, value);
    case 2: return FillStridedInner<uint16_t>(dst, dims, value);
    case 4: return FillStridedInner<uint32_t>(dst, dims, value);
    case 8: return FillStridedInner<uint64_t>(dst, dims, value);
    case 16: return FillStridedInner<Bytes16>(dst, dims, value);
    default: break;
  }
  Dim inner = dims.back();
  dims.pop_back();
  ForEachRow(dims, [&](int64_t, int64_t dof) {
    for (int64_t i = 0; i < inner.count; ++i) {
      std::memcpy(dst + dof + i * inner.dst, value, elem_size);
    }
  });
}

void FillStridedStrings(std::string* dst, const int64_t* dst_strides,
                        const int64_t* count, int rank, const std::string& value) {
  DimList dims(rank);
  if (!Normalize(count, nullptr, dst_strides, rank, true, dims)) return;
  if (dims.size() == 0) {
    *dst = value;
    return;
  }
  Dim inner = dims.back();
  dims.pop_back();
  ForEachRow(dims, [&](int64_t, int64_t dof) {
    std::string* d = dst + dof;
    for (int64_t i = 0; i < inner.count; ++i) d[i * inner.dst] = value;
  });
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape,
                                       size_t elem_size) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = static_cast<int64_t>(elem_size);
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

}  // namespace turbozarr
