// Per-chunk cost of the read and write pipelines: arrays of many tiny chunks
// (so the codec's work is negligible) in a memory store and a local
// directory, reported as time per chunk (items) next to bytes per second.
// Single-threaded unless the benchmark name says otherwise, so the figure is
// the overhead itself rather than how well it parallelises.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench_data.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr::bench {
namespace {

using nlohmann::json;

constexpr int64_t kSide = 1024;  // a 1024 x 1024 int32 array
constexpr int64_t kChunk = 16;   // of 4096 chunks of 1 KiB
constexpr int64_t kChunks = (kSide / kChunk) * (kSide / kChunk);

ArrayMetadata Metadata(const json& codecs) {
  json doc = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {kSide, kSide}},
      {"data_type", "int32"},
      {"chunk_grid",
       {{"name", "regular"}, {"configuration", {{"chunk_shape", {kChunk, kChunk}}}}}},
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

// Args: {local store?, compressed?, threads}.
void BM_ReadManySmallChunks(benchmark::State& state) {
  ThreadPool::SetDefaultConcurrency(static_cast<int>(state.range(2)));
  auto store = MakeStore(state.range(0) != 0);
  auto array = *Array::Create(store, "a", Metadata(Codecs(state.range(1) != 0)));
  std::vector<int32_t> data = SmoothInt32(kSide * kSide);
  const Selection all = Selection::All({kSide, kSide});
  if (!array->Write(all, data.data()).ok()) std::abort();
  std::vector<int32_t> out(data.size());
  for (auto _ : state) {
    Status s = array->Read(all, out.data());
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  if (out != data) state.SkipWithError("read back differs");
  state.SetItemsProcessed(state.iterations() * kChunks);
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
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
  ThreadPool::SetDefaultConcurrency(static_cast<int>(state.range(2)));
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

}  // namespace
}  // namespace turbozarr::bench
