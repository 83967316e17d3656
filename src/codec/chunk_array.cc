// ArraySpec and ChunkArray: element counts, fill-value chunks, and the
// all-fill test that decides whether a chunk needs storing at all.
#include <cstring>

#include "codec/raw_bytes.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

int64_t Product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d < 0 ? 0 : d;
  return n;
}

}  // namespace

int64_t ArraySpec::num_elements() const { return Product(shape); }

int64_t ChunkArray::num_elements() const { return Product(shape); }

ChunkArray ChunkArray::Filled(const ArraySpec& spec) {
  ChunkArray c;
  c.shape = spec.shape;
  c.dtype = spec.dtype;
  const int64_t n = spec.num_elements();
  if (spec.dtype.is_variable_length()) {
    c.strings.assign(static_cast<size_t>(n), std::string(spec.fill_value.bytes.chars()));
    return c;
  }
  const size_t size = spec.dtype.size();
  c.bytes.Resize(static_cast<size_t>(n) * size);
  const Buffer& fill = spec.fill_value.bytes;
  if (fill.size() != size || spec.fill_value.IsAllZero()) {
    // A fill value of the wrong width can only come from a caller bug; zeros
    // are the defined default rather than reading past the fill's bytes.
    if (!c.bytes.empty()) std::memset(c.bytes.data(), 0, c.bytes.size());
    return c;
  }
  internal::FillElements(c.bytes.mutable_view(), fill.view());
  return c;
}

bool ChunkArray::IsAll(const FillValue& fill) const {
  if (dtype.is_variable_length()) {
    std::string_view f = fill.bytes.chars();
    for (const std::string& s : strings) {
      if (s != f) return false;
    }
    return true;
  }
  if (fill.bytes.size() != dtype.size()) return false;
  return internal::AllElementsEqual(bytes.view(), fill.bytes.view());
}

}  // namespace turbozarr
