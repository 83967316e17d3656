// From metadata to a CodecChain: v3 arrays list their codecs; v2 arrays spell
// the same thing as order + filters + dtype byte order + compressor, which
// is translated here into transpose -> value filters -> bytes/vlen -> byte
// filters -> compressor.
#include <memory>
#include <string>

#include "metadata/rectilinear_grid.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

Result<std::shared_ptr<const ArrayToArrayCodec>> AsArrayToArray(
    std::shared_ptr<const Codec> c) {
  auto a2a = std::dynamic_pointer_cast<const ArrayToArrayCodec>(c);
  if (!a2a)
    return Status::InvalidArgument("codec '" + c->name() + "' is not array->array");
  return a2a;
}

std::string V2Id(const nlohmann::json& j) {
  auto it = j.find("id");
  return it != j.end() && it->is_string() ? it->get<std::string>() : j.dump();
}

Result<CodecChain> MakeV2CodecChain(const ArrayMetadata& m) {
  ArraySpec spec = m.ChunkSpec();
  std::vector<std::shared_ptr<const ArrayToArrayCodec>> a2a;
  std::shared_ptr<const ArrayToBytesCodec> a2b;
  std::vector<std::shared_ptr<const BytesToBytesCodec>> b2b;

  // v2 spells bfloat16 by name alone, which means little-endian.
  if (m.dtype.is_low_precision_float() && m.v2_byte_order == '>' &&
      m.dtype.has_byte_order()) {
    return Status::Unsupported("dtype " + m.dtype.ToString() +
                               ": zarr v2 stores it little-endian only");
  }
  // The spec handed to the next codec, after the array->array codecs so far.
  ArraySpec next = spec;
  if (m.v2_order == 'F' && m.rank() > 1) {
    nlohmann::json order = nlohmann::json::array();
    for (size_t i = m.rank(); i-- > 0;) order.push_back(i);
    nlohmann::json transpose = {{"name", "transpose"},
                                {"configuration", {{"order", order}}}};
    TZ_ASSIGN_OR_RETURN(auto codec, MakeCodec(transpose, next));
    TZ_ASSIGN_OR_RETURN(auto t, AsArrayToArray(codec));
    TZ_ASSIGN_OR_RETURN(next, t->EncodedSpec(next));
    a2a.push_back(std::move(t));
  }

  if (m.v2_filters.is_array()) {
    for (const auto& f : m.v2_filters) {
      std::string id = V2Id(f);
      bool object_codec = id == "vlen-utf8" || id == "vlen-bytes";
      if (object_codec && m.dtype.is_variable_length() && !a2b) {
        if (!b2b.empty()) {
          return Status::Unsupported("filter '" + id + "' after filter '" +
                                     b2b.back()->name() + "', which works on bytes");
        }
        auto codec = MakeV2Codec(f, next);
        if (!codec.ok()) return codec.status().WithContext("filter '" + id + "'");
        a2b = std::dynamic_pointer_cast<const ArrayToBytesCodec>(*codec);
        if (!a2b)
          return Status::InvalidArgument("filter '" + id + "' is not array->bytes");
        continue;
      }
      auto codec = MakeV2Codec(f, next);
      if (!codec.ok()) return codec.status().WithContext("filter '" + id + "'");
      // A filter of bytes (shuffle) works on the stored bytes: after the
      // bytes codec, before the compressor, and before no filter of values.
      if (auto bytes = std::dynamic_pointer_cast<const BytesToBytesCodec>(*codec)) {
        b2b.push_back(std::move(bytes));
        continue;
      }
      auto filter = std::dynamic_pointer_cast<const ArrayToArrayCodec>(*codec);
      if (!filter) return Status::Unsupported("unsupported v2 filter '" + id + "'");
      if (!b2b.empty()) {
        return Status::Unsupported("filter '" + id + "' after filter '" + b2b.back()->name() +
                                   "', which works on bytes");
      }
      // numcodecs applies a filter to the chunk as stored, here it sees
      // native values: the same only for arrays stored little-endian.
      if (m.v2_byte_order == '>') {
        return Status::Unsupported("filter '" + id + "' on a big-endian array");
      }
      TZ_ASSIGN_OR_RETURN(next, filter->EncodedSpec(next));
      a2a.push_back(std::move(filter));
    }
  }
  if (m.dtype.is_variable_length() && !a2b) {
    return Status::InvalidArgument("dtype \"|O\" has no vlen-utf8 or vlen-bytes filter");
  }
  // A compressor that needs the chunk as an array (zfpy: numcodecs hands a
  // v2 compressor the chunk with its shape and type) is the serializer.
  bool compressor_serializes = false;
  if (!m.v2_compressor.is_null() && !a2b) {
    const std::string id = V2Id(m.v2_compressor);
    auto codec = MakeV2Codec(m.v2_compressor, next);
    if (!codec.ok()) return codec.status().WithContext("compressor '" + id + "'");
    if (auto serializer = std::dynamic_pointer_cast<const ArrayToBytesCodec>(*codec)) {
      if (!b2b.empty()) {
        return Status::Unsupported("compressor '" + id + "' after filter '" +
                                   b2b.back()->name() + "', which works on bytes");
      }
      if (m.v2_order == 'F' && m.rank() > 1) {
        return Status::Unsupported("compressor '" + id + "' on an array in order 'F' "
                                   "(numcodecs refuses it too)");
      }
      if (m.v2_byte_order == '>') {
        return Status::Unsupported("compressor '" + id + "' on a big-endian array");
      }
      a2b = std::move(serializer);
      compressor_serializes = true;
    }
  }
  if (!a2b) {
    nlohmann::json bytes = {{"name", "bytes"}};
    // The bytes codec stores what the filters made (astype may change the
    // type): its byte order matters for their type, not the array's.
    if (next.dtype.has_byte_order()) {
      bytes["configuration"] = {{"endian", m.v2_byte_order == '>' ? "big" : "little"}};
    }
    TZ_ASSIGN_OR_RETURN(auto codec, MakeCodec(bytes, next));
    a2b = std::dynamic_pointer_cast<const ArrayToBytesCodec>(codec);
    if (!a2b) return Status::InvalidArgument("codec 'bytes' is not array->bytes");
  }

  if (!m.v2_compressor.is_null() && !compressor_serializes) {
    std::string id = V2Id(m.v2_compressor);
    auto codec = MakeV2Codec(m.v2_compressor, next);
    if (!codec.ok()) return codec.status().WithContext("compressor '" + id + "'");
    auto c = std::dynamic_pointer_cast<const BytesToBytesCodec>(*codec);
    if (!c) return Status::InvalidArgument("compressor '" + id + "' is not bytes->bytes");
    b2b.push_back(std::move(c));
  }
  return CodecChain::Make(std::move(a2a), std::move(a2b), std::move(b2b), spec);
}

}  // namespace

Status ArrayMetadata::CheckSizes() const {
  // Whether the product of `dims` (times `unit`) stays at most 2^63 - 1.
  auto fits = [](const std::vector<int64_t>& dims, int64_t unit) {
    __int128 n = unit;
    for (int64_t d : dims) {
      n *= d;
      if (n > INT64_MAX) return false;
    }
    return true;
  };
  if (!fits(shape, 1)) {
    return Status::InvalidArgument("the shape has more than 2^63 elements");
  }
  std::vector<int64_t> grid(shape.size());
  for (size_t d = 0; d < shape.size() && d < chunk_shape.size(); ++d) {
    grid[d] = internal::ChunksAlong(*this, d);
  }
  if (!fits(grid, 1)) {
    return Status::InvalidArgument("the chunk shape makes more than 2^63 chunks");
  }
  const int64_t element_bytes =
      dtype.is_variable_length() ? 1 : static_cast<int64_t>(dtype.size());
  if (!fits(chunk_shape, element_bytes)) {
    return Status::InvalidArgument("the chunk shape makes chunks of more than 2^63 bytes");
  }
  return Status::OK();
}

ArraySpec ArrayMetadata::ChunkSpec() const {
  return ArraySpec{chunk_shape, dtype, fill_value};
}

std::optional<std::vector<int64_t>> ArrayMetadata::InnerChunkShape() const {
  if (!codecs.is_array()) return std::nullopt;
  // Only an array->bytes codec can be sharding_indexed, so the first one
  // found is that entry.
  for (const auto& c : codecs) {
    if (!c.is_object()) continue;
    auto name = c.find("name");
    if (name == c.end() || *name != "sharding_indexed") continue;
    auto config = c.find("configuration");
    if (config == c.end() || !config->is_object()) return std::nullopt;
    auto shape = config->find("chunk_shape");
    if (shape == config->end() || !shape->is_array()) return std::nullopt;
    std::vector<int64_t> out;
    for (const auto& e : *shape) {
      if (!e.is_number_integer()) return std::nullopt;
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  return std::nullopt;
}

Result<CodecChain> ArrayMetadata::MakeCodecChain() const {
  if (zarr_format == 2) return MakeV2CodecChain(*this);
  return CodecChain::FromJson(codecs, ChunkSpec());
}

}  // namespace turbozarr
