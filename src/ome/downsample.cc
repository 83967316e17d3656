#include "ome/downsample.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

namespace turbozarr::ome::internal {
namespace {

// Which input indexes along one axis an output index takes: the window
// [first, first + count) cut at the input's end, narrowed by the method.
struct Span {
  int64_t first = 0;
  int64_t count = 0;
};

Span Select(int64_t out_index, int64_t factor, int64_t in_size, DownsampleMethod method) {
  const int64_t start = out_index * factor;
  const int64_t n = std::min(factor, in_size - start);
  switch (method) {
    case DownsampleMethod::kNearest:  // the centre pixel, the later one for even windows
      return {start + std::min(factor / 2, n - 1), 1};
    case DownsampleMethod::kLinear:  // the centre: one pixel, or the middle two
      return n % 2 ? Span{start + n / 2, 1} : Span{start + n / 2 - 1, 2};
    case DownsampleMethod::kMean:
    case DownsampleMethod::kMode:
      break;
  }
  return {start, n};
}

// The exact quotient of `sum` by `n` rounded half to even (n > 0).
template <typename Acc>
Acc DivideRoundHalfEven(Acc sum, Acc n) {
  Acc q = sum / n;
  Acc r = sum % n;
  if (r < 0) {  // floor division for negative sums
    q -= 1;
    r += n;
  }
  const Acc twice = 2 * r;
  if (twice > n || (twice == n && (q % 2 != 0))) q += 1;
  return q;
}

// The accumulator of a mean: exact integers (128 bits for 64-bit types, whose
// sums of a few values overflow 64), double for floating types.
template <typename T>
using Accumulator = std::conditional_t<
    std::is_floating_point_v<T>, double,
    std::conditional_t<sizeof(T) == 8, __int128, int64_t>>;

template <typename T>
T Summarise(const T* in, const std::vector<int64_t>& rows, Span x, DownsampleMethod method,
            std::vector<T>& scratch) {
  if (method == DownsampleMethod::kMode) {
    scratch.clear();
    for (int64_t r : rows) scratch.insert(scratch.end(), in + r + x.first, in + r + x.first + x.count);
    std::sort(scratch.begin(), scratch.end());
    T best = scratch[0];
    size_t best_count = 0;
    for (size_t i = 0; i < scratch.size();) {
      size_t j = i;
      while (j < scratch.size() && scratch[j] == scratch[i]) ++j;
      if (j - i > best_count) {  // strictly more: a tie keeps the smaller value
        best = scratch[i];
        best_count = j - i;
      }
      i = j;
    }
    return best;
  }
  if (rows.size() == 1 && x.count == 1) return in[rows[0] + x.first];
  using Acc = Accumulator<T>;
  Acc sum = 0;
  for (int64_t r : rows) {
    const T* p = in + r + x.first;
    for (int64_t k = 0; k < x.count; ++k) sum += static_cast<Acc>(p[k]);
  }
  const Acc n = static_cast<Acc>(rows.size()) * static_cast<Acc>(x.count);
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(sum / n);
  } else {
    return static_cast<T>(DivideRoundHalfEven<Acc>(sum, n));
  }
}

template <typename T>
void DownsampleTyped(const T* in, const std::vector<int64_t>& in_shape,
                     const std::vector<int64_t>& factors, DownsampleMethod method, T* out) {
  const size_t rank = in_shape.size();
  const std::vector<int64_t> out_shape = DownsampledShape(in_shape, factors);
  // Element strides of the input.
  std::vector<int64_t> stride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * in_shape[d];
  const int64_t width = in_shape[rank - 1];
  const int64_t out_width = out_shape[rank - 1];
  // The last axis's spans, the same for every output row.
  std::vector<Span> x_spans(static_cast<size_t>(out_width));
  for (int64_t x = 0; x < out_width; ++x) {
    x_spans[static_cast<size_t>(x)] = Select(x, factors[rank - 1], width, method);
  }
  int64_t out_rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) out_rows *= out_shape[d];
  std::vector<int64_t> index(rank - 1, 0);  // the output row's coordinates
  // The output row's input rows' offsets, built axis by axis in two buffers
  // that every row reuses (no allocation per row).
  std::vector<int64_t> rows, next;
  std::vector<T> scratch;
  for (int64_t row = 0; row < out_rows; ++row) {
    rows.assign(1, 0);
    for (size_t d = 0; d + 1 < rank; ++d) {
      const Span s = Select(index[d], factors[d], in_shape[d], method);
      next.clear();
      for (int64_t r : rows) {
        for (int64_t k = 0; k < s.count; ++k) next.push_back(r + (s.first + k) * stride[d]);
      }
      rows.swap(next);
    }
    T* o = out + row * out_width;
    for (int64_t x = 0; x < out_width; ++x) {
      o[x] = Summarise(in, rows, x_spans[static_cast<size_t>(x)], method, scratch);
    }
    for (size_t d = rank - 1; d-- > 0;) {  // the next output row
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Status Downsample(const DataType& dtype, const void* in, const std::vector<int64_t>& in_shape,
                  const std::vector<int64_t>& factors, DownsampleMethod method, void* out) {
  if (factors.size() != in_shape.size() || in_shape.empty()) {
    return Status::InvalidArgument("downsampling " + std::to_string(in_shape.size()) +
                                   " dimensions by " + std::to_string(factors.size()) +
                                   " factors");
  }
  for (int64_t f : factors) {
    if (f < 1) return Status::InvalidArgument("a downsampling factor is " + std::to_string(f));
  }
  for (int64_t n : in_shape) {
    if (n == 0) return Status::OK();  // nothing in, nothing out
  }
  TZ_RETURN_NOT_OK(CheckDownsampleType(dtype, method));
#define TZ_DOWNSAMPLE(ID, TYPE)                                                        \
  case DataTypeId::ID:                                                                 \
    DownsampleTyped(static_cast<const TYPE*>(in), in_shape, factors, method,           \
                    static_cast<TYPE*>(out));                                          \
    return Status::OK();
  switch (dtype.id()) {
    TZ_DOWNSAMPLE(kInt8, int8_t)
    TZ_DOWNSAMPLE(kInt16, int16_t)
    TZ_DOWNSAMPLE(kInt32, int32_t)
    TZ_DOWNSAMPLE(kInt64, int64_t)
    TZ_DOWNSAMPLE(kUInt8, uint8_t)
    TZ_DOWNSAMPLE(kUInt16, uint16_t)
    TZ_DOWNSAMPLE(kUInt32, uint32_t)
    TZ_DOWNSAMPLE(kUInt64, uint64_t)
    TZ_DOWNSAMPLE(kFloat32, float)
    TZ_DOWNSAMPLE(kFloat64, double)
    TZ_DOWNSAMPLE(kBool, uint8_t)  // nearest or mode (CheckDownsampleType)
    default:
      break;
  }
#undef TZ_DOWNSAMPLE
  return Status::Unsupported("no kernel for " + dtype.ToString() + " pixels");
}

}  // namespace turbozarr::ome::internal

namespace turbozarr::ome {

Status CheckDownsampleType(const DataType& dtype, DownsampleMethod method) {
  const DataTypeId id = dtype.id();
  if (dtype.is_integer() || id == DataTypeId::kFloat32 || id == DataTypeId::kFloat64) {
    return Status::OK();
  }
  if (id == DataTypeId::kBool &&
      (method == DownsampleMethod::kNearest || method == DownsampleMethod::kMode)) {
    return Status::OK();
  }
  return Status::InvalidArgument("cannot downsample " + dtype.ToString() + " pixels by " +
                                 std::string(DownsampleMethodName(method)) +
                                 (dtype.id() == DataTypeId::kBool
                                      ? " (bool pixels take nearest or mode)"
                                      : ""));
}

std::vector<int64_t> FactorsBetween(const std::vector<int64_t>& lower,
                                    const std::vector<int64_t>& upper,
                                    const std::vector<double>& lower_scale,
                                    const std::vector<double>& upper_scale) {
  std::vector<int64_t> factors(lower.size(), 1);
  for (size_t d = 0; d < lower.size() && d < upper.size(); ++d) {
    if (upper[d] <= 0) continue;
    factors[d] = std::max<int64_t>(1, lower[d] / upper[d]);
    // The scales tell a factor the shapes cannot: z = 3 halved is one
    // plane made of two, not of three.
    if (d < lower_scale.size() && d < upper_scale.size() && lower_scale[d] > 0) {
      const double ratio = std::round(upper_scale[d] / lower_scale[d]);
      if (ratio >= 1 && ratio <= static_cast<double>(std::max<int64_t>(1, lower[d])) &&
          std::max<int64_t>(1, lower[d] / static_cast<int64_t>(ratio)) == upper[d]) {
        factors[d] = static_cast<int64_t>(ratio);
      }
    }
  }
  return factors;
}

std::vector<int64_t> DownsampledShape(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& factors) {
  std::vector<int64_t> out(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    out[d] = shape[d] == 0 ? 0 : std::max<int64_t>(1, shape[d] / factors[d]);
  }
  return out;
}

}  // namespace turbozarr::ome
