#include "util/range_merge.h"

#include <algorithm>

namespace turbozarr {

std::vector<MergedRun> MergeSortedSpans(std::span<const ByteSpan> spans,
                                        const MergeLimits& limits) {
  std::vector<MergedRun> runs;
  for (size_t i = 0; i < spans.size(); ++i) {
    const uint64_t begin = spans[i].offset;
    const uint64_t end = begin + spans[i].length;
    if (!runs.empty()) {
      MergedRun& run = runs.back();
      const uint64_t joined_end = std::max(run.end, end);
      // Written so that no sum can overflow, whatever the limits.
      const bool near = begin <= run.end || begin - run.end <= limits.max_gap;
      if (near && joined_end - run.begin <= limits.max_bytes) {
        run.end = joined_end;
        run.last = i + 1;
        continue;
      }
    }
    runs.push_back({begin, end, i, i + 1});
  }
  return runs;
}

}  // namespace turbozarr
