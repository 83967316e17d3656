#include "codec/bz2_codec.h"

#include <bzlib.h>

#include <algorithm>
#include <limits>

#include "codec/raw_bytes.h"

namespace turbozarr {
namespace {

constexpr size_t kStep = std::numeric_limits<unsigned int>::max();

Status Bad(const std::string& what) { return Status::Corruption("codec bz2: " + what); }

}  // namespace

Result<std::shared_ptr<const Bz2Codec>> Bz2Codec::Make(internal::CodecConfig& config) {
  TZ_ASSIGN_OR_RETURN(int64_t level, config.Int("level", 1));
  TZ_RETURN_NOT_OK(config.Finish());
  if (level < 1 || level > 9) {
    return config.Invalid("level", "must be in [1, 9], got " + std::to_string(level));
  }
  return std::make_shared<const Bz2Codec>(static_cast<int>(level));
}

Result<Buffer> Bz2Codec::Encode(ByteView decoded) const {
  bz_stream bz{};
  if (BZ2_bzCompressInit(&bz, level_, 0, 0) != BZ_OK) {
    return Status::IOError("codec bz2: BZ2_bzCompressInit failed");
  }
  // bzip2 expands incompressible data by at most 1% plus 600 bytes.
  Buffer out(decoded.size() + decoded.size() / 100 + 601);
  size_t in_pos = 0;
  size_t out_pos = 0;
  int rc;
  do {
    bz.next_in =
        const_cast<char*>(reinterpret_cast<const char*>(decoded.data() + in_pos));
    bz.avail_in = static_cast<unsigned>(std::min(decoded.size() - in_pos, kStep));
    bz.next_out = reinterpret_cast<char*>(out.data() + out_pos);
    bz.avail_out = static_cast<unsigned>(std::min(out.size() - out_pos, kStep));
    const unsigned avail_in = bz.avail_in;
    const unsigned avail_out = bz.avail_out;
    const bool last = in_pos + avail_in == decoded.size();
    rc = BZ2_bzCompress(&bz, last ? BZ_FINISH : BZ_RUN);
    in_pos += avail_in - bz.avail_in;
    out_pos += avail_out - bz.avail_out;
    if (rc < 0 || (out_pos == out.size() && rc != BZ_STREAM_END)) {
      BZ2_bzCompressEnd(&bz);
      return Status::IOError("codec bz2: compression failed (" + std::to_string(rc) +
                             ")");
    }
  } while (rc != BZ_STREAM_END);
  BZ2_bzCompressEnd(&bz);
  out.Resize(out_pos);
  return out;
}

// The concatenated bzip2 streams of `encoded`.
Result<size_t> Bz2Codec::DecodeStreams(ByteView encoded, MutableByteView fixed,
                                       Buffer* growable) const {
  if (encoded.empty()) return Bad("empty input is not a stream");
  MutableByteView out = growable ? growable->mutable_view() : fixed;
  size_t in_pos = 0;
  size_t out_pos = 0;
  // One iteration per concatenated stream. Like Python's bz2.decompress,
  // bytes after a complete stream that do not start another are ignored.
  for (int stream = 0; in_pos < encoded.size(); ++stream) {
    bz_stream bz{};
    if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK) {
      return Status::IOError("codec bz2: BZ2_bzDecompressInit failed");
    }
    struct End {
      bz_stream* bz;
      ~End() { BZ2_bzDecompressEnd(bz); }
    } end{&bz};
    const size_t stream_start_out = out_pos;
    bool trailing_garbage = false;
    while (true) {
      bz.next_in =
          const_cast<char*>(reinterpret_cast<const char*>(encoded.data() + in_pos));
      bz.avail_in = static_cast<unsigned>(std::min(encoded.size() - in_pos, kStep));
      bz.next_out = reinterpret_cast<char*>(out.data() + out_pos);
      bz.avail_out = static_cast<unsigned>(std::min(out.size() - out_pos, kStep));
      const unsigned avail_in = bz.avail_in;
      const unsigned avail_out = bz.avail_out;
      const int rc = BZ2_bzDecompress(&bz);
      in_pos += avail_in - bz.avail_in;
      out_pos += avail_out - bz.avail_out;
      if (rc == BZ_STREAM_END) break;
      if (rc != BZ_OK) {
        if (stream > 0) {
          trailing_garbage = true;
          break;
        }
        return Bad("corrupt stream (error " + std::to_string(rc) + ")");
      }
      if (out_pos == out.size()) {
        if (!growable) {
          return Bad("data decodes to more than the expected " +
                     std::to_string(out.size()) + " bytes");
        }
        TZ_RETURN_NOT_OK(GrowOutput(growable, out_pos));
        out = growable->mutable_view();
        continue;
      }
      if (avail_in == bz.avail_in && avail_out == bz.avail_out) {
        if (stream > 0) {
          trailing_garbage = true;
          break;
        }
        return Bad("data ends inside the stream");
      }
    }
    if (trailing_garbage) {
      out_pos = stream_start_out;
      break;
    }
  }
  return out_pos;
}

}  // namespace turbozarr
