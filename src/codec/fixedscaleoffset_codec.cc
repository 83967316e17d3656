#include "codec/fixedscaleoffset_codec.h"

namespace turbozarr {
namespace {

using internal::kIsFloat;
using internal::LoadElement;
using internal::NumpyArith;
using internal::NumpyCast;
using internal::StoreElement;
using internal::WeakScalar;

// The type numpy computes `array op scalar` in: the array's, unless an
// integer array meets a float scalar (then float64).
bool StaysInType(bool array_is_float, const nlohmann::json& scalar) {
  return array_is_float || !scalar.is_number_float();
}

// round((x - offset) * scale) over n elements of D into A, subtracting in T1
// and multiplying in T2. REQUIRES: the scalars convert (checked in Make).
template <typename D, typename A, typename T1, typename T2>
void EncodeAs(const std::byte* src, std::byte* dst, int64_t n,
              const nlohmann::json& offset, const nlohmann::json& scale) {
  const T1 off = *WeakScalar<T1>(offset);
  const T2 sc = *WeakScalar<T2>(scale);
  for (int64_t i = 0; i < n; ++i) {
    const T1 a =
        NumpyArith<T1>::Sub(NumpyCast<T1>(LoadElement<D>(src + i * sizeof(D))), off);
    const T2 b = NumpyArith<T2>::Round(NumpyArith<T2>::Mul(NumpyCast<T2>(a), sc));
    StoreElement(dst + i * sizeof(A), NumpyCast<A>(b));
  }
}

// y / scale + offset over n elements of A into D, in T.
template <typename A, typename D, typename T>
void DecodeAs(const std::byte* src, std::byte* dst, int64_t n,
              const nlohmann::json& offset, const nlohmann::json& scale) {
  const T off = *WeakScalar<T>(offset);
  const T sc = *WeakScalar<T>(scale);
  for (int64_t i = 0; i < n; ++i) {
    const T y = NumpyCast<T>(LoadElement<A>(src + i * sizeof(A)));
    StoreElement(dst + i * sizeof(D),
                 NumpyCast<D>(NumpyArith<T>::Add(NumpyArith<T>::Div(y, sc), off)));
  }
}

}  // namespace

Result<std::shared_ptr<const FixedScaleOffsetCodec>> FixedScaleOffsetCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3) {
  Params p;
  p.offset = config.Raw("offset");
  p.scale = config.Raw("scale");
  // zarr-python fills dtype in from the array; astype defaults to dtype.
  TZ_ASSIGN_OR_RETURN(
      p.dtype, internal::ReadNumpyDtype(config, "dtype", spec.dtype.ToV2TypeString()));
  TZ_ASSIGN_OR_RETURN(p.astype,
                      internal::ReadNumpyDtype(config, "astype", p.dtype.spelled));
  TZ_RETURN_NOT_OK(config.Finish());
  for (const char* key : {"offset", "scale"}) {
    const nlohmann::json& v = key[0] == 'o' ? p.offset : p.scale;
    if (v.is_null()) return config.Invalid(key, "is required");
    if (!v.is_number()) return config.Invalid(key, "expected a number, got " + v.dump());
  }
  for (const auto& [key, dtype] :
       {std::pair{"dtype", &p.dtype}, std::pair{"astype", &p.astype}}) {
    if (!internal::IsNumericType(dtype->type.id())) {
      return internal::UnsupportedDtype(config, key, *dtype, "is not a numeric type");
    }
  }
  TZ_RETURN_NOT_OK(internal::RequireArrayType(config, "dtype", p.dtype, spec.dtype));
  // An integer dtype meets integer scalars in its own type: numpy 2 refuses
  // those it cannot hold.
  const bool is_float = !p.dtype.type.is_integer();
  internal::VisitNumericType(p.dtype.type.id(), [&]<typename D>() {
    if constexpr (!kIsFloat<D>) {
      const bool sub_in_d = StaysInType(is_float, p.offset);
      for (const auto& [key, v, used] :
           {std::tuple{"offset", &p.offset, sub_in_d},
            std::tuple{"scale", &p.scale, sub_in_d && StaysInType(is_float, p.scale)}}) {
        if (!used || !p.encode_error.empty()) continue;
        Result<D> r = WeakScalar<D>(*v);
        if (!r.ok()) {
          p.encode_error = std::string("field \"") + key + "\": " + r.status().message();
        }
      }
    }
  });
  return std::make_shared<const FixedScaleOffsetCodec>(std::move(p), in_v3);
}

nlohmann::json FixedScaleOffsetCodec::ToV2Json() const {
  return {{"id", "fixedscaleoffset"},
          {"scale", p_.scale},
          {"offset", p_.offset},
          {"dtype", p_.dtype.spelled},
          {"astype", p_.astype.spelled}};
}

Status FixedScaleOffsetCodec::EncodeElements(const std::byte* src, std::byte* dst,
                                             int64_t n) const {
  if (!p_.encode_error.empty()) {
    return Status::InvalidArgument("codec " + name() +
                                   ": cannot encode: " + p_.encode_error);
  }
  const bool is_float = !p_.dtype.type.is_integer();
  const bool sub_in_d = StaysInType(is_float, p_.offset);
  const bool mul_in_d = sub_in_d && StaysInType(is_float, p_.scale);
  internal::VisitNumericType(p_.dtype.type.id(), [&]<typename D>() {
    internal::VisitNumericType(p_.astype.type.id(), [&]<typename A>() {
      if (mul_in_d) {
        EncodeAs<D, A, D, D>(src, dst, n, p_.offset, p_.scale);
      } else if (sub_in_d) {
        EncodeAs<D, A, D, double>(src, dst, n, p_.offset, p_.scale);
      } else {
        EncodeAs<D, A, double, double>(src, dst, n, p_.offset, p_.scale);
      }
    });
  });
  return Status::OK();
}

Result<ArraySpec> FixedScaleOffsetCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded = decoded;
  encoded.dtype = p_.astype.type;
  encoded.fill_value.bytes = Buffer(p_.astype.type.size());
  // A fill value that cannot be encoded only matters to encoding, which
  // says so itself.
  if (decoded.fill_value.bytes.size() != p_.dtype.type.size() ||
      !EncodeElements(decoded.fill_value.bytes.data(), encoded.fill_value.bytes.data(), 1)
           .ok()) {
    encoded.fill_value = DefaultFillValue(p_.astype.type);
  }
  return encoded;
}

Result<ChunkArray> FixedScaleOffsetCodec::Encode(ChunkArray decoded) const {
  ChunkArray out = internal::NewChunk(decoded.shape, p_.astype.type);
  TZ_RETURN_NOT_OK(
      EncodeElements(decoded.bytes.data(), out.bytes.data(), decoded.num_elements()));
  return out;
}

Result<ChunkArray> FixedScaleOffsetCodec::Decode(ChunkArray encoded,
                                                 const ArraySpec& decoded) const {
  const int64_t n = decoded.num_elements();
  TZ_RETURN_NOT_OK(internal::CheckChunkElements(name(), encoded, p_.astype.type, n));
  ChunkArray out = internal::NewChunk(decoded.shape, p_.dtype.type);
  internal::VisitNumericType(p_.astype.type.id(), [&]<typename A>() {
    internal::VisitNumericType(p_.dtype.type.id(), [&]<typename D>() {
      // Dividing a float array keeps its type; an integer one goes to float64.
      using T = std::conditional_t<kIsFloat<A>, A, double>;
      DecodeAs<A, D, T>(encoded.bytes.data(), out.bytes.data(), n, p_.offset, p_.scale);
    });
  });
  return out;
}

}  // namespace turbozarr
