// ReadMany: many boxes (selections) of one array read in one call.
//
// A gather (an integer-array, mask or point selection) is cut into boxes
// around the runs of selected elements that fall into one chunk, so that no
// chunk the selection skips is read; those boxes are small and many, and
// read one Array::Read at a time they would decode one chunk at a time.
// ReadMany reads them together instead. A sharded array's boxes are one
// sharded read: each shard any box touches is opened once (one index
// read), and the inner chunks of all boxes are fetched together, neighbours
// merged. An unsharded array over a remote store fetches the chunks of all
// boxes in windows of batched reads, each chunk once. Otherwise the boxes
// run on the pool: in parallel, one box per task (each box's own chunks
// then run inline on its thread), when there are enough boxes to keep the
// pool busy or every box lies in one chunk; else one box after another,
// each on the whole pool.
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
