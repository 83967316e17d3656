#include "codec/quantize_codec.h"

#include <cmath>

namespace turbozarr {

using internal::NumpyDtype;

Result<double> QuantizeCodec::ScaleFor(int64_t digits) {
  const double precision = std::pow(10.0, static_cast<double>(-digits));
  if (!(precision > 0) || !std::isfinite(precision)) {
    return Status::InvalidArgument("10^-" + std::to_string(digits) +
                                   " is not a finite, positive double");
  }
  double exp = std::log10(precision);
  exp = exp < 0 ? std::floor(exp) : std::ceil(exp);
  const double bits = std::ceil(std::log2(std::pow(10.0, -exp)));
  return std::pow(2.0, bits);
}

Result<std::shared_ptr<const QuantizeCodec>> QuantizeCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3) {
  TZ_ASSIGN_OR_RETURN(int64_t digits, config.Int("digits"));
  // zarr-python fills dtype in from the array; astype defaults to dtype.
  TZ_ASSIGN_OR_RETURN(
      NumpyDtype dtype,
      internal::ReadNumpyDtype(config, "dtype", spec.dtype.ToV2TypeString()));
  TZ_ASSIGN_OR_RETURN(NumpyDtype astype,
                      internal::ReadNumpyDtype(config, "astype", dtype.spelled));
  TZ_RETURN_NOT_OK(config.Finish());
  Result<double> scale = ScaleFor(digits);
  if (!scale.ok()) return config.Invalid("digits", scale.status().message());
  for (const auto& [key, d] :
       {std::pair{"dtype", &dtype}, std::pair{"astype", &astype}}) {
    if (d->type.is_integer() || !internal::IsNumericType(d->type.id())) {
      return internal::UnsupportedDtype(config, key, *d, "is not a float type");
    }
  }
  TZ_RETURN_NOT_OK(internal::RequireArrayType(config, "dtype", dtype, spec.dtype));
  return std::make_shared<const QuantizeCodec>(digits, *scale, std::move(dtype),
                                               std::move(astype), in_v3);
}

nlohmann::json QuantizeCodec::ToV2Json() const {
  return {{"id", "quantize"},
          {"digits", digits_},
          {"dtype", dtype_.spelled},
          {"astype", astype_.spelled}};
}

void QuantizeCodec::EncodeElements(const std::byte* src, std::byte* dst,
                                   int64_t n) const {
  internal::VisitNumericType(dtype_.type.id(), [&]<typename D>() {
    internal::VisitNumericType(astype_.type.id(), [&]<typename A>() {
      if constexpr (internal::kIsFloat<D>) {
        using Arith = internal::NumpyArith<D>;
        const D scale = internal::NumpyCast<D>(scale_);
        for (int64_t i = 0; i < n; ++i) {
          const D x = internal::LoadElement<D>(src + i * sizeof(D));
          const D q = Arith::Div(Arith::Round(Arith::Mul(scale, x)), scale);
          internal::StoreElement(dst + i * sizeof(A), internal::NumpyCast<A>(q));
        }
      }
    });
  });
}

Result<ArraySpec> QuantizeCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded = decoded;
  encoded.dtype = astype_.type;
  encoded.fill_value.bytes = Buffer(astype_.type.size());
  if (decoded.fill_value.bytes.size() == dtype_.type.size()) {
    EncodeElements(decoded.fill_value.bytes.data(), encoded.fill_value.bytes.data(), 1);
  } else {
    encoded.fill_value = DefaultFillValue(astype_.type);
  }
  return encoded;
}

Result<ChunkArray> QuantizeCodec::Encode(ChunkArray decoded) const {
  if (astype_.type == dtype_.type) {  // (always so in v3) element by element, in place
    EncodeElements(decoded.bytes.data(), decoded.bytes.data(), decoded.num_elements());
    return decoded;
  }
  ChunkArray out = internal::NewChunk(decoded.shape, astype_.type);
  EncodeElements(decoded.bytes.data(), out.bytes.data(), decoded.num_elements());
  return out;
}

Result<ChunkArray> QuantizeCodec::Decode(ChunkArray encoded,
                                         const ArraySpec& decoded) const {
  const int64_t n = decoded.num_elements();
  TZ_RETURN_NOT_OK(internal::CheckChunkElements(name(), encoded, astype_.type, n));
  return internal::CastChunk(std::move(encoded), dtype_.type, decoded.shape);
}

}  // namespace turbozarr
