#include "codec/delta_codec.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

// Integers are differenced and summed as their unsigned counterparts, which
// wrap around as numpy's fixed-width integers do (signed overflow would be
// undefined in C++).
template <typename T, bool = std::is_integral_v<T>>
struct ArithOf {
  using type = T;
};
template <typename T>
struct ArithOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Arith = typename ArithOf<T>::type;

// One pass over n elements of T in place: differences (encode) or running
// sums (decode).
template <typename T, bool kEncode>
void DeltaPass(std::byte* data, int64_t n) {
  using A = Arith<T>;
  A carry{};  // the previous input (encode) or output (decode)
  for (int64_t i = 0; i < n; ++i) {
    A x;
    std::memcpy(&x, data + i * sizeof(T), sizeof(T));
    A y = x;
    if (i > 0) y = kEncode ? static_cast<A>(x - carry) : static_cast<A>(carry + x);
    std::memcpy(data + i * sizeof(T), &y, sizeof(T));
    carry = kEncode ? x : y;
  }
}

bool IsDeltaType(DataTypeId id) {
  return id != DataTypeId::kFloat16 && internal::IsNumericType(id);
}

}  // namespace

Result<std::shared_ptr<const DeltaCodec>> DeltaCodec::Make(internal::CodecConfig& config,
                                                           const ArraySpec& spec,
                                                           bool in_v3) {
  TZ_ASSIGN_OR_RETURN(std::string dtype, config.String("dtype"));
  TZ_ASSIGN_OR_RETURN(std::string astype, config.String("astype", dtype));
  TZ_RETURN_NOT_OK(config.Finish());
  Result<V2TypeString> parsed = ParseV2DataType(dtype);
  if (!parsed.ok()) return config.Invalid("dtype", parsed.status().message());
  if (!(parsed->dtype == spec.dtype)) {
    return Status::Unsupported("codec delta: dtype \"" + dtype +
                               "\" differs from the array's data type");
  }
  if (!IsDeltaType(spec.dtype.id())) {
    return Status::Unsupported("codec delta: dtype \"" + dtype +
                               "\" is not an integer or a 32- or 64-bit float");
  }
  if (astype != dtype) {
    Result<V2TypeString> as = ParseV2DataType(astype);
    // "<i4" and "=i4" or "|i1" and "<i1" name the same values.
    if (!as.ok() || !(as->dtype == parsed->dtype)) {
      return Status::Unsupported("codec delta: astype \"" + astype + "\" differs from dtype \"" +
                                 dtype + "\"; only astype == dtype is supported");
    }
  }
  return std::make_shared<const DeltaCodec>(std::move(dtype), spec.dtype, in_v3);
}

nlohmann::json DeltaCodec::ToV2Json() const {
  return {{"id", "delta"}, {"dtype", dtype_}, {"astype", dtype_}};
}

nlohmann::json DeltaCodec::ToJson() const {
  return internal::NumcodecsV3Json(ToV2Json());
}

Result<ChunkArray> DeltaCodec::Encode(ChunkArray decoded) const {
  std::byte* data = decoded.bytes.data();
  const int64_t n = decoded.num_elements();
  internal::VisitNumericType(type_.id(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, internal::Half>) DeltaPass<T, true>(data, n);
  });
  return decoded;
}

Result<ChunkArray> DeltaCodec::Decode(ChunkArray encoded, const ArraySpec&) const {
  std::byte* data = encoded.bytes.data();
  const int64_t n = encoded.num_elements();
  internal::VisitNumericType(type_.id(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, internal::Half>) DeltaPass<T, false>(data, n);
  });
  return encoded;
}

}  // namespace turbozarr
