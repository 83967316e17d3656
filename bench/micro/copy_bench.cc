// The copy kernels that move a chunk's share of a selection between a decoded
// chunk and the caller's array, against plain memcpy of the same bytes (the
// ceiling): a whole chunk, rows of a chunk, a column (strided innermost
// dimension) and a fill.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "turbozarr/buffer.h"
#include "util/strided_copy.h"

namespace turbozarr::bench {
namespace {

constexpr int64_t kSide = 1024;  // a 1024 x 1024 int32 chunk: 4 MiB
constexpr size_t kElem = 4;
constexpr size_t kBytes = kSide * kSide * kElem;

void BM_Memcpy(benchmark::State& state) {
  Buffer src(kBytes), dst(kBytes);
  std::memset(src.data(), 1, kBytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_Memcpy);

// The chunk lands in the middle of an output twice its width: one run per row.
void BM_CopyChunkIntoWiderBlock(benchmark::State& state) {
  Buffer src(kBytes), dst(2 * kBytes);
  std::memset(src.data(), 1, kBytes);
  const int64_t count[2] = {kSide, kSide};
  const int64_t src_strides[2] = {kSide * kElem, kElem};
  const int64_t dst_strides[2] = {2 * kSide * kElem, kElem};
  for (auto _ : state) {
    CopyStrided(src.data(), src_strides, dst.data() + kSide / 2 * kElem, dst_strides,
                count, 2, kElem);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_CopyChunkIntoWiderBlock);

// The whole chunk into a same-shaped block: merged into one memcpy.
void BM_CopyWholeChunk(benchmark::State& state) {
  Buffer src(kBytes), dst(kBytes);
  std::memset(src.data(), 1, kBytes);
  const int64_t count[2] = {kSide, kSide};
  const int64_t strides[2] = {kSide * kElem, kElem};
  for (auto _ : state) {
    CopyStrided(src.data(), strides, dst.data(), strides, count, 2, kElem);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_CopyWholeChunk);

// Every other element (a step of 2 along the last dimension): the strided
// innermost loop specialised for the element size.
void BM_CopyStridedInnermost(benchmark::State& state) {
  const size_t elem = static_cast<size_t>(state.range(0));
  Buffer src(kBytes), dst(kBytes / 2);
  std::memset(src.data(), 1, kBytes);
  const int64_t per_row = static_cast<int64_t>(kSide * kElem / elem);
  const int64_t count[2] = {kSide, per_row / 2};
  const int64_t src_strides[2] = {kSide * static_cast<int64_t>(kElem),
                                  2 * static_cast<int64_t>(elem)};
  const int64_t dst_strides[2] = {per_row / 2 * static_cast<int64_t>(elem),
                                  static_cast<int64_t>(elem)};
  for (auto _ : state) {
    CopyStrided(src.data(), src_strides, dst.data(), dst_strides, count, 2, elem);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes / 2));
}
BENCHMARK(BM_CopyStridedInnermost)->Arg(1)->Arg(2)->Arg(4)->Arg(8);

// Transposed access: one column of elements per output row (worst case).
void BM_CopyColumnMajorToRowMajor(benchmark::State& state) {
  Buffer src(kBytes), dst(kBytes);
  std::memset(src.data(), 1, kBytes);
  const int64_t count[2] = {kSide, kSide};
  const int64_t src_strides[2] = {kElem, kSide * kElem};
  const int64_t dst_strides[2] = {kSide * kElem, kElem};
  for (auto _ : state) {
    CopyStrided(src.data(), src_strides, dst.data(), dst_strides, count, 2, kElem);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_CopyColumnMajorToRowMajor);

void BM_FillRegion(benchmark::State& state) {
  Buffer dst(2 * kBytes);
  const int32_t value = -1;
  const int64_t count[2] = {kSide, kSide};
  const int64_t dst_strides[2] = {2 * kSide * kElem, kElem};
  for (auto _ : state) {
    FillStrided(dst.data(), dst_strides, count, 2,
                reinterpret_cast<const std::byte*>(&value), kElem);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_FillRegion);

}  // namespace
}  // namespace turbozarr::bench
