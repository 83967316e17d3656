#pragma once

#include <string_view>

namespace turbozarr {

// This build's version, "MAJOR.MINOR.PATCH", read from the file VERSION at
// the top of the source tree: the same string as the wheel's metadata,
// turbozarr.__version__ and `turbozarr --version`.
std::string_view Version();

}  // namespace turbozarr
