#include "codec/sized_compressor.h"

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

}  // namespace turbozarr
