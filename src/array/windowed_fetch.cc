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

// What one slice's reads found: values (nullopt: absent) and versions.
struct Fetched {
  std::vector<std::optional<Buffer>> values;
  std::vector<uint64_t> versions;
};

Result<Fetched> Fetch(Store& store, const std::vector<KeyRange>& reads) {
  std::vector<Buffer> buffers(reads.size());
  std::vector<ReadRequest> requests(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    requests[i] = ReadRequest::NewBuffer(reads[i].key, reads[i].range, buffers[i]);
    requests[i].hint = reads[i].hint;
  }
  std::vector<ReadAnswer> answers(reads.size());
  TZ_RETURN_NOT_OK(store.Read(requests, answers));
  Fetched out;
  out.values.resize(reads.size());
  out.versions.resize(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    if (answers[i].found) out.values[i] = std::move(buffers[i]);
    out.versions[i] = answers[i].version;
  }
  return out;
}

}  // namespace

Status FetchInWindows(Store& store, size_t n, size_t window, const ReadOf& read_of,
                      const UseWindow& use, std::string_view where) {
  using Reads = std::shared_ptr<const std::vector<KeyRange>>;
  using Answers = Result<Fetched>;
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
    std::vector<KeyRange> reads;
    for (size_t i = next; i < std::min(n, next + slice_size); ++i) {
      reads.push_back(read_of(i));
    }
    Slice slice{next, std::make_shared<const std::vector<KeyRange>>(std::move(reads)), {}};
    slice.answers = std::async(std::launch::async,
                               [&store, reads = slice.reads] { return Fetch(store, *reads); });
    next += slice.reads->size();
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
    TZ_RETURN_NOT_OK(use(slice.first, *slice.reads, answers->values, answers->versions));
  }
  return Status::OK();
}

}  // namespace turbozarr::internal
