#include "codec/categorize_codec.h"

#include <cstring>

#include "turbozarr/utf8.h"

namespace turbozarr {

using internal::NumpyDtype;

CategorizeCodec::CategorizeCodec(std::vector<std::string> labels, NumpyDtype dtype,
                                 NumpyDtype astype, bool in_v3)
    : NumcodecsFilter("categorize", in_v3),
      labels_(std::move(labels)),
      dtype_(std::move(dtype)),
      astype_(std::move(astype)) {
  for (size_t i = 0; i < labels_.size(); ++i) {
    points_.push_back(*DecodeUtf8(labels_[i]));
    codes_[points_.back()] = static_cast<int64_t>(i) + 1;  // the last one wins
  }
}

Result<std::shared_ptr<const CategorizeCodec>> CategorizeCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3) {
  const nlohmann::json raw = config.Raw("labels");
  if (!raw.is_array()) return config.Invalid("labels", "expected a list of strings");
  std::vector<std::string> labels;
  for (const nlohmann::json& label : raw) {
    if (!label.is_string() || !DecodeUtf8(label.get_ref<const std::string&>())) {
      return config.Invalid("labels", "expected strings, got " + label.dump(-1, ' ', true));
    }
    labels.push_back(label.get<std::string>());
  }
  const std::string array_type = spec.dtype.ToV2TypeString();
  TZ_ASSIGN_OR_RETURN(std::string dtype_text, config.String("dtype", array_type));
  TZ_ASSIGN_OR_RETURN(NumpyDtype astype, internal::ReadNumpyDtype(config, "astype", "|u1"));
  TZ_RETURN_NOT_OK(config.Finish());
  if (spec.dtype.id() != DataTypeId::kFixedUnicode || dtype_text != array_type) {
    return Status::Unsupported("codec " + config.codec() + ": field \"dtype\": \"" +
                               dtype_text + "\" on an array of " + spec.dtype.ToString() +
                               ": only fixed-length unicode arrays (\"<U\") whose type "
                               "the field names are supported");
  }
  if (!astype.type.is_integer()) {
    return internal::UnsupportedDtype(config, "astype", astype, "is not an integer type");
  }
  return std::make_shared<const CategorizeCodec>(
      std::move(labels), NumpyDtype{dtype_text, spec.dtype}, std::move(astype), in_v3);
}

nlohmann::json CategorizeCodec::ToV2Json() const {
  return {{"id", "categorize"},
          {"labels", labels_},
          {"dtype", dtype_.spelled},
          {"astype", astype_.spelled}};
}

int64_t CategorizeCodec::CodeOf(const std::byte* element, size_t chars,
                                std::u32string& text) const {
  while (chars > 0) {
    uint32_t last;
    std::memcpy(&last, element + (chars - 1) * 4, 4);
    if (last != 0) break;
    --chars;
  }
  text.resize(chars);
  for (size_t i = 0; i < chars; ++i) {
    uint32_t unit;
    std::memcpy(&unit, element + i * 4, 4);
    text[i] = static_cast<char32_t>(unit);
  }
  auto it = codes_.find(text);
  return it == codes_.end() ? 0 : it->second;
}

Result<ArraySpec> CategorizeCodec::EncodedSpec(const ArraySpec& decoded) const {
  ArraySpec encoded = decoded;
  encoded.dtype = astype_.type;
  std::u32string text;
  const int64_t code =
      CodeOf(decoded.fill_value.bytes.data(), decoded.dtype.size() / 4, text);
  encoded.fill_value.bytes = Buffer(astype_.type.size());
  internal::CastElements(reinterpret_cast<const std::byte*>(&code), DataTypeId::kInt64,
                         encoded.fill_value.bytes.data(), astype_.type.id(), 1);
  return encoded;
}

Result<ChunkArray> CategorizeCodec::Encode(ChunkArray decoded) const {
  const int64_t n = decoded.num_elements();
  const size_t chars = decoded.dtype.size() / 4;
  std::vector<int64_t> codes(static_cast<size_t>(n));
  std::u32string text;
  for (int64_t i = 0; i < n; ++i) {
    codes[i] = CodeOf(decoded.bytes.data() + static_cast<size_t>(i) * chars * 4, chars, text);
  }
  ChunkArray out = internal::NewChunk(decoded.shape, astype_.type);
  internal::CastElements(reinterpret_cast<const std::byte*>(codes.data()),
                         DataTypeId::kInt64, out.bytes.data(), astype_.type.id(), n);
  return out;
}

Result<ChunkArray> CategorizeCodec::Decode(ChunkArray encoded,
                                           const ArraySpec& decoded) const {
  const int64_t n = decoded.num_elements();
  TZ_RETURN_NOT_OK(internal::CheckChunkElements(name(), encoded, astype_.type, n));
  std::vector<int64_t> codes(static_cast<size_t>(n));
  internal::CastElements(encoded.bytes.data(), astype_.type.id(),
                         reinterpret_cast<std::byte*>(codes.data()), DataTypeId::kInt64, n);
  const size_t chars = decoded.dtype.size() / 4;
  ChunkArray out = internal::NewChunk(decoded.shape, decoded.dtype);
  if (!out.bytes.empty()) std::memset(out.bytes.data(), 0, out.bytes.size());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t code = codes[i];
    if (code < 1 || code > static_cast<int64_t>(points_.size())) continue;  // ""
    const std::u32string& label = points_[code - 1];
    std::byte* element = out.bytes.data() + static_cast<size_t>(i) * chars * 4;
    for (size_t c = 0; c < label.size() && c < chars; ++c) {
      const auto unit = static_cast<uint32_t>(label[c]);
      std::memcpy(element + c * 4, &unit, 4);
    }
  }
  return out;
}

}  // namespace turbozarr
