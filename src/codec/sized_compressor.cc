#include "codec/sized_compressor.h"

#include <algorithm>
#include <cstring>

#include "codec/raw_bytes.h"

namespace turbozarr {

Result<Buffer> SizedCompressor::Decode(ByteView encoded,
                                       std::optional<size_t> expected_size) const {
  TZ_ASSIGN_OR_RETURN(std::optional<size_t> size, DecodedSize(encoded, expected_size));
  if (!size) return DecodeGrowing(encoded);
  TZ_ASSIGN_OR_RETURN(Buffer out, internal::AllocateBuffer(*size, what_));
  TZ_RETURN_NOT_OK(
      DecompressInto(encoded, out.mutable_view(), expected_size.has_value()));
  return out;
}

Status SizedCompressor::DecodeInto(ByteView encoded, MutableByteView out) const {
  TZ_ASSIGN_OR_RETURN(std::optional<size_t> size, DecodedSize(encoded, out.size()));
  if (size != out.size()) {
    // DecodedSize checks a header against the expected size; this guards
    // DecompressInto should a codec forget.
    return Status::Corruption(what_ + ": expected " + std::to_string(out.size()) +
                              " decoded bytes, the data records " +
                              (size ? std::to_string(*size) : std::string("none")));
  }
  return DecompressInto(encoded, out, /*caller_size=*/true);
}

Result<Buffer> SizedCompressor::DecodeGrowing(ByteView /*encoded*/) const {
  return Status::Corruption(what_ + ": the data does not record its decoded size");
}

Result<std::optional<size_t>> StreamCompressor::DecodedSize(
    ByteView encoded, std::optional<size_t> expected) const {
  if (encoded.empty()) return Status::Corruption(what() + ": empty input is not a stream");
  return expected;
}

Result<Buffer> StreamCompressor::DecodeGrowing(ByteView encoded) const {
  Buffer out;
  TZ_ASSIGN_OR_RETURN(
      out, internal::AllocateBuffer(std::max<size_t>(encoded.size() * 8, 4096), what()));
  TZ_ASSIGN_OR_RETURN(size_t n, DecodeStreams(encoded, {}, &out));
  out.Resize(n);
  return out;
}

Status StreamCompressor::DecompressInto(ByteView encoded, MutableByteView out,
                                        bool /*caller_size*/) const {
  TZ_ASSIGN_OR_RETURN(size_t n, DecodeStreams(encoded, out, nullptr));
  if (n != out.size()) {
    return Status::Corruption(what() + ": expected " + std::to_string(out.size()) +
                              " decoded bytes, got " + std::to_string(n));
  }
  return Status::OK();
}

Status StreamCompressor::GrowOutput(Buffer* growable, size_t used) const {
  Buffer bigger;
  TZ_ASSIGN_OR_RETURN(bigger, internal::AllocateBuffer(growable->size() * 2, what()));
  std::memcpy(bigger.data(), growable->data(), used);
  *growable = std::move(bigger);
  return Status::OK();
}

}  // namespace turbozarr
