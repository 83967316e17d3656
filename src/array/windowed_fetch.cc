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

Status FetchInWindows(Store& store, size_t n, size_t window, const ReadOf& read_of,
                      const UseWindow& use, std::string_view where) {
  using Reads = std::shared_ptr<const std::vector<KeyRange>>;
  using Answers = Result<std::vector<std::optional<Buffer>>>;
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
                               [&store, reads = slice.reads] { return store.GetMany(*reads); });
    next += slice.reads->size();
    in_flight.push_back(std::move(slice));
  };
  while (next < n && in_flight.size() < kSlicesInFlight) start_next();
  while (!in_flight.empty()) {
    Slice slice = std::move(in_flight.front());
    in_flight.pop_front();
    Answers answers = slice.answers.get();
    if (!answers.ok()) return answers.status().WithContext(where);
    if (answers->size() != slice.reads->size()) {
      return Status::IOError(std::string(where) + ": the store answered " +
                             std::to_string(answers->size()) + " reads of " +
                             std::to_string(slice.reads->size()));
    }
    // The store's requests stay at `window` while this slice is used.
    if (next < n) start_next();
    TZ_RETURN_NOT_OK(use(slice.first, *slice.reads, *answers));
  }
  return Status::OK();
}

}  // namespace turbozarr::internal
