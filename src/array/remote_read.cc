// ReadRemotely (remote_read.h): the chunks of all boxes in windows.
#include "array/remote_read.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "array/shard_read.h"
#include "array/windowed_fetch.h"

namespace turbozarr::internal {

Status ReadRemotely(const Array& array, std::span<const BoxToRead> boxes, ThreadPool& pool,
                    bool fill_missing_chunks) {
  struct Share {  // one box's share of a chunk
    size_t box;
    ChunkProjection proj;
    const CodecChain* chain;
  };
  std::vector<std::vector<int64_t>> block_shapes;
  std::vector<std::string> keys;
  std::vector<std::vector<Share>> shares;  // per key
  std::map<std::string, size_t> seen;      // key -> index, when boxes may meet
  for (size_t b = 0; b < boxes.size(); ++b) {
    const Selection& selection = *boxes[b].selection;
    block_shapes.push_back(selection.shape());
    if (selection.num_elements() == 0) continue;
    for (ChunkProjection& p : PlanChunks(selection, array.shape(), array.chunk_grid())) {
      std::string key = array.ChunkKey(p.chunk_coords);
      Result<const CodecChain*> chain = array.ChunkChain(p.chunk_coords);
      if (!chain.ok()) {
        return chain.status().WithContext(array.Describe() + ", chunk '" + key + "'");
      }
      // One box plans each chunk once: only boxes can meet in a chunk.
      size_t k = keys.size();
      if (boxes.size() > 1) k = seen.emplace(key, keys.size()).first->second;
      if (k == keys.size()) {
        keys.push_back(std::move(key));
        shares.emplace_back();
      }
      shares[k].push_back({b, std::move(p), *chain});
    }
  }
  const ArrayMetadata& m = array.metadata();
  auto place = [&](const Share& s, const std::string& key,
                   const std::optional<Buffer>& bytes) -> Status {
    const std::vector<int64_t>& block_shape = block_shapes[s.box];
    void* out = boxes[s.box].out;
    Status done;
    if (bytes.has_value()) {
      done = DecodeChunkToBlock(*s.chain, bytes->view(), s.proj, block_shape, out);
    } else if (!fill_missing_chunks) {
      done = MissingChunkError();
    } else {
      FillBlock(m.dtype, m.fill_value,
                ChunkRegion::Make(s.proj, s.chain->spec().shape, block_shape), out);
    }
    return done.ok() ? done : done.WithContext(array.Describe() + ", chunk '" + key + "'");
  };
  const uint64_t chunk_bytes =
      static_cast<uint64_t>(array.codec_chain().spec().num_elements()) * m.dtype.size();
  const size_t window = WindowFor(
      static_cast<size_t>(array.store()->Capabilities().requests_in_flight), chunk_bytes);
  // A remote store may fetch a large chunk in parts when few are in flight.
  const ReadHint hint{m.dtype.is_variable_length() ? 0 : chunk_bytes,
                      static_cast<uint32_t>(std::min(keys.size(), window))};
  // A stored chunk that is its elements as they are, and a contiguous part
  // of the one box it serves, is written there as it arrives: no buffer of
  // its own, no copy (for a chunk of 1 GB, a second 1 GB).
  auto target_of = [&](size_t i) -> MutableByteView {
    if (shares[i].size() != 1) return {};
    const Share& s = shares[i][0];
    const std::vector<int64_t>& block_shape = block_shapes[s.box];
    if (!CanReadStraightIntoBlock(*s.chain, s.proj, block_shape)) return {};
    const size_t elem = m.dtype.size();
    const size_t n = static_cast<size_t>(s.chain->spec().num_elements()) * elem;
    return {static_cast<std::byte*>(boxes[s.box].out) + BlockOffset(s.proj, block_shape) * elem,
            n};
  };
  return FetchInWindows(
      *array.store(), keys.size(), window,
      [&](size_t i) { return KeyRange{keys[i], ByteRange::Full(), hint}; },
      [&](size_t first, const std::vector<KeyRange>& reads, WindowAnswers& got) {
        std::vector<std::pair<size_t, const Share*>> items;  // (answer, share)
        for (size_t k = 0; k < reads.size(); ++k) {
          if (got.in_target[k]) continue;  // in place already
          for (const Share& s : shares[first + k]) items.emplace_back(k, &s);
        }
        return pool.ParallelFor(static_cast<int64_t>(items.size()), [&](int64_t i) {
          const auto [k, share] = items[i];
          return place(*share, reads[k].key, got.values[k]);
        });
      },
      array.Describe(), target_of);
}

}  // namespace turbozarr::internal
