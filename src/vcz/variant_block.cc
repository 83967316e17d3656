#include "vcz/variant_block.h"

#include <iterator>

#include <cstring>

#include "turbozarr/number_text.h"
#include "turbozarr/selection.h"
#include "vcz/vcz_arrays.h"

namespace turbozarr::vcz::internal {
namespace {

constexpr uint32_t kFloatMissing = 0x7F800001;
constexpr uint32_t kFloatFill = 0x7F800002;
constexpr uint64_t kDoubleMissing = 0x7FF0000000000001;
constexpr uint64_t kDoubleFill = 0x7FF0000000000002;

template <typename T>
T Load(const void* base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + i * sizeof(T), sizeof(T));
  return v;
}

bool IsSigned(DataTypeId id) {
  return id == DataTypeId::kInt8 || id == DataTypeId::kInt16 || id == DataTypeId::kInt32 ||
         id == DataTypeId::kInt64;
}

}  // namespace

Result<FieldBlock> FieldBlock::Read(const Array& array, int64_t first, int64_t count,
                                    std::optional<std::pair<int64_t, int64_t>> samples,
                                    const ReadOptions& options) {
  FieldBlock b;
  b.dtype_ = array.dtype();
  b.rank_ = array.shape().size();
  std::vector<DimRange> dims{{first, first + count, 1}};
  for (size_t d = 1; d < array.shape().size(); ++d) {
    b.shape_.push_back(array.shape()[d]);
    b.per_variant_ *= array.shape()[d];
    dims.push_back({0, array.shape()[d], 1});
  }
  b.per_variant_read_ = b.per_variant_;
  if (samples && b.rank_ >= 2 &&
      (samples->first > 0 || samples->second < array.shape()[1])) {
    // Only the samples asked for: a run of whole samples within each row.
    const int64_t per_sample = b.per_row_of(1);
    dims[1] = {samples->first, samples->second, 1};
    b.first_read_ = samples->first * per_sample;
    b.per_variant_read_ = (samples->second - samples->first) * per_sample;
  }
  const int64_t n = count * b.per_variant_read_;
  const DataTypeId id = b.dtype_.id();
  switch (id) {
    case DataTypeId::kString:
    case DataTypeId::kBytes:
      b.string_type_ = true;
      b.strings_.resize(static_cast<size_t>(n));
      TZ_RETURN_NOT_OK(array.Read(Selection(dims), b.strings_, options));
      return b;
    case DataTypeId::kFixedUnicode:
    case DataTypeId::kFixedBytes: {
      ElementBlock raw(b.dtype_, n);
      TZ_RETURN_NOT_OK(array.Read(Selection(dims), raw, options));
      b.string_type_ = true;
      b.strings_ = FixedStringsAsText(raw);
      return b;
    }
    case DataTypeId::kBool:
    case DataTypeId::kInt8:
    case DataTypeId::kInt16:
    case DataTypeId::kInt32:
    case DataTypeId::kInt64:
    case DataTypeId::kUInt8:
    case DataTypeId::kUInt16:
    case DataTypeId::kUInt32:
    case DataTypeId::kUInt64:
    case DataTypeId::kFloat32:
    case DataTypeId::kFloat64:
      b.numbers_ = ElementBlock(b.dtype_, n);
      TZ_RETURN_NOT_OK(array.Read(Selection(dims), b.numbers_, options));
      return b;
    default:
      return Status::Unsupported(array.Describe() + ": VCZ fields of type " +
                                 b.dtype_.ToString() + " are not supported");
  }
}

FieldBlock FieldBlock::Shell() const {
  FieldBlock out;
  out.dtype_ = dtype_;
  out.rank_ = rank_;
  out.shape_ = shape_;
  out.per_variant_ = per_variant_;
  out.per_variant_read_ = per_variant_read_;
  out.first_read_ = first_read_;
  out.string_type_ = string_type_;
  return out;
}

FieldBlock FieldBlock::RowRange(int64_t first, int64_t count) const {
  FieldBlock out = Shell();
  const int64_t begin = first * per_variant_read_, n = count * per_variant_read_;
  if (is_string()) {
    out.strings_.assign(strings_.begin() + begin, strings_.begin() + begin + n);
    return out;
  }
  out.numbers_ = ElementBlock(dtype_, n);
  const size_t item = dtype_.size();
  std::memcpy(out.numbers_.data(), static_cast<const uint8_t*>(numbers_.data()) + begin * item,
              static_cast<size_t>(n) * item);
  return out;
}

FieldBlock FieldBlock::TakeRowRange(int64_t first, int64_t count) {
  if (!is_string()) return RowRange(first, count);
  FieldBlock out = Shell();
  const auto begin = strings_.begin() + first * per_variant_read_;
  out.strings_.assign(std::make_move_iterator(begin),
                      std::make_move_iterator(begin + count * per_variant_read_));
  return out;
}

FieldBlock FieldBlock::Rows(const std::vector<int64_t>& rows) const {
  FieldBlock out = Shell();
  const int64_t n = static_cast<int64_t>(rows.size()) * per_variant_read_;
  if (is_string()) {
    out.strings_.reserve(static_cast<size_t>(n));
    for (int64_t r : rows) {
      const auto from = strings_.begin() + r * per_variant_read_;
      out.strings_.insert(out.strings_.end(), from, from + per_variant_read_);
    }
    return out;
  }
  out.numbers_ = ElementBlock(dtype_, n);
  const size_t row_bytes = static_cast<size_t>(per_variant_read_) * dtype_.size();
  auto* to = static_cast<uint8_t*>(out.numbers_.data());
  for (int64_t r : rows) {
    std::memcpy(to, static_cast<const uint8_t*>(numbers_.data()) + r * row_bytes, row_bytes);
    to += row_bytes;
  }
  return out;
}

int64_t FieldBlock::per_row_of(size_t dims_from) const {
  int64_t n = 1;
  for (size_t d = dims_from; d < shape_.size(); ++d) n *= shape_[d];
  return n;
}

bool FieldBlock::is_float() const {
  return dtype_.id() == DataTypeId::kFloat32 || dtype_.id() == DataTypeId::kFloat64;
}

bool FieldBlock::IsMissing(int64_t row, int64_t i) const {
  const int64_t k = At(row, i);
  if (string_type_) return strings_[static_cast<size_t>(k)] == ".";
  switch (dtype_.id()) {
    case DataTypeId::kBool: return !Load<bool>(numbers_.data(), k);
    case DataTypeId::kFloat32: return Load<uint32_t>(numbers_.data(), k) == kFloatMissing;
    case DataTypeId::kFloat64: return Load<uint64_t>(numbers_.data(), k) == kDoubleMissing;
    default: return IsSigned(dtype_.id()) && Integer(row, i) == -1;
  }
}

bool FieldBlock::IsFill(int64_t row, int64_t i) const {
  const int64_t k = At(row, i);
  if (string_type_) return strings_[static_cast<size_t>(k)].empty();
  switch (dtype_.id()) {
    case DataTypeId::kBool: return false;
    case DataTypeId::kFloat32: return Load<uint32_t>(numbers_.data(), k) == kFloatFill;
    case DataTypeId::kFloat64: return Load<uint64_t>(numbers_.data(), k) == kDoubleFill;
    default: return IsSigned(dtype_.id()) && Integer(row, i) == -2;
  }
}

int64_t FieldBlock::Integer(int64_t row, int64_t i) const {
  const int64_t k = At(row, i);
  const void* p = numbers_.data();
  switch (dtype_.id()) {
    case DataTypeId::kBool: return Load<bool>(p, k);
    case DataTypeId::kInt8: return Load<int8_t>(p, k);
    case DataTypeId::kInt16: return Load<int16_t>(p, k);
    case DataTypeId::kInt32: return Load<int32_t>(p, k);
    case DataTypeId::kInt64: return Load<int64_t>(p, k);
    case DataTypeId::kUInt8: return Load<uint8_t>(p, k);
    case DataTypeId::kUInt16: return Load<uint16_t>(p, k);
    case DataTypeId::kUInt32: return Load<uint32_t>(p, k);
    case DataTypeId::kUInt64: return static_cast<int64_t>(Load<uint64_t>(p, k));
    case DataTypeId::kFloat32: return static_cast<int64_t>(Load<float>(p, k));
    case DataTypeId::kFloat64: return static_cast<int64_t>(Load<double>(p, k));
    default: return 0;
  }
}

double FieldBlock::Float(int64_t row, int64_t i) const {
  const int64_t k = At(row, i);
  if (dtype_.id() == DataTypeId::kFloat32) return Load<float>(numbers_.data(), k);
  if (dtype_.id() == DataTypeId::kFloat64) return Load<double>(numbers_.data(), k);
  return static_cast<double>(Integer(row, i));
}

bool FieldBlock::Bool(int64_t row, int64_t i) const { return Integer(row, i) != 0; }

const std::string& FieldBlock::String(int64_t row, int64_t i) const {
  return strings_[static_cast<size_t>(At(row, i))];
}

std::string FieldBlock::Text(int64_t row, int64_t i) const {
  if (string_type_) return String(row, i);
  const int64_t k = At(row, i);
  switch (dtype_.id()) {
    case DataTypeId::kBool: return Bool(row, i) ? "True" : "False";
    case DataTypeId::kFloat32: return FormatShortest(Load<float>(numbers_.data(), k));
    case DataTypeId::kFloat64: return FormatShortest(Load<double>(numbers_.data(), k));
    case DataTypeId::kUInt64: return std::to_string(Load<uint64_t>(numbers_.data(), k));
    default: return std::to_string(Integer(row, i));
  }
}

}  // namespace turbozarr::vcz::internal
