#include "store/http_read_plan.h"

#include "util/stable_hash.h"

namespace turbozarr::internal {

uint64_t VersionOf(const HttpResponse& response) {
  const std::optional<std::string_view> etag = response.Header("etag");
  if (!etag || etag->empty()) return 0;
  const uint64_t h = MixBits(Fnv1a(kFnvOffset, *etag));
  return h == 0 ? 1 : h;
}

FetchedBytes FetchedFromResponse(const HttpRequest& request, HttpResponse&& response) {
  FetchedBytes f;
  f.version = VersionOf(response);
  if (response.status == 416) {
    f.first = request.range ? request.range->offset : 0;
    return f;
  }
  if (response.placed) {  // a whole value written to request.into
    f.whole = true;
    f.in_place = *response.placed;
    return f;
  }
  if (request.method != "HEAD") {
    f.body = std::move(response.body);
    if (response.status == 206) {
      f.first = response.content_range->first;  // present: the transport checked it
    } else {
      f.whole = true;
    }
  }
  return f;
}

}  // namespace turbozarr::internal
