// What a GET or HEAD answer brings back for a read planned by ReadPlanned
// (read_plan.h), for the stores that read over HTTP (HTTP, S3).
//
// Thread safety: pure functions.
#pragma once

#include <optional>

#include "store/http_message.h"
#include "store/read_plan.h"

namespace turbozarr::internal {

// The bytes a successful answer to `request` carries: a 2xx (206 checked by
// the transport against the range asked for), or 416 (the range starts past
// the end of a value that exists). REQUIRES: status is 2xx or 416.
// Its version is a hash of the answer's ETag (0 without one). A body the
// transport wrote to request.into (only a whole value's: CutIntoParts)
// is FetchedBytes::in_place.
FetchedBytes FetchedFromResponse(const HttpRequest& request, HttpResponse&& response);

// A hash of `response`'s ETag header, never 0; 0 without one.
uint64_t VersionOf(const HttpResponse& response);

// How `planned` is asked for: HEAD or GET, with a Range header unless it
// fetches the whole value (or is a HEAD).
inline const char* PlannedMethod(const PlannedRead& planned) {
  return planned.head ? "HEAD" : "GET";
}
inline std::optional<ByteRange> PlannedRange(const PlannedRead& planned) {
  if (planned.head || planned.range.IsFull()) return std::nullopt;
  return planned.range;
}

}  // namespace turbozarr::internal
