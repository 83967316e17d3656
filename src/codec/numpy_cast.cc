#include "codec/numpy_cast.h"

#include <limits>

namespace turbozarr::internal {
namespace {

// x86-64's truncating conversions (cvttsd2si): the value truncated toward
// zero when it fits, else the "integer indefinite" value, the minimum.
int32_t Truncate32(double x) {
  if (x > -2147483649.0 && x < 2147483648.0) return static_cast<int32_t>(x);
  return std::numeric_limits<int32_t>::min();
}
int64_t Truncate64(double x) {
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) {
    return static_cast<int64_t>(x);
  }
  return std::numeric_limits<int64_t>::min();
}

}  // namespace

template <typename I>
I NumpyFloatToInt(double x) {
  if constexpr (sizeof(I) < 4) {
    return static_cast<I>(Truncate32(x));
  } else if constexpr (std::is_same_v<I, int32_t>) {
    return Truncate32(x);
  } else if constexpr (std::is_same_v<I, int64_t>) {
    return Truncate64(x);
  } else if constexpr (std::is_same_v<I, uint32_t>) {
    // Below 2^31 (NaN is not) the signed conversion, else the signed
    // conversion of x - 2^31 with the top bit flipped back.
    if (x < 2147483648.0) return static_cast<uint32_t>(Truncate32(x));
    return static_cast<uint32_t>(Truncate32(x - 2147483648.0)) ^ 0x80000000u;
  } else {
    static_assert(std::is_same_v<I, uint64_t>);
    // From 2^63 up (NaN is not) the same trick as uint32, at 64 bits.
    if (x >= 9223372036854775808.0) {
      return static_cast<uint64_t>(Truncate64(x - 9223372036854775808.0)) ^
             0x8000000000000000u;
    }
    return static_cast<uint64_t>(Truncate64(x));
  }
}

template int8_t NumpyFloatToInt<int8_t>(double);
template int16_t NumpyFloatToInt<int16_t>(double);
template int32_t NumpyFloatToInt<int32_t>(double);
template int64_t NumpyFloatToInt<int64_t>(double);
template uint8_t NumpyFloatToInt<uint8_t>(double);
template uint16_t NumpyFloatToInt<uint16_t>(double);
template uint32_t NumpyFloatToInt<uint32_t>(double);
template uint64_t NumpyFloatToInt<uint64_t>(double);

template <typename T>
Result<T> WeakScalar(const nlohmann::json& json) {
  if (!json.is_number()) {
    return Status::InvalidArgument("expected a number, got " + json.dump());
  }
  if constexpr (kIsFloat<T>) {
    if (json.is_number_unsigned()) return NumpyCast<T>(json.get<uint64_t>());
    if (json.is_number_integer()) return NumpyCast<T>(json.get<int64_t>());
    return NumpyCast<T>(json.get<double>());
  } else {
    if (json.is_number_float()) {
      return Status::InvalidArgument("expected an integer for an integer type, got " +
                                     json.dump());
    }
    // Compared in 128 bits, which hold every JSON integer and every T.
    const __int128 v = json.is_number_unsigned()
                           ? static_cast<__int128>(json.get<uint64_t>())
                           : static_cast<__int128>(json.get<int64_t>());
    const bool fits = v >= static_cast<__int128>(std::numeric_limits<T>::min()) &&
                      v <= static_cast<__int128>(std::numeric_limits<T>::max());
    if (!fits) {
      return Status::InvalidArgument(json.dump() +
                                     " is out of the range of the data type");
    }
    return static_cast<T>(v);
  }
}

#define TZ_WEAK_SCALAR(T) template Result<T> WeakScalar<T>(const nlohmann::json&);
TZ_WEAK_SCALAR(int8_t)
TZ_WEAK_SCALAR(int16_t)
TZ_WEAK_SCALAR(int32_t)
TZ_WEAK_SCALAR(int64_t)
TZ_WEAK_SCALAR(uint8_t)
TZ_WEAK_SCALAR(uint16_t)
TZ_WEAK_SCALAR(uint32_t)
TZ_WEAK_SCALAR(uint64_t)
TZ_WEAK_SCALAR(Half)
TZ_WEAK_SCALAR(float)
TZ_WEAK_SCALAR(double)
#undef TZ_WEAK_SCALAR

ChunkArray NewChunk(std::vector<int64_t> shape, DataType type) {
  ChunkArray c;
  c.shape = std::move(shape);
  c.dtype = type;
  c.bytes = Buffer(static_cast<size_t>(c.num_elements()) * type.size());
  return c;
}

Status CheckChunkElements(std::string_view codec, const ChunkArray& chunk, DataType type,
                          int64_t n) {
  if (chunk.dtype == type && chunk.num_elements() == n &&
      chunk.bytes.size() == static_cast<size_t>(n) * type.size()) {
    return Status::OK();
  }
  return Status::Corruption("codec " + std::string(codec) + ": expected " +
                            std::to_string(n) + " elements of " + type.ToString() +
                            ", got " + std::to_string(chunk.bytes.size()) + " bytes of " +
                            chunk.dtype.ToString());
}

void CastElements(const std::byte* src, DataTypeId from, std::byte* dst, DataTypeId to,
                  int64_t n) {
  VisitNumericType(from, [&]<typename From>() {
    VisitNumericType(to, [&]<typename To>() {
      for (int64_t i = 0; i < n; ++i) {
        StoreElement(dst + i * sizeof(To),
                     NumpyCast<To>(LoadElement<From>(src + i * sizeof(From))));
      }
    });
  });
}

ChunkArray CastChunk(ChunkArray chunk, const DataType& to, std::vector<int64_t> shape) {
  if (chunk.dtype == to) {
    chunk.shape = std::move(shape);
    return chunk;
  }
  ChunkArray out = NewChunk(std::move(shape), to);
  CastElements(chunk.bytes.data(), chunk.dtype.id(), out.bytes.data(), to.id(),
               out.num_elements());
  return out;
}

Result<NumpyDtype> ReadNumpyDtype(CodecConfig& config, std::string_view key,
                                  std::optional<std::string> fallback) {
  TZ_ASSIGN_OR_RETURN(std::string spelled, config.String(key, std::move(fallback)));
  // numcodecs writes numpy's type strings ("<f8"); zarr-python fills in
  // missing dtypes with numpy's names ("float64"), which are the v3 names.
  const bool typestr = !spelled.empty() && std::string_view("<>|=").find(spelled[0]) !=
                                               std::string_view::npos;
  DataType type;
  if (typestr) {
    Result<V2TypeString> parsed = ParseV2DataType(spelled);
    if (!parsed.ok()) return config.Invalid(key, parsed.status().message());
    if (parsed->byte_order == '>' && parsed->dtype.swap_unit() > 1) {
      return UnsupportedDtype(config, key, {spelled, parsed->dtype},
                              "is big-endian, which is not supported; use \"<\"");
    }
    type = parsed->dtype;
  } else {
    Result<DataType> parsed = ParseV3DataType(nlohmann::json(spelled));
    if (!parsed.ok()) {
      return config.Invalid(key, "\"" + spelled + "\" is not a numpy data type");
    }
    type = *parsed;
  }
  return NumpyDtype{std::move(spelled), type};
}

Status RequireArrayType(const CodecConfig& config, std::string_view key,
                        const NumpyDtype& dtype, const DataType& array_type) {
  if (dtype.type == array_type) return Status::OK();
  return UnsupportedDtype(config, key, dtype,
                          "differs from the array's data type " + array_type.ToString());
}

Status UnsupportedDtype(const CodecConfig& config, std::string_view key,
                        const NumpyDtype& dtype, std::string_view what) {
  return Status::Unsupported("codec " + config.codec() + ": field \"" + std::string(key) +
                             "\": \"" + dtype.spelled + "\" " + std::string(what));
}

}  // namespace turbozarr::internal
