// LzmaCodec: numcodecs' LZMA bytes->bytes codec ("lzma" in v2,
// "numcodecs.lzma" in v3 arrays), through liblzma as Python's lzma module
// calls it, so that a chunk comes out byte for byte as numcodecs writes it:
// the .xz container (format 1, the default), the legacy .lzma one (2) or a
// raw filter chain (3); an integrity check (xz only); a preset 0-9, with
// the "extreme" flag, or a chain of up to four filters (LZMA1, LZMA2, delta,
// the branch converters) given as numcodecs gives them, integer ids and
// options. Readers accept concatenated streams and ignore bytes after a
// complete stream that do not start another, as lzma.decompress does; format
// 0 ("auto") decodes any container and, as in numcodecs, cannot encode.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/sized_compressor.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class LzmaCodec final : public StreamCompressor, public internal::NumcodecsCodec {
 public:
  enum Format { kAuto = 0, kXz = 1, kAlone = 2, kRaw = 3 };
  // liblzma's filter chain with its options, built once (defined in the .cc).
  struct Chain;

  // {"format", "check", "preset", "filters"}, numcodecs' defaults 1, -1,
  // null (preset 6), null. `in_v3`: spelled "numcodecs.lzma".
  static Result<std::shared_ptr<const LzmaCodec>> Make(internal::CodecConfig& config,
                                                       bool in_v3);

  // `fields`: the configuration as read ("id" left out), written back as
  // read in v3; in v2 numcodecs' full form.
  LzmaCodec(Format format, int check, std::shared_ptr<const Chain> chain,
            nlohmann::json fields, bool in_v3);

  std::string name() const override { return in_v3_ ? "numcodecs.lzma" : "lzma"; }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<Buffer> Encode(ByteView decoded) const override;

 private:
  Result<size_t> DecodeStreams(ByteView encoded, MutableByteView fixed,
                               Buffer* growable) const override;

  Format format_;
  int check_;  // liblzma's check id; -1: the format's default
  std::shared_ptr<const Chain> chain_;
  nlohmann::json fields_;
  bool in_v3_;
};

}  // namespace turbozarr
