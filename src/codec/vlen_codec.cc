#include "codec/vlen_codec.h"

#include <limits>

#include "codec/raw_bytes.h"

namespace turbozarr {
namespace internal {

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // ASCII runs are the common case; skip eight bytes at a time.
    while (end - p >= 8) {
      uint64_t v;
      std::memcpy(&v, p, 8);
      if (v & 0x8080808080808080ull) break;
      p += 8;
    }
    if (p >= end) break;
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int extra;
    uint32_t min;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      extra = 1, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int i = 1; i <= extra; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += extra + 1;
  }
  return true;
}

}  // namespace internal

Result<std::shared_ptr<const VLenCodec>> VLenCodec::Make(Flavor flavor,
                                                         internal::CodecConfig& config,
                                                         const ArraySpec& spec) {
  TZ_RETURN_NOT_OK(config.Finish());
  if (!spec.dtype.is_variable_length()) {
    return Status::InvalidArgument("codec " + config.codec() +
                                   ": needs a variable-length data type, got " +
                                   spec.dtype.ToString());
  }
  return std::make_shared<const VLenCodec>(flavor);
}

nlohmann::json VLenCodec::ToJson() const {
  return {{"name", name()}, {"configuration", nlohmann::json::object()}};
}

Result<Buffer> VLenCodec::Encode(const ChunkArray& array, const ArraySpec& spec) const {
  const int64_t n = spec.num_elements();
  if (static_cast<int64_t>(array.strings.size()) != n) {
    return Status::InvalidArgument("codec " + name() + ": chunk of shape " +
                                   internal::ShapeString(spec.shape) + " needs " +
                                   std::to_string(n) + " items, got " +
                                   std::to_string(array.strings.size()));
  }
  if (n > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument("codec " + name() + ": " + std::to_string(n) +
                                   " items do not fit the uint32 item count");
  }
  size_t total = 4;
  for (const std::string& s : array.strings) {
    if (s.size() > std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArgument("codec " + name() + ": an item of " +
                                     std::to_string(s.size()) +
                                     " bytes does not fit the uint32 length");
    }
    if (flavor_ == Flavor::kUtf8 && !internal::IsValidUtf8(s)) {
      return Status::InvalidArgument("codec vlen-utf8: item is not valid UTF-8");
    }
    total += 4 + s.size();
  }
  Buffer out(total);
  std::byte* p = out.data();
  internal::StoreLE32(p, static_cast<uint32_t>(n));
  p += 4;
  for (const std::string& s : array.strings) {
    internal::StoreLE32(p, static_cast<uint32_t>(s.size()));
    p += 4;
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  return out;
}

Result<ChunkArray> VLenCodec::Decode(ByteView bytes, const ArraySpec& spec) const {
  const int64_t n = spec.num_elements();
  if (bytes.size() < 4) {
    return Status::Corruption("codec " + name() + ": " + std::to_string(bytes.size()) +
                              " bytes cannot hold the 4-byte item count");
  }
  const uint32_t count = internal::LoadLE32(bytes.data());
  if (count != n) {
    return Status::Corruption("codec " + name() + ": chunk of shape " +
                              internal::ShapeString(spec.shape) + " needs " +
                              std::to_string(n) + " items, the data holds " +
                              std::to_string(count));
  }
  ChunkArray out;
  out.shape = spec.shape;
  out.dtype = spec.dtype;
  out.strings.resize(count);
  size_t pos = 4;
  // Bytes after the last item are ignored, as numcodecs does.
  for (uint32_t i = 0; i < count; ++i) {
    if (bytes.size() - pos < 4) {
      return Status::Corruption("codec " + name() +
                                ": data ends inside the length of item " +
                                std::to_string(i));
    }
    const uint32_t len = internal::LoadLE32(bytes.data() + pos);
    pos += 4;
    if (bytes.size() - pos < len) {
      return Status::Corruption("codec " + name() + ": item " + std::to_string(i) +
                                " claims " + std::to_string(len) + " bytes, only " +
                                std::to_string(bytes.size() - pos) + " remain");
    }
    out.strings[i].assign(reinterpret_cast<const char*>(bytes.data() + pos), len);
    pos += len;
    if (flavor_ == Flavor::kUtf8 && !internal::IsValidUtf8(out.strings[i])) {
      return Status::Corruption("codec vlen-utf8: item " + std::to_string(i) +
                                " is not valid UTF-8");
    }
  }
  return out;
}

}  // namespace turbozarr
