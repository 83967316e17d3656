// Inputs shared by the micro-benchmarks: data that compresses like real
// arrays do (smooth values with noise in the low bits), so that codec rates
// are neither the all-zero best case nor the random-bytes worst case.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "turbozarr/buffer.h"

namespace turbozarr::bench {

// `n` int32 values: a slow ramp plus a few bits of noise.
std::vector<int32_t> SmoothInt32(size_t n);

// The same values as bytes.
Buffer SmoothBytes(size_t bytes);

}  // namespace turbozarr::bench
