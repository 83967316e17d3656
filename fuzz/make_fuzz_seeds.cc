// Writes the seed corpus of codec_fuzzer into the directory given as the
// first argument: for every case a sample chunk encoded with that case's
// codec, prefixed by the byte that selects the case (once plain, once with
// the "expected size known" variant of the selector).
#include <cstdio>
#include <string>

#include "codec_fuzz_cases.h"
#include "seed_file.h"

namespace {

using turbozarr::Buffer;
using turbozarr::ChunkArray;
using turbozarr::Result;
using turbozarr::fuzz::WriteSeed;

ChunkArray SampleChunk(const turbozarr::ArraySpec& spec) {
  ChunkArray chunk = ChunkArray::Filled(spec);
  if (spec.dtype.is_variable_length()) {
    // Text for strings (vlen-utf8 refuses invalid UTF-8), any bytes for bytes.
    std::string last = spec.dtype.id() == turbozarr::DataTypeId::kString
                           ? std::string("h\xc3\xa9")
                           : std::string("\0\xff", 2);
    chunk.strings = {"", "a", "zarr", last};
    chunk.strings.resize(static_cast<size_t>(spec.num_elements()), "x");
    return chunk;
  }
  for (size_t i = 0; i < chunk.bytes.size(); ++i) {
    chunk.bytes.data()[i] = static_cast<std::byte>(i % 7 == 0 ? 0 : i * 37);
  }
  return chunk;
}

Result<Buffer> Encode(const turbozarr::fuzz::CodecCase& c) {
  ChunkArray chunk = SampleChunk(c.spec);
  if (c.chain) {
    Result<turbozarr::CodecChain> chain =
        turbozarr::CodecChain::FromJson(c.codec, c.spec);
    if (!chain.ok()) return chain.status();
    return chain->Encode(std::move(chunk));
  }
  auto codec = turbozarr::fuzz::MakeBytesCodec(c);
  if (!codec.ok()) return codec.status();
  return (*codec)->Encode(chunk.bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<turbozarr::fuzz::CodecCase> cases = turbozarr::fuzz::CodecCases();
  size_t failures = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    Result<Buffer> encoded = Encode(cases[i]);
    if (!encoded.ok()) {
      // A codec the library does not build yet: no seed, the fuzzer still
      // explores that case from scratch.
      std::fprintf(stderr, "make_fuzz_seeds: %s: %s\n", cases[i].name.c_str(),
                   encoded.status().ToString().c_str());
      ++failures;
      continue;
    }
    const std::string base = dir + "/" + cases[i].name;
    if (!WriteSeed(base, static_cast<unsigned char>(i), *encoded) ||
        !WriteSeed(base + "-sized", static_cast<unsigned char>(i + cases.size()),
                   *encoded)) {
      std::fprintf(stderr, "make_fuzz_seeds: cannot write %s\n", base.c_str());
      return 1;
    }
  }
  std::printf("make_fuzz_seeds: wrote %zu seeds to %s\n", 2 * (cases.size() - failures),
              dir.c_str());
  return 0;
}
