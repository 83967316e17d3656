// The default implementations of the codec interfaces' optional methods
// (turbozarr/codec.h): correct for every codec, overridden where a codec can
// do better.
#include <cstdlib>
#include <cstring>
#include <string>

#include "turbozarr/codec.h"

namespace turbozarr {

Status BytesToBytesCodec::DecodeInto(ByteView encoded, MutableByteView out) const {
  TZ_ASSIGN_OR_RETURN(Buffer decoded, Decode(encoded, out.size()));
  if (decoded.size() != out.size()) {
    return Status::Corruption("codec " + name() + ": expected " +
                              std::to_string(out.size()) + " decoded bytes, got " +
                              std::to_string(decoded.size()));
  }
  if (!out.empty()) std::memcpy(out.data(), decoded.data(), out.size());
  return Status::OK();
}

Result<ByteView> BytesToBytesCodec::Verify(ByteView /*encoded*/) const {
  return Status::InvalidArgument("codec " + name() + " is not a checksum");
}

void BytesToBytesCodec::EncodeAppend(Buffer& /*bytes*/) const {
  std::abort();  // a caller that did not ask EncodesByAppending() first
}

}  // namespace turbozarr
