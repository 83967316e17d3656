#include "codec/sharding/shard_writer.h"

#include <algorithm>

#include "codec/sharding/sharding_codec.h"

namespace turbozarr {

ShardWriter::ShardWriter(ShardedChain sharding, std::shared_ptr<const ShardStore> old)
    : sharding_(sharding),
      old_(std::move(old)),
      set_(static_cast<size_t>(sharding.num_inner_chunks()), 0),
      bytes_(static_cast<size_t>(sharding.num_inner_chunks())) {}

void ShardWriter::LayOutInPlace(std::span<const int64_t> linears, uint64_t inner_bytes) {
  std::vector<std::optional<uint64_t>> sizes(bytes_.size());
  for (int64_t linear : linears) sizes[static_cast<size_t>(linear)] = inner_bytes;
  const ShardingCodec::Layout layout = sharding_.codec().LayOut(sizes);
  places_.assign(bytes_.size(), ByteSpan{});
  for (int64_t linear : linears) {
    const ShardingCodec::IndexEntry& e = layout.entries[static_cast<size_t>(linear)];
    places_[static_cast<size_t>(linear)] = {e.offset, e.nbytes};
  }
  placed_linears_.assign(linears.begin(), linears.end());
  placed_ = Buffer(layout.shard_size);
}

MutableByteView ShardWriter::Place(int64_t linear) {
  const ByteSpan& p = places_[static_cast<size_t>(linear)];
  return placed_.mutable_view().subspan(p.offset, p.length);
}

void ShardWriter::Set(int64_t linear, std::optional<ByteView> bytes) {
  set_[static_cast<size_t>(linear)] = 1;
  bytes_[static_cast<size_t>(linear)] = bytes;
}

Result<std::optional<Buffer>> ShardWriter::Finish() {
  const ShardingCodec& codec = sharding_.codec();
  // Every reserved place built: the laid-out shard is the shard.
  const bool all_placed =
      !placed_linears_.empty() &&
      std::all_of(placed_linears_.begin(), placed_linears_.end(), [&](int64_t linear) {
        return set_[static_cast<size_t>(linear)] && bytes_[static_cast<size_t>(linear)];
      });
  bool others = false;
  for (size_t i = 0; i < set_.size(); ++i) {
    others |= !set_[i] && old_ && old_->Locate(static_cast<int64_t>(i));
  }
  if (all_placed && !others) {
    ShardingCodec::Layout layout;
    layout.shard_size = placed_.size();
    layout.entries.resize(bytes_.size());
    for (int64_t linear : placed_linears_) {
      const ByteSpan& p = places_[static_cast<size_t>(linear)];
      layout.entries[static_cast<size_t>(linear)] = {p.offset, p.length};
    }
    TZ_RETURN_NOT_OK(codec.PlaceIndex(layout, placed_.mutable_view()));
    return std::optional<Buffer>(std::move(placed_));
  }
  // Some inner chunks came out all fill value, or were encoded apart, or
  // are kept from the old shard: lay the shard out afresh.
  std::vector<std::optional<ByteView>> views(bytes_.size());
  bool any = false;
  for (size_t i = 0; i < views.size(); ++i) {
    views[i] = set_[i] ? bytes_[i]
               : old_  ? old_->HeldBytes(static_cast<int64_t>(i))
                       : std::nullopt;
    any |= views[i].has_value();
  }
  if (!any) return std::optional<Buffer>();
  TZ_ASSIGN_OR_RETURN(Buffer shard, codec.Assemble(views));
  return std::optional<Buffer>(std::move(shard));
}

}  // namespace turbozarr
