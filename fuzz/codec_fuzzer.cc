// Fuzzes the decoders: the first byte picks a codec (see codec_fuzz_cases.h),
// the rest is decoded with a small fixed spec. Decoding may fail (with a
// Status), but must not crash, hang or touch memory out of bounds; and what
// decodes must survive an encode -> decode round trip unchanged (for a lossy
// filter: unchanged by a second round; see RoundTrip).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "codec_fuzz_cases.h"

namespace {

using turbozarr::ByteView;
using turbozarr::ChunkArray;
using turbozarr::CodecChain;
using turbozarr::Result;

void Fail(const std::string& case_name, const char* what) {
  std::fprintf(stderr, "codec_fuzzer: %s: %s\n", case_name.c_str(), what);
  std::abort();
}

bool SameChunk(const ChunkArray& a, const ChunkArray& b) {
  return a.shape == b.shape && a.dtype == b.dtype && a.bytes == b.bytes &&
         a.strings == b.strings;
}

void FuzzChain(const turbozarr::fuzz::CodecCase& c, ByteView input) {
  Result<CodecChain> chain = CodecChain::FromJson(c.codec, c.spec);
  if (!chain.ok()) Fail(c.name, "the fixed codec configuration was rejected");
  using turbozarr::fuzz::RoundTrip;
  Result<ChunkArray> decoded = chain->Decode(input);
  if (!decoded.ok()) return;
  Result<turbozarr::Buffer> encoded = chain->Encode(*decoded);
  if (!encoded.ok()) {
    // A lossy filter may refuse what a decoder made (a value out of its range).
    if (c.round_trip == RoundTrip::kExact) Fail(c.name, "a decoded chunk does not encode");
    return;
  }
  Result<ChunkArray> again = chain->Decode(*encoded);
  if (!again.ok()) Fail(c.name, "an encoded chunk does not decode");
  switch (c.round_trip) {
    case RoundTrip::kExact:
      if (!SameChunk(*decoded, *again)) Fail(c.name, "decode(encode(x)) != x");
      break;
    case RoundTrip::kIdempotent: {
      // What one lossy round made, a second keeps.
      Result<turbozarr::Buffer> twice = chain->Encode(*again);
      if (!twice.ok()) Fail(c.name, "a round-tripped chunk does not encode");
      Result<ChunkArray> settled = chain->Decode(*twice);
      if (!settled.ok()) Fail(c.name, "a twice-encoded chunk does not decode");
      if (!SameChunk(*again, *settled)) Fail(c.name, "a second lossy round changed x");
      break;
    }
    case RoundTrip::kDecodes:
      break;
  }
}

void FuzzBytesCodec(const turbozarr::fuzz::CodecCase& c, ByteView input, bool sized) {
  auto codec = turbozarr::fuzz::MakeBytesCodec(c);
  if (!codec.ok()) Fail(c.name, "the fixed codec configuration was rejected");
  // Half the time the decoder is told the size to expect, as the chain does.
  std::optional<size_t> expected;
  if (sized) expected = static_cast<size_t>(c.spec.num_elements()) * c.spec.dtype.size();
  Result<turbozarr::Buffer> decoded = (*codec)->Decode(input, expected);
  if (!decoded.ok()) return;
  if (expected && decoded->size() != *expected) Fail(c.name, "ignored the expected size");
  Result<turbozarr::Buffer> encoded = (*codec)->Encode(*decoded);
  if (!encoded.ok()) Fail(c.name, "decoded bytes do not encode");
  Result<turbozarr::Buffer> again = (*codec)->Decode(*encoded, decoded->size());
  if (!again.ok()) Fail(c.name, "encoded bytes do not decode");
  if (!(*again == *decoded)) Fail(c.name, "decode(encode(x)) != x");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<turbozarr::fuzz::CodecCase> cases =
      turbozarr::fuzz::CodecCases();
  if (size == 0) return 0;
  const turbozarr::fuzz::CodecCase& c = cases[data[0] % cases.size()];
  const bool sized = (data[0] / cases.size()) % 2 == 1;
  ByteView input(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  if (c.chain) {
    FuzzChain(c, input);
  } else {
    FuzzBytesCodec(c, input, sized);
  }
  return 0;
}
