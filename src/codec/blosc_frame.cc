#include "codec/blosc_frame.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "codec/bit_unshuffle.h"
#include "codec/zstd_codec.h"

namespace turbozarr::internal {
namespace {

// blosc 1.x's frame: a 16-byte header, then one 32-bit offset per block.
constexpr size_t kHeaderSize = 16;
constexpr uint8_t kFormatVersion = 2;
constexpr uint8_t kBitShuffleFlag = 0x04;
constexpr uint8_t kMemcpyedFlag = 0x02;
constexpr uint8_t kFutureFlag = 0x08;
constexpr uint8_t kLz4Format = 1;
constexpr uint8_t kZstdFormat = 4;
constexpr uint8_t kCompressorVersion = 1;  // of both lz4's and zstd's streams
// c-blosc's BLOSC_MAX_BLOCKSIZE.
constexpr int64_t kMaxBlockSize = (INT32_MAX - 255 * 4) / 3;

int64_t Read32(const std::byte* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

struct Frame {
  const std::byte* data = nullptr;
  int64_t compressed = 0;  // the frame's own size, as its header says
  int64_t decoded = 0;
  int64_t block_size = 0;
  int64_t blocks = 0;
  bool zstd = false;
};

Status BlockError(const Frame& f, int64_t block, const std::string& what) {
  return Status::Corruption("codec blosc: block " + std::to_string(block) + " of " +
                            std::to_string(f.blocks) + " " + what);
}

// Block `j` into out: its one stream decompressed into `scratch`, then
// unshuffled, as c-blosc's blosc_d does for one-byte items.
Status DecodeBlock(const Frame& f, int64_t j, std::byte* out, std::vector<uint8_t>& scratch) {
  const int64_t size = std::min(f.block_size, f.decoded - j * f.block_size);
  const int64_t start = Read32(f.data + kHeaderSize + 4 * j);
  if (start < 0 || start > f.compressed - 4) return BlockError(f, j, "starts outside the frame");
  const int64_t stream = Read32(f.data + start);
  if (stream < 0 || stream > f.compressed - start - 4) {
    return BlockError(f, j, "runs past the end of the frame");
  }
  const std::byte* src = f.data + start + 4;
  scratch.resize(static_cast<size_t>(f.block_size));
  uint8_t* tmp = scratch.data();
  if (stream == size) {
    std::memcpy(tmp, src, static_cast<size_t>(size));
  } else if (f.zstd) {
    ZSTD_DCtx* dctx = ZstdThreadDCtx();
    if (dctx == nullptr) return BlockError(f, j, "cannot be decoded: no zstd context");
    ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
    const size_t n = ZSTD_decompressDCtx(dctx, tmp, static_cast<size_t>(size), src,
                                         static_cast<size_t>(stream));
    if (ZSTD_isError(n)) return BlockError(f, j, std::string("does not decode (zstd: ") +
                                                     ZSTD_getErrorName(n) + ")");
    if (static_cast<int64_t>(n) != size) {
      return BlockError(f, j, "decodes to " + std::to_string(n) + " bytes, not " +
                                  std::to_string(size));
    }
  } else {
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src),
                                      reinterpret_cast<char*>(tmp), static_cast<int>(stream),
                                      static_cast<int>(size));
    if (n != size) return BlockError(f, j, "does not decode (lz4)");
  }
  // c-blosc unshuffles whole groups of 8 items only, and leaves a block of
  // any other length as it is.
  if (size % 8 == 0) {
    BitUnshuffleBytes(tmp, reinterpret_cast<uint8_t*>(out), static_cast<size_t>(size));
  } else {
    std::memcpy(out, tmp, static_cast<size_t>(size));
  }
  return Status::OK();
}

// Blocks up to this size decode through a buffer each thread keeps (blosc
// writes blocks of 32 KiB to 1 MiB); larger ones, which only a hand-made
// frame has, through one of their own, so that a thread never holds more.
constexpr int64_t kKeptScratchBytes = int64_t{4} << 20;

Status DecodeBlocks(const Frame& f, int64_t from, int64_t to, MutableByteView out) {
  thread_local std::vector<uint8_t> kept;
  std::vector<uint8_t> own;
  std::vector<uint8_t>& scratch = f.block_size <= kKeptScratchBytes ? kept : own;
  for (int64_t j = from; j < to; ++j) {
    TZ_RETURN_NOT_OK(DecodeBlock(f, j, out.data() + j * f.block_size, scratch));
  }
  return Status::OK();
}

}  // namespace

bool IsBitshuffledBytesFrame(ByteView encoded) {
  if (encoded.size() < kHeaderSize) return false;
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(encoded[i]); };
  const uint8_t flags = byte(2);
  const uint8_t format = flags >> 5;
  return byte(0) == kFormatVersion && byte(1) == kCompressorVersion && byte(3) == 1 &&
         (flags & kBitShuffleFlag) && !(flags & kMemcpyedFlag) && !(flags & kFutureFlag) &&
         (format == kLz4Format || format == kZstdFormat);
}

Status DecodeBitshuffledBytes(ByteView encoded, MutableByteView out, int threads) {
  Frame f;
  f.data = encoded.data();
  f.decoded = Read32(f.data + 4);
  f.block_size = Read32(f.data + 8);
  f.compressed = Read32(f.data + 12);
  f.zstd = (static_cast<uint8_t>(encoded[2]) >> 5) == kZstdFormat;
  if (f.decoded != static_cast<int64_t>(out.size())) {
    return Status::Corruption("codec blosc: header says " + std::to_string(f.decoded) +
                              " decoded bytes, expected " + std::to_string(out.size()));
  }
  if (f.decoded == 0) return Status::OK();
  if (f.block_size <= 0 || f.block_size > kMaxBlockSize || f.block_size > f.decoded) {
    return Status::Corruption("codec blosc: header's block size " +
                              std::to_string(f.block_size) + " is not in 1.." +
                              std::to_string(std::min(f.decoded, kMaxBlockSize)));
  }
  if (f.compressed < static_cast<int64_t>(kHeaderSize) ||
      f.compressed > static_cast<int64_t>(encoded.size())) {
    return Status::Corruption("codec blosc: header says " + std::to_string(f.compressed) +
                              " compressed bytes; the data has " +
                              std::to_string(encoded.size()));
  }
  f.blocks = (f.decoded + f.block_size - 1) / f.block_size;
  if (f.blocks > (f.compressed - static_cast<int64_t>(kHeaderSize)) / 4) {
    return Status::Corruption("codec blosc: " + std::to_string(f.blocks) +
                              " block offsets do not fit in " + std::to_string(f.compressed) +
                              " bytes");
  }
  // Several threads only for several blocks each.
  const int64_t used = std::clamp<int64_t>(f.blocks / 4, 1, std::max(threads, 1));
  if (used == 1) return DecodeBlocks(f, 0, f.blocks, out);
  std::vector<Status> status(static_cast<size_t>(used));
  std::vector<std::thread> workers;
  const int64_t per = (f.blocks + used - 1) / used;
  for (int64_t t = 1; t < used; ++t) {
    workers.emplace_back([&, t] {
      status[static_cast<size_t>(t)] =
          DecodeBlocks(f, t * per, std::min(f.blocks, (t + 1) * per), out);
    });
  }
  status[0] = DecodeBlocks(f, 0, std::min(f.blocks, per), out);
  for (std::thread& w : workers) w.join();
  for (const Status& s : status) TZ_RETURN_NOT_OK(s);
  return Status::OK();
}

}  // namespace turbozarr::internal
