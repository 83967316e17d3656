#include "store/read_plan.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "store/store_internal.h"

namespace turbozarr::internal {

namespace {

// True for a read whose answer is always empty (when the key exists).
bool IsEmptyRead(const ByteRange& r) { return r.length == 0; }

// A range of known end: the only kind worth merging with its neighbours.
bool IsBounded(const ByteRange& r) {
  return !r.suffix && r.length > 0 && r.length <= ByteRange::kToEnd - r.offset;
}

}  // namespace

std::vector<PlannedRead> PlanReads(std::span<const ReadRequest> reads,
                                   const MergeLimits& limits) {
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
        PlannedRead& planned = plan.emplace_back();
        planned.key = reads[i].key;
        planned.range = r;
        planned.head = IsEmptyRead(r);
        planned.members = {i};
      }
    }
    std::sort(bounded.begin(), bounded.end(), [&](size_t a, size_t b) {
      return reads[a].range.offset < reads[b].range.offset;
    });
    std::vector<ByteSpan> spans;
    for (size_t i : bounded)
      spans.push_back({reads[i].range.offset, reads[i].range.length});
    for (const MergedRun& run : MergeSortedSpans(spans, limits)) {
      PlannedRead& planned = plan.emplace_back();
      planned.key = reads[bounded[run.first]].key;
      planned.range = ByteRange::Of(run.begin, run.end - run.begin);
      planned.members.assign(bounded.begin() + run.first, bounded.begin() + run.last);
      if (planned.members.size() == 1 && planned.range.IsFull()) {
        const ReadRequest& alone = reads[planned.members[0]];
        planned.hint = alone.hint;
        if (alone.target == ReadTarget::kCallerMemory) planned.into = alone.memory;
      }
    }
  }
  return plan;
}

ReadAnswer DeliverFetched(FetchedBytes& f, const ReadRequest& request, bool take) {
  if (f.in_place) {  // already in the read's memory (PlannedRead::into)
    ReadAnswer answer;
    answer.found = true;
    answer.length = *f.in_place;
    answer.version = f.version;
    return answer;
  }
  const ByteRange& asked = request.range;
  const uint64_t size = f.body.size();
  uint64_t begin = 0, end = size;  // positions in f.body
  if (f.whole) {
    ResolvedRange r = ResolveByteRange(asked, size);
    begin = r.begin;
    end = r.end;
  } else if (!asked.suffix) {
    // The body holds [first, first + size) of the value; what lies past its
    // end lies past the end of the value (or the fetch would have brought it).
    const uint64_t lo = std::max(asked.offset, f.first);
    const uint64_t hi = asked.length > ByteRange::kToEnd - asked.offset
                            ? ByteRange::kToEnd
                            : asked.offset + asked.length;
    begin = std::min(lo - f.first, size);
    end = hi <= lo ? begin : std::clamp(hi - f.first, begin, size);
  }  // a suffix fetched on its own is the body itself
  const size_t n = static_cast<size_t>(end - begin);
  ReadAnswer answer;
  if (take && request.target != ReadTarget::kCallerMemory) {
    if (begin > 0 && n > 0) std::memmove(f.body.data(), f.body.data() + begin, n);
    f.body.Resize(n);
    answer = DeliverBuffer(request, std::move(f.body));
  } else {
    answer = DeliverBytes(request, f.body.view().subspan(static_cast<size_t>(begin), n));
  }
  answer.version = f.version;
  return answer;
}

Status ReadPlanned(std::span<const ReadRequest> requests, std::span<ReadAnswer> answers,
                   const MergeLimits& limits, size_t window, const FetchPlanned& fetch) {
  const std::vector<PlannedRead> plan = PlanReads(requests, limits);
  window = std::max<size_t>(window, 1);
  std::vector<std::optional<FetchedBytes>> fetched;
  for (size_t start = 0; start < plan.size(); start += window) {
    const size_t n = std::min(plan.size() - start, window);
    fetched.assign(n, std::nullopt);
    const std::span<const PlannedRead> part = std::span(plan).subspan(start, n);
    TZ_RETURN_NOT_OK(fetch(part, fetched));
    for (size_t k = 0; k < n; ++k) {
      const PlannedRead& p = part[k];
      const bool take = p.members.size() == 1;
      for (size_t i : p.members) {
        answers[i] = fetched[k] ? DeliverFetched(*fetched[k], requests[i], take)
                                : Absent(requests[i]);
      }
      fetched[k].reset();  // the window's bodies go as soon as they are served
    }
  }
  return Status::OK();
}

}  // namespace turbozarr::internal
