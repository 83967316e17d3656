#include "cli/copy_plan.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "turbozarr/checksum.h"
#include "turbozarr/codec.h"

namespace turbozarr::cli {
namespace {

using json = nlohmann::json;

std::string ShapeText(const std::vector<int64_t>& shape) { return json(shape).dump(); }

// The configuration of the sharding codec when it is the source's first
// codec (the only place zarr-python and TensorStore put it); else null.
const json* ShardingConfig(const ArrayMetadata& source) {
  if (!source.codecs.is_array() || source.codecs.empty()) return nullptr;
  const json& first = source.codecs[0];
  if (!first.is_object() || first.value("name", "") != "sharding_indexed") return nullptr;
  auto config = first.find("configuration");
  if (config == first.end() || !config->is_object()) return nullptr;
  return &*config;
}

// The per-chunk codec chain of `source`: for a sharded array the chain of its
// inner chunks.
Result<CodecChain> SourceChunkChain(const ArrayMetadata& source, std::string_view where) {
  std::optional<std::vector<int64_t>> inner = source.InnerChunkShape();
  if (!inner) return source.MakeCodecChain();
  const json* config = ShardingConfig(source);
  if (config == nullptr) {
    return Status::Unsupported(std::string(where) +
                               ": cannot re-layout a sharded array whose codecs do not "
                               "start with sharding_indexed");
  }
  ArraySpec spec = source.ChunkSpec();
  spec.shape = *inner;
  return CodecChain::FromJson(config->value("codecs", json::array()), spec);
}

// The v2 fields (order, byte order, filters) that express a chain's
// array->array and array->bytes codecs.
struct V2Layout {
  char order = 'C';
  char byte_order = '<';
  json filters = nullptr;
};

Result<V2Layout> V2LayoutOf(const CodecChain& chain, size_t rank,
                            std::string_view where) {
  V2Layout layout;
  for (const auto& codec : chain.array_to_array()) {
    json j = codec->ToJson();
    json fortran = json::array();
    for (size_t d = rank; d-- > 0;) fortran.push_back(d);
    bool is_fortran = j.value("name", "") == "transpose" && j.contains("configuration") &&
                      (j["configuration"].value("order", json()) == fortran ||
                       j["configuration"].value("order", json()) == "F");
    if (!is_fortran || chain.array_to_array().size() > 1) {
      return Status::Unsupported(std::string(where) + ": codec " + j.dump() +
                                 " cannot be expressed in Zarr v2");
    }
    layout.order = 'F';
  }
  json a2b = chain.array_to_bytes()->ToJson();
  const std::string name = a2b.value("name", "");
  if (name == "bytes") {
    if (a2b.contains("configuration") &&
        a2b["configuration"].value("endian", "") == "big") {
      layout.byte_order = '>';
    }
  } else if (name == "vlen-utf8" || name == "vlen-bytes") {
    layout.filters = json::array({{{"id", name}}});
  } else {
    return Status::Unsupported(std::string(where) + ": codec " + a2b.dump() +
                               " cannot be expressed in Zarr v2");
  }
  return layout;
}

Result<json> V2CompressorOf(const CodecChain& chain, std::string_view where) {
  const auto& b2b = chain.bytes_to_bytes();
  if (b2b.empty()) return json(nullptr);
  if (b2b.size() > 1) {
    return Status::Unsupported(std::string(where) +
                               ": a Zarr v2 array has one compressor, "
                               "the source chain has " +
                               std::to_string(b2b.size()) +
                               " bytes-to-bytes codecs; choose one with --codec");
  }
  return ToV2Json(*b2b[0]);
}

Result<json> V2CompressorFromSpecs(const std::vector<std::string>& specs,
                                   const DataType& dtype) {
  if (specs.size() > 1) {
    return Status::InvalidArgument("a Zarr v2 array has one compressor; got " +
                                   std::to_string(specs.size()) + " --codec options");
  }
  return CompressorJson(specs[0], dtype, 2);
}

Status CheckRank(const std::vector<int64_t>& shape, size_t rank, std::string_view what,
                 std::string_view where) {
  if (shape.size() == rank) return Status::OK();
  return Status::InvalidArgument(std::string(where) + ": " + std::string(what) + " " +
                                 ShapeText(shape) + " has " +
                                 std::to_string(shape.size()) +
                                 " dimensions, the array has " + std::to_string(rank));
}

bool IsMultiple(const std::vector<int64_t>& outer, const std::vector<int64_t>& inner) {
  for (size_t d = 0; d < outer.size(); ++d) {
    if (outer[d] % inner[d] != 0) return false;
  }
  return true;
}

// The v3 codecs for one (inner) chunk of the destination.
Result<json> V3ChunkCodecs(const ArrayMetadata& source, const CopyLayout& layout,
                           std::string_view where) {
  if (layout.codecs) return *layout.codecs;
  TZ_ASSIGN_OR_RETURN(CodecChain chain, SourceChunkChain(source, where));
  json codecs = json::array();
  for (const auto& codec : chain.array_to_array()) codecs.push_back(codec->ToJson());
  codecs.push_back(chain.array_to_bytes()->ToJson());
  if (layout.compressors.empty()) {
    for (const auto& codec : chain.bytes_to_bytes()) codecs.push_back(codec->ToJson());
    return codecs;
  }
  for (const std::string& spec : layout.compressors) {
    TZ_ASSIGN_OR_RETURN(json j, CompressorJson(spec, source.dtype, 3));
    if (!j.is_null()) codecs.push_back(std::move(j));
  }
  return codecs;
}

Result<json> V3Document(const ArrayMetadata& source, const CopyLayout& layout,
                        const std::vector<int64_t>& chunks,
                        const std::optional<std::vector<int64_t>>& shards,
                        std::string_view where) {
  TZ_ASSIGN_OR_RETURN(json codecs, V3ChunkCodecs(source, layout, where));
  if (shards) {
    json index_codecs =
        json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                     {{"name", "crc32c"}}});
    json index_location = "end";
    if (const json* config = ShardingConfig(source)) {
      // Keep how the source lays out its shard index.
      index_codecs = config->value("index_codecs", index_codecs);
      index_location = config->value("index_location", index_location);
    }
    json sharding = {{"name", "sharding_indexed"},
                     {"configuration",
                      {{"chunk_shape", chunks},
                       {"codecs", codecs},
                       {"index_codecs", index_codecs},
                       {"index_location", index_location}}}};
    codecs = json::array({sharding});
  }
  json doc = source.zarr_format == 3 ? source.extra_fields : json::object();
  doc["zarr_format"] = 3;
  doc["node_type"] = "array";
  doc["shape"] = source.shape;
  doc["data_type"] = source.dtype.ToV3Json();
  if (source.rectilinear() && source.zarr_format == 3 && !layout.chunks && !layout.shards &&
      !layout.no_shards) {
    // The layout is kept: a rectilinear grid stays the grid it was.
    doc["chunk_grid"] = json(ToV3Json(source)["chunk_grid"]);
  } else {
    doc["chunk_grid"] = {{"name", "regular"},
                         {"configuration", {{"chunk_shape", shards ? *shards : chunks}}}};
  }
  doc["chunk_key_encoding"] =
      source.zarr_format == 3
          ? json(source.chunk_key_encoding.ToJson())
          : json{{"name", "default"}, {"configuration", {{"separator", "/"}}}};
  doc["fill_value"] = FillValueToJson(source.fill_value, source.dtype, 3);
  doc["codecs"] = std::move(codecs);
  doc["attributes"] = source.attributes;
  doc["storage_transformers"] = json::array();
  if (source.dimension_names) {
    json names = json::array();
    for (const auto& name : *source.dimension_names) {
      names.push_back(name ? json(*name) : json(nullptr));
    }
    doc["dimension_names"] = std::move(names);
  }
  return doc;
}

Result<json> V2Document(const ArrayMetadata& source, const CopyLayout& layout,
                        const std::vector<int64_t>& chunks, std::string_view where) {
  V2Layout v2;
  json compressor;
  if (source.zarr_format == 2 && !layout.codecs) {
    // Lossless: filters, order and byte order exactly as stored.
    v2.order = source.v2_order;
    v2.byte_order = source.v2_byte_order;
    v2.filters = source.v2_filters;
    compressor = source.v2_compressor;
  } else {
    ArraySpec spec = source.ChunkSpec();
    spec.shape = chunks;
    CodecChain chain;
    if (layout.codecs) {
      TZ_ASSIGN_OR_RETURN(chain, CodecChain::FromJson(*layout.codecs, spec));
    } else {
      TZ_ASSIGN_OR_RETURN(chain, SourceChunkChain(source, where));
    }
    TZ_ASSIGN_OR_RETURN(v2, V2LayoutOf(chain, source.rank(), where));
    if (layout.compressors.empty()) {
      TZ_ASSIGN_OR_RETURN(compressor, V2CompressorOf(chain, where));
    }
  }
  if (!layout.compressors.empty()) {
    TZ_ASSIGN_OR_RETURN(compressor,
                        V2CompressorFromSpecs(layout.compressors, source.dtype));
  }
  const bool keep_null_fill = source.zarr_format == 2 && source.v2_fill_value_null;
  char separator = '.';
  if (source.zarr_format == 2 ||
      source.chunk_key_encoding.kind == ChunkKeyEncoding::Kind::kV2) {
    separator = source.chunk_key_encoding.separator;
  }
  json doc = {
      {"zarr_format", 2},
      {"shape", source.shape},
      {"chunks", chunks},
      {"dtype", source.dtype.ToV2TypeString(v2.byte_order)},
      {"fill_value", keep_null_fill
                         ? json(nullptr)
                         : json(FillValueToJson(source.fill_value, source.dtype, 2))},
      {"order", std::string(1, v2.order)},
      {"filters", v2.filters},
      {"compressor", compressor},
      {"dimension_separator", std::string(1, separator)},
  };
  return doc;
}

}  // namespace

Result<json> CompressorJson(std::string_view spec, const DataType& dtype,
                            int zarr_format) {
  return CodecFromShorthand(spec, dtype, zarr_format);
}

Result<ArrayMetadata> PlanCopyMetadata(const ArrayMetadata& source,
                                       const CopyLayout& layout, std::string_view where) {
  const int format = layout.zarr_format.value_or(source.zarr_format);
  if (format != 2 && format != 3) {
    return Status::InvalidArgument("--zarr-format must be 2 or 3, got " +
                                   std::to_string(format));
  }
  if (layout.codecs && !layout.compressors.empty()) {
    return Status::InvalidArgument("--codec and --codecs cannot be combined");
  }
  if (layout.codecs && !layout.codecs->is_array()) {
    return Status::InvalidArgument("--codecs must be a JSON list of codecs, got " +
                                   layout.codecs->dump());
  }
  const std::optional<std::vector<int64_t>> source_inner = source.InnerChunkShape();
  std::vector<int64_t> chunks =
      layout.chunks.value_or(source_inner.value_or(source.chunk_shape));
  TZ_RETURN_NOT_OK(CheckRank(chunks, source.rank(), "chunk shape", where));

  std::optional<std::vector<int64_t>> shards;
  if (layout.shards && !layout.no_shards) {
    if (format == 2) {
      return Status::InvalidArgument("Zarr v2 arrays cannot be sharded; drop --shards");
    }
    shards = layout.shards;
    TZ_RETURN_NOT_OK(CheckRank(*shards, source.rank(), "shard shape", where));
    if (!IsMultiple(*shards, chunks)) {
      return Status::InvalidArgument(
          std::string(where) + ": shard shape " + ShapeText(*shards) +
          " is not a multiple of the chunk shape " + ShapeText(chunks));
    }
  } else if (source_inner && format == 3 && !layout.no_shards) {
    if (!IsMultiple(source.chunk_shape, chunks)) {
      return Status::InvalidArgument(
          std::string(where) + ": the source's shard shape " +
          ShapeText(source.chunk_shape) + " is not a multiple of the chunk shape " +
          ShapeText(chunks) + "; choose one with --shards (or --shards none)");
    }
    shards = source.chunk_shape;
  }

  json doc;
  if (format == 3) {
    TZ_ASSIGN_OR_RETURN(doc, V3Document(source, layout, chunks, shards, where));
  } else {
    TZ_ASSIGN_OR_RETURN(doc, V2Document(source, layout, chunks, where));
  }
  Result<ArrayMetadata> planned =
      format == 3 ? ParseV3ArrayMetadata(doc, where)
                  : ParseV2ArrayMetadata(doc, source.attributes, where);
  if (!planned.ok()) return planned.status();
  planned->attributes = source.attributes;  // in their order (doc sorted them)
  // A copy that changes the layout is one turbozarr lays out: its chunks
  // get a checksum unless the user gave the whole chain (--codecs) or said
  // otherwise (docs/cli.md, "cp").
  const bool converts =
      format != source.zarr_format || layout.chunks || layout.shards || layout.no_shards ||
      !layout.compressors.empty();
  if (layout.checksum.value_or(converts && !layout.codecs)) AddChecksum(*planned);
  // Building the chain checks every codec against the new chunk shape now,
  // before anything is written.
  Result<CodecChain> chain = planned->MakeCodecChain();
  if (!chain.ok()) return chain.status();
  return planned;
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, text.data() + text.size() - end);
  uint64_t scale = 1;
  if (suffix == "K" || suffix == "KiB" || suffix == "k")
    scale = uint64_t{1} << 10;
  else if (suffix == "M" || suffix == "MiB")
    scale = uint64_t{1} << 20;
  else if (suffix == "G" || suffix == "GiB")
    scale = uint64_t{1} << 30;
  else if (!suffix.empty())
    ec = std::errc::invalid_argument;
  if (ec != std::errc() || end == text.data() || value == 0) {
    return Status::InvalidArgument("invalid size '" + std::string(text) +
                                   "': expected a positive number of bytes such as "
                                   "4096, 512M or 2G");
  }
  return value * scale;
}

}  // namespace turbozarr::cli
