#include "store/http_parted_fetch.h"

#include <algorithm>
#include <cstring>

#include "store/http_read_plan.h"

namespace turbozarr::internal {

uint32_t PartsFor(const ReadHint& hint, int capacity) {
  if (hint.reads_in_flight == 0 || capacity <= 0 || hint.expected_bytes > kMaxPartedBytes) {
    return 1;
  }
  const uint64_t share = static_cast<uint64_t>(capacity) / hint.reads_in_flight;
  const uint64_t by_size = hint.expected_bytes / kMinPartBytes;
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min(share, by_size)));
}

std::vector<ByteRange> PartRanges(uint64_t expected, uint32_t parts) {
  parts = std::max<uint32_t>(parts, 1);
  const uint64_t step = (expected + parts - 1) / parts;
  std::vector<ByteRange> ranges;
  for (uint32_t i = 0; i + 1 < parts; ++i) ranges.push_back(ByteRange::Of(i * step, step));
  ranges.push_back(ByteRange::Of(uint64_t{parts - 1} * step, ByteRange::kToEnd));
  return ranges;
}

MutableByteView PartTarget(std::span<const ByteRange> ranges, size_t i,
                           MutableByteView joint) {
  const uint64_t begin = std::min<uint64_t>(ranges[i].offset, joint.size());
  const uint64_t end = i + 1 == ranges.size()
                           ? joint.size()
                           : std::min<uint64_t>(begin + ranges[i].length, joint.size());
  return joint.subspan(begin, end - begin);
}

namespace {

bool Absent(const HttpResponse& a) { return a.status == 404 || a.status == 410; }

// Takes the answer that carries the whole value (a server that ignored the
// Range), placed at `at` in `joint` or in its body, as the value.
void TakeWholeBody(HttpResponse& a, MutableByteView joint, bool caller_memory, uint64_t at,
                   FetchedBytes& out) {
  if (!a.placed) {
    out.body = std::move(a.body);
  } else if (!caller_memory) {
    out.body = Buffer(ByteView(joint.data() + at, *a.placed));
  } else {  // to the front of the caller's memory, where the value starts
    std::memmove(joint.data(), joint.data() + at, *a.placed);
    out.in_place = *a.placed;
  }
}

}  // namespace

JoinedParts JoinParts(std::span<const ByteRange> ranges, MutableByteView joint, Buffer* own,
                      std::span<HttpResponse> answers, FetchedBytes& out) {
  const size_t absent = std::count_if(answers.begin(), answers.end(), Absent);
  if (absent == answers.size()) return JoinedParts::kAbsent;
  if (absent > 0) return JoinedParts::kDisagree;
  // One version: the same ETag, and the same Last-Modified (what tells a
  // replaced value from a server that sends no ETag).
  const uint64_t version = VersionOf(answers[0]);
  const std::optional<std::string_view> modified = answers[0].Header("last-modified");
  for (const HttpResponse& a : answers) {
    if (VersionOf(a) != version || a.Header("last-modified") != modified) {
      return JoinedParts::kDisagree;
    }
  }
  out = FetchedBytes{};
  out.version = version;
  out.whole = true;
  for (size_t i = 0; i < answers.size(); ++i) {
    if (answers[i].status != 206 && answers[i].status != 416) {
      TakeWholeBody(answers[i], joint, own == nullptr, ranges[i].offset, out);
      return JoinedParts::kValue;
    }
  }
  // Whole parts, then the one the value ends in (short, or the last), then
  // parts past its end (416).
  uint64_t end = 0;
  bool ended = false;
  for (size_t i = 0; i < answers.size(); ++i) {
    const HttpResponse& a = answers[i];
    if (a.status == 416) {
      ended = true;  // the value ends where this part begins
      continue;
    }
    if (ended || ranges[i].offset != end) return JoinedParts::kDisagree;
    const uint64_t got = a.body_size();
    end += got;
    bool ends_here = i + 1 == answers.size() || got < ranges[i].length;
    if (a.content_range && a.content_range->total) {  // the value's length, as it was
      const uint64_t total = *a.content_range->total;
      if (total < end || (ends_here && total != end)) return JoinedParts::kDisagree;
      ends_here = total == end;
    }
    ended = ends_here;
  }
  if (own == nullptr) {  // the caller's memory: a value longer than it is only measured
    out.in_place = end;
    return JoinedParts::kValue;
  }
  // A body that outgrew its place (only the open-ended last part can) is
  // copied in after the others.
  for (size_t i = 0; i < answers.size(); ++i) {
    const HttpResponse& a = answers[i];
    if (a.status != 206 || a.placed) continue;
    const uint64_t at = ranges[i].offset;
    if (own->size() < at + a.body.size()) own->Resize(at + a.body.size());
    std::memcpy(own->data() + at, a.body.data(), a.body.size());
  }
  own->Resize(end);
  out.body = std::move(*own);
  return JoinedParts::kValue;
}

PartedWindow CutIntoParts(std::span<const PlannedRead> plan, std::vector<HttpRequest> made,
                          bool split, int capacity) {
  PartedWindow w;
  w.first.resize(plan.size() + 1);
  w.parts.resize(plan.size());
  for (size_t p = 0; p < plan.size(); ++p) {
    w.first[p] = w.requests.size();
    const PlannedRead& planned = plan[p];
    const bool whole_get = !planned.head && planned.range.IsFull();
    // The caller's memory is the best guess of the value's size.
    ReadHint hint = planned.hint;
    if (!planned.into.empty()) hint.expected_bytes = planned.into.size();
    const uint32_t parts = split && whole_get ? PartsFor(hint, capacity) : 1;
    if (parts == 1) {
      HttpRequest& r = w.requests.emplace_back(std::move(made[p]));
      if (whole_get) r.into = planned.into;
      continue;
    }
    PartedWindow::Parts& x = w.parts[p].emplace();
    x.ranges = PartRanges(hint.expected_bytes, parts);
    if (planned.into.empty()) {
      x.own = Buffer(static_cast<size_t>(hint.expected_bytes));
      x.joint = x.own.mutable_view();
    } else {
      x.joint = planned.into;
    }
    for (size_t i = 0; i < x.ranges.size(); ++i) {
      HttpRequest& r = w.requests.emplace_back(made[p]);
      r.range = x.ranges[i];
      r.into = PartTarget(x.ranges, i, x.joint);
    }
  }
  w.first[plan.size()] = w.requests.size();
  return w;
}

std::vector<Result<HttpResponse>> SendWindow(HttpTransport& transport, const PartedWindow& w) {
  if (w.requests.size() != 1) return transport.FetchMany(w.requests);
  std::vector<Result<HttpResponse>> one;
  one.push_back(transport.Fetch(w.requests[0]));
  return one;
}

namespace {

// What one answer that `usable` accepted brings: absent, or (part of) the
// value.
std::optional<FetchedBytes> FetchedOf(const HttpRequest& request, HttpResponse&& answer) {
  if (Absent(answer)) return std::nullopt;
  return FetchedFromResponse(request, std::move(answer));
}

// The value of plan[p], cut into parts, from their answers.
Result<std::optional<FetchedBytes>> JoinedValue(HttpTransport& transport, PartedWindow& w,
                                                size_t p,
                                                std::vector<Result<HttpResponse>>& answers,
                                                const CheckAnswer& usable,
                                                const WholeRequest& whole) {
  std::vector<HttpResponse> parts;
  for (size_t r = w.first[p]; r < w.first[p + 1]; ++r) {
    TZ_RETURN_NOT_OK(usable(p, w.requests[r], answers[r]));
    const long status = answers[r]->status;
    if (status >= 200 && status <= 299 && status != 206) w.whole_answer_seen = true;
    parts.push_back(std::move(*answers[r]));
  }
  FetchedBytes joined;
  PartedWindow::Parts& x = *w.parts[p];
  Buffer* own = x.joint.data() == x.own.data() ? &x.own : nullptr;
  switch (JoinParts(x.ranges, x.joint, own, parts, joined)) {
    case JoinedParts::kValue:
      return std::optional<FetchedBytes>(std::move(joined));
    case JoinedParts::kAbsent:
      return std::optional<FetchedBytes>();
    case JoinedParts::kDisagree:  // changed meanwhile: once more, whole
      break;
  }
  const HttpRequest request = whole(p);
  Result<HttpResponse> answer = transport.Fetch(request);
  TZ_RETURN_NOT_OK(usable(p, request, answer));
  return FetchedOf(request, std::move(*answer));
}

}  // namespace

Status CollectWindow(HttpTransport& transport, PartedWindow& w,
                     std::vector<Result<HttpResponse>>& answers, const CheckAnswer& usable,
                     const WholeRequest& whole, std::span<std::optional<FetchedBytes>> out) {
  for (size_t p = 0; p < w.parts.size(); ++p) {
    if (w.parts[p]) {
      TZ_ASSIGN_OR_RETURN(out[p], JoinedValue(transport, w, p, answers, usable, whole));
      continue;
    }
    const size_t r = w.first[p];
    TZ_RETURN_NOT_OK(usable(p, w.requests[r], answers[r]));
    out[p] = FetchedOf(w.requests[r], std::move(*answers[r]));
  }
  return Status::OK();
}

}  // namespace turbozarr::internal
