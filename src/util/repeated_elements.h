// Runs of one repeated element: the test whether a chunk is all fill value
// (so it need not be stored), and filling memory with the fill value.
//
// Thread safety: pure functions.
#pragma once

#include "turbozarr/buffer.h"

namespace turbozarr::internal {

// True when `bytes` is a run of copies of `element` (true for no bytes;
// false when `element` is empty or its size does not divide the run). One
// pass that stops at the first difference: the test that decides whether a
// chunk equal to the fill value needs storing.
bool AllElementsEqual(ByteView bytes, ByteView element);

// Fills `out` with copies of `element` (a memset when its bytes are all
// equal; else doubling copies, log2(n) memcpy calls).
// REQUIRES: element is not empty and its size divides out.size().
void FillElements(MutableByteView out, ByteView element);

}  // namespace turbozarr::internal
