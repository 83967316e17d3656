#include "array/windowed_fetch.h"

#include <algorithm>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <utility>

namespace turbozarr::internal {

size_t WindowFor(size_t in_flight, uint64_t item_bytes) {
  if (item_bytes == 0) return in_flight;
  const uint64_t fit = kWindowBytes / item_bytes;
  return static_cast<size_t>(std::clamp<uint64_t>(
      fit, std::min<uint64_t>(in_flight, kSlicesInFlight), in_flight));
}

namespace {

// A slice's reads, and their targets (TargetOf; empty: a buffer).
struct SliceReads {
  std::vector<KeyRange> reads;
  std::vector<MutableByteView> targets;
};

Result<WindowAnswers> Fetch(Store& store, const SliceReads& slice) {
  const size_t n = slice.reads.size();
  std::vector<Buffer> buffers(n);
  std::vector<ReadRequest> requests(n);
  for (size_t i = 0; i < n; ++i) {
    const KeyRange& r = slice.reads[i];
    requests[i] = slice.targets[i].empty()
                      ? ReadRequest::NewBuffer(r.key, r.range, buffers[i])
                      : ReadRequest::Into(r.key, r.range, slice.targets[i]);
    requests[i].hint = r.hint;
  }
  std::vector<ReadAnswer> answers(n);
  TZ_RETURN_NOT_OK(store.Read(requests, answers));
  WindowAnswers out;
  out.values.resize(n);
  out.versions.resize(n);
  out.in_target.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    out.versions[i] = answers[i].version;
    if (!answers[i].found) continue;
    if (slice.targets[i].empty()) {
      out.values[i] = std::move(buffers[i]);
    } else if (answers[i].length == slice.targets[i].size()) {
      out.in_target[i] = 1;
    } else {  // not the size expected: read into a buffer, for the caller to report
      Buffer value;
      ReadRequest again = ReadRequest::NewBuffer(requests[i].key, requests[i].range, value);
      ReadAnswer answer;
      TZ_RETURN_NOT_OK(store.Read({&again, 1}, {&answer, 1}));
      if (answer.found) out.values[i] = std::move(value);
      out.versions[i] = answer.version;
    }
  }
  return out;
}

}  // namespace

Status FetchInWindows(Store& store, size_t n, size_t window, const ReadOf& read_of,
                      const UseWindow& use, std::string_view where,
                      const TargetOf& target_of) {
  using Reads = std::shared_ptr<const SliceReads>;
  using Answers = Result<WindowAnswers>;
  struct Slice {
    size_t first = 0;
    Reads reads;
    // From std::async, whose future waits for the fetch when destroyed, so
    // an early return never leaves one running.
    std::future<Answers> answers;
  };
  const size_t slice_size = std::max<size_t>(1, window / kSlicesInFlight);
  std::deque<Slice> in_flight;
  size_t next = 0;  // the first item not yet asked for
  auto start_next = [&] {
    SliceReads reads;
    for (size_t i = next; i < std::min(n, next + slice_size); ++i) {
      reads.reads.push_back(read_of(i));
      reads.targets.push_back(target_of ? target_of(i) : MutableByteView());
    }
    Slice slice{next, std::make_shared<const SliceReads>(std::move(reads)), {}};
    slice.answers = std::async(std::launch::async,
                               [&store, reads = slice.reads] { return Fetch(store, *reads); });
    next += slice.reads->reads.size();
    in_flight.push_back(std::move(slice));
  };
  while (next < n && in_flight.size() < kSlicesInFlight) start_next();
  while (!in_flight.empty()) {
    Slice slice = std::move(in_flight.front());
    in_flight.pop_front();
    Answers answers = slice.answers.get();
    if (!answers.ok()) return answers.status().WithContext(where);
    // The store's requests stay at `window` while this slice is used.
    if (next < n) start_next();
    TZ_RETURN_NOT_OK(use(slice.first, slice.reads->reads, *answers));
  }
  return Status::OK();
}

}  // namespace turbozarr::internal
