// Writes the seed corpus of shard_index_fuzzer into the directory given as
// the first argument: for every case of shard_fuzz_cases.h a shard the
// library encodes, and versions of it whose index lies in the ways the
// fuzzer should explore from (an entry past the end, over the index,
// overlapping another, half of the missing marker, an offset near 2^64, a
// bad checksum, a shard cut short), each prefixed by the case's selector
// byte.
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "seed_file.h"
#include "shard_fuzz_cases.h"

namespace {

using turbozarr::Buffer;
using turbozarr::ChunkArray;
using turbozarr::Result;
using turbozarr::ShardingCodec;
using turbozarr::fuzz::PreparedShardCase;
using Entries = std::vector<ShardingCodec::IndexEntry>;
using turbozarr::fuzz::WriteSeed;

constexpr uint64_t kMissing = ShardingCodec::IndexEntry::kMissing;

// Values that differ from the fill value almost everywhere, so that every
// inner chunk is stored.
ChunkArray SampleShard(const turbozarr::ArraySpec& spec) {
  ChunkArray chunk = ChunkArray::Filled(spec);
  if (spec.dtype.is_variable_length()) {
    for (size_t i = 0; i < chunk.strings.size(); ++i)
      chunk.strings[i] = "s" + std::to_string(i);
    return chunk;
  }
  for (size_t i = 0; i < chunk.bytes.size(); ++i) {
    chunk.bytes.data()[i] = static_cast<std::byte>(i * 37 + 1);
  }
  return chunk;
}

// `shard` with its index replaced by the encoding of `entries`.
Buffer WithIndex(const ShardingCodec& codec, const Buffer& shard,
                 const Entries& entries) {
  Buffer out = shard;
  Result<Buffer> index = codec.EncodeIndex(entries);
  if (!index.ok()) return out;
  const size_t n = codec.index_size();
  std::byte* at = codec.index_location() == ShardingCodec::IndexLocation::kStart
                      ? out.data()
                      : out.data() + out.size() - n;
  std::memcpy(at, index->data(), n);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_shard_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<turbozarr::fuzz::ShardCase> cases = turbozarr::fuzz::ShardCases();
  size_t written = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    PreparedShardCase c;
    turbozarr::Status prepared = turbozarr::fuzz::Prepare(cases[i], c);
    if (!prepared.ok()) {
      std::fprintf(stderr, "make_shard_seeds: %s\n", prepared.ToString().c_str());
      return 1;
    }
    Result<Buffer> full = c.chain.Encode(SampleShard(c.chain.spec()));
    Result<Buffer> empty = c.chain.Encode(ChunkArray::Filled(c.chain.spec()));
    if (!full.ok() || !empty.ok()) {
      std::fprintf(stderr, "make_shard_seeds: %s: %s\n", cases[i].name.c_str(),
                   (full.ok() ? empty.status() : full.status()).ToString().c_str());
      return 1;
    }
    const ShardingCodec& codec = c.codec();
    Result<Entries> index = codec.IndexOfShard(*full);
    if (!index.ok() || index->size() < 2) {
      std::fprintf(stderr, "make_shard_seeds: %s: the encoded shard has no sound index\n",
                   cases[i].name.c_str());
      return 1;
    }
    const Entries& good = *index;
    const uint64_t size = full->size();
    const auto selector = static_cast<unsigned char>(i);
    const auto repaired = static_cast<unsigned char>(i + cases.size());

    std::vector<std::pair<std::string, Buffer>> seeds;
    seeds.emplace_back("full", *full);
    seeds.emplace_back("empty", *empty);
    Entries e = good;
    e[0] = {};  // the first inner chunk missing, its bytes left in place
    seeds.emplace_back("some-missing", WithIndex(codec, *full, e));
    e = good;
    e[0] = {size, 1};
    seeds.emplace_back("past-the-end", WithIndex(codec, *full, e));
    e = good;
    e[1] = e[0];
    seeds.emplace_back("overlapping", WithIndex(codec, *full, e));
    e = good;
    e[0].offset = kMissing;
    seeds.emplace_back("half-missing", WithIndex(codec, *full, e));
    e = good;
    e[0] = {kMissing - 2, 8};
    seeds.emplace_back("overflowing", WithIndex(codec, *full, e));
    e = good;
    if (codec.index_location() == ShardingCodec::IndexLocation::kStart) {
      e[0].offset = 0;
    } else {
      e.back().nbytes += codec.index_size();
    }
    seeds.emplace_back("over-the-index", WithIndex(codec, *full, e));
    Buffer cut = *full;
    cut.Resize(codec.index_size() - 1);
    seeds.emplace_back("cut-short", cut);

    for (const auto& [variant, body] : seeds) {
      const std::string path = dir + "/" + cases[i].name + "-" + variant;
      if (!WriteSeed(path, selector, body)) {
        std::fprintf(stderr, "make_shard_seeds: cannot write %s\n", path.c_str());
        return 1;
      }
      ++written;
    }
    if (turbozarr::fuzz::IndexHasChecksum(codec)) {
      // A flipped checksum bit: refused as it stands, sound once repaired.
      Buffer flipped = *full;
      std::byte* last = codec.index_location() == ShardingCodec::IndexLocation::kStart
                            ? flipped.data() + codec.index_size() - 1
                            : flipped.data() + flipped.size() - 1;
      *last ^= std::byte{0x10};
      const std::string path = dir + "/" + cases[i].name + "-bad-checksum";
      if (!WriteSeed(path, selector, flipped) ||
          !WriteSeed(path + "-repaired", repaired, flipped)) {
        std::fprintf(stderr, "make_shard_seeds: cannot write %s\n", path.c_str());
        return 1;
      }
      written += 2;
    }
  }
  std::printf("make_shard_seeds: wrote %zu seeds to %s\n", written, dir.c_str());
  return 0;
}
