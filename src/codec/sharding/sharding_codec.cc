#include "codec/sharding/sharding_codec.h"

#include <cstring>
#include <limits>

#include "codec/raw_bytes.h"
#include "codec/sharding/shard_layout.h"

namespace turbozarr {
namespace {

constexpr uint64_t kMissing = ShardingCodec::IndexEntry::kMissing;

nlohmann::json DefaultCodecs() {
  return nlohmann::json::array(
      {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
}

nlohmann::json DefaultIndexCodecs() {
  return nlohmann::json::array(
      {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
       {{"name", "crc32c"}}});
}

ArraySpec IndexSpec(const std::vector<int64_t>& chunks_per_shard) {
  ArraySpec s;
  s.shape = chunks_per_shard;
  s.shape.push_back(2);
  s.dtype = DataType(DataTypeId::kUInt64);
  s.fill_value.bytes.Resize(8);
  std::memset(s.fill_value.bytes.data(), 0xFF, 8);
  return s;
}

Result<std::vector<int64_t>> ReadChunkShape(internal::CodecConfig& config,
                                            const ArraySpec& shard_spec) {
  nlohmann::json j = config.Raw("chunk_shape");
  if (!j.is_array())
    return config.Invalid("chunk_shape", "expected a list, got " + j.dump());
  std::vector<int64_t> shape;
  for (const auto& v : j) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) {
      return config.Invalid("chunk_shape", "expected positive integers, got " + j.dump());
    }
    shape.push_back(v.get<int64_t>());
  }
  if (shape.size() != shard_spec.shape.size()) {
    return config.Invalid("chunk_shape",
                          j.dump() + " has " + std::to_string(shape.size()) +
                              " dimensions, the shard " +
                              internal::ShapeString(shard_spec.shape) + " has " +
                              std::to_string(shard_spec.shape.size()));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shard_spec.shape[d] % shape[d] != 0) {
      return config.Invalid("chunk_shape", j.dump() +
                                               " does not divide the shard shape " +
                                               internal::ShapeString(shard_spec.shape));
    }
  }
  return shape;
}

}  // namespace

ShardingCodec::ShardingCodec(ArraySpec shard_spec, std::vector<int64_t> chunks_per_shard,
                             CodecChain inner_chain, CodecChain index_chain,
                             IndexLocation location, size_t index_size)
    : shard_spec_(std::move(shard_spec)),
      chunks_per_shard_(std::move(chunks_per_shard)),
      inner_chain_(std::move(inner_chain)),
      index_chain_(std::move(index_chain)),
      index_location_(location),
      index_size_(index_size),
      morton_(internal::MortonOrder(chunks_per_shard_)) {}

Result<std::shared_ptr<const ShardingCodec>> ShardingCodec::Make(
    internal::CodecConfig& config, const ArraySpec& shard_spec) {
  TZ_ASSIGN_OR_RETURN(std::vector<int64_t> chunk_shape,
                      ReadChunkShape(config, shard_spec));
  nlohmann::json codecs = config.Raw("codecs");
  if (codecs.is_null()) codecs = DefaultCodecs();
  nlohmann::json index_codecs = config.Raw("index_codecs");
  if (index_codecs.is_null()) index_codecs = DefaultIndexCodecs();
  TZ_ASSIGN_OR_RETURN(std::string location, config.String("index_location", "end"));
  if (location != "start" && location != "end") {
    return config.Invalid("index_location",
                          "expected \"start\" or \"end\", got \"" + location + "\"");
  }
  TZ_RETURN_NOT_OK(config.Finish());

  std::vector<int64_t> per_shard(chunk_shape.size());
  for (size_t d = 0; d < chunk_shape.size(); ++d) {
    per_shard[d] = shard_spec.shape[d] / chunk_shape[d];
  }
  ArraySpec inner_spec = shard_spec;
  inner_spec.shape = chunk_shape;
  auto inner = CodecChain::FromJson(codecs, inner_spec);
  if (!inner.ok())
    return inner.status().WithContext("codec sharding_indexed: field \"codecs\"");
  auto index = CodecChain::FromJson(index_codecs, IndexSpec(per_shard));
  if (!index.ok()) {
    return index.status().WithContext("codec sharding_indexed: field \"index_codecs\"");
  }
  std::optional<size_t> index_size = index->EncodedSize();
  if (!index_size) {
    return config.Invalid(
        "index_codecs",
        "must have a fixed encoded size (no compression), got " + index_codecs.dump());
  }
  return std::make_shared<const ShardingCodec>(
      shard_spec, std::move(per_shard), std::move(inner).value(),
      std::move(index).value(),
      location == "start" ? IndexLocation::kStart : IndexLocation::kEnd, *index_size);
}

nlohmann::json ShardingCodec::ToJson() const {
  return {
      {"name", "sharding_indexed"},
      {"configuration",
       {{"chunk_shape", chunk_shape()},
        {"codecs", inner_chain_.ToJson()},
        {"index_codecs", index_chain_.ToJson()},
        {"index_location", index_location_ == IndexLocation::kStart ? "start" : "end"}}}};
}

std::vector<int64_t> ShardingCodec::InnerChunkCoords(int64_t linear) const {
  return internal::GridCoords(linear, chunks_per_shard_);
}

std::string ShardingCodec::InnerChunkName(int64_t linear) const {
  return "inner chunk " + internal::ShapeString(InnerChunkCoords(linear));
}

Status ShardingCodec::CheckSpec(const ArraySpec& spec) const {
  if (spec.shape != shard_spec_.shape || !(spec.dtype == shard_spec_.dtype)) {
    return Status::InvalidArgument("codec sharding_indexed: built for shards of shape " +
                                   internal::ShapeString(shard_spec_.shape) +
                                   " and type " + shard_spec_.dtype.ToString() +
                                   ", given " + internal::ShapeString(spec.shape) +
                                   " and " + spec.dtype.ToString());
  }
  return Status::OK();
}

Result<std::vector<ShardingCodec::IndexEntry>> ShardingCodec::DecodeIndex(
    ByteView index_bytes, std::optional<uint64_t> shard_size) const {
  if (index_bytes.size() != index_size_) {
    return Status::Corruption("shard index: expected " + std::to_string(index_size_) +
                              " bytes, got " + std::to_string(index_bytes.size()));
  }
  auto decoded = index_chain_.Decode(index_bytes);
  if (!decoded.ok()) return decoded.status().WithContext("shard index");
  const Buffer& raw = decoded->bytes;
  const int64_t n = num_inner_chunks();
  // Stored data lies between the index and the other end of the shard; with
  // the shard's size unknown, only the index's own bytes at the start (and
  // the end of 64-bit offsets) bound it.
  uint64_t data_begin = index_location_ == IndexLocation::kStart ? index_size_ : 0;
  uint64_t data_end = std::numeric_limits<uint64_t>::max();
  if (shard_size) {
    TZ_RETURN_NOT_OK(CheckShardSize(*shard_size));
    data_end = index_location_ == IndexLocation::kStart ? *shard_size
                                                        : *shard_size - index_size_;
  }
  std::vector<IndexEntry> entries(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    IndexEntry e;
    std::memcpy(&e.offset, raw.data() + 16 * i, 8);
    std::memcpy(&e.nbytes, raw.data() + 16 * i + 8, 8);
    if (e.missing()) {
      entries[i] = e;
      continue;
    }
    if (e.offset == kMissing || e.nbytes == kMissing) {
      return Status::Corruption("shard index: " + InnerChunkName(i) + " has offset " +
                                std::to_string(e.offset) + " and length " +
                                std::to_string(e.nbytes) +
                                "; only one is the empty marker");
    }
    if (e.offset < data_begin || e.offset > data_end || e.nbytes > data_end - e.offset) {
      return Status::Corruption(
          "shard index: " + InnerChunkName(i) + " at bytes [" + std::to_string(e.offset) +
          ", +" + std::to_string(e.nbytes) + ") lies outside the shard's data" +
          (shard_size
               ? " [" + std::to_string(data_begin) + ", " + std::to_string(data_end) + ")"
               : std::string()));
    }
    entries[i] = e;
  }
  return entries;
}

Result<Buffer> ShardingCodec::EncodeIndex(const std::vector<IndexEntry>& entries) const {
  if (static_cast<int64_t>(entries.size()) != num_inner_chunks()) {
    return Status::InvalidArgument("shard index: " + std::to_string(entries.size()) +
                                   " entries for " + std::to_string(num_inner_chunks()) +
                                   " inner chunks");
  }
  ChunkArray index;
  index.shape = index_chain_.spec().shape;
  index.dtype = index_chain_.spec().dtype;
  index.bytes.Resize(entries.size() * 16);
  for (size_t i = 0; i < entries.size(); ++i) {
    std::memcpy(index.bytes.data() + 16 * i, &entries[i].offset, 8);
    std::memcpy(index.bytes.data() + 16 * i + 8, &entries[i].nbytes, 8);
  }
  return index_chain_.Encode(std::move(index));
}

ShardingCodec::Layout ShardingCodec::LayOut(
    const std::vector<std::optional<uint64_t>>& sizes) const {
  Layout layout;
  layout.entries.resize(sizes.size());
  uint64_t pos = index_location_ == IndexLocation::kStart ? index_size_ : 0;
  for (int64_t i : morton_) {
    if (!sizes[i]) continue;
    layout.entries[i] = {pos, *sizes[i]};
    pos += *sizes[i];
  }
  layout.shard_size = pos + (index_location_ == IndexLocation::kEnd ? index_size_ : 0);
  return layout;
}

Status ShardingCodec::PlaceIndex(const Layout& layout, MutableByteView shard) const {
  TZ_ASSIGN_OR_RETURN(Buffer index, EncodeIndex(layout.entries));
  if (index.size() != index_size_ || shard.size() != layout.shard_size) {
    return Status::InvalidArgument(
        "codec sharding_indexed: index of " + std::to_string(index.size()) +
        " bytes for a shard of " + std::to_string(shard.size()));
  }
  const size_t at =
      index_location_ == IndexLocation::kStart ? 0 : shard.size() - index_size_;
  std::memcpy(shard.data() + at, index.data(), index.size());
  return Status::OK();
}

Result<Buffer> ShardingCodec::Assemble(
    const std::vector<std::optional<ByteView>>& inner) const {
  if (static_cast<int64_t>(inner.size()) != num_inner_chunks()) {
    return Status::InvalidArgument(
        "codec sharding_indexed: " + std::to_string(inner.size()) +
        " inner chunks for a shard of " + std::to_string(num_inner_chunks()));
  }
  std::vector<std::optional<uint64_t>> sizes(inner.size());
  for (size_t i = 0; i < inner.size(); ++i) {
    if (inner[i]) sizes[i] = inner[i]->size();
  }
  const Layout layout = LayOut(sizes);
  Buffer out(layout.shard_size);
  for (size_t i = 0; i < inner.size(); ++i) {
    if (!inner[i] || inner[i]->empty()) continue;
    std::memcpy(out.data() + layout.entries[i].offset, inner[i]->data(),
                inner[i]->size());
  }
  TZ_RETURN_NOT_OK(PlaceIndex(layout, out.mutable_view()));
  return out;
}

Result<Buffer> ShardingCodec::Encode(const ChunkArray& array,
                                     const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSpec(spec));
  const ArraySpec& inner_spec = inner_chain_.spec();
  const int64_t total = spec.num_elements();
  const bool vlen = spec.dtype.is_variable_length();
  const size_t esize = spec.dtype.size();
  if (vlen ? static_cast<int64_t>(array.strings.size()) != total
           : array.bytes.size() != static_cast<size_t>(total) * esize) {
    return Status::InvalidArgument("codec sharding_indexed: shard of shape " +
                                   internal::ShapeString(spec.shape) +
                                   " holds the wrong number of elements");
  }
  const int64_t n = num_inner_chunks();
  std::vector<Buffer> encoded(static_cast<size_t>(n));
  std::vector<std::optional<ByteView>> views(static_cast<size_t>(n));
  const std::vector<int64_t>& cshape = inner_spec.shape;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> origin = InnerChunkCoords(i);
    for (size_t d = 0; d < origin.size(); ++d) origin[d] *= cshape[d];
    ChunkArray sub;
    sub.shape = cshape;
    sub.dtype = spec.dtype;
    if (vlen) {
      sub.strings.resize(static_cast<size_t>(inner_spec.num_elements()));
      internal::ForEachBlockRow(
          spec.shape, cshape, origin, [&](int64_t outer, int64_t in, int64_t count) {
            std::copy_n(array.strings.begin() + outer, count, sub.strings.begin() + in);
          });
    } else {
      sub.bytes.Resize(static_cast<size_t>(inner_spec.num_elements()) * esize);
      internal::ForEachBlockRow(
          spec.shape, cshape, origin, [&](int64_t outer, int64_t in, int64_t count) {
            std::memcpy(sub.bytes.data() + in * esize, array.bytes.data() + outer * esize,
                        count * esize);
          });
    }
    if (sub.IsAll(spec.fill_value)) continue;
    auto bytes = inner_chain_.Encode(std::move(sub));
    if (!bytes.ok()) return bytes.status().WithContext(InnerChunkName(i));
    encoded[i] = std::move(bytes).value();
    views[i] = encoded[i].view();
  }
  return Assemble(views);
}

Status ShardingCodec::CheckShardSize(uint64_t shard_size) const {
  if (shard_size >= index_size_) return Status::OK();
  return Status::Corruption("shard of " + std::to_string(shard_size) +
                            " bytes is smaller than its " + std::to_string(index_size_) +
                            "-byte index");
}

Result<std::vector<ShardingCodec::IndexEntry>> ShardingCodec::IndexOfShard(
    ByteView shard) const {
  TZ_RETURN_NOT_OK(CheckShardSize(shard.size()));
  return DecodeIndex(index_location_ == IndexLocation::kStart ? shard.first(index_size_)
                                                              : shard.last(index_size_),
                     shard.size());
}

Result<ChunkArray> ShardingCodec::Decode(ByteView bytes, const ArraySpec& spec) const {
  TZ_RETURN_NOT_OK(CheckSpec(spec));
  TZ_ASSIGN_OR_RETURN(std::vector<IndexEntry> entries, IndexOfShard(bytes));
  bool any_stored = false;
  for (const IndexEntry& e : entries) any_stored |= !e.missing();
  if (!any_stored) return ChunkArray::Filled(spec);
  const std::vector<int64_t>& cshape = inner_chain_.spec().shape;
  const bool vlen = spec.dtype.is_variable_length();
  const size_t esize = spec.dtype.size();
  ChunkArray out;
  out.shape = spec.shape;
  out.dtype = spec.dtype;
  if (vlen) {
    out.strings.resize(static_cast<size_t>(spec.num_elements()));
  } else {
    out.bytes.Resize(static_cast<size_t>(spec.num_elements()) * esize);
  }
  // One row of fill value, copied into the rows of inner chunks not stored
  // (every byte of `out` is written exactly once).
  ArraySpec row_spec = spec;
  row_spec.shape = {cshape.empty() ? 1 : cshape.back()};
  const ChunkArray fill_row = ChunkArray::Filled(row_spec);
  for (int64_t i = 0; i < num_inner_chunks(); ++i) {
    const IndexEntry& e = entries[i];
    std::vector<int64_t> origin = InnerChunkCoords(i);
    for (size_t d = 0; d < origin.size(); ++d) origin[d] *= cshape[d];
    if (e.missing()) {
      internal::ForEachBlockRow(
          spec.shape, cshape, origin, [&](int64_t outer, int64_t, int64_t count) {
            if (vlen) {
              std::copy_n(fill_row.strings.begin(), count, out.strings.begin() + outer);
            } else {
              std::memcpy(out.bytes.data() + outer * esize, fill_row.bytes.data(),
                          count * esize);
            }
          });
      continue;
    }
    auto inner = DecodeInnerChunk(bytes.subspan(e.offset, e.nbytes));
    if (!inner.ok()) return inner.status().WithContext(InnerChunkName(i));
    if (vlen) {
      internal::ForEachBlockRow(
          spec.shape, cshape, origin, [&](int64_t outer, int64_t in, int64_t count) {
            std::move(inner->strings.begin() + in, inner->strings.begin() + in + count,
                      out.strings.begin() + outer);
          });
    } else {
      internal::ForEachBlockRow(
          spec.shape, cshape, origin, [&](int64_t outer, int64_t in, int64_t count) {
            std::memcpy(out.bytes.data() + outer * esize,
                        inner->bytes.data() + in * esize, count * esize);
          });
    }
  }
  return out;
}

}  // namespace turbozarr
