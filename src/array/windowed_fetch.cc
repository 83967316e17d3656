#include "array/windowed_fetch.h"

#include <algorithm>
#include <future>
#include <memory>
#include <string>
#include <utility>

namespace turbozarr::internal {

Status FetchInWindows(Store& store, size_t n, size_t window, const ReadOf& read_of,
                      const UseWindow& use, std::string_view where) {
  using Reads = std::shared_ptr<const std::vector<KeyRange>>;
  auto reads_from = [&](size_t first) {
    std::vector<KeyRange> reads;
    for (size_t i = first; i < std::min(n, first + window); ++i) {
      reads.push_back(read_of(i));
    }
    return Reads(std::make_shared<const std::vector<KeyRange>>(std::move(reads)));
  };
  // The fetch shares its window's reads; a future from std::async waits for
  // the fetch when destroyed, so an early return never leaves one running.
  auto start = [&store](Reads reads) {
    return std::async(std::launch::async,
                      [&store, reads] { return store.GetMany(*reads); });
  };
  if (n == 0) return Status::OK();
  Reads current = reads_from(0);
  auto pending = start(current);
  for (size_t first = 0;; first += window) {
    Result<std::vector<std::optional<Buffer>>> answers = pending.get();
    if (!answers.ok()) return answers.status().WithContext(where);
    if (answers->size() != current->size()) {
      return Status::IOError(std::string(where) + ": the store answered " +
                             std::to_string(answers->size()) + " reads of " +
                             std::to_string(current->size()));
    }
    Reads next;
    if (first + window < n) {
      next = reads_from(first + window);
      pending = start(next);
    }
    TZ_RETURN_NOT_OK(use(first, *current, *answers));
    if (!next) return Status::OK();
    current = std::move(next);
  }
}

}  // namespace turbozarr::internal
