// ZstdCodec: the zarr v3 "zstd" bytes->bytes codec and numcodecs' Zstd.
// Frames carry their content size (as numcodecs writes them), so decoding
// allocates once; frames without it are decoded as a stream.
//
// Thread safety: immutable; all methods may be called concurrently (each
// thread keeps its own compression contexts).
#pragma once

#include <memory>

#include <zstd.h>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/sized_compressor.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class ZstdCodec final : public SizedCompressor, public internal::NumcodecsCodec {
 public:
  ZstdCodec(int level, bool checksum, bool numcodecs_name = false)
      : SizedCompressor("zstd"),
        level_(level),
        checksum_(checksum),
        numcodecs_name_(numcodecs_name) {}

  // {"level": int (default 0, zstd's default), "checksum": bool (default
  // false)}; `numcodecs_name` makes ToJson write "numcodecs.zstd".
  static Result<std::shared_ptr<const ZstdCodec>> Make(internal::CodecConfig& config,
                                                       bool numcodecs_name);

  std::string name() const override {
    return numcodecs_name_ ? "numcodecs.zstd" : "zstd";
  }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  // The codec table's v2 completion: drops "checksum": false, as zarr-python
  // 3.4 writes a v2 zstd (TensorStore refuses the field).
  static void CompleteV2(nlohmann::ordered_json& config);
  Result<Buffer> Encode(ByteView decoded) const override;

  int level() const { return level_; }
  bool checksum() const { return checksum_; }

 private:
  // `expected`, else the content sizes the frames record (nullopt when one
  // does not).
  Result<std::optional<size_t>> DecodedSize(
      ByteView encoded, std::optional<size_t> expected) const override;
  Status DecompressInto(ByteView encoded, MutableByteView out,
                        bool caller_size) const override;
  Result<Buffer> DecodeGrowing(ByteView encoded) const override;

  int level_;
  bool checksum_;
  bool numcodecs_name_;
};

namespace internal {
// This thread's zstd decompression context, made on first use and kept:
// its tables are hundreds of KiB, too much to make per chunk. Callers reset
// it (ZSTD_DCtx_reset) before use. Also blosc's frame reader's.
ZSTD_DCtx* ZstdThreadDCtx();
}  // namespace internal

}  // namespace turbozarr
