// CategorizeCodec: numcodecs' "categorize" filter, an array->array codec
// that stores each string of a fixed-length unicode array ("<U<n>") as the
// 1-based position of its label in `labels` (0 for a string that is none of
// them), as an unsigned or signed integer type (`astype`, "|u1" by
// default), and decodes positions back to their labels ("" for 0 or an
// unknown position), as numcodecs does: strings compare as numpy compares
// them (trailing NULs do not count), a label repeated takes its last
// position, and a label longer than the array's strings is cut to them on
// decoding.
//
// {"id": "categorize", "labels": ["female", "male"], "dtype": "<U10",
// "astype": "|u1"} in v2 (zarr-python writes it for "<U" arrays only);
// "numcodecs.categorize" with that configuration in v3. Object ("|O")
// arrays are refused, as zarr-python refuses them.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/numpy_cast.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class CategorizeCodec final : public internal::NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const CategorizeCodec>> Make(internal::CodecConfig& config,
                                                             const ArraySpec& spec,
                                                             bool in_v3);

  nlohmann::json ToV2Json() const override;
  Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const override;
  Result<ChunkArray> Encode(ChunkArray decoded) const override;
  Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const override;

  CategorizeCodec(std::vector<std::string> labels, internal::NumpyDtype dtype,
                  internal::NumpyDtype astype, bool in_v3);

 private:
  // The position (1-based) of the string of `chars` code units at `element`
  // (UTF-32), 0 when it is no label. `text` is the caller's scratch, reused
  // from element to element so that a chunk allocates it once.
  int64_t CodeOf(const std::byte* element, size_t chars, std::u32string& text) const;

  std::vector<std::string> labels_;       // as written (UTF-8)
  std::vector<std::u32string> points_;    // the same, as code points
  std::unordered_map<std::u32string, int64_t> codes_;  // label -> last position
  internal::NumpyDtype dtype_, astype_;
};

}  // namespace turbozarr
