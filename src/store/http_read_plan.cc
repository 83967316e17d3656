#include "store/http_read_plan.h"

namespace turbozarr::internal {

FetchedBytes FetchedFromResponse(const HttpRequest& request, HttpResponse&& response) {
  FetchedBytes f;
  if (response.status == 416) {
    f.first = request.range ? request.range->offset : 0;
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
