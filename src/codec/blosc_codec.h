// BloscCodec: the zarr v3 "blosc" bytes->bytes codec and numcodecs' Blosc
// (v2 "blosc", v3 "numcodecs.blosc"), on c-blosc 1.x's context API so that
// concurrent calls never share blosc's global state.
//
// The two spellings differ only in JSON: v3 names the shuffle
// ("noshuffle"|"shuffle"|"bitshuffle") and stores typesize; numcodecs uses
// 0/1/2 or -1 (auto: bitshuffle for 1-byte items, else byte shuffle) and
// takes typesize from the buffer it is handed.
//
// Blosc's internal threads: each call uses up to the calling thread's codec
// budget (util/parallelism.h), fewer for small buffers, so one big chunk is
// compressed on every core while many chunks run one thread each. Threaded
// compression may lay blosc's blocks out in another order than serial
// compression (same size, same decoded bytes; every blosc reader follows the
// block offsets), so stored bytes are reproducible only with one thread.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <memory>
#include <optional>

#include "codec/codec_config.h"
#include "codec/codec_registry.h"
#include "codec/sized_compressor.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class BloscCodec final : public SizedCompressor, public internal::NumcodecsCodec {
 public:
  enum class Shuffle { kNoShuffle = 0, kShuffle = 1, kBitShuffle = 2 };
  enum class Spelling { kV3, kNumcodecsV3, kV2 };

  struct Options {
    std::string cname = "zstd";
    int clevel = 5;
    Shuffle shuffle = Shuffle::kShuffle;
    int typesize = 1;
    size_t blocksize = 0;  // 0: blosc chooses
  };

  BloscCodec(Options options, Spelling spelling, int numcodecs_shuffle,
             bool numcodecs_typesize)
      : SizedCompressor("blosc"),
        o_(std::move(options)),
        spelling_(spelling),
        numcodecs_shuffle_(numcodecs_shuffle),
        numcodecs_typesize_(numcodecs_typesize) {}

  // v3 "blosc": {"cname", "clevel", "shuffle", "typesize", "blocksize"}; a
  // missing typesize or shuffle follows the item size of `spec`, as
  // zarr-python does.
  static Result<std::shared_ptr<const BloscCodec>> Make(internal::CodecConfig& config,
                                                        const ArraySpec& spec);
  // numcodecs' Blosc: {"cname", "clevel", "shuffle": -1|0|1|2, "blocksize",
  // optional "typesize"}. In a v2 array the buffer carries the array's items
  // (typesize = the item size, 1 for variable-length types); in a v3 array
  // ("numcodecs.blosc") it is raw bytes, typesize 1.
  static Result<std::shared_ptr<const BloscCodec>> MakeNumcodecs(
      internal::CodecConfig& config, const ArraySpec& spec, bool in_v3_array);

  std::string name() const override {
    return spelling_ == Spelling::kNumcodecsV3 ? "numcodecs.blosc" : "blosc";
  }
  nlohmann::json ToJson() const override;
  nlohmann::json ToV2Json() const override;
  Result<Buffer> Encode(ByteView decoded) const override;

  const Options& options() const { return o_; }

 private:
  // Blosc's header, checked against the data and `expected`.
  Result<std::optional<size_t>> DecodedSize(
      ByteView encoded, std::optional<size_t> expected) const override;
  Status DecompressInto(ByteView encoded, MutableByteView out,
                        bool caller_size) const override;

  Options o_;
  Spelling spelling_;
  int numcodecs_shuffle_;    // as written in numcodecs JSON (may be -1)
  bool numcodecs_typesize_;  // numcodecs JSON carried "typesize"
};

}  // namespace turbozarr
