// The HttpOptions a transport runs with: counts made sensible (the
// connection cap from the options, else TURBOZARR_HTTP_MAX_CONNECTIONS, else
// 32), and the key under which transports share one driver.
//
// Thread safety: pure functions (Normalised reads the environment).
#pragma once

#include <string>

#include "turbozarr/remote_store.h"

namespace turbozarr::internal {

// `options` with counts that make sense.
HttpOptions Normalised(HttpOptions options);

// Every field of `o`, so that transports share a driver only when they would
// send the same requests the same way.
std::string OptionsKey(const HttpOptions& o);

}  // namespace turbozarr::internal
