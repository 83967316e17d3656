#include "codec/deflate_engine.h"

#include <libdeflate.h>
#include <zlib.h>

#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "codec/raw_bytes.h"

namespace turbozarr {
namespace {

using internal::AllocateBuffer;

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// A compressor's tables cost up to a few hundred KiB; each thread keeps one
// per level it has used rather than allocating per chunk.
libdeflate_compressor* ThreadCompressor(int level) {
  thread_local std::array<std::unique_ptr<libdeflate_compressor, CompressorDeleter>, 13>
      cache;
  auto& slot = cache[level];
  if (!slot) slot.reset(libdeflate_alloc_compressor(level));
  return slot.get();
}

libdeflate_decompressor* ThreadDecompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(
      libdeflate_alloc_decompressor());
  return d.get();
}

Status Bad(std::string_view codec, const std::string& what) {
  return Status::Corruption("codec " + std::string(codec) + ": " + what);
}

size_t SkipZeroPadding(ByteView data, size_t pos) {
  while (pos < data.size() && data[pos] == std::byte{0}) ++pos;
  return pos;
}

// Decompresses into `out`, which must come out exactly full.
Status DecompressStreamInto(DeflateWrapper wrapper, ByteView data,
                            MutableByteView out, std::string_view codec) {
  libdeflate_decompressor* d = ThreadDecompressor();
  if (d == nullptr)
    return Status::IOError("codec " + std::string(codec) + ": out of memory");
  const size_t expected = out.size();
  size_t in_pos = 0;
  size_t out_pos = 0;
  do {
    size_t in_used = 0;
    size_t out_used = 0;
    libdeflate_result r =
        wrapper == DeflateWrapper::kGzip
            ? libdeflate_gzip_decompress_ex(d, data.data() + in_pos, data.size() - in_pos,
                                            out.data() + out_pos, expected - out_pos,
                                            &in_used, &out_used)
            : libdeflate_zlib_decompress_ex(d, data.data() + in_pos, data.size() - in_pos,
                                            out.data() + out_pos, expected - out_pos,
                                            &in_used, &out_used);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      return Bad(codec, "data decodes to more than the expected " +
                            std::to_string(expected) + " bytes");
    }
    if (r != LIBDEFLATE_SUCCESS) return Bad(codec, "corrupt or truncated stream");
    in_pos += in_used;
    out_pos += out_used;
    if (wrapper == DeflateWrapper::kZlib) break;
    in_pos = SkipZeroPadding(data, in_pos);
  } while (in_pos < data.size());
  if (out_pos != expected) {
    return Bad(codec, "expected " + std::to_string(expected) + " decoded bytes, got " +
                          std::to_string(out_pos));
  }
  return Status::OK();
}

Result<Buffer> InflateStream(DeflateWrapper wrapper, ByteView data,
                             std::string_view codec) {
  z_stream zs{};
  const int window_bits = wrapper == DeflateWrapper::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
  if (inflateInit2(&zs, window_bits) != Z_OK) {
    return Status::IOError("codec " + std::string(codec) + ": inflateInit2 failed");
  }
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end{&zs};
  Buffer out;
  TZ_ASSIGN_OR_RETURN(out,
                      AllocateBuffer(std::max<size_t>(data.size() * 4, 4096), codec));
  size_t in_pos = 0;
  size_t out_pos = 0;
  constexpr size_t kStep = std::numeric_limits<uInt>::max();
  while (true) {
    if (out_pos == out.size()) {
      Buffer bigger;
      TZ_ASSIGN_OR_RETURN(bigger, AllocateBuffer(out.size() * 2, codec));
      std::memcpy(bigger.data(), out.data(), out_pos);
      out = std::move(bigger);
    }
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data() + in_pos));
    zs.avail_in = static_cast<uInt>(std::min(data.size() - in_pos, kStep));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    zs.avail_out = static_cast<uInt>(std::min(out.size() - out_pos, kStep));
    const uInt avail_in = zs.avail_in;
    const uInt avail_out = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos += avail_in - zs.avail_in;
    out_pos += avail_out - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (wrapper == DeflateWrapper::kZlib) break;
      in_pos = SkipZeroPadding(data, in_pos);
      if (in_pos == data.size()) break;
      inflateReset(&zs);  // another gzip member follows
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_out > 0) {
      return Bad(codec, "data ends inside the stream");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Bad(codec,
                 std::string("corrupt stream: ") + (zs.msg ? zs.msg : "inflate failed"));
    }
    if (in_pos == data.size() && zs.avail_out > 0 && rc == Z_OK &&
        avail_in == zs.avail_in && avail_out == zs.avail_out) {
      return Bad(codec, "data ends inside the stream");
    }
  }
  out.Resize(out_pos);
  return out;
}

}  // namespace

Result<Buffer> DeflateCodec::Compress(int level, ByteView data) const {
  libdeflate_compressor* c = ThreadCompressor(level);
  if (c == nullptr) {
    return Status::IOError("codec " + family_ + ": cannot make a level " +
                           std::to_string(level) + " compressor");
  }
  const size_t bound = wrapper_ == DeflateWrapper::kGzip
                           ? libdeflate_gzip_compress_bound(c, data.size())
                           : libdeflate_zlib_compress_bound(c, data.size());
  Buffer out(bound);
  const size_t n =
      wrapper_ == DeflateWrapper::kGzip
          ? libdeflate_gzip_compress(c, data.data(), data.size(), out.data(), out.size())
          : libdeflate_zlib_compress(c, data.data(), data.size(), out.data(), out.size());
  if (n == 0) return Status::IOError("codec " + family_ + ": compression failed");
  out.Resize(n);
  return out;
}

Result<std::optional<size_t>> DeflateCodec::DecodedSize(
    ByteView encoded, std::optional<size_t> expected_size) const {
  if (encoded.empty()) return Bad(family_, "empty input is not a stream");
  return expected_size;
}

Status DeflateCodec::DecompressInto(ByteView encoded, MutableByteView out,
                                    bool /*caller_size*/) const {
  return DecompressStreamInto(wrapper_, encoded, out, family_);
}

Result<Buffer> DeflateCodec::DecodeGrowing(ByteView encoded) const {
  return InflateStream(wrapper_, encoded, family_);
}

}  // namespace turbozarr
