#include "turbozarr/version.h"

// CMake defines TURBOZARR_VERSION_STRING for this file alone (src/util/CMakeLists.txt).
#ifndef TURBOZARR_VERSION_STRING
#error "TURBOZARR_VERSION_STRING is set by the build from the file VERSION"
#endif

namespace turbozarr {

std::string_view Version() { return TURBOZARR_VERSION_STRING; }

}  // namespace turbozarr
