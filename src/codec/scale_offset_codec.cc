#include "codec/scale_offset_codec.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

using internal::kIsFloat;
using internal::LoadElement;
using internal::StoreElement;

// `j` as one scalar of `type`, as zarr-python's from_json_scalar reads it:
// the v3 fill-value spellings, plus integral floats for integers and
// numeric strings ("42", "1.5") for both.
Result<Buffer> ReadScalar(const internal::CodecConfig& config, std::string_view key,
                          const nlohmann::json& j, const DataType& type) {
  nlohmann::json value = j;
  if (type.is_integer() && j.is_number_float() &&
      std::trunc(j.get<double>()) == j.get<double>()) {
    value = static_cast<int64_t>(j.get<double>());
  }
  Result<FillValue> parsed = ParseFillValue(value, type, 3);
  if (!parsed.ok() && j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    char* end = nullptr;
    if (type.is_integer()) {
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && *end == '\0') parsed = ParseFillValue(v, type, 3);
    } else {
      const double v = std::strtod(s.c_str(), &end);
      if (!s.empty() && *end == '\0') parsed = ParseFillValue(v, type, 3);
    }
  }
  if (!parsed.ok()) {
    return config.Invalid(key, j.dump() + " is not a value of " + type.ToString());
  }
  return std::move(parsed->bytes);
}

// True when the scalar at `p` of `type` is zero.
bool IsZero(const std::byte* p, const DataType& type) {
  bool zero = false;
  internal::VisitNumericType(type.id(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, internal::Half>) {
      zero = (LoadElement<uint16_t>(p) & 0x7fff) == 0;
    } else {
      zero = LoadElement<T>(p) == T{};
    }
  });
  return zero;
}

// Integers: exact arithmetic in 128 bits; false when a result leaves T.
template <typename T>
bool IntegerStep(bool encode, T x, T offset, T scale, T& out, bool& inexact) {
  __int128 r;
  if (encode) {
    if (__builtin_sub_overflow(static_cast<__int128>(x), static_cast<__int128>(offset),
                               &r) ||
        __builtin_mul_overflow(r, static_cast<__int128>(scale), &r)) {
      return false;
    }
  } else {
    if (static_cast<__int128>(x) % static_cast<__int128>(scale) != 0) {
      inexact = true;
      return false;
    }
    r = static_cast<__int128>(x) / static_cast<__int128>(scale) + offset;
  }
  if (r < static_cast<__int128>(std::numeric_limits<T>::min()) ||
      r > static_cast<__int128>(std::numeric_limits<T>::max())) {
    return false;
  }
  out = static_cast<T>(r);
  return true;
}

bool IsDefault(const nlohmann::json& j, double value) {
  return j.is_null() || (j.is_number() && j.get<double>() == value);
}

}  // namespace

Result<std::shared_ptr<const ScaleOffsetCodec>> ScaleOffsetCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec) {
  nlohmann::json offset_json = config.Raw("offset");
  nlohmann::json scale_json = config.Raw("scale");
  TZ_RETURN_NOT_OK(config.Finish());
  if (!internal::IsNumericType(spec.dtype.id())) {
    return Status::Unsupported("codec scale_offset: the array's data type " +
                               spec.dtype.ToString() + " is not an integer or a float");
  }
  TZ_ASSIGN_OR_RETURN(
      Buffer offset,
      ReadScalar(config, "offset",
                 offset_json.is_null() ? nlohmann::json(0) : offset_json, spec.dtype));
  TZ_ASSIGN_OR_RETURN(
      Buffer scale,
      ReadScalar(config, "scale", scale_json.is_null() ? nlohmann::json(1) : scale_json,
                 spec.dtype));
  if (IsZero(scale.data(), spec.dtype)) return config.Invalid("scale", "must not be 0");
  return std::make_shared<const ScaleOffsetCodec>(std::move(offset_json),
                                                  std::move(scale_json), spec.dtype,
                                                  std::move(offset), std::move(scale));
}

nlohmann::json ScaleOffsetCodec::ToJson() const {
  // zarr-python writes only the fields that differ from 0 and 1.
  nlohmann::json config = nlohmann::json::object();
  if (!IsDefault(offset_json_, 0)) config["offset"] = offset_json_;
  if (!IsDefault(scale_json_, 1)) config["scale"] = scale_json_;
  if (config.empty()) return {{"name", "scale_offset"}};
  return {{"name", "scale_offset"}, {"configuration", std::move(config)}};
}

Status ScaleOffsetCodec::Run(bool encode, const std::byte* src, std::byte* dst,
                             int64_t n) const {
  Status status;
  internal::VisitNumericType(type_.id(), [&]<typename T>() {
    const T offset = LoadElement<T>(offset_.data());
    const T scale = LoadElement<T>(scale_.data());
    for (int64_t i = 0; i < n; ++i) {
      const T x = LoadElement<T>(src + i * sizeof(T));
      T y;
      if constexpr (kIsFloat<T>) {
        using A = internal::NumpyArith<T>;
        y = encode ? A::Mul(A::Sub(x, offset), scale) : A::Add(A::Div(x, scale), offset);
      } else {
        bool inexact = false;
        if (!IntegerStep(encode, x, offset, scale, y, inexact)) {
          const std::string what =
              inexact ? "the stored value " + std::to_string(x) +
                            " is not a multiple of scale " + std::to_string(scale)
                      : std::string(encode ? "(" : "") + std::to_string(x) +
                            (encode ? " - offset) * scale" : " / scale + offset") +
                            " is outside the range of " + type_.ToString();
          status = encode ? Status::InvalidArgument("codec scale_offset: " + what)
                          : Status::Corruption("codec scale_offset: " + what);
          return;
        }
      }
      StoreElement(dst + i * sizeof(T), y);
    }
  });
  return status;
}

Result<ArraySpec> ScaleOffsetCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded = decoded;
  if (decoded.fill_value.bytes.size() == type_.size()) {
    Status s =
        Run(true, decoded.fill_value.bytes.data(), encoded.fill_value.bytes.data(), 1);
    if (!s.ok()) return s.WithContext("the fill value");
  }
  return encoded;
}

Result<ChunkArray> ScaleOffsetCodec::Encode(ChunkArray decoded) const {
  TZ_RETURN_NOT_OK(
      Run(true, decoded.bytes.data(), decoded.bytes.data(), decoded.num_elements()));
  return decoded;
}

Result<ChunkArray> ScaleOffsetCodec::Decode(ChunkArray encoded,
                                            const ArraySpec& decoded) const {
  TZ_RETURN_NOT_OK(
      internal::CheckChunkElements(name(), encoded, type_, decoded.num_elements()));
  TZ_RETURN_NOT_OK(
      Run(false, encoded.bytes.data(), encoded.bytes.data(), encoded.num_elements()));
  return encoded;
}

}  // namespace turbozarr
