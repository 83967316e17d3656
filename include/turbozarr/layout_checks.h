// The consistency checks of the domain layers, for Verify's options
// (turbozarr/verify.h): OME-Zarr images and labels, sparse counts matrices
// and VCF Zarr datasets, each run on the groups that its layout's
// attributes or arrays mark. The command line and the Python package both
// take this one list, so that `turbozarr verify` and turbozarr.verify()
// check the same things.
//
// Thread safety: free functions.
#pragma once

#include <vector>

#include "turbozarr/ome.h"
#include "turbozarr/sparse.h"
#include "turbozarr/vcz.h"
#include "turbozarr/verify.h"

namespace turbozarr {

inline std::vector<LayoutCheck> DomainLayoutChecks() {
  return {ome::CheckImageLayout, sparse::CheckMatrixLayout, vcz::CheckDatasetLayout};
}

}  // namespace turbozarr
