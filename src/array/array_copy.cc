// CopyArray (turbozarr/array_copy.h): unit by unit or in streamed blocks.
// CopyByUnits is a ParallelFor over the destination's storage units, each
// read and written by one thread. The reads and writes
// inside an item find themselves nested in the pool's ParallelFor and run
// inline, so a unit's decoding and encoding stay on its thread. Between two
// arrays sharded alike, a unit is re-encoded inner chunk by inner chunk
// instead (shard_transcode.h).
#include "turbozarr/array_copy.h"

#include <algorithm>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "array/copy_blocks.h"
#include "array/shard_transcode.h"
#include "turbozarr/element_block.h"
#include "turbozarr/selection.h"
#include "util/thread_pool.h"

namespace turbozarr {
namespace {

// The chunks of `metadata` that are decoded whole: the inner chunks of a
// sharded array, else its chunks.
std::vector<int64_t> DecodingUnit(const ArrayMetadata& metadata) {
  return metadata.InnerChunkShape().value_or(metadata.chunk_shape);
}

}  // namespace

bool CanCopyByUnits(const Array& source, const Array& dest) {
  if (source.shape() != dest.shape() || !(source.dtype() == dest.dtype())) return false;
  // Units are the regular grid's; a rectilinear grid copies block by block.
  if (!source.regular_grid() || !dest.regular_grid()) return false;
  // A unit per thread would keep as few requests in flight as there are
  // threads, where a remote store wants many (a block read asks for its
  // chunks in windows of them).
  if (source.store()->Capabilities().requests_in_flight >
      ThreadPool::Default()->concurrency()) {
    return false;
  }
  const std::vector<int64_t> from = DecodingUnit(source.metadata());
  const std::vector<int64_t>& to = dest.metadata().chunk_shape;
  if (from.size() != to.size()) return false;
  for (size_t d = 0; d < to.size(); ++d) {
    if (from[d] <= 0 || to[d] % from[d] != 0) return false;
  }
  return true;
}

Status CopyByUnits(const Array& source, Array& dest, const CopyOptions& options) {
  if (!CanCopyByUnits(source, dest)) {
    return Status::InvalidArgument(
        "cannot copy " + source.Describe() + " into " + dest.Describe() +
        " unit by unit: that needs the same shape and data type, destination shards "
        "(or chunks) made of whole chunks of the source, and a source store that "
        "wants no more requests in flight than there are threads");
  }
  const std::vector<int64_t>& shape = dest.shape();
  const std::vector<int64_t>& unit = dest.metadata().chunk_shape;
  const size_t rank = shape.size();
  std::vector<int64_t> counts(rank);
  int64_t num_units = 1;
  uint64_t unit_elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    counts[d] = (shape[d] + unit[d] - 1) / unit[d];
    num_units *= counts[d];
    unit_elements *= static_cast<uint64_t>(std::min(unit[d], shape[d]));
  }
  if (num_units == 0) return Status::OK();

  auto region = [&](int64_t i) {
    std::vector<DimRange> dims(rank);
    for (size_t d = rank; d-- > 0;) {
      const int64_t c = i % counts[d];
      i /= counts[d];
      dims[d].start = c * unit[d];
      dims[d].stop = std::min(shape[d], dims[d].start + unit[d]);
    }
    return Selection(std::move(dims));
  };

  const DataType& dtype = source.dtype();
  // Transcoding leaves out what the source does not store, which
  // write_empty_chunks asks to store.
  const bool transcode =
      !options.write.write_empty_chunks && internal::CanTranscodeShards(source, dest);
  std::mutex progress_mu;
  uint64_t copied = 0;
  auto copy_unit = [&](int64_t i) -> Status {
    const Selection selection = region(i);
    if (transcode) {
      TZ_RETURN_NOT_OK(internal::TranscodeShard(
          source, dest, PlanChunks(selection, shape, unit).front(), options.write));
    } else {
      ElementBlock elements(dtype, selection.num_elements());
      ReadOptions read;
      read.pool = options.write.pool;
      TZ_RETURN_NOT_OK(source.Read(selection, elements, read));
      TZ_RETURN_NOT_OK(dest.Write(selection, elements.data(), options.write));
    }
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      copied += selection.num_elements() * dtype.size();
      options.progress(copied);
    }
    return Status::OK();
  };

  // Held to the end: SetThreads may put another pool in its place meanwhile.
  const std::shared_ptr<ThreadPool> pool = ThreadPool::OrDefault(options.write.pool);
  const uint64_t unit_bytes = unit_elements * dtype.size();
  // Half the budget for the units decoded, half for their encoded forms.
  if (unit_bytes * static_cast<uint64_t>(pool->concurrency()) <=
      options.memory_budget / 2) {
    return pool->ParallelFor(num_units, copy_unit);
  }
  for (int64_t i = 0; i < num_units; ++i) TZ_RETURN_NOT_OK(copy_unit(i));
  return Status::OK();
}

namespace {

struct LoadedBlock {
  Selection selection;
  ElementBlock data;
};

// The streamed route of CopyArray: blocks read one ahead of the one being
// written.
Result<CopyReport> CopyInBlocks(const Array& source, Array& dest,
                                const CopyOptions& options) {
  const DataType& dtype = source.dtype();
  const internal::BlockGrid blocks(source.shape(), CopyBlockShape(source, dest, options));
  const std::optional<std::unordered_set<std::string>> stored =
      internal::StoredChunkKeys(source);

  // Reads block i, or nothing when the source stores no chunk there.
  auto load = [&](int64_t i) -> Result<std::optional<LoadedBlock>> {
    Selection selection = blocks.Block(i);
    if (stored && !internal::BlockHasStoredChunk(source, selection, *stored)) {
      return std::optional<LoadedBlock>();
    }
    ElementBlock data(dtype, selection.num_elements());
    ReadOptions read;
    read.pool = options.write.pool;
    TZ_RETURN_NOT_OK(source.Read(selection, data, read));
    return std::optional<LoadedBlock>(LoadedBlock{std::move(selection), std::move(data)});
  };

  CopyReport report;
  report.route = CopyReport::Route::kBlocks;
  report.total = blocks.size();
  uint64_t done = 0;
  std::future<Result<std::optional<LoadedBlock>>> next;
  if (blocks.size() > 0) next = std::async(std::launch::async, load, 0);
  for (int64_t i = 0; i < blocks.size(); ++i) {
    Result<std::optional<LoadedBlock>> current = next.get();
    if (!current.ok()) return current.status();
    // Read ahead while this block is encoded and written.
    if (i + 1 < blocks.size()) next = std::async(std::launch::async, load, i + 1);
    if (current->has_value()) {
      const LoadedBlock& block = **current;
      Status status = dest.Write(block.selection, block.data.data(), options.write);
      if (!status.ok()) {
        if (next.valid()) next.wait();
        return status;
      }
      ++report.written;
    }
    done += blocks.Block(i).num_elements() * dtype.size();
    if (options.progress) options.progress(done);
  }
  return report;
}

}  // namespace

std::vector<int64_t> CopyBlockShape(const Array& source, const Array& dest,
                                    const CopyOptions& options) {
  const std::vector<int64_t> src_unit = DecodingUnit(source.metadata());
  const std::vector<int64_t>& dst_unit = dest.metadata().chunk_shape;
  const uint64_t element_bytes = std::max(ElementMemoryEstimate(source.dtype()),
                                          ElementMemoryEstimate(dest.dtype()));
  auto bytes_of = [&](const std::vector<int64_t>& shape) {
    uint64_t n = element_bytes;
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);
    return n;
  };
  // The read of the next block and the write of this one each run on the
  // pool with their calling thread: concurrency + 1 threads hold buffers.
  const int threads = ThreadPool::OrDefault(options.write.pool)->concurrency();
  return internal::PlanCopyBlock(
      source.shape(), src_unit, dst_unit, element_bytes,
      internal::CopyBlockBudget(options.memory_budget, threads + 1, bytes_of(src_unit),
                                bytes_of(dst_unit)));
}

Result<CopyReport> CopyArray(const Array& source, Array& dest,
                             const CopyOptions& options) {
  if (source.shape() != dest.shape() || !(source.dtype() == dest.dtype())) {
    return Status::InvalidArgument("cannot copy " + source.Describe() + " into " +
                                   dest.Describe() +
                                   ": the arrays need the same shape and data type");
  }
  if (!CanCopyByUnits(source, dest)) return CopyInBlocks(source, dest, options);
  CopyReport report;
  report.route = CopyReport::Route::kUnits;
  CopyOptions units = options;
  units.progress = [&](uint64_t done) {  // called one at a time
    ++report.written;
    if (options.progress) options.progress(done);
  };
  TZ_RETURN_NOT_OK(CopyByUnits(source, dest, units));
  report.total = report.written;
  return report;
}

}  // namespace turbozarr
