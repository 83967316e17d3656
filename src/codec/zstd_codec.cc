#include "codec/zstd_codec.h"

// ZSTD_findDecompressedSize (sums the content sizes of every frame) is in
// zstd's "static linking" section but exported by the shared library and
// unchanged since zstd 1.3.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "codec/raw_bytes.h"

namespace turbozarr {
namespace {

// A zstd block of at most 128 KiB can be spelled in 4 bytes (an RLE block),
// so no valid input decodes to more than this many bytes per input byte. A
// header claiming more is corrupt and must not drive an allocation.
constexpr uint64_t kMaxRatio = 1 << 15;

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// Contexts hold hundreds of KiB of tables; one per thread is reused across
// chunks instead of allocating per call.
ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}

Status ZstdError(std::string_view what, size_t code) {
  return Status::Corruption("codec zstd: " + std::string(what) + ": " +
                            ZSTD_getErrorName(code));
}

}  // namespace

Result<std::shared_ptr<const ZstdCodec>> ZstdCodec::Make(internal::CodecConfig& config,
                                                         bool numcodecs_name) {
  TZ_ASSIGN_OR_RETURN(int64_t level, config.Int("level", 0));
  TZ_ASSIGN_OR_RETURN(bool checksum, config.Bool("checksum", false));
  TZ_RETURN_NOT_OK(config.Finish());
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return config.Invalid("level", "must be in [" + std::to_string(ZSTD_minCLevel()) +
                                       ", " + std::to_string(ZSTD_maxCLevel()) +
                                       "], got " + std::to_string(level));
  }
  return std::make_shared<const ZstdCodec>(static_cast<int>(level), checksum,
                                           numcodecs_name);
}

nlohmann::json ZstdCodec::ToJson() const {
  if (numcodecs_name_) {
    return internal::NumcodecsV3Json(
        {{"id", "zstd"}, {"level", level_}, {"checksum", checksum_}});
  }
  return {{"name", "zstd"},
          {"configuration", {{"level", level_}, {"checksum", checksum_}}}};
}

nlohmann::json ZstdCodec::ToV2Json() const {
  nlohmann::json j = {{"id", "zstd"}, {"level", level_}};
  if (checksum_) j["checksum"] = true;  // see CompleteV2
  return j;
}

void ZstdCodec::CompleteV2(nlohmann::ordered_json& config) {
  // zarr-python 3.4 drops a v2 zstd's "checksum": false (its issue 2647),
  // and TensorStore refuses a .zarray that has it.
  if (auto it = config.find("checksum"); it != config.end() && *it == false) {
    config.erase(it);
  }
}

Result<Buffer> ZstdCodec::Encode(ByteView decoded) const {
  ZSTD_CCtx* cctx = ThreadCCtx();
  if (cctx == nullptr) return Status::IOError("codec zstd: cannot create a context");
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum_ ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  Buffer out(ZSTD_compressBound(decoded.size()));
  const size_t n =
      ZSTD_compress2(cctx, out.data(), out.size(), decoded.data(), decoded.size());
  if (ZSTD_isError(n)) {
    return Status::IOError(std::string("codec zstd: compression failed: ") +
                           ZSTD_getErrorName(n));
  }
  out.Resize(n);
  return out;
}

// Decodes frames whose content size is not recorded, growing the output.
Result<Buffer> ZstdCodec::DecodeGrowing(ByteView encoded) const {
  ZSTD_DCtx* dctx = internal::ZstdThreadDCtx();
  if (dctx == nullptr) return Status::IOError("codec zstd: cannot create a context");
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
  Buffer out;
  TZ_ASSIGN_OR_RETURN(
      out, internal::AllocateBuffer(std::max(ZSTD_DStreamOutSize(), encoded.size() * 4),
                                    "zstd"));
  ZSTD_inBuffer in{encoded.data(), encoded.size(), 0};
  size_t produced = 0;
  size_t last = 1;
  while (in.pos < in.size || last != 0) {
    if (produced == out.size()) {
      Buffer bigger;
      TZ_ASSIGN_OR_RETURN(bigger, internal::AllocateBuffer(out.size() * 2, "zstd"));
      std::memcpy(bigger.data(), out.data(), produced);
      out = std::move(bigger);
    }
    ZSTD_outBuffer o{out.data() + produced, out.size() - produced, 0};
    const size_t before = in.pos;
    last = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(last)) return ZstdError("corrupt frame", last);
    produced += o.pos;
    if (in.pos == in.size && last != 0 && o.pos < o.size && in.pos == before) {
      return Status::Corruption("codec zstd: data ends inside a frame");
    }
  }
  out.Resize(produced);
  return out;
}

// Decodes every frame of `encoded` into `out`, which must come out exactly
// full.
Status ZstdCodec::DecompressInto(ByteView encoded, MutableByteView out,
                                 bool caller_size) const {
  ZSTD_DCtx* dctx = internal::ZstdThreadDCtx();
  if (dctx == nullptr) return Status::IOError("codec zstd: cannot create a context");
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
  const size_t n =
      ZSTD_decompressDCtx(dctx, out.data(), out.size(), encoded.data(), encoded.size());
  if (ZSTD_isError(n)) {
    if (caller_size && ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
      return Status::Corruption("codec zstd: data decodes to more than the expected " +
                                std::to_string(out.size()) + " bytes");
    }
    return ZstdError("corrupt frame", n);
  }
  if (n != out.size()) {
    return Status::Corruption("codec zstd: expected " + std::to_string(out.size()) +
                              " decoded bytes, got " + std::to_string(n));
  }
  return Status::OK();
}

Result<std::optional<size_t>> ZstdCodec::DecodedSize(
    ByteView encoded, std::optional<size_t> expected_size) const {
  if (encoded.empty())
    return Status::Corruption("codec zstd: empty input is not a frame");
  if (expected_size) return expected_size;
  const unsigned long long claimed =
      ZSTD_findDecompressedSize(encoded.data(), encoded.size());
  if (claimed == ZSTD_CONTENTSIZE_ERROR) {
    return Status::Corruption("codec zstd: not a valid zstd frame sequence");
  }
  if (claimed == ZSTD_CONTENTSIZE_UNKNOWN) return std::optional<size_t>();
  if (claimed > (encoded.size() + 64) * kMaxRatio) {
    return Status::Corruption("codec zstd: frame claims " + std::to_string(claimed) +
                              " bytes from " + std::to_string(encoded.size()) +
                              ", more than zstd can encode");
  }
  return std::optional<size_t>(static_cast<size_t>(claimed));
}

namespace internal {

ZSTD_DCtx* ZstdThreadDCtx() {
  struct Deleter {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };
  thread_local std::unique_ptr<ZSTD_DCtx, Deleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

}  // namespace internal
}  // namespace turbozarr
