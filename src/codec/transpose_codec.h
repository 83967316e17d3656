// TransposeCodec: the zarr v3 "transpose" array->array codec. Encoding
// permutes the axes so that encoded axis i is decoded axis order[i]
// (numpy's transpose(order)); decoding applies the inverse permutation.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>
#include <vector>

#include "codec/codec_config.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class TransposeCodec final : public ArrayToArrayCodec {
 public:
  // REQUIRES: order is a permutation of 0..n-1.
  explicit TransposeCodec(std::vector<int64_t> order);

  // From {"order": [..]} (a permutation of the rank of `spec`; the old
  // spellings "C" and "F" are read as the identity and the reversal).
  static Result<std::shared_ptr<const TransposeCodec>> Make(internal::CodecConfig& config,
                                                            const ArraySpec& spec);

  std::string name() const override { return "transpose"; }
  nlohmann::json ToJson() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

  const std::vector<int64_t>& order() const { return order_; }

 private:
  std::vector<int64_t> order_;
  std::vector<int64_t> inverse_;
};

namespace internal {
// Returns `src` (shape `shape`) with its axes permuted: the result has shape
// shape[perm[i]] and result[j] = src[k] where k[perm[i]] = j[i].
ChunkArray PermuteAxes(const ChunkArray& src, const std::vector<int64_t>& perm);
}  // namespace internal

}  // namespace turbozarr
