// Per-chunk cost of the read and write pipelines: arrays of many tiny chunks
// (so the codec's work is negligible) in a memory store and a local
// directory, reported as time per chunk (items) next to bytes per second.
// Single-threaded unless the benchmark name says otherwise, so the figure is
// the overhead itself rather than how well it parallelises. And the other
// end: a few huge uncompressed chunks on more threads than chunks, where the
// read splits every chunk into ranged parts. And a sharded read from a store
// with a round trip per request, as object stores have.
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_data.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr::bench {
namespace {

using nlohmann::json;

constexpr int64_t kSide = 1024;  // a 1024 x 1024 int32 array
constexpr int64_t kChunk = 16;   // of 4096 chunks of 1 KiB
constexpr int64_t kChunks = (kSide / kChunk) * (kSide / kChunk);

ArrayMetadata Metadata(const json& codecs, std::vector<int64_t> shape = {kSide, kSide},
                       std::vector<int64_t> chunks = {kChunk, kChunk}) {
  json doc = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", shape},
      {"data_type", "int32"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", chunks}}}}},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", 0},
      {"codecs", codecs}};
  Result<ArrayMetadata> m = ParseV3ArrayMetadata(doc, "micro-bench");
  if (!m.ok()) std::abort();
  return *m;
}

json Codecs(bool compressed) {
  json codecs =
      json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  if (compressed) {
    codecs.push_back(
        {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}});
  }
  return codecs;
}

std::shared_ptr<Store> MakeStore(bool local) {
  if (!local) return MakeMemoryStore();
  std::string dir = std::filesystem::temp_directory_path() / "tz-micro-bench";
  std::filesystem::remove_all(dir);
  return *MakeLocalStore(dir);
}

// Writes `data` to the whole of `array`, then times reading it back whole.
void TimeWholeReads(benchmark::State& state, Array& array,
                    const std::vector<int32_t>& data) {
  const Selection all = Selection::All(array.shape());
  if (!array.Write(all, data.data()).ok()) std::abort();
  std::vector<int32_t> out(data.size());
  for (auto _ : state) {
    Status s = array.Read(all, out);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  if (out != data) state.SkipWithError("read back differs");
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()) * 4);
}

// Args: {local store?, compressed?, threads}.
void BM_ReadManySmallChunks(benchmark::State& state) {
  if (!SetThreads(static_cast<int>(state.range(2))).ok()) std::abort();
  auto store = MakeStore(state.range(0) != 0);
  auto array = *Array::Create(store, "a", Metadata(Codecs(state.range(1) != 0)));
  TimeWholeReads(state, *array, SmoothInt32(kSide * kSide));
  state.SetItemsProcessed(state.iterations() * kChunks);
}
BENCHMARK(BM_ReadManySmallChunks)
    ->ArgNames({"local", "zstd", "threads"})
    ->Args({0, 0, 1})
    ->Args({0, 1, 1})
    ->Args({1, 0, 1})
    ->Args({1, 1, 1})
    ->Args({1, 1, 2})
    ->Unit(benchmark::kMillisecond);

void BM_WriteManySmallChunks(benchmark::State& state) {
  if (!SetThreads(static_cast<int>(state.range(2))).ok()) std::abort();
  auto store = MakeStore(state.range(0) != 0);
  auto array = *Array::Create(store, "a", Metadata(Codecs(state.range(1) != 0)));
  std::vector<int32_t> data = SmoothInt32(kSide * kSide);
  const Selection all = Selection::All({kSide, kSide});
  for (auto _ : state) {
    Status s = array->Write(all, data.data());
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * kChunks);
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_WriteManySmallChunks)
    ->ArgNames({"local", "zstd", "threads"})
    ->Args({0, 0, 1})
    ->Args({0, 1, 1})
    ->Args({1, 1, 1})
    ->Args({1, 1, 2})
    ->Unit(benchmark::kMillisecond);

// Args: {chunks, MiB per chunk, threads}: uncompressed chunks in a local
// directory (warm in the page cache), read whole.
void BM_ReadFewHugeChunks(benchmark::State& state) {
  const int64_t chunks = state.range(0);
  const int64_t rows = state.range(1) << 8;  // rows of 1024 int32 = 4 KiB
  if (!SetThreads(static_cast<int>(state.range(2))).ok()) std::abort();
  auto array = *Array::Create(
      MakeStore(true), "a", Metadata(Codecs(false), {chunks * rows, 1024}, {rows, 1024}));
  TimeWholeReads(state, *array, SmoothInt32(static_cast<size_t>(chunks * rows * 1024)));
}
BENCHMARK(BM_ReadFewHugeChunks)
    ->ArgNames({"chunks", "MiB", "threads"})
    ->Args({3, 32, 4})
    ->Args({3, 64, 4})
    ->Args({2, 64, 3})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Args: {threads}: 16 shards of 64 zstd inner chunks (16 MiB of int32 in
// all) in a memory store behind 10 ms of latency and 16 connections, read
// whole: the indexes and the merged ranges go in GetMany windows.
void BM_ReadShardedThroughLatency(benchmark::State& state) {
  if (!SetThreads(static_cast<int>(state.range(0))).ok()) std::abort();
  ThrottleOptions throttle;
  throttle.latency = std::chrono::milliseconds(10);
  throttle.connections = 16;
  auto store = MakeThrottledStore(MakeMemoryStore(), throttle);
  json codecs = json::array({{{"name", "sharding_indexed"},
                              {"configuration",
                               {{"chunk_shape", {64, 64}},
                                {"codecs", Codecs(true)},
                                {"index_codecs", Codecs(false)},
                                {"index_location", "end"}}}}});
  auto array = *Array::Create(store, "a", Metadata(codecs, {2048, 2048}, {512, 512}));
  TimeWholeReads(state, *array, SmoothInt32(2048 * 2048));
}
BENCHMARK(BM_ReadShardedThroughLatency)
    ->ArgNames({"threads"})
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace turbozarr::bench
