#include "util/repeated_elements.h"

#include <algorithm>
#include <cstring>

namespace turbozarr::internal {

bool AllElementsEqual(ByteView bytes, ByteView element) {
  const size_t size = element.size();
  const size_t n = bytes.size();
  if (n == 0) return true;
  if (size == 0 || n % size != 0) return false;
  // Compare the first element with `element`, then the run against itself
  // shifted by one element: equal only if every element repeats the first.
  if (std::memcmp(bytes.data(), element.data(), size) != 0) return false;
  return n == size || std::memcmp(bytes.data(), bytes.data() + size, n - size) == 0;
}

void FillElements(MutableByteView out, ByteView element) {
  const size_t size = element.size();
  if (out.empty() || size == 0) return;
  bool uniform = true;
  for (size_t i = 1; i < size; ++i) uniform = uniform && element[i] == element[0];
  if (uniform) {
    std::memset(out.data(), static_cast<int>(element[0]), out.size());
    return;
  }
  std::memcpy(out.data(), element.data(), size);
  size_t done = size;
  while (done < out.size()) {
    const size_t step = std::min(done, out.size() - done);
    std::memcpy(out.data() + done, out.data(), step);
    done += step;
  }
}

}  // namespace turbozarr::internal
