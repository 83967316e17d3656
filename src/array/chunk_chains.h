// ChunkChains: the codec chains of a rectilinear array's chunks. A codec
// chain is built for one chunk shape (its specs, a sharding codec's inner
// grid and index size follow from it), and a rectilinear chunk is encoded
// at its own shape, so each distinct shape needs a chain of its own. They
// are built on first use and kept for the array's life: an array has a few
// distinct shapes, and a chain handed out stays valid while the array does.
//
// Thread safety: For may be called from many threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "turbozarr/codec.h"
#include "turbozarr/metadata.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

class ChunkChains {
 public:
  // Keeps what builds a chain (the attributes, which may be large, are
  // left out).
  explicit ChunkChains(ArrayMetadata metadata) : metadata_(std::move(metadata)) {
    metadata_.attributes = JsonDocument::object();
  }

  // The chain for chunks of `shape`; the metadata's error when the codecs
  // cannot encode that shape (a sharding codec's inner chunks must divide
  // it).
  Result<const CodecChain*> For(const std::vector<int64_t>& shape);

 private:
  std::mutex mu_;
  ArrayMetadata metadata_;
  std::map<std::vector<int64_t>, std::unique_ptr<const CodecChain>> chains_;
};

}  // namespace turbozarr::internal
