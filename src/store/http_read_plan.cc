#include "store/http_read_plan.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "store/store_internal.h"
#include "util/range_merge.h"

namespace turbozarr {

namespace {

// True for a read whose answer is always empty (when the key exists).
bool IsEmptyRead(const ByteRange& r) { return r.length == 0; }

// A range of known end: the only kind worth merging with its neighbours.
bool IsBounded(const ByteRange& r) {
  return !r.suffix && r.length > 0 && r.length <= ByteRange::kToEnd - r.offset;
}

}  // namespace

std::vector<PlannedRead> PlanReads(std::span<const KeyRange> reads, uint64_t coalesce_gap,
                                   uint64_t coalesce_max) {
  // Reads grouped by key, keys in order of first appearance.
  std::vector<std::vector<size_t>> groups;
  std::unordered_map<std::string_view, size_t> group_of;
  for (size_t i = 0; i < reads.size(); ++i) {
    auto [it, fresh] = group_of.emplace(reads[i].key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::vector<PlannedRead> plan;
  for (const std::vector<size_t>& group : groups) {
    std::vector<size_t> bounded;
    for (size_t i : group) {
      const ByteRange& r = reads[i].range;
      if (IsBounded(r)) {
        bounded.push_back(i);
      } else {
        plan.push_back({reads[i].key, r, IsEmptyRead(r), {i}});
      }
    }
    std::sort(bounded.begin(), bounded.end(), [&](size_t a, size_t b) {
      return reads[a].range.offset < reads[b].range.offset;
    });
    std::vector<ByteSpan> spans;
    for (size_t i : bounded)
      spans.push_back({reads[i].range.offset, reads[i].range.length});
    for (const MergedRun& run : MergeSortedSpans(spans, {coalesce_gap, coalesce_max})) {
      PlannedRead& planned = plan.emplace_back();
      planned.key = reads[bounded[run.first]].key;
      planned.range = ByteRange::Of(run.begin, run.end - run.begin);
      planned.members.assign(bounded.begin() + run.first, bounded.begin() + run.last);
    }
  }
  return plan;
}

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

Buffer SliceFetched(FetchedBytes& f, const ByteRange& asked, bool take) {
  const uint64_t size = f.body.size();
  uint64_t begin = 0, end = size;  // positions in f.body
  if (f.whole) {
    internal::ResolvedRange r = internal::ResolveByteRange(asked, size);
    begin = r.begin;
    end = r.end;
  } else if (!asked.suffix) {
    // The body holds [first, first + size) of the value; what lies past its
    // end lies past the end of the value (or the server would have sent it).
    const uint64_t lo = std::max(asked.offset, f.first);
    const uint64_t hi = asked.length > ByteRange::kToEnd - asked.offset
                            ? ByteRange::kToEnd
                            : asked.offset + asked.length;
    begin = std::min(lo - f.first, size);
    end = hi <= lo ? begin : std::clamp(hi - f.first, begin, size);
  }  // a suffix answered by 206 or 416 is the body itself
  const size_t n = static_cast<size_t>(end - begin);
  if (take) {
    if (begin > 0 && n > 0) std::memmove(f.body.data(), f.body.data() + begin, n);
    f.body.Resize(n);
    return std::move(f.body);
  }
  return Buffer(f.body.view().subspan(static_cast<size_t>(begin), n));
}

}  // namespace turbozarr
