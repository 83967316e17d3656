// ReadMany: many boxes (selections) of one array read in one call.
//
// A gather (an integer-array, mask or point selection) is cut into boxes
// around the runs of selected elements that fall into one chunk, so that no
// chunk the selection skips is read; those boxes are small and many, and
// read one Array::Read at a time they would decode one chunk at a time.
// ReadMany runs them on the pool instead: in parallel, one box per task
// (each box's own chunks then run inline on its thread), when there are
// enough boxes to keep the pool busy or every box lies in one chunk;
// otherwise one box after another, each on the whole pool.
//
// Thread safety: as Array::Read (an array may be read from many threads).
#pragma once

#include <span>

#include "turbozarr/array.h"
#include "turbozarr/element_span.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"

namespace turbozarr {

// Reads selections[i] into outs[i] (each as Array::Read's `out`: C order,
// exactly the selection's elements) for every i. Every selection and
// destination is checked before anything is read (InvalidArgument naming
// the array and the box); a failed chunk fails the call with Array::Read's
// error, naming the array and the key, and leaves the destinations'
// contents unspecified.
Status ReadMany(const Array& array, std::span<const Selection> selections,
                std::span<const ElementSpan> outs, const ReadOptions& options = {});

}  // namespace turbozarr
