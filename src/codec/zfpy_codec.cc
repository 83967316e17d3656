#include "codec/zfpy_codec.h"

#include <zfp.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

const char* ParameterName(ZfpyCodec::Mode mode) {
  switch (mode) {
    case ZfpyCodec::kFixedRate:
      return "rate";
    case ZfpyCodec::kFixedPrecision:
      return "precision";
    case ZfpyCodec::kFixedAccuracy:
      return "tolerance";
  }
  return "";
}

// zfp's scalar type for a data type; zfp_type_none for one zfp lacks.
zfp_type ZfpType(const DataType& dtype) {
  switch (dtype.id()) {
    case DataTypeId::kInt32:
      return zfp_type_int32;
    case DataTypeId::kInt64:
      return zfp_type_int64;
    case DataTypeId::kFloat32:
      return zfp_type_float;
    case DataTypeId::kFloat64:
      return zfp_type_double;
    default:
      return zfp_type_none;
  }
}

// A field over `data` of `shape` (C order: zfp's x is the last dimension).
zfp_field* MakeField(void* data, zfp_type type, const std::vector<int64_t>& shape) {
  auto n = [&](size_t i) { return static_cast<size_t>(shape[shape.size() - 1 - i]); };
  switch (shape.size()) {
    case 1:
      return zfp_field_1d(data, type, n(0));
    case 2:
      return zfp_field_2d(data, type, n(0), n(1));
    case 3:
      return zfp_field_3d(data, type, n(0), n(1), n(2));
    case 4:
      return zfp_field_4d(data, type, n(0), n(1), n(2), n(3));
    default:
      return nullptr;
  }
}

// Closes a zfp stream, its bit stream and a field, however the call ends.
struct ZfpHandles {
  zfp_field* field = nullptr;
  zfp_stream* zfp = nullptr;
  bitstream* bits = nullptr;
  ~ZfpHandles() {
    if (field) zfp_field_free(field);
    if (zfp) zfp_stream_close(zfp);
    if (bits) stream_close(bits);
  }
};

Status CheckSpec(const std::string& codec, const ArraySpec& spec) {
  if (ZfpType(spec.dtype) == zfp_type_none) {
    return Status::Unsupported("codec " + codec + ": zfp compresses int32, int64, float32 "
                               "and float64 arrays, not " + spec.dtype.ToString());
  }
  if (spec.shape.empty() || spec.shape.size() > 4) {
    return Status::Unsupported("codec " + codec + ": zfp compresses arrays of 1 to 4 "
                               "dimensions, not " + std::to_string(spec.shape.size()));
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const ZfpyCodec>> ZfpyCodec::Make(internal::CodecConfig& config,
                                                         const ArraySpec& spec,
                                                         bool in_v3) {
  TZ_ASSIGN_OR_RETURN(int64_t mode, config.Int("mode", kFixedAccuracy));
  if (mode != kFixedRate && mode != kFixedPrecision && mode != kFixedAccuracy) {
    return config.Invalid("mode", std::to_string(mode) +
                                      " is not 2 (fixed rate), 3 (fixed precision) or 4 "
                                      "(fixed accuracy)");
  }
  nlohmann::json fields = nlohmann::json::object();
  fields["mode"] = mode;
  for (const char* key : {"compression_kwargs", "tolerance", "rate", "precision"}) {
    nlohmann::json value = config.Raw(key);
    if (value.is_null()) continue;
    if (std::string_view(key) != "compression_kwargs" && !value.is_number()) {
      return config.Invalid(key, "expected a number, got " + value.dump());
    }
    if (std::string_view(key) == "compression_kwargs" && !value.is_object()) {
      return config.Invalid(key, "expected an object, got " + value.dump());
    }
    fields[key] = std::move(value);
  }
  TZ_RETURN_NOT_OK(config.Finish());
  TZ_RETURN_NOT_OK(CheckSpec(config.codec(), spec));
  const Mode m = static_cast<Mode>(mode);
  // numcodecs hands zfpy only the mode's parameter (absent: -1, reversible).
  const nlohmann::json& given = fields.value(ParameterName(m), nlohmann::json(-1));
  const double parameter = given.get<double>();
  return std::make_shared<const ZfpyCodec>(m, parameter, std::move(fields), in_v3);
}

void ZfpyCodec::CompleteV2(nlohmann::ordered_json& config) {
  nlohmann::ordered_json out = {{"id", config["id"]}, {"mode", config["mode"]}};
  if (config.contains("compression_kwargs")) {
    out["compression_kwargs"] = config["compression_kwargs"];
  } else if (const nlohmann::ordered_json& mode = config["mode"]; mode.is_number_integer()) {
    // numcodecs sets it from the mode's parameter (an unknown mode has none).
    const char* key = ParameterName(static_cast<Mode>(mode.get<int>()));
    if (*key != '\0') {
      out["compression_kwargs"] = {{key, config.value(key, nlohmann::ordered_json(-1))}};
    }
  }
  for (const auto& [key, value] : config.items()) {
    if (!out.contains(key)) out[key] = value;
  }
  config = std::move(out);
}

nlohmann::json ZfpyCodec::ToV2Json() const {
  // numcodecs' get_config: the fields read, completed as a v2 configuration
  // is (the codec table's defaults, then CompleteV2).
  nlohmann::ordered_json given = {{"id", "zfpy"}};
  for (const auto& [key, value] : fields_.items()) given[key] = value;
  Result<nlohmann::ordered_json> full = CompleteCodecJson(given, 0, 2);
  return full.ok() ? nlohmann::json(*full) : nlohmann::json(given);
}

nlohmann::json ZfpyCodec::ToJson() const {
  return {{"name", name()}, {"configuration", fields_}};
}

Result<Buffer> ZfpyCodec::Encode(const ChunkArray& array, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSpec(name(), spec));
  const zfp_type type = ZfpType(spec.dtype);
  ZfpHandles h;
  // zfp reads the values without changing them; its interface takes void*.
  h.field = MakeField(const_cast<std::byte*>(array.bytes.data()), type, array.shape);
  h.zfp = zfp_stream_open(nullptr);
  if (!h.field || !h.zfp) return Status::IOError("codec " + name() + ": out of memory");
  // As zfpy sets the mode: the rate for no particular type (so no minimum
  // bits per block), precision as an unsigned count.
  if (parameter_ < 0) {
    zfp_stream_set_reversible(h.zfp);
  } else if (mode_ == kFixedAccuracy) {
    zfp_stream_set_accuracy(h.zfp, parameter_);
  } else if (mode_ == kFixedRate) {
    zfp_stream_set_rate(h.zfp, parameter_, zfp_type_none,
                        static_cast<uint>(array.shape.size()), zfp_false);
  } else {
    zfp_stream_set_precision(h.zfp, static_cast<uint>(parameter_));
  }
  const size_t capacity = zfp_stream_maximum_size(h.zfp, h.field);
  if (capacity == 0) return Status::InvalidArgument("codec " + name() + ": bad parameters");
  Buffer out(capacity);
  h.bits = stream_open(out.data(), capacity);
  if (!h.bits) return Status::IOError("codec " + name() + ": out of memory");
  zfp_stream_set_bit_stream(h.zfp, h.bits);
  zfp_stream_rewind(h.zfp);
  if (zfp_write_header(h.zfp, h.field, ZFP_HEADER_FULL) == 0) {
    return Status::InvalidArgument("codec " + name() + ": zfp cannot describe this chunk "
                                   "in its header");
  }
  const size_t size = zfp_compress(h.zfp, h.field);
  if (size == 0) return Status::IOError("codec " + name() + ": zfp failed to compress");
  // zfp ends a stream on a whole word of its bit stream: 64 bits in the
  // zfpy wheels, a byte in some system builds. The stream is the same bits
  // either way; padded with zero bytes to 64 bits it is zfpy's byte for byte.
  const size_t padded = (size + 7) / 8 * 8;
  if (padded > out.size()) out.Resize(padded);
  std::memset(out.data() + size, 0, padded - size);
  out.Resize(padded);
  return out;
}

Result<ChunkArray> ZfpyCodec::Decode(ByteView bytes, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSpec(name(), spec));
  // zfp's bit stream reads whole 64-bit words and has no end: a stream cut
  // short would be read past its bytes. So the header is read first (from a
  // zero-padded copy of the first bytes), and the stream is then decoded from
  // a zero-padded copy as long as the largest stream that header allows.
  // `room`: the bytes of the stream the copy holds (the rest are zeros).
  auto open = [&](ZfpHandles& h, Buffer& buffer, size_t room) -> Status {
    buffer = Buffer((room + 7) / 8 * 8 + 8);
    const size_t copied = std::min(room, bytes.size());
    if (copied > 0) std::memcpy(buffer.data(), bytes.data(), copied);
    std::memset(buffer.data() + copied, 0, buffer.size() - copied);
    h.bits = stream_open(buffer.data(), buffer.size());
    h.zfp = zfp_stream_open(h.bits);
    h.field = zfp_field_alloc();
    if (!h.bits || !h.zfp || !h.field) return Status::IOError("codec " + name() + ": out of memory");
    if (zfp_read_header(h.zfp, h.field, ZFP_HEADER_FULL) == 0) {
      return Status::Corruption("codec " + name() + ": no valid zfp header");
    }
    return Status::OK();
  };
  size_t capacity = 0;
  {
    ZfpHandles header;
    Buffer first;
    TZ_RETURN_NOT_OK(open(header, first, (ZFP_HEADER_MAX_BITS + 7) / 8));
    size_t sizes[4] = {0, 0, 0, 0};
    const uint dims = zfp_field_dimensionality(header.field);
    zfp_field_size(header.field, sizes);
    bool same = zfp_field_type(header.field) == ZfpType(spec.dtype) && dims == spec.shape.size();
    for (size_t i = 0; same && i < dims; ++i) {
      same = sizes[i] == static_cast<size_t>(spec.shape[spec.shape.size() - 1 - i]);
    }
    if (!same) {
      return Status::Corruption("codec " + name() + ": the zfp header describes another "
                                "type or shape than the chunk's");
    }
    capacity = zfp_stream_maximum_size(header.zfp, header.field);
    if (capacity == 0) {
      return Status::Corruption("codec " + name() + ": the zfp header's mode is invalid");
    }
  }
  ZfpHandles h;
  Buffer stream;
  TZ_RETURN_NOT_OK(open(h, stream, std::max(capacity, bytes.size())));
  // zfp writes every element.
  ChunkArray out = internal::NewChunk(spec.shape, spec.dtype);
  zfp_field_set_pointer(h.field, out.bytes.data());
  const size_t used = zfp_decompress(h.zfp, h.field);
  if (used == 0 || used > bytes.size()) {
    return Status::Corruption("codec " + name() + ": the zfp stream ends early");
  }
  return out;
}

}  // namespace turbozarr
