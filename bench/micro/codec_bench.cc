// Encode and decode rates of every compressor and checksum on one 1 MiB
// chunk of smooth int32 data, single-threaded: the per-core ceiling that the
// read and write pipelines multiply by the number of cores.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "bench_data.h"
#include "turbozarr/codec.h"

namespace turbozarr::bench {
namespace {

using nlohmann::json;

constexpr size_t kChunkBytes = size_t{1} << 20;

struct Case {
  const char* label;
  json codec;
};

const Case kCases[] = {
    {"zstd-1",
     {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}},
    {"zstd-5",
     {{"name", "zstd"}, {"configuration", {{"level", 5}, {"checksum", false}}}}},
    {"gzip-1", {{"name", "gzip"}, {"configuration", {{"level", 1}}}}},
    {"zlib-1", {{"name", "numcodecs.zlib"}, {"configuration", {{"level", 1}}}}},
    {"lz4", {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}}},
    {"bz2-1", {{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}}},
    {"blosc-lz4-shuffle",
     {{"name", "blosc"},
      {"configuration",
       {{"cname", "lz4"},
        {"clevel", 5},
        {"shuffle", "shuffle"},
        {"typesize", 4},
        {"blocksize", 0}}}}},
    {"blosc-zstd-bitshuffle",
     {{"name", "blosc"},
      {"configuration",
       {{"cname", "zstd"},
        {"clevel", 3},
        {"shuffle", "bitshuffle"},
        {"typesize", 4},
        {"blocksize", 0}}}}},
    {"crc32c", {{"name", "crc32c"}}},
};

std::shared_ptr<const BytesToBytesCodec> MakeOrDie(const json& j) {
  ArraySpec spec;
  spec.shape = {static_cast<int64_t>(kChunkBytes / 4)};
  spec.dtype = DataType::Sized(DataTypeId::kInt32, 4);
  spec.fill_value = DefaultFillValue(spec.dtype);
  Result<std::shared_ptr<const Codec>> c = MakeCodec(j, spec);
  if (!c.ok()) {
    std::fprintf(stderr, "%s: %s\n", j.dump().c_str(), c.status().ToString().c_str());
    std::abort();
  }
  return std::dynamic_pointer_cast<const BytesToBytesCodec>(*c);
}

void BM_Encode(benchmark::State& state, const Case* c) {
  auto codec = MakeOrDie(c->codec);
  Buffer input = SmoothBytes(kChunkBytes);
  size_t encoded = 0;
  for (auto _ : state) {
    Result<Buffer> out = codec->Encode(input.view());
    if (!out.ok()) state.SkipWithError(out.status().ToString().c_str());
    encoded = out->size();
    benchmark::DoNotOptimize(out->data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kChunkBytes));
  state.counters["ratio"] =
      static_cast<double>(kChunkBytes) / static_cast<double>(encoded);
}

void BM_DecodeInto(benchmark::State& state, const Case* c) {
  auto codec = MakeOrDie(c->codec);
  Buffer input = SmoothBytes(kChunkBytes);
  Result<Buffer> encoded = codec->Encode(input.view());
  if (!encoded.ok()) {
    state.SkipWithError(encoded.status().ToString().c_str());
    return;
  }
  Buffer out(kChunkBytes);
  for (auto _ : state) {
    Status s = codec->DecodeInto(encoded->view(), out.mutable_view());
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kChunkBytes));
}

int Register() {
  for (const Case& c : kCases) {
    benchmark::RegisterBenchmark((std::string("Encode/") + c.label).c_str(), BM_Encode,
                                 &c);
    benchmark::RegisterBenchmark((std::string("DecodeInto/") + c.label).c_str(),
                                 BM_DecodeInto, &c);
  }
  return 0;
}
const int registered = Register();

}  // namespace
}  // namespace turbozarr::bench
