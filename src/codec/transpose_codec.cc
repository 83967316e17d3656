#include "codec/transpose_codec.h"

#include <cstring>

namespace turbozarr {
namespace internal {
namespace {

// Copies one element of `Size` bytes (0: of the run-time size); a fixed
// size lets memcpy become one load and one store.
template <size_t Size>
struct CopyElement {
  void operator()(std::byte* dst, const std::byte* src, size_t n) const {
    std::memcpy(dst, src, Size == 0 ? n : Size);
  }
};

// Walks the destination in C order; the source offset follows the permuted
// strides. `Copy` moves one element, so the same walk serves fixed-size
// bytes and std::string items.
template <typename Copy>
void PermuteWalk(const std::vector<int64_t>& dst_shape,
                 const std::vector<int64_t>& src_strides_for_dst, Copy copy) {
  const size_t ndim = dst_shape.size();
  int64_t total = 1;
  for (int64_t d : dst_shape) total *= d;
  if (total == 0) return;
  if (ndim == 0) {
    copy(0, 0);
    return;
  }
  std::vector<int64_t> idx(ndim, 0);
  const int64_t inner = dst_shape[ndim - 1];
  const int64_t inner_stride = src_strides_for_dst[ndim - 1];
  int64_t dst = 0;
  int64_t src_base = 0;
  while (true) {
    int64_t s = src_base;
    for (int64_t i = 0; i < inner; ++i, s += inner_stride) copy(dst++, s);
    // Advance the outer odometer.
    int64_t d = static_cast<int64_t>(ndim) - 2;
    for (; d >= 0; --d) {
      src_base += src_strides_for_dst[d];
      if (++idx[d] < dst_shape[d]) break;
      src_base -= src_strides_for_dst[d] * dst_shape[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

ChunkArray PermuteAxes(const ChunkArray& src, const std::vector<int64_t>& perm) {
  const size_t ndim = perm.size();
  std::vector<int64_t> src_strides(ndim, 1);
  for (size_t d = ndim; d-- > 1;) src_strides[d - 1] = src_strides[d] * src.shape[d];
  ChunkArray dst;
  dst.dtype = src.dtype;
  dst.shape.resize(ndim);
  std::vector<int64_t> strides(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    dst.shape[i] = src.shape[perm[i]];
    strides[i] = src_strides[perm[i]];
  }
  if (src.dtype.is_variable_length()) {
    dst.strings.resize(src.strings.size());
    PermuteWalk(dst.shape, strides,
                [&](int64_t d, int64_t s) { dst.strings[d] = src.strings[s]; });
    return dst;
  }
  const size_t size = src.dtype.size();
  dst.bytes.Resize(src.bytes.size());
  std::byte* out = dst.bytes.data();
  const std::byte* in = src.bytes.data();
  auto run = [&](auto copy_one) {
    PermuteWalk(dst.shape, strides, [&](int64_t d, int64_t s) {
      copy_one(out + d * size, in + s * size, size);
    });
  };
  switch (size) {
    case 1:
      run(CopyElement<1>());
      break;
    case 2:
      run(CopyElement<2>());
      break;
    case 4:
      run(CopyElement<4>());
      break;
    case 8:
      run(CopyElement<8>());
      break;
    case 16:
      run(CopyElement<16>());
      break;
    default:
      run(CopyElement<0>());
      break;
  }
  return dst;
}

}  // namespace internal

namespace {

// The element storage must match the shape before the walk indexes it.
Status CheckElements(const ChunkArray& a, const char* what) {
  const int64_t n = a.num_elements();
  bool ok = a.dtype.is_variable_length()
                ? static_cast<int64_t>(a.strings.size()) == n
                : a.bytes.size() == static_cast<size_t>(n) * a.dtype.size();
  if (ok) return Status::OK();
  std::string msg = "codec transpose: ";
  msg += what;
  msg += " chunk of shape " + internal::ShapeString(a.shape) +
         " holds the wrong number of " + "elements for type " + a.dtype.ToString();
  return Status::InvalidArgument(std::move(msg));
}

bool IsIdentity(const std::vector<int64_t>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

TransposeCodec::TransposeCodec(std::vector<int64_t> order)
    : order_(std::move(order)), inverse_(order_.size()) {
  for (size_t i = 0; i < order_.size(); ++i)
    inverse_[order_[i]] = static_cast<int64_t>(i);
}

Result<std::shared_ptr<const TransposeCodec>> TransposeCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec) {
  const int64_t ndim = static_cast<int64_t>(spec.shape.size());
  nlohmann::json j = config.Raw("order");
  TZ_RETURN_NOT_OK(config.Finish());
  std::vector<int64_t> order;
  if (j.is_string() && (j == "C" || j == "F")) {
    for (int64_t i = 0; i < ndim; ++i) order.push_back(j == "C" ? i : ndim - 1 - i);
  } else if (j.is_array()) {
    for (const auto& v : j) {
      if (!v.is_number_integer()) {
        return config.Invalid("order", "expected integers, got " + j.dump());
      }
      order.push_back(v.get<int64_t>());
    }
  } else {
    return config.Invalid("order", "expected a list of axes, got " + j.dump());
  }
  if (static_cast<int64_t>(order.size()) != ndim) {
    return config.Invalid("order", j.dump() + " has " + std::to_string(order.size()) +
                                       " axes, the chunk has " + std::to_string(ndim));
  }
  std::vector<bool> seen(ndim, false);
  for (int64_t a : order) {
    if (a < 0 || a >= ndim || seen[a]) {
      return config.Invalid(
          "order", j.dump() + " is not a permutation of 0.." + std::to_string(ndim - 1));
    }
    seen[a] = true;
  }
  return std::make_shared<const TransposeCodec>(std::move(order));
}

nlohmann::json TransposeCodec::ToJson() const {
  return {{"name", "transpose"}, {"configuration", {{"order", order_}}}};
}

Result<ArraySpec> TransposeCodec::EncodedSpec(const ArraySpec& decoded) const {
  if (decoded.shape.size() != order_.size()) {
    return Status::InvalidArgument(
        "codec transpose: order of " + std::to_string(order_.size()) +
        " axes for a chunk of " + std::to_string(decoded.shape.size()));
  }
  ArraySpec encoded = decoded;
  for (size_t i = 0; i < order_.size(); ++i) encoded.shape[i] = decoded.shape[order_[i]];
  return encoded;
}

Result<ChunkArray> TransposeCodec::Encode(ChunkArray decoded) const {
  if (decoded.shape.size() != order_.size()) {
    return Status::InvalidArgument(
        "codec transpose: chunk of shape " + internal::ShapeString(decoded.shape) +
        " for an order of " + std::to_string(order_.size()) + " axes");
  }
  TZ_RETURN_NOT_OK(CheckElements(decoded, "decoded"));
  if (IsIdentity(order_)) return decoded;
  return internal::PermuteAxes(decoded, order_);
}

Result<ChunkArray> TransposeCodec::Decode(ChunkArray encoded,
                                          const ArraySpec& decoded) const {
  TZ_ASSIGN_OR_RETURN(ArraySpec expect, EncodedSpec(decoded));
  if (encoded.shape != expect.shape) {
    return Status::Corruption("codec transpose: expected an encoded chunk of shape " +
                              internal::ShapeString(expect.shape) + ", got " +
                              internal::ShapeString(encoded.shape));
  }
  TZ_RETURN_NOT_OK(CheckElements(encoded, "encoded"));
  if (IsIdentity(order_)) return encoded;
  return internal::PermuteAxes(encoded, inverse_);
}

}  // namespace turbozarr
