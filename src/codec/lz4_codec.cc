#include "codec/lz4_codec.h"

#include <lz4.h>

#include "codec/raw_bytes.h"

namespace turbozarr {
namespace {

// An LZ4 block never expands a byte into more than 255 (a match length runs
// on in 255-steps, one byte each), so a size header claiming more than this
// is corrupt and must not drive an allocation.
constexpr uint64_t kMaxRatio = 255;

}  // namespace

Result<std::shared_ptr<const Lz4Codec>> Lz4Codec::Make(internal::CodecConfig& config) {
  TZ_ASSIGN_OR_RETURN(int64_t acceleration, config.Int("acceleration", 1));
  TZ_RETURN_NOT_OK(config.Finish());
  // numcodecs passes the value to LZ4_compress_fast, which treats anything
  // below 1 as 1; the stored value is kept as written.
  if (acceleration < -(1 << 20) || acceleration > (1 << 20)) {
    return config.Invalid("acceleration",
                          "out of range: " + std::to_string(acceleration));
  }
  return std::make_shared<const Lz4Codec>(static_cast<int>(acceleration));
}

Result<Buffer> Lz4Codec::Encode(ByteView decoded) const {
  if (decoded.size() > LZ4_MAX_INPUT_SIZE) {
    return Status::InvalidArgument("codec lz4: " + std::to_string(decoded.size()) +
                                   " bytes exceed LZ4's limit of " +
                                   std::to_string(LZ4_MAX_INPUT_SIZE));
  }
  const int n = static_cast<int>(decoded.size());
  const int bound = LZ4_compressBound(n);
  Buffer out(4 + static_cast<size_t>(bound));
  internal::StoreLE32(out.data(), static_cast<uint32_t>(n));
  const int written =
      LZ4_compress_fast(reinterpret_cast<const char*>(decoded.data()),
                        reinterpret_cast<char*>(out.data() + 4), n, bound, acceleration_);
  if (written <= 0) return Status::IOError("codec lz4: compression failed");
  out.Resize(4 + static_cast<size_t>(written));
  return out;
}

// Validates numcodecs' size header against the block (and the expected
// size, when known) and returns the decoded size it records.
Result<std::optional<size_t>> Lz4Codec::DecodedSize(
    ByteView encoded, std::optional<size_t> expected_size) const {
  if (encoded.size() < 5) {
    return Status::Corruption("codec lz4: " + std::to_string(encoded.size()) +
                              " bytes cannot hold the size header and a block");
  }
  const uint32_t size = internal::LoadLE32(encoded.data());
  if (expected_size && size != *expected_size) {
    return Status::Corruption("codec lz4: header says " + std::to_string(size) +
                              " decoded bytes, expected " +
                              std::to_string(*expected_size));
  }
  const size_t block = encoded.size() - 4;
  if (size > block * kMaxRatio || size > LZ4_MAX_INPUT_SIZE ||
      block > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::Corruption("codec lz4: header claims " + std::to_string(size) +
                              " bytes from a block of " + std::to_string(block));
  }
  return std::optional<size_t>(size);
}

Status Lz4Codec::DecompressInto(ByteView encoded, MutableByteView out,
                                bool /*caller_size*/) const {
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(encoded.data() + 4),
                                    reinterpret_cast<char*>(out.data()),
                                    static_cast<int>(encoded.size() - 4),
                                    static_cast<int>(out.size()));
  if (n < 0) return Status::Corruption("codec lz4: corrupt block");
  if (static_cast<size_t>(n) != out.size()) {
    return Status::Corruption("codec lz4: header says " + std::to_string(out.size()) +
                              " decoded bytes, the block holds " + std::to_string(n));
  }
  return Status::OK();
}

}  // namespace turbozarr
