#include "array/chunk_chains.h"

namespace turbozarr::internal {

Result<const CodecChain*> ChunkChains::For(const std::vector<int64_t>& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = chains_.find(shape);
  if (it != chains_.end()) return it->second.get();
  metadata_.chunk_shape = shape;
  TZ_ASSIGN_OR_RETURN(CodecChain chain, metadata_.MakeCodecChain());
  auto& slot = chains_[shape];
  slot = std::make_unique<const CodecChain>(std::move(chain));
  return slot.get();
}

}  // namespace turbozarr::internal
