// Downsample: one level of an image pyramid from the level below, a block at
// a time. Each output pixel summarises its window, the `factors` (per axis)
// input pixels that start at `factors` times its index. A level's size is
// the input's divided by the factor, rounded down (at least 1), as ngio and
// ome-zarr-py size theirs: the last row of an odd-sized input is left out,
// and an input smaller than its factor makes one pixel of a short window.
//
// The methods (turbozarr/ome.h, DownsampleMethod):
// - mean: the average of the window. Integer types round half to even
//   (numpy's np.round of the exact mean), computed exactly in 64-bit
//   integers; floating types average in double precision.
// - nearest: the window's centre pixel, the later of the two central ones
//   for even factors (x[1::2, 1::2] for factors of 2, the pixels ngio's and
//   ome-zarr-py's nearest pick).
// - linear: order-1 interpolation at the window's centre: along each axis
//   the centre pixel for odd factors, the two central pixels' mean for even
//   ones (for factors of 2, the 2x2 mean: no anti-aliasing), rounded as mean.
// - mode: the most frequent value in the window, the smallest on a tie
//   (labels: never a value that was not there).
#pragma once

#include <cstdint>
#include <vector>

#include "turbozarr/dtype.h"
#include "turbozarr/ome.h"
#include "turbozarr/status.h"

namespace turbozarr::ome::internal {

// Writes `in` (C order, `in_shape`, of `dtype`) downsampled by `factors`
// into `out` (C order, DownsampledShape(in_shape, factors), turbozarr/ome.h). InvalidArgument
// for a data type the method cannot summarise (strings, complex numbers,
// float16; bool takes nearest and mode only), or factors below 1.
Status Downsample(const DataType& dtype, const void* in, const std::vector<int64_t>& in_shape,
                  const std::vector<int64_t>& factors, DownsampleMethod method, void* out);

}  // namespace turbozarr::ome::internal
